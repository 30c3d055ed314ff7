"""The one playback loop, recordings from the middle of a session, checkpoints and seek.

Seek must equal play: the state (and event log) at T reached by seeking — forwards or
backwards, from any position — is byte for byte the state of a fresh playback to T.
"""

from __future__ import annotations

import json

import pytest

from ksandbox.recording.player import Player, dump_recording, load_recording_session
from ksandbox.recording.playback import Playback
from ksandbox.recording.script import ScriptStep, parse_script, run_script
from ksandbox.resources import data_path
from ksandbox.session import Session, ceil_ms

NODE_FAILURE = str(data_path("sample_clusters") / "node-failure.recording.yaml")


def state(session) -> str:
    return json.dumps(session.view(), sort_keys=True)


def fresh(t: float) -> str:
    rec, session = load_recording_session(NODE_FAILURE)
    Playback(session, rec.steps).advance_to(t)
    return state(session)


def test_clock_now_cannot_be_set_from_outside():
    s = Session()
    with pytest.raises(AttributeError):
        s.clock.now = 5.0


def test_a_fork_goes_on_exactly_as_the_session_and_as_a_replay():
    s = Session.from_files([str(data_path("sample_clusters") / "node-failure.yaml")], seed=1)
    s.run_until(5)
    s.submit("ksandbox fail node node-2")
    s.run_until(100)
    fork = s.fork()
    slow = s.replay(until=100)
    for x in (s, fork, slow):
        x.run_until(500)
    assert state(fork) == state(s) == state(slow)
    assert len(fork.history) == 1 and fork.store is not s.store


def test_a_fork_leaves_observers_out():
    s = Session()
    seen = []
    s.observe(seen.append)
    f = s.fork()
    ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n"
    assert f.submit("kubectl apply -f -", ns % "other").ok
    assert seen == []
    assert s.submit("kubectl apply -f -", ns % "mine").ok
    assert len(seen) == 1


def test_commands_run_at_whole_milliseconds():
    s = Session.from_files([str(data_path("sample_clusters") / "default.yaml")])
    s.run_until(12.3456789)
    assert s.submit("kubectl cordon node-1").ok
    assert s.history[-1].at == 12.346 == s.now
    assert ceil_ms(0.3) == 0.3 and ceil_ms(2.0001) == 2.001


@pytest.mark.parametrize("targets", [
    (700.0, 80.0, 400.5, 10.0, 650.0),     # backwards and forwards
    (106.0, 106.0, 0.0, 376.0),            # the same time twice, the start
    (30.0, 90.0, 200.0, 660.0),            # forwards only
])
def test_seek_equals_play(targets):
    rec, session = load_recording_session(NODE_FAILURE)
    player = Player(rec, session, checkpoint_every=50.0)
    for t in targets:
        player.seek(t)
        assert player.now == t
        assert state(player.session) == fresh(t), f"seek to {t}"


def test_checkpoints_follow_the_work_and_are_thinned_out(monkeypatch):
    """Checkpoints every N clock callbacks (a busy cluster gets them closer together), at most
    MAX_CHECKPOINTS of them (every other one dropped past it); seek still equals play."""
    import ksandbox.recording.player as player_module

    monkeypatch.setattr(player_module, "MAX_CHECKPOINTS", 6)
    rec, session = load_recording_session(NODE_FAILURE)
    player = Player(rec, session, checkpoint_every=1e9, checkpoint_work=25)
    player.seek(400)
    times = player.checkpoints
    assert 3 <= len(times) <= 6 and times[0] == 0.0
    assert all(t % player_module.SLICE == 0 for t in times)
    for t in (390.5, 20.0, 333.0, 120.25):
        player.seek(t)
        assert state(player.session) == fresh(t), f"seek to {t}"


def test_the_player_steps_markers_and_captions():
    rec, session = load_recording_session(NODE_FAILURE)
    player = Player(rec, session)
    assert player.step_forward() == 0.0 and "Three workers" in player.caption
    assert player.step_forward() == 10.0
    assert player.session.store.get("Node", "node-2") is not None
    player.seek(80)
    assert player.caption.startswith("Ready=Unknown")
    assert player.step_back() == 70.0 and player.caption.startswith("Ready=Unknown")
    assert player.next_marker() == 660.0
    assert player.previous_marker() == player.start == 0.0
    assert player.caption.startswith("Three workers")


def test_taking_over_keeps_the_state_and_drops_the_rest():
    rec, session = load_recording_session(NODE_FAILURE)
    player = Player(rec, session)
    player.seek(100)
    live = player.take_over()
    live.run_until(700)
    assert not any(s.command == "ksandbox recover node node-2" for s in live.history)


def test_recording_from_the_middle_of_a_session_plays_to_the_same_state(tmp_path):
    s = Session.from_files([str(data_path("sample_clusters") / "node-failure.yaml")], seed=4)
    s.run_until(3.25)
    s.submit("kubectl cordon node-1")
    s.run_until(40.123456)
    start_index, start = len(s.history), ceil_ms(s.now)
    s.run_until(start)
    s.run_until(41.7)
    s.submit("ksandbox fail node node-2")
    s.run_until(130.0)
    text = dump_recording(s, title="mid", start_index=start_index, start=start,
                          captions=[(50.0004, "waiting")], markers=[(120.0, "taints")])
    assert "40.123456" not in text and "\n  at: 40.124\n" in text
    path = tmp_path / "mid.recording.yaml"
    path.write_text(text)
    rec, replay = load_recording_session(path)
    assert replay.now == 40.124 and [st.command for st in rec.steps if st.command] == [
        "ksandbox fail node node-2"]
    assert rec.steps[0].at == 41.7
    assert [(st.at, st.caption or st.marker) for st in rec.steps[1:]] == [
        (50.0, "waiting"), (120.0, "taints")]
    Playback(replay, rec.steps).advance_to(130.0)
    assert state(replay) == state(s)


def test_run_script_and_the_budgeted_loop_agree():
    text = ("steps:\n  - {at: 5, command: kubectl cordon node-1}\n"
            "  - {at: 5, command: kubectl scale deployment web --replicas=6}\n"
            "  - {at: 30.5, command: ksandbox fail node node-3}\n")
    script = parse_script(text, "s.yaml")
    a = Session.from_files([str(data_path("sample_clusters") / "default.yaml")], seed=2)
    run_script(a, script)
    a.run_until(200)
    b = Session.from_files([str(data_path("sample_clusters") / "default.yaml")], seed=2)
    ticks = iter(range(10**6))
    pb = Playback(b, script.steps)
    while not pb.advance_to(200, budget=3, perf_counter=lambda: next(ticks)):
        pass
    assert state(a) == state(b)


def test_next_step_time_is_what_dot_stepping_uses():
    s = Session()
    pb = Playback(s, [ScriptStep(7.0, "kubectl apply -f -",
                                 "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n")])
    assert pb.next_step_time() == 7.0
    while pb.step_next() is not None and pb.next_step_time() is not None:
        pass
    assert s.store.get("Namespace", "x") is not None and pb.done
