"""The `.` key's rule (ksandbox.tui.stepper): the next change a person can see, and its words."""

from __future__ import annotations

import re
from pathlib import Path

from ksandbox.recording.player import load_recording_session
from ksandbox.recording.playback import Playback
from ksandbox.tui.stepper import Stepper, describe_change, next_up

ROOT = Path(__file__).resolve().parents[2]


def test_the_node_failure_story_reaches_the_300s_eviction_in_six_presses():
    recording, session = load_recording_session(
        str(ROOT / "sample_clusters/node-failure.recording.yaml"))
    playback = Playback(session, recording.steps)
    stepper = Stepper(playback)
    reports = []
    for _ in range(6):
        reports.append(stepper.step())
        if any("TaintManagerEviction pod/report" in c for c in reports[-1].changes):
            break
    last = reports[-1]
    assert last.time == 375.0 and len(reports) <= 6, [r.summary() for r in reports]
    assert last.summary().startswith("00:06:15 TaintManagerEviction pod/report")
    # On the way: the node going Unknown and the NoExecute taint were each one press.
    texts = [r.summary() for r in reports]
    assert any("node/node-2 Ready=Unknown" in t for t in texts)
    assert any("tainted node.kubernetes.io/unreachable:NoExecute" in t for t in texts)


def test_pause_names_the_next_eviction():
    recording, session = load_recording_session(
        str(ROOT / "sample_clusters/node-failure.recording.yaml"))
    playback = Playback(session, recording.steps)
    playback.advance_to(80)
    # The ReplicaSet's pod-template-hash follows the defaulted template, so match its shape.
    assert re.fullmatch(r"next: evict checkout-[0-9a-z]+-cm6gs in 0:25", next_up(session, playback))
    playback.advance_to(110)
    assert next_up(session, playback).startswith("next: evict report in 4:25")


def test_a_heartbeat_is_not_a_visible_change():
    recording, session = load_recording_session(
        str(ROOT / "sample_clusters/node-failure.recording.yaml"))
    session.run_until(5)
    seen = []
    session.store.subscribe(None, lambda ev: seen.append((ev.kind, describe_change(ev))))
    session.run_until(300)      # no recorded step ran: heartbeats and controller passes only
    assert seen and {text for _, text in seen} == {None}, seen[:5]


def test_a_quiet_cluster_stops_at_the_horizon_and_says_so():
    from ksandbox.session import Session

    session = Session.from_documents([], seed=0)
    report = Stepper(Playback(session)).step()
    # Controllers still run their passes, but nothing a person sees happens for an hour.
    assert report.summary() == "Nothing visible happened up to 01:00:00"
    assert session.now == 3600.0


def test_the_cards_toleration_seconds_follow_the_taint_managers_rule():
    """Two tolerations match the same taint: the taint manager takes the first (300 s), so
    the card must say 300, not the least of all matching ones (30)."""
    from types import SimpleNamespace

    from ksandbox.api.taints import Taint, Toleration
    from ksandbox.tui.cards import toleration_seconds_for

    taint = Taint.from_dict({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"})
    first = Toleration.from_dict({"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                  "effect": "NoExecute", "tolerationSeconds": 300})
    second = Toleration.from_dict({"operator": "Exists", "tolerationSeconds": 30})
    pod = SimpleNamespace(spec=SimpleNamespace(tolerations=(first, second)))
    assert toleration_seconds_for(pod, [taint]) == 300
