"""NoExecute eviction as timelines, to the second: the 300 s default after a node failure, the
minimum of the matching tolerationSeconds, cancellation, untolerated taints, 0 seconds,
unlimited tolerations, NoSchedule, and the countdowns the views show."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kubelet"))

from ksandbox.controllers.tainteviction import (matching_tolerations,  # noqa: E402
                                                min_toleration_time)
from ksandbox.api.taints import Taint, Toleration  # noqa: E402
from nodesim import (cluster, events, get_pod, marked_for_deletion, node, play,  # noqa: E402
                     pod, toleration)

UNREACHABLE = "node.kubernetes.io/unreachable"
NOT_READY = "node.kubernetes.io/not-ready"


def nodes():
    return [node("node-1"), node("node-2"), node("node-3")]


def deadline(s, name):
    return s.eviction_deadline(get_pod(s, name))


def test_a_failed_node_evicts_after_the_default_300_seconds():
    s = cluster(*nodes(), pod("web", "node-2"),
                pod("agent", "node-2", tolerations=[toleration(UNREACHABLE),
                                                    toleration(NOT_READY)]))
    # The pod carries the admission defaults: not-ready and unreachable for 300 s.
    assert [t.to_string() for t in get_pod(s, "web").spec.tolerations] == [
        f"{NOT_READY}:NoExecute op=Exists for 300s", f"{UNREACHABLE}:NoExecute op=Exists for 300s"]
    play(s, [(10, "ksandbox fail node node-2")])
    s.run_until(75)                       # unreachable:NoExecute added at 75
    assert deadline(s, "web") == 375.0
    assert s.view()["pods"][[p["name"] for p in s.view()["pods"]].index("web")]["evictionAt"] \
        == 375.0
    assert deadline(s, "agent") is None   # no tolerationSeconds: stays forever
    s.run_until(374)
    assert get_pod(s, "web").metadata.deletion_timestamp is None
    s.run_until(375)
    web = get_pod(s, "web")
    assert web.metadata.deletion_timestamp == 405.0      # deleted with its 30 s grace period
    target = web.status.condition("DisruptionTarget")
    assert (target.reason, target.message) == ("DeletionByTaintManager",
                                               "Taint manager: deleting due to NoExecute taint")
    assert marked_for_deletion(s) == {"default/web": 375.0}
    assert deadline(s, "web") is None
    s.run_until(2000)
    assert get_pod(s, "agent").metadata.deletion_timestamp is None
    # The kubelet is silent: the pod stays Terminating, as on a real unreachable node.
    assert get_pod(s, "web") is not None


def test_the_minimum_of_the_matching_toleration_seconds_wins():
    s = cluster(*nodes(), pod("web", "node-1", tolerations=[
        toleration("maintenance", 120), toleration("degraded", 45)]))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute degraded=yes:NoExecute")])
    s.run_until(20)
    assert deadline(s, "web") == 65.0
    s.run_until(65)
    assert marked_for_deletion(s) == {"default/web": 65.0}


def test_a_taint_removed_before_the_deadline_cancels_the_eviction():
    s = cluster(*nodes(), pod("web", "node-1", tolerations=[toleration("maintenance", 60)]))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute"),
             (50, "kubectl taint nodes node-1 maintenance:NoExecute-")])
    s.run_until(50)
    assert events(s, "TaintManagerEviction") == [
        (50.0, "Pod/default/web", "Cancelling deletion of Pod default/web")]
    assert deadline(s, "web") is None
    s.run_until(500)
    assert get_pod(s, "web").metadata.deletion_timestamp is None


def test_a_pod_tolerating_one_of_two_no_execute_taints_goes_at_once():
    s = cluster(*nodes(), pod("web", "node-1", tolerations=[toleration("maintenance", 300)]))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute gpu=broken:NoExecute")])
    s.run_until(20)
    assert marked_for_deletion(s) == {"default/web": 20.0}
    assert get_pod(s, "web").metadata.deletion_timestamp == 50.0
    s.run_until(50)
    assert get_pod(s, "web") is None    # a live kubelet finishes the deletion


def test_toleration_seconds_zero_evicts_at_once():
    s = cluster(*nodes(), pod("web", "node-1", tolerations=[toleration("maintenance", 0)]))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute")])
    s.run_until(20)
    assert marked_for_deletion(s) == {"default/web": 20.0}


def test_no_schedule_never_evicts():
    s = cluster(*nodes(), pod("web", "node-1"))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoSchedule")])
    s.run_until(1000)
    assert marked_for_deletion(s) == {}
    assert deadline(s, "web") is None


def test_an_unlimited_toleration_keeps_the_pod_forever():
    s = cluster(*nodes(), pod("web", "node-1", tolerations=[toleration("maintenance")]))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute")])
    s.run_until(2000)
    assert marked_for_deletion(s) == {}


def test_a_countdown_stands_when_a_later_taint_would_fire_sooner():
    s = cluster(*nodes(), pod("web", "node-1", tolerations=[
        toleration("maintenance", 100), toleration("degraded", 10)]))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute"),
             (30, "kubectl taint nodes node-1 degraded=yes:NoExecute")])
    s.run_until(30)
    # Upstream keeps a scheduled eviction created earlier rather than restart it.
    assert deadline(s, "web") == 120.0
    s.run_until(120)
    assert marked_for_deletion(s) == {"default/web": 120.0}


def test_a_pod_bound_to_a_tainted_node_starts_its_own_countdown():
    s = cluster(*nodes())
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute"),
             (40, lambda s: s.submit("kubectl apply -f -", stdin=pod(
                 "late", "node-1", tolerations=[toleration("maintenance", 30)])))])
    s.run_until(40)
    assert deadline(s, "late") == 70.0
    assert s.cp.tainteviction.countdowns() == {"default/late": 70.0}


def test_deleting_a_pod_with_a_countdown_cancels_it():
    s = cluster(*nodes(), pod("web", "node-1", tolerations=[toleration("maintenance", 60)]))
    play(s, [(20, "kubectl taint nodes node-1 maintenance=now:NoExecute"),
             (30, "kubectl delete pod web")])
    s.run_until(60)
    assert events(s, "TaintManagerEviction") == [
        (60.0, "Pod/default/web", "Cancelling deletion of Pod default/web")]


@pytest.mark.parametrize("taints,tolerations,want", [
    ([Taint("a", "", "NoExecute")], [Toleration("a", "Exists", "", "NoExecute", 100),
                                     Toleration("a", "Exists", "", "NoExecute", 10)], 100.0),
    ([Taint("a", "", "NoExecute"), Taint("b", "", "NoExecute")],
     [Toleration("", "Exists", "", "", None), Toleration("b", "Exists", "", "", 5)], -1.0),
    ([Taint("a", "", "NoExecute")], [Toleration("a", "Exists", "", "NoExecute", -5)], 0.0),
], ids=["the first matching toleration counts, not the smallest",
        "a toleration without seconds matching every taint is unlimited",
        "a negative value means at once"])
def test_min_toleration_time(taints, tolerations, want):
    ok, used = matching_tolerations(taints, tolerations)
    assert ok
    assert min_toleration_time(used) == want


def test_an_untainted_node_with_nothing_counting_down_reads_no_pods(monkeypatch):
    """A node without NoExecute taints while no deletion counts down anywhere (every node of a
    load at t=0): its pods' cancellations are nothing to do, so they are not listed. (With a
    countdown, they are: test_a_taint_removed_before_the_deadline_cancels_the_eviction.)"""
    s = cluster(*nodes(), pod("web", "node-1"), pod("api", "node-2"))
    s.run_until(5)
    te = s.cp.components["tainteviction"]
    read = []
    real = type(s.store).pods_on_node
    monkeypatch.setattr(type(s.store), "pods_on_node",
                        lambda store, name: read.append(name) or real(store, name))
    te._handle_node("node-1")
    assert read == [] and not te.workers
