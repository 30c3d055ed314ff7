"""The scheduling queue: priority order, backoff, unschedulable pods and cluster events."""

from schedtest import node, pod

from ksandbox.scheduler.framework.interface import (ASSIGNED_POD, NODE, ActionType,
                                                    ClusterEvent, ClusterEventWithHint)
from ksandbox.scheduler.framework.node_info import PodInfo
from ksandbox.scheduler.plugins import taint_toleration
from ksandbox.scheduler.queue import SchedulingQueue


class Now:
    t = 0.0

    def __call__(self):
        return self.t


def queue():
    now = Now()
    q = SchedulingQueue(now)
    q.events = {"p": {"TaintToleration": taint_toleration.new(None, None).events_to_register(),
                      "NodeResourcesFit": [ClusterEventWithHint(
                          ClusterEvent(ASSIGNED_POD, ActionType.DELETE))]}}
    return q, now


def test_higher_priority_pops_first_then_the_earlier_one():
    q, now = queue()
    q.add(PodInfo(pod("low", priority=1)), "p")
    now.t = 1
    q.add(PodInfo(pod("high", priority=10)), "p")
    q.add(PodInfo(pod("high2", priority=10)), "p")
    assert [q.pop().pi.pod.metadata.name for _ in range(3)] == ["high", "high2", "low"]


def test_backoff_doubles_from_one_second_up_to_ten():
    q, now = queue()
    q.add(PodInfo(pod("p")), "p")
    item = q.pop()
    durations = []
    for attempts in range(1, 7):
        item.attempts = attempts
        durations.append(q.backoff_duration(item))
    assert durations == [1, 2, 4, 8, 10, 10]


def test_unschedulable_pod_moves_only_on_an_event_its_plugin_registered():
    q, now = queue()
    q.add(PodInfo(pod("p")), "p")
    item = q.pop()
    item.unschedulable_plugins = {"TaintToleration"}
    q.add_unschedulable_if_not_present(item, rejected=True)
    assert q.pending()["unschedulable"] == ["default/p"]
    # A deleted pod does not help a pod the taints rejected.
    assert not q.move_on_event(ClusterEvent(ASSIGNED_POD, ActionType.DELETE), pod("x"), None)
    tainted = node("n", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    clean = node("n")
    assert not q.move_on_event(ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL), clean, clean)
    assert q.move_on_event(ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT), tainted, clean)
    # Its 1 s backoff has not expired yet.
    assert q.pending()["backoff"] == ["default/p"]
    now.t = 1.0
    q.flush_backoff_completed()
    assert q.pending()["active"] == ["default/p"]


def test_an_event_during_the_attempt_sends_the_pod_to_backoff_not_unschedulable():
    q, now = queue()
    q.add(PodInfo(pod("p")), "p")
    item = q.pop()
    q.move_on_event(ClusterEvent(ASSIGNED_POD, ActionType.DELETE), pod("victim"), None)
    item.unschedulable_plugins = {"NodeResourcesFit"}
    q.add_unschedulable_if_not_present(item, rejected=True)
    assert q.pending()["backoff"] == ["default/p"]


def test_leftover_unschedulable_pods_are_retried_after_five_minutes():
    q, now = queue()
    q.add(PodInfo(pod("p")), "p")
    item = q.pop()
    item.unschedulable_plugins = {"TaintToleration"}
    q.add_unschedulable_if_not_present(item, rejected=True)
    now.t = 299
    q.flush_unschedulable_leftover()
    assert q.pending()["unschedulable"]
    now.t = 301
    q.flush_unschedulable_leftover()
    assert q.pending()["active"] == ["default/p"]


def _park(q, p, plugins=("TaintToleration",)):
    q.add(PodInfo(p), "p")
    item = q.pop()
    item.unschedulable_plugins = set(plugins)
    q.add_unschedulable_if_not_present(item, rejected=True)


def test_a_node_event_asks_each_group_of_equal_pods_once_and_keeps_the_park_order(monkeypatch):
    """Upstream's MoveAllToActiveOrBackoffQueue asks every unschedulable pod's hints; pods
    equal in what a Node event's hints read (spec, namespace, labels, rejecting plugins)
    share one answer here, and move in the order they were parked (issue 14: a backlog of
    34,000 pods from a few templates, on every node event)."""
    q, now = queue()
    tolerant = [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]
    for i in range(6):
        _park(q, pod(f"a{i}") if i % 2 == 0 else pod(f"b{i}", tolerations=tolerant))
    assert len(q._groups) == 2
    calls = []
    hint = taint_toleration.new(None, None).events_to_register()
    original = [h.hint for h in hint]

    def counting(fn):
        def wrapped(p, old, new):
            calls.append(p.metadata.name)
            return fn(p, old, new)
        return wrapped

    monkeypatch.setattr(q, "events", {"p": {"TaintToleration": [
        ClusterEventWithHint(h.event, counting(fn) if fn else None)
        for h, fn in zip(hint, original)]}})
    tainted = node("n", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    other = node("n", taints=[{"key": "z", "value": "v", "effect": "NoSchedule"}])
    # The taint changes from k to z: no pod tolerates z, none moves.
    assert not q.move_on_event(ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT), tainted, other)
    assert len(calls) == 2                          # once per group, not once per pod
    # A node without taints arrives: both groups may fit there; the pods move in the order
    # they were parked, across the groups.
    calls.clear()
    now.t = 100.0                                   # past their backoff: straight to activeQ
    assert q.move_on_event(ClusterEvent(NODE, ActionType.ADD), None, node("m"))
    assert len(calls) <= 2
    assert q.pending()["unschedulable"] == []
    popped = [q.pop().pi.pod.metadata.name for _ in range(6)]
    assert popped == ["a0", "b1", "a2", "b3", "a4", "b5"]
    assert q._groups == {}
