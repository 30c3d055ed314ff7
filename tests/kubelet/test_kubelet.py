"""The kubelet emulator: registration, heartbeats at upstream's frequencies, running and
stopping pods, admission, and the silent (failed) kubelet."""

from __future__ import annotations

import json

import pytest

from nodesim import cluster, condition, events, get_pod, kubelets, node, play, pod

KUBELET_CONFIG = """
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
kubeReserved: {cpu: 100m, memory: 256Mi}
systemReserved: {cpu: 100m, memory: 256Mi}
"""


def test_registration_posts_conditions_lease_and_events():
    s = cluster(node("node-1"))
    n = s.store.get("Node", "node-1")
    assert [(c.type, c.status, c.reason) for c in n.status.conditions] == [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID"),
        ("Ready", "True", "KubeletReady")]
    assert condition(s, "node-1", "Ready").message == "kubelet is posting ready status"
    lease = s.store.get("Lease", "node-1", "kube-node-lease")
    assert (lease.spec.holder_identity, lease.spec.lease_duration_seconds,
            lease.spec.renew_time) == ("node-1", 40, 0.0)
    assert lease.metadata.owner_references[0].kind == "Node"
    assert [m for _, o, m in events(s) if o == "Node/node-1"] == [
        # The kubelet registers first (the node exists once it has), then the node
        # lifecycle controller notices it.
        "Starting kubelet.",
        "Node node-1 status is now: NodeHasSufficientMemory",
        "Node node-1 status is now: NodeHasNoDiskPressure",
        "Node node-1 status is now: NodeHasSufficientPID",
        "Node node-1 status is now: NodeReady",
        "Updated Node Allocatable limit across pods",
        "Node node-1 event: Registered Node node-1 in Controller"]
    assert n.status.node_info.kubelet_version == "v1.35.0"
    assert n.spec.pod_cidr == "10.244.0.0/24"


def test_without_a_kubelet_configuration_the_default_eviction_threshold_is_held_back():
    """pkg/kubelet/eviction/defaults_linux.go DefaultEvictionHard with
    pkg/kubelet/cm GetNodeAllocatableReservation: a kubelet without a configuration file still
    reserves memory.available 100Mi and nodefs.available 10 % — allocatable is not capacity.
    A manifest that states its own allocatable (an export: what a real kubelet reported) keeps
    it."""
    s = cluster(node("node-1", cpu="4", memory="8Gi"))
    alloc = s.store.get("Node", "node-1").status.allocatable
    assert {k: str(v) for k, v in alloc.items()} == {
        "cpu": "4", "memory": "8092Mi", "pods": "110", "ephemeral-storage": "90Gi"}
    stated = node("node-2", cpu="4", memory="8Gi", extra_status="")
    import json
    doc = json.loads(stated)
    doc["status"]["allocatable"] = {"cpu": "3900m", "memory": "7Gi", "pods": "110"}
    s = cluster(json.dumps(doc))
    alloc = s.store.get("Node", "node-2").status.allocatable
    assert {k: str(v) for k, v in alloc.items()} == {
        "cpu": "3900m", "memory": "7Gi", "pods": "110", "ephemeral-storage": "100Gi"}


def test_the_scheduler_never_sees_capacity_as_allocatable():
    """A pod 24Mi over allocatable in the same file as its node and the KubeletConfiguration
    stays Pending with Insufficient memory (it used to be scheduled against capacity at t=0,
    then rejected OutOfmemory by the kubelet)."""
    big = pod("big", requests={"memory": "7604Mi"})      # allocatable is 7580Mi
    s = cluster(KUBELET_CONFIG, node("node-1", cpu="4", memory="8Gi"), big)
    s.run_until(10)
    p = s.store.get("Pod", "big", "default")
    assert (p.status.phase, p.spec.node_name) == ("Pending", "")
    assert not events(s, "OutOfmemory")
    out = s.submit("kubectl describe pod big").output
    assert "0/1 nodes are available: 1 Insufficient memory." in out


def test_a_kubelet_configuration_sets_allocatable_by_the_formula():
    s = cluster(KUBELET_CONFIG, node("node-1", cpu="4", memory="8Gi"))
    alloc = s.store.get("Node", "node-1").status.allocatable
    assert {k: str(v) for k, v in alloc.items()} == {
        "cpu": "3800m", "memory": "7580Mi", "pods": "110", "ephemeral-storage": "90Gi"}
    assert str(kubelets(s).allocatable_breakdown("node-1")["memory"]["evictionHard"]) == "100Mi"


def test_the_lease_is_renewed_every_10s_and_status_reported_every_5_minutes():
    s = cluster(node("node-1"))
    renewals, heartbeats = [], []
    for t in range(0, 611, 5):
        s.run_until(t)
        renewals.append(s.store.get("Lease", "node-1", "kube-node-lease").spec.renew_time)
        heartbeats.append(condition(s, "node-1", "Ready").last_heartbeat_time)
    assert sorted(set(renewals)) == [float(t) for t in range(0, 611, 10)]
    assert sorted(set(heartbeats)) == [0.0, 300.0, 600.0]


def test_bound_pods_start_after_a_seeded_delay_and_stop_with_their_grace_period():
    s = cluster(node("node-1"), pod("web", "node-1", grace=20))
    assert get_pod(s, "web").status.phase == "Pending"
    s.run_until(5)
    p = get_pod(s, "web")
    assert p.status.phase == "Running"
    assert [c.type for c in p.status.conditions if c.status == "True"] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert p.status.start_time == 0.0 and p.status.pod_ip.startswith("10.244.0.")
    started = [t for t, o, m in events(s, "Started")]
    assert len(started) == 1 and 1.0 <= started[0] <= 3.0
    play(s, [(100, "kubectl delete pod web")])
    assert get_pod(s, "web").metadata.deletion_timestamp == 120.0
    s.run_until(100)   # the kubelet's pod worker reacts within the same second
    assert events(s, "Killing") == [(100.0, "Pod/default/web", "Stopping container app")]
    s.run_until(119.9)
    assert get_pod(s, "web") is not None
    s.run_until(120)
    assert get_pod(s, "web") is None


def test_the_start_delay_is_the_same_for_the_same_seed():
    def started(seed):
        s = cluster(node("node-1"), *(pod(f"p{i}", "node-1") for i in range(5)), seed=seed)
        s.run_until(10)
        return [t for t, _o, _m in events(s, "Started")]
    assert started(7) == started(7)
    assert started(7) != started(8)


@pytest.mark.parametrize("requests,reason,message", [
    ({"cpu": "3"}, "OutOfcpu",
     "Pod was rejected: Node didn't have enough resource: cpu, requested: 3000, used: 2000, "
     "capacity: 4000"),
    ({"memory": "7Gi"}, "OutOfmemory",
     "Pod was rejected: Node didn't have enough resource: memory, requested: 7516192768, "
     "used: 2147483648, capacity: 8485076992"),
])
def test_a_pod_that_does_not_fit_is_rejected_by_the_kubelet(requests, reason, message):
    s = cluster(node("node-1"), pod("big", "node-1", requests={"cpu": "2", "memory": "2Gi"}),
                pod("late", "node-1", requests=requests))
    s.run_until(1)
    late = get_pod(s, "late")
    assert (late.status.phase, late.status.reason, late.status.message) == (
        "Failed", reason, message)
    assert events(s, reason)[0][1] == "Pod/default/late"


def test_a_failed_kubelet_is_silent_until_it_recovers():
    s = cluster(node("node-1"), node("node-2"), pod("web", "node-2"))
    play(s, [(10, "ksandbox fail node node-2")])
    s.submit("kubectl apply -f -", stdin=pod("late", "node-2"))
    play(s, [(100, "kubectl delete pod web")])
    s.run_until(200)
    assert s.store.get("Lease", "node-2", "kube-node-lease").spec.renew_time == 10.0
    assert get_pod(s, "late").status.phase == "Pending"          # never started
    assert get_pod(s, "web").metadata.deletion_timestamp == 130.0  # stuck Terminating
    play(s, [(200, "ksandbox recover node node-2")])
    assert s.store.get("Lease", "node-2", "kube-node-lease").spec.renew_time == 200.0
    assert condition(s, "node-2", "Ready").status == "True"
    assert events(s, "Killing") == [(200.0, "Pod/default/web", "Stopping container app")]
    s.run_until(205)
    assert get_pod(s, "late").status.phase == "Running"
    s.run_until(229.9)
    assert get_pod(s, "web") is not None    # stopped with its full grace period from now
    s.run_until(230)
    assert get_pod(s, "web") is None


def test_faults_refuse_bad_requests():
    from ksandbox.api.errors import ApiError, CommandError

    s = cluster(node("node-1"))
    k = kubelets(s)
    with pytest.raises(ApiError, match='nodes "nope" not found'):
        k.fail_node("nope")
    with pytest.raises(CommandError, match='node "node-1" has not failed'):
        k.recover_node("node-1")
    k.fail_node("node-1")
    with pytest.raises(CommandError, match='node "node-1" has already failed'):
        k.fail_node("node-1")
    with pytest.raises(CommandError, match='unknown pressure "cpu"'):
        k.set_pressure("node-1", "cpu", True)
    with pytest.raises(CommandError, match='node "node-1" is not under memory pressure'):
        k.set_pressure("node-1", "memory", False)


def test_cordon_and_uncordon_are_seen_by_the_kubelet_at_its_next_status_check():
    """kubelet_node_status.go recordNodeSchedulableEvent: each status check (every
    nodeStatusUpdateFrequency, 10 s) compares spec.unschedulable with the last one it saw and
    records NodeNotSchedulable / NodeSchedulable — what `kubectl describe node` shows after a
    cordon or an uncordon. A node registered cordoned says so at its first check."""
    cordoned = json.loads(node("node-2"))
    cordoned["spec"]["unschedulable"] = True
    s = cluster(node("node-1"), json.dumps(cordoned))
    s.run_until(15)
    assert events(s, "NodeNotSchedulable") == [
        (10.0, "Node/node-2", "Node node-2 status is now: NodeNotSchedulable")]
    assert not s.submit("kubectl cordon node-1").error
    s.run_until(19)
    assert len(events(s, "NodeNotSchedulable")) == 1      # not before the next check
    s.run_until(21)
    assert events(s, "NodeNotSchedulable", "Node/node-1") == [
        (20.0, "Node/node-1", "Node node-1 status is now: NodeNotSchedulable")]
    assert not s.submit("kubectl uncordon node-1").error
    s.run_until(45)
    assert events(s, "NodeSchedulable") == [
        (30.0, "Node/node-1", "Node node-1 status is now: NodeSchedulable")]
    assert len(events(s, "NodeNotSchedulable", "Node/node-1")) == 1


def test_a_pod_removed_while_it_stops_takes_its_stop_timer_with_it():
    """A pod stopping within its grace period and then removed at once (``--force``): the pod
    worker forgets it and cancels its stop (the kill's timer, held in the pod state's rare
    part), so nothing of it is left on the clock; a pull's names, done at the start, leave no
    rare part behind."""
    s = cluster(node("node-1"), pod("web", "node-1", grace=20))
    s.run_until(5)
    workers = _kubelets(s)["node-1"].pod_workers
    st = workers.pods[("default", "web")]
    assert st.started and st._rare is None
    play(s, [(100, "kubectl delete pod web")])
    s.run_until(100)
    assert st.stop_timer is not None and not st.stop_timer.cancelled
    kill = st.stop_timer
    s.store.remove("Pod", "web", "default")
    s.run_until(101)
    assert ("default", "web") not in workers.pods and kill.cancelled
    assert not [t for t in s.clock.scheduled() if t[2].endswith("/kill")]


def _kubelets(s):
    return next(c for c in s.components if getattr(c, "name", "") == "kubelets").kubelets
