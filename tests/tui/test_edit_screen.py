"""`:edit TYPE NAME`: kubectl edit's editor inside the app (kubectl
pkg/cmd/util/editor/editoptions.go outcomes): ctrl+s saves through `kubectl edit` with the
text as stdin (recorded with it), a refused save stays open with kubectl's reasons at the top,
esc cancels."""

from __future__ import annotations

from helpers import command, settle

from ksandbox.commands.edit import HEADER
from ksandbox.tui.screens.edit import EditScreen


def _image(app):
    return app.session.store.get("Deployment", "web", "default").spec.template.spec \
        .containers[0].image


async def test_edit_saves_through_kubectl_edit(make, session):
    app = make(session)
    async with app.run_test(size=(140, 45)) as pilot:
        await command(pilot, "edit deploy web")
        screen = app.screen
        assert isinstance(screen, EditScreen)
        assert screen.text.startswith(HEADER)
        assert screen.text[len(HEADER):] == app.session.submit(
            "kubectl get deploy web -o yaml", record=False).output
        old = _image(app)
        area = screen.query_one("#edit-text")
        area.text = screen.text.replace(f"image: {old}", "image: nginx:9.9")
        app.advance(5)        # the cluster moves on while the editor is open: no conflict
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, EditScreen)
        assert _image(app) == "nginx:9.9"
        assert app.last_result.output == "deployment.apps/web edited\n"
        step = app.session.history[-1]
        assert step.command == "kubectl edit deploy web" and "nginx:9.9" in step.stdin


async def test_a_refused_save_stays_open_with_kubectls_reasons(make, session):
    app = make(session)
    async with app.run_test(size=(140, 45)) as pilot:
        await command(pilot, "edit deploy web")
        screen = app.screen
        before = app.session.store.resource_version
        area = screen.query_one("#edit-text")
        area.text = screen.text.replace("  replicas: 3", "  replicas: -1")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen and "replicas: -1" in screen.text
        reasons = str(screen.query_one("#edit-reasons").render())
        assert '# deployments.apps "web" was not valid:' in reasons
        assert "# * spec.replicas: Invalid value: -1: must be greater than or equal to 0" in reasons
        assert app.session.store.resource_version == before
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, EditScreen)
        assert any("Edit cancelled, no valid changes were saved." in str(n.message)
                   for n in app._notifications)


async def test_esc_cancels_and_a_missing_object_is_kubectls_not_found(make, session):
    app = make(session)
    async with app.run_test(size=(140, 45)) as pilot:
        before = app.session.store.resource_version
        await command(pilot, "edit deploy web")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, EditScreen)
        await command(pilot, "edit deploy nope")
        assert not isinstance(app.screen, EditScreen)
        messages = [str(n.message) for n in app._notifications]
        assert "Edit cancelled, no changes made." in messages
        assert 'Error from server (NotFound): deployments.apps "nope" not found' in messages
        assert app.session.store.resource_version == before
