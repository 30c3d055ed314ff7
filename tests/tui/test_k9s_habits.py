"""Issue 9 item 6: k9s habits — ctrl+w wide columns, shift+o sort by node, '-' back to the
previous view, ctrl+a aliases, breadcrumbs of the view stack (k9s: internal/ui keys)."""

from __future__ import annotations

from helpers import command, settle
from screen_text import screen_text

from ksandbox.tui.screens.resources import ResourceScreen
from ksandbox.tui.screens.text import TextScreen


async def test_wide_sort_by_node_previous_view_aliases_and_breadcrumbs(session, make):
    app = make(session)
    async with app.run_test(size=(200, 40)) as pilot:
        app.advance(10)
        await command(pilot, "po")
        table = app.screen.table
        assert "NOMINATED NODE" not in screen_text(app)
        await pilot.press("ctrl+w")
        await settle(pilot)
        assert table.wide and "NOMINATED NODE" in screen_text(app)
        assert "pods(all)" in screen_text(app) and "board > pods(all)" in screen_text(app)
        await pilot.press("O")
        await settle(pilot)
        nodes = [table.object_at(i).spec.node_name for i in range(table.row_count())]
        assert table.sort_column == "NODE" and nodes == sorted(nodes)
        await command(pilot, "deploy")
        assert isinstance(app.screen, ResourceScreen) and app.screen.kind == "Deployment"
        await pilot.press("minus")
        await settle(pilot)
        assert app.screen.kind == "Pod"
        await pilot.press("ctrl+a")
        await settle(pilot)
        assert isinstance(app.screen, TextScreen)
        text = screen_text(app)
        assert "RESOURCE" in text and "SHORTNAMES" in text and "po" in text


async def test_marks_then_cordon_acts_on_every_marked_node(session, make):
    """ctrl+space marks rows (space pauses); c cordons every marked node and only those."""
    app = make(session)
    async with app.run_test(size=(160, 40)) as pilot:
        await command(pilot, "no")
        table = app.screen.table
        names = [table.object_at(i).metadata.name for i in range(table.row_count())]
        await pilot.press("ctrl+space")   # marks row 0, moves down
        await pilot.press("down")
        await pilot.press("ctrl+space")   # marks row 2
        await settle(pilot)
        assert len(table.marked) == 2 and "marked:2" in screen_text(app)
        await pilot.press("c")
        await settle(pilot)
        store = app.session.store
        cordoned = {n for n in names if store.get("Node", n).spec.unschedulable}
        assert cordoned == {names[0], names[2]}
        assert not table.marked


async def test_marks_then_ctrl_d_deletes_every_marked_pod_after_one_confirm(session, make):
    app = make(session)
    async with app.run_test(size=(160, 40)) as pilot:
        app.advance(10)
        await command(pilot, "po default")
        table = app.screen.table
        keys = [table.row_key(i) for i in range(2)]
        await pilot.press("ctrl+space", "ctrl+space")
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "Delete 2 marked pods?" in screen_text(app)
        app.screen.query_one("#ok").press()
        await settle(pilot)
        store = app.session.store
        for ns, name in keys:
            pod = store.get("Pod", name, ns)
            assert pod is None or pod.metadata.deletion_timestamp is not None


async def test_a_message_said_again_is_shown_once_with_its_time_restarted(session, make):
    """k9s says a flash message on one line; a key pressed three times that does nothing used
    to stack three identical toasts."""
    app = make(session)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        first = [n for n in app._notifications if "'b' does nothing" in n.message]
        await pilot.press("b", "b")
        await settle(pilot)
        said = [n for n in app._notifications if "'b' does nothing" in n.message]
        assert len(first) == 1 and len(said) == 1
        assert said[0].raised_at >= first[0].raised_at and said[0] is not first[0]
        assert screen_text(app).count("'b' does nothing") == 1
        await pilot.press("z")                       # another message stands beside it
        await settle(pilot)
        text = screen_text(app)
        assert text.count("'b' does nothing") == 1 and text.count("'z' does nothing") == 1


async def test_a_message_said_as_another_runs_out_leaves_the_app_running(session, make):
    """Textual's notifications drop the expired ones whenever they are listed or counted: one
    that ran out between the two while a new message came (list() does both) changed the
    collection under its iterator, and the app ended with a RuntimeError."""
    from textual.app import Notify
    from textual.notifications import Notification

    class RunsOutAtTheSecondLook:
        identity, message, title, severity = "runs-out", "old", "", "information"
        looks = 0

        @property
        def has_expired(self) -> bool:
            self.looks += 1
            return self.looks > 1

    app = make(session)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await settle(pilot)
        old = RunsOutAtTheSecondLook()
        app._notifications._notifications[old.identity] = old
        app._on_notify(Notify(Notification("new")))
        assert old.looks >= 1


async def test_minus_after_drilling_goes_back_to_the_view_drilled_from(session, make):
    """k9s's '-' (last view, as cd -) after enter on a Deployment: back to the Deployments as
    they were, and '-' again into the Deployment's pods. It said "No previous view" (the
    drill did not count as a view change)."""
    app = make(session)
    async with app.run_test(size=(160, 40)) as pilot:
        app.advance(10)
        await command(pilot, "deploy")
        deploys = app.screen
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.kind == "Pod" and app.screen.owner is not None
        owner = app.screen.owner
        await pilot.press("minus")
        await settle(pilot)
        assert app.screen is deploys
        assert "No previous view" not in screen_text(app)
        await pilot.press("minus")
        await settle(pilot)
        assert app.screen.kind == "Pod" and app.screen.owner == owner
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is deploys
