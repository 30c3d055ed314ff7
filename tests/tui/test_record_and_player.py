"""Recording in the TUI (R, m) and the player (the bar, the caption pane, [ ] { } home, go to,
take over), driven through Textual's pilot on the real App.

Record → play: a recording made with the keys, played back by the headless player to its end,
gives byte for byte the state and the event log the live session had when recording stopped.
"""

from __future__ import annotations

import json

import pytest
from helpers import command, settle, type_text
from screen_text import screen_text

from ksandbox.recording.player import Player, load_recording_session
from ksandbox.recording.script import load_script
from ksandbox.resources import data_path
from ksandbox.tui.dialogs.goto import parse_position

SIZE = (140, 44)
NODE_FAILURE = str(data_path("sample_clusters") / "node-failure.recording.yaml")


def state(session) -> str:
    return json.dumps(session.view(), sort_keys=True)


def event_log(session) -> str:
    return "\n".join(f"{e.last_timestamp!r} {e.type} {e.reason} {e.involved_object.kind}/"
                     f"{e.involved_object.name} {e.message}"
                     for e in session.store.occurrences)


async def test_recorded_with_the_keys_and_played_back_gives_the_same_state(
        session, make, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.recording.yaml"
    app = make(session, record_to=out)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(12.3456)                      # a session that ran a while before recording
        await command(pilot, "cordon node-1")
        app.advance(7.777)
        await pilot.press("R")
        await settle(pilot)
        assert "● REC" in screen_text(app)
        started = app.recorder_controls.recorder.start
        app.advance(3.21)
        await command(pilot, "scale deployment web --replicas=5")
        await pilot.press("m")
        await settle(pilot)
        await type_text(pilot, "five replicas")
        await pilot.press("enter")
        await settle(pilot)
        app.advance(40.0004)
        await command(pilot, "fail node node-2")
        await pilot.press("m")
        await settle(pilot)
        await type_text(pilot, "node-2 down")
        await pilot.press("tab", "space", "shift+tab")  # a marker, not a caption
        await pilot.press("enter")
        await settle(pilot)
        app.advance(100.5)
        await pilot.press("R")
        await settle(pilot)
        assert "● REC" not in screen_text(app)
        live_state, live_events, stopped = state(app.session), event_log(app.session), \
            app.session.now
    text = out.read_text()
    assert "12.3456" not in text and "apiVersion: ksandbox/v1alpha2" in text
    rec, replay = load_recording_session(out)
    assert rec.start == started and replay.now == started
    assert rec.end == stopped
    assert [s.command for s in rec.steps if s.command] == [
        "kubectl scale deployment web --replicas=5", "ksandbox fail node node-2"]
    assert [s.caption for s in rec.steps if s.caption] == ["five replicas"]
    assert [s.marker for s in rec.steps if s.marker] == ["node-2 down"]
    # The state at the start is the state at the moment R was pressed (the cordon is in it).
    assert replay.store.get("Node", "node-1").spec.unschedulable
    player = Player(rec, replay)
    player.seek(rec.end)
    assert state(player.session) == live_state
    assert event_log(player.session) == live_events


async def test_m_without_recording_says_how_to_start(session, make):
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)  # the board on show first, as a person sees it before typing
        await pilot.press("m")
        await settle(pilot)
        assert any("R starts a recording" in n.message for n in app._notifications)


def _player_app(make, **opts):
    rec, session = load_recording_session(NODE_FAILURE)
    return make(session, recording=rec, **opts), rec


async def test_the_bar_and_the_caption_pane_follow_the_position(make):
    app, rec = _player_app(make)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "⏸ 00:00 / 11:00" in text and "step 0/" in text and "◆" in text
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert "Three workers" in screen_text(app)         # the caption pane, not a toast
        app.player_controls.seek_to(80)
        await settle(pilot)
        text = screen_text(app)
        assert "01:20 / 11:00" in text and "“Ready=Unknown" in text
        app.advance(20)                                    # the caption stays until the next
        await settle(pilot)
        assert "“Ready=Unknown" in screen_text(app)


@pytest.mark.parametrize("targets", [(400.0, 90.0, 660.0, 10.0), (200.0, 200.0, 0.0)])
async def test_seeking_in_the_tui_equals_playing(make, targets):
    """Seek-to-T equals play-to-T, through the App: forwards, backwards, the same T twice."""
    app, rec = _player_app(make)
    async with app.run_test(size=SIZE) as pilot:
        for t in targets:
            app.player_controls.seek_to(t)
            await settle(pilot)
            fresh_rec, fresh = load_recording_session(NODE_FAILURE)
            Player(fresh_rec, fresh).seek(t)
            assert app.session.now == t
            assert state(app.session) == state(fresh), f"seek to {t}"
            # The screens draw the swapped-in session (the header counts its nodes).
            ready = sum(n.ready == "True" for n in fresh.store.nodes())
            assert f"nodes {ready}/4" in screen_text(app)


async def test_keys_step_mark_restart_and_go_to(make):
    app, rec = _player_app(make)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_curly_bracket")          # next marker
        await settle(pilot)
        first_marker = min(t for t, _ in app.player.markers() if t > 0)
        assert app.session.now == first_marker
        await pilot.press("left_square_bracket")          # previous step
        await settle(pilot)
        assert app.session.now < first_marker
        await pilot.press("ctrl+g")
        await settle(pilot)
        inp = app.screen.query_one("#position")
        inp.value = "05:30"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.now == 330.0 and "05:30 / 11:00" in screen_text(app)
        await pilot.press("home")
        await settle(pilot)
        assert app.session.now == app.player.start


async def test_taking_over_goes_on_live_without_the_recording(make):
    app, rec = _player_app(make)
    async with app.run_test(size=SIZE) as pilot:
        app.player_controls.seek_to(100)
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.player is None and "● live" in screen_text(app)
        app.advance(600)
        assert not any(s.command == "ksandbox recover node node-2" for s in app.session.history)
        assert app.session.store.get("Node", "node-2").ready != "True"


async def test_a_command_while_playing_takes_over_first(make):
    app, rec = _player_app(make)
    async with app.run_test(size=SIZE) as pilot:
        app.player_controls.seek_to(20)
        await command(pilot, "cordon node-1")
        assert app.player is None
        assert app.session.store.get("Node", "node-1").spec.unschedulable


async def test_a_step_failing_during_playback_pauses_and_shows_the_error(session, make,
                                                                         tmp_path):
    path = tmp_path / "bad-step.recording.yaml"
    path.write_text("apiVersion: ksandbox/v1alpha2\nkind: Recording\ntitle: t\n"
                    "cluster: default\nsteps:\n"
                    "  - {at: 2, command: kubectl cordon node-99}\n"
                    "  - {at: 9, command: kubectl cordon node-1}\n")
    rec = load_script(path)
    app = make(session, recording=rec, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        app.pacer.tick(0.25)            # ticks as the timer would, until the step runs
        for _ in range(20):
            app.pacer.tick(0.25)
            app.publish()
        await settle(pilot)
        assert app.pacer.paused and app.session.now < 9
        assert 'nodes "node-99" not found' in screen_text(app)


def test_positions_a_user_types():
    assert parse_position("05:30") == 330 and parse_position("1:02:03") == 3723
    assert parse_position("T+00:05:30") == 330 and parse_position("330") == 330
    assert parse_position("+30", 100) == 130 and parse_position("-1:00", 100) == 40
    with pytest.raises(ValueError, match="expected a time"):
        parse_position("soon")
    with pytest.raises(ValueError, match="up to 59"):
        parse_position("05:75")


def test_record_refuses_an_output_it_cannot_write(tmp_path, capsys):
    from ksandbox.cli import main

    assert main(["record", "-o", str(tmp_path / "no" / "such" / "out.yaml")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: -o ") and err.count("\n") == 1


async def test_dot_steps_a_playing_recording_across_its_checkpoints(make):
    """`.` while a recording plays: the stepper watches the session from outside, so the
    player's checkpoints (forks) taken on the way leave it out."""
    app, rec = _player_app(make)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        for _ in range(6):
            await pilot.press("full_stop")
            await settle(pilot)
        assert app.session.now > 300
        assert len(app.player.checkpoints) > 1
        assert not any("stopped" in n.message for n in app._notifications)


async def test_ctrl_s_saves_an_svg_screenshot(session, make, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.advance(65)
        await pilot.press("ctrl+s")
        await settle(pilot)
        shots = list(tmp_path.glob("*.svg"))
        assert [p.name for p in shots] == ["ksandbox-cluster-0105-1.svg"]
        svg = shots[0].read_text()
        assert svg.startswith("<svg") and "T+00:01:05" in svg.replace("&#160;", " ")
        assert any("Screenshot saved" in n.message for n in app._notifications)
