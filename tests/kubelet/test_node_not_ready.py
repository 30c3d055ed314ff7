"""``ksandbox fail node NAME --not-ready``: the kubelet stays alive (lease renewed, status posted)
but its container runtime is down, so it reports Ready=False — and the node lifecycle
controller answers with the ``node.kubernetes.io/not-ready`` taints, not ``unreachable``.

The timeline, to the second (fail at t = 10, after everything else due at 10):

* t = 20 — the kubelet's next status check (``nodeStatusUpdateFrequency`` 10 s, ticks at 0, 10,
  20, ... from registration) posts Ready=False, reason ``KubeletNotReady``, message
  ``container runtime is down`` (``nodestatus.ReadyCondition`` with ``runtimeErrors()``), and
  records ``NodeNotReady``. The same write makes the lifecycle controller's node handler run
  ``doNoScheduleTaintingPass``: ``not-ready:NoSchedule``, timeAdded 20.
* t = 25 — the monitor pass (``--node-monitor-period`` 5 s: 0, 5, ..., 20, 25) at 20 ran just
  before the kubelet's post, so the pass at 25 is the first to observe Ready=False;
  ``processTaintBaseEviction`` (ConditionFalse) queues the node and ``doNoExecuteTaintingPass``
  adds ``not-ready:NoExecute``, timeAdded 25 (the zone's limiter has its burst token).
* t = 325 — a pod with the admission default (``DefaultTolerationSeconds``: not-ready 300 s) is
  evicted 300 s after the NoExecute taint's timeAdded.

The Lease keeps being renewed, so the node never goes Unknown. As upstream, the controller does
not run ``MarkPodsNotReady`` for a Ready True→False transition the kubelet posted itself (its
``observedReadyCondition`` is already False; kubernetes/kubernetes#109998): pods stay Ready.
"""

from __future__ import annotations

import pytest

from nodesim import (cluster, condition, events, get_pod, kubelets, marked_for_deletion, node,
                     play, pod, taints)

NOT_READY = "node.kubernetes.io/not-ready"


def lease_renewed(s, name):
    return s.store.get("Lease", name, "kube-node-lease").spec.renew_time


def test_not_ready_node_gets_the_not_ready_taints_and_evicts_after_300s():
    s = cluster(node("node-1"), node("node-2"), node("node-3"), pod("web", "node-2"))
    s.run_until(10)
    result = s.submit("ksandbox fail node node-2 --not-ready")
    assert result.ok, result.error
    assert result.output == \
        "node/node-2 failed (kubelet reports NotReady: container runtime is down)\n"

    s.run_until(19.9)
    assert condition(s, "node-2", "Ready").status == "True"
    assert taints(s, "node-2") == {}

    # t = 20: the kubelet's status check posts Ready=False; NoSchedule in the same instant.
    s.run_until(20)
    ready = condition(s, "node-2", "Ready")
    assert (ready.status, ready.reason, ready.message, ready.last_transition_time) == (
        "False", "KubeletNotReady", "container runtime is down", 20.0)
    assert events(s, "NodeNotReady") == [
        (20.0, "Node/node-2", "Node node-2 status is now: NodeNotReady")]
    assert taints(s, "node-2") == {f"{NOT_READY}:NoSchedule": 20.0}

    # t = 25: the next monitor pass observes False and adds the NoExecute taint.
    s.run_until(24.9)
    assert f"{NOT_READY}:NoExecute" not in taints(s, "node-2")
    s.run_until(25)
    assert taints(s, "node-2") == {f"{NOT_READY}:NoSchedule": 20.0,
                                   f"{NOT_READY}:NoExecute": 25.0}
    assert s.eviction_deadline(get_pod(s, "web")) == 325.0

    # The kubelet is alive: its lease is renewed, so the node never turns Unknown/unreachable.
    s.run_until(200)
    assert lease_renewed(s, "node-2") == 200.0
    assert condition(s, "node-2", "Ready").status == "False"
    assert not any(k.startswith("node.kubernetes.io/unreachable") for k in taints(s, "node-2"))
    # Upstream marks pods NotReady only when the controller itself moved Ready off True.
    assert get_pod(s, "web").status.condition("Ready").status == "True"

    s.run_until(324)
    assert get_pod(s, "web").metadata.deletion_timestamp is None
    s.run_until(325)
    assert marked_for_deletion(s) == {"default/web": 325.0}
    assert get_pod(s, "web").metadata.deletion_timestamp == 355.0   # its 30 s grace period
    # The runtime is down: nothing can stop the containers, the pod stays Terminating.
    s.run_until(400)
    assert get_pod(s, "web") is not None

    # Recover: Ready=True at once, NoSchedule goes with that write, NoExecute at the next pass.
    play(s, [(400, "ksandbox recover node node-2")])
    assert condition(s, "node-2", "Ready").status == "True"
    s.run_until(400)                   # the controller's node handler runs (call_soon)
    assert taints(s, "node-2") == {f"{NOT_READY}:NoExecute": 25.0}
    s.run_until(405)
    assert taints(s, "node-2") == {}
    assert events(s, "Killing") == [(400.0, "Pod/default/web", "Stopping container app")]
    s.run_until(430)
    assert get_pod(s, "web") is None


def test_a_not_ready_kubelet_renews_its_lease_but_starts_no_pods():
    s = cluster(node("node-1"), node("node-2"))
    play(s, [(10, "ksandbox fail node node-2 --not-ready")])
    s.submit("kubectl apply -f -", stdin=pod("late", "node-2"))
    s.run_until(100)
    assert lease_renewed(s, "node-2") == 100.0
    assert get_pod(s, "late").status.phase == "Pending"
    assert kubelets(s).is_failed("node-2")
    play(s, [(100, "ksandbox recover node node-2")])
    assert lease_renewed(s, "node-2") == 100.0      # renewed on its own cadence, not extra
    s.run_until(105)
    assert get_pod(s, "late").status.phase == "Running"


def test_the_plain_fail_still_silences_the_kubelet():
    s = cluster(node("node-1"), node("node-2"))
    s.run_until(10)
    result = s.submit("ksandbox fail node node-2")
    assert result.output == "node/node-2 failed (kubelet stopped posting status)\n"
    s.run_until(75)
    assert condition(s, "node-2", "Ready").status == "Unknown"
    assert set(taints(s, "node-2")) == {"node.kubernetes.io/unreachable:NoSchedule",
                                        "node.kubernetes.io/unreachable:NoExecute"}


def test_not_ready_faults_refuse_bad_requests():
    from ksandbox.api.errors import CommandError

    s = cluster(node("node-1"))
    k = kubelets(s)
    k.fail_node("node-1", not_ready=True)
    with pytest.raises(CommandError, match='node "node-1" has already failed'):
        k.fail_node("node-1")
    with pytest.raises(CommandError, match='node "node-1" has already failed'):
        k.fail_node("node-1", not_ready=True)
    k.recover_node("node-1")
    with pytest.raises(CommandError, match='node "node-1" has not failed'):
        k.recover_node("node-1")
