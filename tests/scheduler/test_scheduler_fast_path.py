"""The fast path places pods exactly as the plain reference path does.

A mixed workload (taints, selectors, preferred and required node affinity, spread constraints,
pod (anti-)affinity, host ports, images, extended resources, priorities and preemption, node
churn) runs twice with the same seed — once per path — and the sequence of (time, pod, node,
nominated node, FailedScheduling message) must hash the same.
"""

import hashlib

import attrs

from ksandbox.api.codec import decode
from ksandbox.api.core import Namespace, Node, Pod, Toleration
from ksandbox.api.core_objects import Service
from ksandbox.api.meta import ObjectMeta
from ksandbox.api.scheduling import PriorityClass
from ksandbox.apiserver.store import Store
from ksandbox.controlplane import ControlPlane
from ksandbox.scheduler.framework.node_info import PodInfo
from ksandbox.scheduler.scheduler import Scheduler
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom

ZONE = "topology.kubernetes.io/zone"


def build(use_fast, seed=7):
    clock = Clock()
    rand = SimRandom(seed)
    store = Store(lambda: clock.now, rand.child("apiserver"))
    cp = ControlPlane(store, clock, rand, [])
    sched = Scheduler(use_fast=use_fast)
    cp.scheduler = sched
    sched.start(cp)
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    return store, clock, sched


def node(i, r):
    taints = []
    if i % 17 == 0:
        taints.append({"key": "dedicated", "value": "infra", "effect": "NoSchedule"})
    if i % 5 == 0:
        taints.append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
    cap = {"cpu": str(2 + i % 4), "memory": f"{4 + (i % 3) * 4}Gi", "pods": "20"}
    if i % 11 == 0:
        cap["nvidia.com/gpu"] = "2"
    return decode(Node, {
        "metadata": {"name": f"node-{i:03d}", "labels": {
            ZONE: "zone-" + "abc"[i % 3], "disk": "ssd" if i % 2 else "hdd"}},
        "spec": {"taints": taints},
        "status": {"capacity": cap, "allocatable": cap,
                   "images": [{"names": ["nginx:1.25"], "sizeBytes": 200 << 20}] if i % 4 == 0
                   else []}})


def pod(i, r):
    kind = i % 9
    spec = {"containers": [{"name": "c", "image": "nginx:1.25" if i % 2 else "busybox",
                            "resources": {"requests": {"cpu": f"{100 + r.randrange(900)}m",
                                                       "memory": f"{64 + r.randrange(900)}Mi"}}}]}
    labels = {"app": f"app-{i % 4}"}
    if kind == 1:
        spec["nodeSelector"] = {"disk": "ssd"}
    elif kind == 2:
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 20, "preference": {"matchExpressions": [
                {"key": ZONE, "operator": "In", "values": ["zone-a"]}]}}]}}
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    elif kind == 3:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": labels["app"]}}},
            {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname",
             "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"app": labels["app"]}}}]
    elif kind == 4:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": labels["app"]}},
             "topologyKey": "kubernetes.io/hostname"}]}}
    elif kind == 5:
        spec["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "app-1"}},
                                               "topologyKey": ZONE}}]}}
    elif kind == 6:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8000 + i % 3}]
    elif kind == 7:
        spec["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
        # An extended resource's request needs an equal limit (API validation).
        spec["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "1"}
    elif kind == 8:
        spec["priorityClassName"] = "high" if i % 2 else "low"
        spec["containers"][0]["resources"]["requests"]["cpu"] = "1500m"
    return decode(Pod, {"metadata": {"name": f"pod-{i:04d}", "namespace": "default",
                                     "labels": labels}, "spec": spec})


def churn(use_fast, *, seed, nodes, steps, per_step, add_at, delete_at, settle,
          observe=None):
    """The mixed workload: pods of every kind arriving in steps of ``per_step``, pods marked
    for deletion (preempted) removed after each step, a node added at step ``add_at`` and
    node-003 deleted at ``delete_at``. Returns every pod write and event, and the scheduler;
    ``observe(sched)`` is called after each step's scheduling, after its churn and at the end."""
    store, clock, sched = build(use_fast)
    r = SimRandom(seed)
    store.create(decode(PriorityClass, {"metadata": {"name": "low"}, "value": -5}))
    store.create(decode(PriorityClass, {"metadata": {"name": "high"}, "value": 1000}))
    for i in range(nodes):
        store.create(node(i, r))
    log = []
    store.subscribe("Pod", lambda ev: log.append(
        (clock.now, ev.type, ev.obj.metadata.name, ev.obj.spec.node_name,
         ev.obj.status.nominated_node_name)))
    store.subscribe("Event", lambda ev: log.append(
        (clock.now, ev.obj.reason, ev.obj.involved_object.name, ev.obj.message)))
    for step in range(steps):
        for i in range(step * per_step, step * per_step + per_step):
            store.create(pod(i, r))
        clock.run_until(clock.now + 3)
        if observe is not None:
            observe(sched)
        for p in store.list("Pod"):
            if p.metadata.deletion_timestamp is not None:
                store.remove("Pod", p.metadata.name, "default")
        if step == add_at:
            store.create(node(500, r))
        if step == delete_at:
            store.delete("Node", "node-003")
        if observe is not None:
            observe(sched)
    clock.run_until(clock.now + settle)
    if observe is not None:
        observe(sched)
    return log, sched


def run(use_fast):
    log, _sched = churn(use_fast, seed=99, nodes=120, steps=12, per_step=80, add_at=4,
                        delete_at=6, settle=30)
    digest = hashlib.sha256(repr(log).encode()).hexdigest()
    return digest, log


def test_fast_and_reference_paths_place_every_pod_identically():
    fast, fast_log = run(True)
    ref, ref_log = run(False)
    for a, b in zip(fast_log, ref_log):
        assert a == b
    assert fast == ref
    bound = {e[2] for e in fast_log if e[1] == "Scheduled"}
    preempted = [e for e in fast_log if e[1] == "Preempted"]
    failed = [e for e in fast_log if e[1] == "FailedScheduling"]
    assert len(bound) > 400 and preempted and failed


def test_the_default_picks_the_plain_path_for_small_clusters_and_the_fast_path_for_big():
    """``Scheduler()`` (use_fast None) schedules with the plain path below
    FAST_PATH_MIN_NODES nodes — no FastPath is built, numpy is not needed — and with the fast
    path from there up, as a node joins."""
    from ksandbox.scheduler.schedule_one import FAST_PATH_MIN_NODES

    store, clock, sched = build(None)
    r = SimRandom(3)
    for i in range(FAST_PATH_MIN_NODES - 1):
        store.create(node(i, r))
    for i in range(20):
        store.create(pod(i * 9, r))          # kind 0: plain requests, every one fits
    clock.run_until(clock.now + 3)
    assert sum(1 for p in store.list("Pod") if p.spec.node_name) == 20
    assert sched._fast == {}
    store.create(node(FAST_PATH_MIN_NODES, r))
    store.create(pod(20 * 9, r))
    clock.run_until(clock.now + 3)
    assert store.get("Pod", "pod-0180", "default").spec.node_name
    assert set(sched._fast) == {"default-scheduler"}


def _nominated_run(use_fast, seed):
    store, clock, sched = build(use_fast, seed)
    store.create(decode(PriorityClass, {"metadata": {"name": "high"}, "value": 1000}))
    for i in range(3):
        cap = {"cpu": "2", "memory": "4Gi", "pods": "10"}
        store.create(decode(Node, {"metadata": {"name": f"node-{i}"},
                                   "status": {"capacity": cap, "allocatable": cap}}))
    # A high-priority pod nominated to node-0 (another scheduler's, so this one never tries
    # it and its nomination stays): node-0 is judged with it on it, so the 1-cpu pods below
    # cannot go there while every node passes on its own.
    big = store.create(decode(Pod, {
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"priorityClassName": "high", "schedulerName": "other",
                 "containers": [{"name": "c", "image": "x",
                                 "resources": {"requests": {"cpu": "1500m"}}}]},
        "status": {"nominatedNodeName": "node-0"}}))
    sched._track_nomination(PodInfo(big))
    for i in range(4):
        store.create(decode(Pod, {"metadata": {"name": f"p{i}", "namespace": "default"},
                                  "spec": {"containers": [{"name": "c", "image": "x",
                                           "resources": {"requests": {"cpu": "1"}}}]}}))
        clock.run_until(clock.now + 1)
    return sorted((p.metadata.name, p.spec.node_name) for p in store.list("Pod"))


def test_a_node_failed_only_for_a_nominated_pod_is_not_taken_for_a_roomy_cluster():
    """Every node passes the filters on its own, but one is judged with a higher-priority
    pod nominated to it (RunFilterPluginsWithNominatedPods) and fails: the fast path's
    'no node failed' shortcut must not apply, and it places as the plain path does."""
    for seed in range(6):
        got = _nominated_run(True, seed)
        assert got == _nominated_run(False, seed), seed
        assert not any(node == "node-0" for name, node in got if name != "big")


def _scored_cluster(use_fast):
    """The mixed workload's cluster after its first steps (some nodes full, preferred taints,
    images on a quarter of the nodes), with a Service selecting app-1, so that the system-default
    spreading scores those pods too."""
    store, clock, sched = build(use_fast)
    r = SimRandom(99)
    store.create(decode(PriorityClass, {"metadata": {"name": "low"}, "value": -5}))
    store.create(decode(PriorityClass, {"metadata": {"name": "high"}, "value": 1000}))
    for i in range(120):
        store.create(node(i, r))
    store.create(decode(Service, {"metadata": {"name": "app-1", "namespace": "default"},
                                  "spec": {"selector": {"app": "app-1"}, "ports": [{"port": 80}]}}))
    for i in range(300):
        store.create(pod(i, r))
    clock.run_until(clock.now + 3)
    return sched, r


def test_fast_and_reference_paths_score_every_node_alike():
    """Not only the same winner: every scored node's per-plugin scores (normalized) and the
    weighted total are the plain path's, for each kind of pod of the mixed workload — the
    fast path's shortcuts (a constant score kept once per node list, the weighted sum built
    from the first plugin's array, Skip answered by one shared Status) change no number.
    Upstream: pkg/scheduler/schedule_one.go prioritizeNodes (the plain path)."""
    from ksandbox.scheduler.explain import explain_pod

    clusters = [_scored_cluster(True), _scored_cluster(False)]
    compared = spread = 0
    for i in range(1000, 1036):
        pending = []
        for (sched, r) in clusters:
            p = pod(i, r)
            if i % 6 == 5:
                # Tolerates every taint: no node has a PreferNoSchedule taint it minds, so
                # TaintToleration's scores are one constant (the fast path's shared array).
                p = attrs.evolve(p, spec=attrs.evolve(p.spec, tolerations=(
                    Toleration(operator="Exists"),)))
            # Created (admitted: defaults filled) but not scheduled: the clock does not run.
            pending.append(sched.store.create(p))
        assert pending[0] == pending[1]
        (fast, _), (ref, _) = clusters
        got, want = explain_pod(fast, pending[0]).to_dict(), explain_pod(ref, pending[1]).to_dict()
        assert got == want, pending[0].metadata.name
        compared += sum(1 for n in want["nodes"] if n["scores"])
        spread += sum(1 for n in want["nodes"] if n["scores"].get("PodTopologySpread"))
    assert compared > 1000 and spread > 100


def test_the_shared_skip_status_cannot_be_changed():
    """Status.skip() is one object for every caller: naming a plugin on it would name it for
    everyone, so it refuses (the framework only reads a Skip's code)."""
    import pytest

    from ksandbox.scheduler.framework.interface import Code, Status

    st = Status.skip()
    assert st is Status.skip() and st.code == Code.SKIP and st.is_skip()
    assert st == Status(Code.SKIP) and st.plugin == "" and st.message() == ""
    with pytest.raises(AttributeError):
        st.plugin = "NodePorts"
    with pytest.raises(AttributeError):
        st.with_plugin("NodePorts")
    assert st.plugin == ""
