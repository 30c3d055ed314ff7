"""What-if keys in the app (Pilot): `w` forks a named branch, the hidden branch keeps the same
clock, `W` switches, `D` draws the same diff as ``ksandbox diff``, `ctrl+z` undoes."""

from __future__ import annotations

from helpers import settle, shows
from screen_text import TerminalMirror, screen_lines

from ksandbox.recording.diff import diff_sessions


async def fork(pilot, name: str | None = None) -> None:
    await pilot.press("w")
    await settle(pilot)
    if name is not None:
        pilot.app.screen.query_one("#branch-name").value = name
    await pilot.press("enter")
    await settle(pilot)


async def test_the_fork_dialogs_sentence_wraps_whole_at_80_columns(make, session):
    # It is wider than the dialog: it was cut at "D comp" at every terminal size.
    app = make(session)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        lines = screen_lines(app)
        first = next(i for i, line in enumerate(lines) if "Both branches" in line)

        def inside(line: str) -> str:   # the dialog's text, between its two borders
            return line.split("█")[1].strip()

        sentence = f"{inside(lines[first])} {inside(lines[first + 1])}".strip()
        assert sentence == "Both branches run on one clock from here; W switches, D compares."


async def test_w_forks_a_named_branch_that_runs_on_the_same_clock(make, session):
    app = make(session)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.advance(5)
        await fork(pilot, "cordoned")
        assert app.whatif.set.names == ["main", "cordoned"]
        assert app.header_state().branch == "cordoned" and shows(app, "⑂ cordoned")
        main = app.whatif.set.get("main")
        assert app.session is not main.session and app.session.now == 5.0
        app.submit("kubectl cordon node-1")
        app.advance(30)
        assert main.session.now == app.session.now == 35.0
        assert main.session.store.get("Node", "node-1").spec.unschedulable is False
        assert app.session.store.get("Node", "node-1").spec.unschedulable is True

        await pilot.press("D")
        await settle(pilot)
        assert shows(app, "diff: cordoned (A) vs main (B)")
        d = diff_sessions(app.session, main.session, ("cordoned", "main"))
        assert any(n["name"] == "node-1" and "unschedulable" in n["differences"]
                   for n in d["nodes"])
        assert shows(app, "cordoned") and shows(app, "schedulable")
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("W")
        await settle(pilot)
        assert shows(app, "Branches (enter switches)")
        await pilot.press("up", "enter")
        await settle(pilot)
        assert app.whatif.set.active.name == "main" and app.session is main.session
        assert shows(app, "⑂ main")


async def test_ctrl_z_goes_back_to_the_moment_before_the_last_command(make, session):
    app = make(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.advance(10)
        app.submit("kubectl cordon node-2")
        app.advance(20)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.now == 10.0 and app.session.history == []
        assert app.session.store.get("Node", "node-2").spec.unschedulable is False
        assert app.pacer.paused
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert any("nothing to undo" in n.message for n in app._notifications)


async def test_d_without_a_branch_says_how_to_make_one(make, session):
    app = make(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        assert any("press w to fork a branch" in n.message for n in app._notifications)


async def test_a_fork_of_a_playing_recording_is_live_while_the_recording_plays_on(make):
    """Forking at 5 s, before the recording fails node-2 at 10 s: the recording goes on in
    main (node-2 Unknown after the 50 s grace), the branch is live and node-2 stays Ready."""
    from ksandbox.recording.player import load_recording_session
    from ksandbox.resources import data_path

    rec, session = load_recording_session(
        data_path("sample_clusters") / "node-failure.recording.yaml")
    app = make(session, recording=rec)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.advance(5)
        await fork(pilot, "no-failure")
        assert app.player is None and app.whatif.label == "no-failure"
        app.advance(100)
        main = app.whatif.set.get("main")
        assert main.session.now == app.session.now == 105.0
        assert main.session.store.get("Node", "node-2").ready == "Unknown"
        assert app.session.store.get("Node", "node-2").ready == "True"
        d = diff_sessions(app.session, main.session)
        assert any(n["name"] == "node-2" and "ready" in n["differences"] for n in d["nodes"])
        await pilot.press("W")
        await settle(pilot)
        await pilot.press("up", "enter")
        await settle(pilot)
        assert app.player is main.playback and app.session is main.session


async def test_the_branch_list_follows_the_clock_while_it_is_open(make, session):
    """W's list shows each branch's time; the branches run on while it is open, and the list
    says so (it kept the times of the moment it opened)."""
    app = make(session)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.advance(5)
        await fork(pilot, "other")
        await pilot.press("W")
        await settle(pilot)
        mirror = TerminalMirror(app)   # what the terminal shows, not a fresh render
        assert "● other            T+00:00:05" in "\n".join(mirror.lines())
        app.advance(30)
        await settle(pilot)
        drawn = "\n".join(mirror.lines())
        assert "● other            T+00:00:35" in drawn
        assert "  main             T+00:00:35" in drawn
