"""The pod list (`:po`) is kept when it closes and shown again by the next `:po` (k9s keeps
its views: internal/view/browser.go's Browser is reused across `:pod` commands, its filter
and sort reset by the command). Reopened, it must look exactly as a new one would: no row
that is gone, not the last filter, sort, marks or wide columns, the cursor on the first row
— in every frame, the first one included."""

from __future__ import annotations

from helpers import command, settle
from screen_text import screen_text

from ksandbox.tui.screens.resources import ResourceScreen

SIZE = (160, 40)


def _record_frames(app, screen):
    """Every frame written for ``screen`` once it has been readied again (reopen), as text.
    (A frame of the list on show before the command ran is not the reopened list's.)"""
    frames: list[str] = []
    real_display = app._display
    real_reopen = screen.reopen
    reopened = []

    def reopen(*args, **kwargs):
        reopened.append(True)
        return real_reopen(*args, **kwargs)

    def display(shown, renderable):
        if reopened and shown is screen and renderable is not None:
            frames.append(screen_text(app))
        return real_display(shown, renderable)

    screen.reopen = reopen
    app._display = display
    return frames


async def _command_recorded(app, pilot, screen, line: str) -> list[str]:
    """Like helpers.command, with the frames of ``screen`` recorded from the enter on."""
    await pilot.press("colon")
    app.screen.query_one("#command-input").value = line
    frames = _record_frames(app, screen)
    await pilot.press("enter")
    await settle(pilot)
    return frames


def _title_line(text: str) -> str:
    return next(line for line in text.splitlines() if "pods(" in line)


async def _used_then_closed(app, pilot) -> ResourceScreen:
    """`:po`, filtered, sorted by age reversed, wide, a row marked, the cursor moved; then
    `:deploy` in its place. Returns the pod list."""
    await command(pilot, "po")
    kept = app.screen
    assert isinstance(kept, ResourceScreen) and kept.kind == "Pod"
    await pilot.press("slash", "w", "e", "b", "enter")
    await pilot.press("A", "A", "ctrl+w", "ctrl+space", "down")
    await settle(pilot)
    text = screen_text(app)
    assert "</web>" in text and "AGE↓" in text and "NOMINATED NODE" in text
    assert "marked:1" in text and kept.table.cursor == 2  # marking moves down too
    await command(pilot, "deploy")
    assert app.screen is not kept and kept not in app.screen_stack
    return kept


async def test_a_reopened_pod_list_shows_the_cluster_now_as_a_new_one_would(session, make):
    """Closed with a filter, a reversed sort, wide columns and a mark, while a pod is deleted
    and another created: `:po` shows the same screen object again, and none of its frames
    shows the gone pod, the filter, the sort, the columns or the mark; the new pod is there.
    The settled screen is the text a new app's first `:po` shows of the same cluster."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(10)
        await settle(pilot)
        kept = await _used_then_closed(app, pilot)

        app.submit("kubectl delete pod quick-evict --grace-period=0 --force", quiet=True)
        app.submit("kubectl scale deployment/web --replicas=4", quiet=True)
        app.advance(30)
        await settle(pilot)
        store = app.session.store
        assert store.get("Pod", "quick-evict", "default") is None
        names = {p.metadata.name for p in store.list("Pod")}
        web = sorted(n for n in names if n.startswith("web-"))
        assert len(web) == 4

        frames = await _command_recorded(app, pilot, kept, "po")
        assert app.screen is kept  # the same view, not a new one
        app.clear_notifications()
        await settle(pilot)
        assert frames, "the reopened list was never drawn"
        for text in frames:
            assert "quick-evict" not in text
            assert "</web>" not in text and "web>" not in text
            assert "AGE↓" not in text and "AGE↑" not in text and "NAMESPACE↑" in text
            assert "NOMINATED NODE" not in text and "marked" not in text
            assert f"pods(all)[{len(names)}]" in _title_line(text)
            assert all(name in text for name in web)
            assert "kube-proxy" in text  # not narrowed to the last filter
        assert kept.table.cursor == 0 and not kept.table.marked
        assert kept.focused is kept.table
        reopened = screen_text(app)

    fresh = make(session)
    async with fresh.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await command(pilot, "po")
        await settle(pilot)
        assert screen_text(fresh) == reopened


async def test_reopened_for_another_namespace_or_a_filter_shows_only_those(session, make):
    """`:po kube-system` in place of the pod list and `:po /web` from the board show the kept
    list with that namespace's pods only (no NAMESPACE column, as kubectl without -A), then
    with that filter only — from the first frame."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(10)
        await settle(pilot)
        kept = await _used_then_closed(app, pilot)
        await command(pilot, "po")
        assert app.screen is kept
        store = app.session.store
        system = {p.metadata.name for p in store.list("Pod", "kube-system")}
        default = {p.metadata.name for p in store.list("Pod", "default")}
        assert system and default

        frames = await _command_recorded(app, pilot, kept, "po kube-system")
        assert app.screen is kept
        assert frames
        for text in frames:
            assert f"pods(kube-system)[{len(system)}]" in _title_line(text)
            assert not any(name in text for name in default)
            assert "NAMESPACE" not in text and "NAME↑" in text

        await pilot.press("escape")  # back to the board
        await settle(pilot)
        assert app.screen.view_name == "board"
        frames = await _command_recorded(app, pilot, kept, "po /web")
        assert app.screen is kept and frames
        web = {n for n in default if n.startswith("web-")}
        for text in frames:
            assert f"pods(all)[{len(web)}] </web>" in _title_line(text)
            assert all(name in text for name in web)
            assert "kube-proxy" not in text and "gpu-pod" not in text


async def test_a_drilled_pod_list_is_new_and_the_kept_one_stays(session, make):
    """A node's pods (enter on the board) are a list of their own; `:po` from above the kept
    list while it is on the stack makes a new one rather than pushing it twice."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "po")
        kept = app.screen
        await pilot.press("d")  # describe the selected pod, over the list
        await settle(pilot)
        assert app.screen is not kept and kept in app.screen_stack
        await command(pilot, "po")
        assert isinstance(app.screen, ResourceScreen) and app.screen is not kept
        assert app.screen_stack.count(kept) == 1


async def test_the_list_built_ahead_fills_in_slices_and_is_what_po_shows(session, make,
                                                                         monkeypatch):
    """With the real clock the app builds its pod list off screen in idle time
    (prebuild_pod_list): its rows are read and its texts gathered in slices (keys typed on
    the board meanwhile never wait for a 30,000-row block); the first `:po` shows that list,
    with the rows of the cluster then, as a new one would."""
    from ksandbox.tui.screens import resources
    from ksandbox.tui.widgets import resource_table

    monkeypatch.setattr(resource_table, "WARM_ROWS", 1)
    monkeypatch.setattr(resource_table, "WARM_SLICE", 3)
    monkeypatch.setattr(resource_table, "SLICE", 4)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(10)
        await settle(pilot)
        sliced = []
        real = resource_table.ResourceTable._rebuild_in_slices

        def counted(self, items):
            sliced.append(len(items))
            return real(self, items)

        monkeypatch.setattr(resource_table.ResourceTable, "_rebuild_in_slices", counted)
        resources.prebuild_pod_list(app)
        ahead = resources._KEPT[app]
        for _ in range(200):
            await pilot.pause()
            if ahead.is_mounted and not ahead.table._reloading and ahead.table._rows.texts:
                break
        assert ahead.is_mounted and ahead not in app.screen_stack
        table = ahead.table
        store = app.session.store
        assert sliced == [len(store.list("Pod"))] and not table._reloading
        assert table._rows.texts is not None, "texts gathered ahead"
        assert [column for column, _ in table._orders] == ["NAMESPACE"]
        app.submit("kubectl delete pod quick-evict --grace-period=0 --force", quiet=True)
        app.advance(5)
        frames = await _command_recorded(app, pilot, ahead, "po")
        assert app.screen is ahead and frames
        names = {p.metadata.name for p in store.list("Pod")}
        for text in frames:
            assert "quick-evict" not in text
            assert f"pods(all)[{len(names)}]" in _title_line(text)
        assert not table.in_background  # on show: rebuilt at once from now on
        # Built ahead, it prepared no other column's order; on show, it does.
        await settle(pilot, 10)
        for _ in range(40):
            await pilot.pause()
        assert {column for column, _ in table._orders} == {
            "NAMESPACE", "NAME", "STATUS", "AGE", "NODE"}
