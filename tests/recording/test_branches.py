"""What-if branches without a UI: fork the present, run both on one clock, undo by replay.

Undo's contract (issue 10): "returns to the moment before the last action (a fork of the
past, replayed)" — so the state after undo must equal a session that never ran that command,
played to the same second; the tests compare the JSON state byte for byte.
"""

from __future__ import annotations

import pytest

from ksandbox.recording.branches import MAX_BRANCHES, BranchError, BranchSet
from ksandbox.recording.diff import diff_sessions
from ksandbox.recording.playback import Playback
from ksandbox.resources import data_path
from ksandbox.session import Session

CLUSTER = str(data_path("sample_clusters") / "node-failure.yaml")


def fresh() -> BranchSet:
    return BranchSet(Playback(Session.from_files([CLUSTER], seed=1)))


def test_a_fork_is_the_present_and_becomes_the_branch_on_show():
    bs = fresh()
    bs.active.playback.advance_to(20)
    b = bs.fork("drain-it")
    assert bs.active is b and b.parent == "main" and b.forked_at == 20.0
    assert b.session is not bs.get("main").session
    assert b.session.view() == bs.get("main").session.view()


def test_both_branches_run_on_one_clock_and_the_diff_shows_only_the_fork():
    bs = fresh()
    bs.active.playback.advance_to(5)
    bs.fork("fail-node-2")
    assert bs.active.session.submit("ksandbox fail node node-2").ok
    bs.active.playback.advance_to(120)
    bs.sync()
    main = bs.get("main")
    assert main.session.now == 120.0 and bs.comparable(bs.active, main)
    d = diff_sessions(bs.active.session, main.session, ("fail-node-2", "main"))
    node2 = next(n for n in d["nodes"] if n["name"] == "node-2")
    assert node2["a"]["ready"] == "Unknown" and node2["b"]["ready"] == "True"
    # main goes on as if nothing happened: the same as a session that never forked.
    alone = Session.from_files([CLUSTER], seed=1)
    alone.run_until(120)
    assert main.session.view() == alone.view()


def test_switch_and_names():
    bs = fresh()
    bs.fork()
    assert bs.names == ["main", "what-if-1"]
    assert bs.switch("main") is bs.active
    with pytest.raises(BranchError, match="exists already"):
        bs.fork("what-if-1")
    with pytest.raises(BranchError, match="invalid branch name"):
        bs.fork("no spaces")
    with pytest.raises(BranchError, match="no branch named"):
        bs.switch("nope")
    while len(bs.branches) < MAX_BRANCHES:
        bs.fork()
    with pytest.raises(BranchError, match="at most"):
        bs.fork()


def test_undo_returns_to_the_moment_before_the_last_command():
    bs = fresh()
    s = bs.active.session
    s.run_until(10)
    assert s.submit("kubectl cordon node-1").ok
    s.run_until(30)
    assert s.submit("ksandbox fail node node-3").ok
    s.run_until(200)
    undone = bs.undo()
    assert undone.command == "ksandbox fail node node-3" and undone.at == 30.0
    after = bs.active.session
    assert after.now == 30.0 and [st.command for st in after.history] == ["kubectl cordon node-1"]
    # The same as a session that cordoned node-1 at 10 and stood still at 30.
    expected = Session.from_files([CLUSTER], seed=1)
    expected.run_until(10)
    expected.submit("kubectl cordon node-1")
    expected.run_until(30)
    assert after.view() == expected.view()
    # And it runs on as that session would.
    after.run_until(90)
    expected.run_until(90)
    assert after.view() == expected.view()
    bs.undo()
    assert bs.active.session.now == 10.0 and bs.active.session.history == []
    with pytest.raises(BranchError, match="nothing to undo"):
        bs.undo()


def test_a_branch_ahead_waits_for_the_active_one_after_an_undo():
    bs = fresh()
    s = bs.active.session
    s.run_until(10)
    s.submit("kubectl cordon node-1")
    bs.fork("other")
    bs.switch("main")
    bs.active.playback.advance_to(50)
    bs.sync()
    bs.undo()                      # main goes back to 10 s; "other" stays at 50 s
    bs.sync()
    other = bs.get("other")
    assert bs.active.session.now == 10.0 and other.session.now == 50.0
    assert not bs.comparable(bs.active, other)
    bs.active.playback.advance_to(50)
    bs.sync()
    assert bs.comparable(bs.active, other)
