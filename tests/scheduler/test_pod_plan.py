"""A template's recorded PreFilter / PreScore answers (pod_plan.py) are what a call gives.

The fast path asks a plugin's spec-only points (``spec_only(pod)``) once per spec object and
replays the answer for every later pod of that spec. Two checks:

- a point a plugin names spec-only answers the same — status, Skip, state writes — for a pod
  of that spec in a different cluster (other nodes, claims, Services, pods with affinity) as
  the recorded answer (hypothesis over pod specs);
- pods of a few templates (many pods per spec object) are placed, failed and nominated by the
  fast path exactly as by the plain path, which never replays.
"""

from __future__ import annotations

import hashlib

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schedtest import store_cluster

from ksandbox.api.codec import decode
from ksandbox.api.core import Node, Pod
from ksandbox.api.core_objects import Service
from ksandbox.api.scheduling import PriorityClass
from ksandbox.api.storage import PersistentVolumeClaim, StorageClass
from ksandbox.scheduler.framework.cycle_state import CycleState
from ksandbox.scheduler.framework.interface import Code
from ksandbox.scheduler.framework.node_info import PodInfo
from ksandbox.scheduler.framework.pod_plan import (
    PRE_FILTER,
    PRE_SCORE,
    pre_filter_steps,
    pre_score_steps,
    spec_only_points,
)
from ksandbox.sim.rand import SimRandom

ZONE = "topology.kubernetes.io/zone"
SUCCESS, SKIP = int(Code.SUCCESS), int(Code.SKIP)


def build(use_fast, seed=11):
    return store_cluster(0, seed=seed, use_fast=use_fast, namespaces=("default",))


def node(i):
    taints = []
    if i % 9 == 0:
        taints.append({"key": "dedicated", "value": "infra", "effect": "NoSchedule"})
    if i % 4 == 0:
        taints.append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
    cap = {"cpu": str(2 + i % 3), "memory": f"{4 + (i % 3) * 4}Gi", "pods": "12"}
    return decode(Node, {
        "metadata": {"name": f"node-{i:03d}", "labels": {
            ZONE: "zone-" + "abc"[i % 3], "disk": "ssd" if i % 2 else "hdd",
            "kubernetes.io/hostname": f"node-{i:03d}"}},
        "spec": {"taints": taints},
        "status": {"capacity": cap, "allocatable": cap}})


# -- pod specs: every feature some spec_only answer depends on, and some it must not ---------

def _spec(requests, selector, required, preferred, tolerations, ports, volumes, spread, prio):
    container = {"name": "c", "image": "nginx:1.25",
                 "resources": {"requests": dict(requests)}}
    if "nvidia.com/gpu" in requests:
        container["resources"]["limits"] = {"nvidia.com/gpu": requests["nvidia.com/gpu"]}
    if ports:
        container["ports"] = [{"containerPort": 80, "hostPort": p} for p in ports]
    spec: dict = {"containers": [container]}
    if selector:
        spec["nodeSelector"] = {"disk": selector}
    node_aff: dict = {}
    if required == "zone":
        node_aff["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["zone-a",
                                                                              "zone-b"]}]}]}
    elif required == "names":
        node_aff["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}
            for name in ("node-001", "node-004", "node-404")]}
    if preferred:
        node_aff["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": preferred, "preference": {"matchExpressions": [
                {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]
    if node_aff:
        spec["affinity"] = {"nodeAffinity": node_aff}
    if tolerations == "dedicated":
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    elif tolerations == "all":
        spec["tolerations"] = [{"operator": "Exists"}]
    vols = []
    for j, kind in enumerate(volumes):
        name = f"v{j}"
        if kind == "empty":
            vols.append({"name": name, "emptyDir": {}})
        elif kind == "disk":
            vols.append({"name": name, "gcePersistentDisk": {"pdName": f"pd-{j}"}})
        elif kind == "claim":
            vols.append({"name": name, "persistentVolumeClaim": {"claimName": f"data-{j}"}})
        else:
            vols.append({"name": name, "persistentVolumeClaim": {"claimName": "missing"}})
    if vols:
        spec["volumes"] = vols
    if spread:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": spread,
             "labelSelector": {"matchLabels": {"app": "web"}}}]
    if prio:
        spec["priorityClassName"] = prio
    return spec


specs = st.builds(
    _spec,
    st.sampled_from([{"cpu": "100m", "memory": "128Mi"}, {"cpu": "1500m"}, {},
                     {"cpu": "200m", "nvidia.com/gpu": "1"}, {"ephemeral-storage": "1Gi"}]),
    st.sampled_from([None, "ssd", "hdd"]),
    st.sampled_from([None, "zone", "names"]),
    st.sampled_from([0, 30]),
    st.sampled_from([None, "dedicated", "all"]),
    st.lists(st.sampled_from([8000, 8001]), max_size=2, unique=True),
    st.lists(st.sampled_from(["empty", "disk", "claim", "missing"]), max_size=2),
    st.sampled_from([None, "DoNotSchedule", "ScheduleAnyway"]),
    st.sampled_from([None, "high"]))


def _cluster(busy: bool):
    """An empty cluster, or one with nodes, bound pods (one with required anti-affinity),
    claims, a Service selecting app=web and PriorityClasses."""
    store, clock, sched = build(True)
    store.create(decode(PriorityClass, {"metadata": {"name": "high"}, "value": 1000}))
    if busy:
        for i in range(40):
            store.create(node(i))
        store.create(decode(Service, {"metadata": {"name": "web", "namespace": "default"},
                                      "spec": {"selector": {"app": "web"},
                                               "ports": [{"port": 80}]}}))
        # claims a pod may use (a class that binds at the first consumer: VolumeBinding's
        # PreFilter passes with them, where the empty cluster has none to find)
        store.create(decode(StorageClass, {"metadata": {"name": "local"},
                                           "provisioner": "example.com/local",
                                           "volumeBindingMode": "WaitForFirstConsumer"}))
        for j in range(2):
            store.create(decode(PersistentVolumeClaim, {
                "metadata": {"name": f"data-{j}", "namespace": "default"},
                "spec": {"accessModes": ["ReadWriteOncePod"], "storageClassName": "local",
                         "resources": {"requests": {"storage": "1Gi"}}}}))
        store.create(decode(Pod, {
            "metadata": {"name": "guard", "namespace": "default", "labels": {"app": "db"}},
            "spec": {"nodeName": "node-002", "containers": [{"name": "c", "image": "x"}],
                     "affinity": {"podAntiAffinity": {
                         "requiredDuringSchedulingIgnoredDuringExecution": [{
                             "labelSelector": {"matchLabels": {"app": "web"}},
                             "topologyKey": ZONE}]}}}}))
    else:
        store.create(node(0))
    sched.cache.node_list()
    fwk = sched.profiles["default-scheduler"]
    return store, sched, fwk, sched.fast_for(fwk)


_CLUSTERS: dict = {}


def _admitted(store, spec: dict, name: str) -> Pod:
    return store.admit(decode(Pod, {"metadata": {"name": name, "namespace": "default",
                                                 "labels": {"app": "web"}}, "spec": spec}))


def _live(point, pl, pod, ctx, state):
    """One call of the point as a cycle makes it (the fast path's method), on ``state``."""
    if point == PRE_FILTER:
        vec = getattr(pl, "pre_filter_vec", None)
        return (vec(state, pod, ctx) if vec else pl.pre_filter(state, pod, ctx.infos))[1]
    idx = ctx._all_idx
    vec = getattr(pl, "pre_score_vec", None)
    return vec(state, pod, ctx, idx) if vec else pl.pre_score(state, pod, list(ctx.infos))


def _value(v):
    """A state value by its contents (a plugin's state class may not define equality)."""
    slots = getattr(type(v), "__slots__", None)
    if slots and not attrs.has(type(v)):
        return (type(v).__name__,) + tuple(_value(getattr(v, s)) for s in slots)
    return v


def _answer(st, state):
    code = None if st is None else int(st.code)
    writes = {k: _value(v) for k, v in state._data.items() if k != "PodInfo"}
    return code, writes


def _recorded_steps(cluster, spec, name):
    store, _, fwk, ctx = cluster
    ctx.sync()
    pod = _admitted(store, spec, name)
    steps = pre_filter_steps(fwk.pre_filter_steps(True), pod, PodInfo(pod), ctx, ctx.infos)
    score_steps = pre_score_steps(fwk.pre_score_plugins, pod, PodInfo(pod),
                                  lambda fn, with_ctx, s: _live(PRE_SCORE, fn.__self__, pod,
                                                                ctx, s))
    return pod, ((PRE_FILTER, steps), (PRE_SCORE, score_steps))


def _check_against(cluster, spec, recorded_pod, plans) -> int:
    """Every recorded answer equals a live call for a pod of ``spec`` in ``cluster``."""
    store, _, fwk, ctx = cluster
    ctx.sync()
    pod = _admitted(store, spec, "live")
    checked = 0
    for point, plan in plans:
        for pl, _fn, _ctx, memo in plan:
            if point not in spec_only_points(pl, recorded_pod):
                assert memo is None, (pl.name, point)
                continue
            assert point in spec_only_points(fwk.plugins[pl.name], pod)
            state = CycleState()
            state.write("PodInfo", PodInfo(pod))
            # another plugin's value already there: a replay adds, it never clears
            state.write("Other", 1)
            code, writes = _answer(_live(point, fwk.plugins[pl.name], pod, ctx, state), state)
            writes.pop("Other")
            if memo is None:
                # not recorded: a rejection, or PreFilter narrowing the nodes (stays live)
                continue
            checked += 1
            assert code in (None, SUCCESS, SKIP), (pl.name, point)
            assert (code == SKIP) == (memo[1] == (pl.name,)), (pl.name, point)
            assert writes == {k: _value(v) for k, v in memo[0].items()}, (pl.name, point)
    return checked


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs)
def test_a_spec_only_answer_is_the_one_a_call_gives_in_any_cluster(spec):
    if not _CLUSTERS:
        _CLUSTERS["empty"] = _cluster(False)
        _CLUSTERS["busy"] = _cluster(True)
    empty, busy = _CLUSTERS["empty"], _CLUSTERS["busy"]
    checked = 0
    for here, there in ((empty, busy), (busy, empty)):
        pod, plans = _recorded_steps(here, spec, "recorded")
        checked += _check_against(there, spec, pod, plans)
    assert checked >= 6


# -- whole runs: many pods per spec object -----------------------------------------------------

TEMPLATES = [
    {"requests": {"cpu": "300m", "memory": "256Mi"}},
    {"requests": {"cpu": "700m"}, "nodeSelector": {"disk": "ssd"}},
    {"requests": {"cpu": "200m"}, "tolerations": [{"key": "dedicated", "operator": "Exists"}],
     "preferred": 40},
    {"requests": {"cpu": "100m"}, "ports": [8000]},
    {"requests": {"cpu": "250m"}, "volumes": [{"name": "d", "gcePersistentDisk": {
        "pdName": "shared"}}]},
    {"requests": {"cpu": "1500m"}, "priorityClassName": "high"},
    {"requests": {"cpu": "100m"}, "spread": True},
    {"requests": {"cpu": "100m"}, "names": True},
]


def _template(i: int, t: dict) -> Pod:
    container = {"name": "c", "image": "nginx:1.25", "resources": {"requests": t["requests"]}}
    if "ports" in t:
        container["ports"] = [{"containerPort": 80, "hostPort": p} for p in t["ports"]]
    spec: dict = {"containers": [container]}
    for key in ("nodeSelector", "tolerations", "volumes", "priorityClassName"):
        if key in t:
            spec[key] = t[key]
    if "preferred" in t:
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution":
                            [{"weight": t["preferred"], "preference": {"matchExpressions": [
                                {"key": ZONE, "operator": "In", "values": ["zone-b"]}]}}]}}
    if "names" in t:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                    "values": [name]}]}
                                  for name in ("node-003", "node-007")]}}}
    if "spread" in t:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": f"t{i}"}}}]
    return decode(Pod, {"metadata": {"name": f"t{i}", "namespace": "default",
                                     "labels": {"app": f"t{i}"}}, "spec": spec})


def _run(use_fast):
    store, clock, sched = build(use_fast)
    store.create(decode(PriorityClass, {"metadata": {"name": "high"}, "value": 1000}))
    for i in range(60):
        store.create(node(i))
    # the system-default spreading scores template 0's pods (a Service selects them)
    store.create(decode(Service, {"metadata": {"name": "t0", "namespace": "default"},
                                  "spec": {"selector": {"app": "t0"}, "ports": [{"port": 80}]}}))
    templates = [_template(i, t) for i, t in enumerate(TEMPLATES)]
    log = []
    store.subscribe("Pod", lambda ev: log.append(
        (clock.now, ev.type, ev.obj.metadata.name, ev.obj.spec.node_name,
         ev.obj.status.nominated_node_name)))
    store.subscribe("Event", lambda ev: log.append(
        (clock.now, ev.obj.reason, ev.obj.involved_object.name, ev.obj.message)))
    r = SimRandom(5)
    n = 0
    for step in range(8):
        for _ in range(50):
            t = templates[r.randrange(len(templates))]
            n += 1
            # one spec object per template: the pods differ in their metadata only
            store.create(attrs.evolve(t, metadata=attrs.evolve(
                t.metadata, name=f"{t.metadata.name}-{n:04d}")))
        clock.run_until(clock.now + 2)
        for p in store.list("Pod"):
            if p.metadata.deletion_timestamp is not None:
                store.remove("Pod", p.metadata.name, "default")
        if step == 3:
            store.delete("Node", "node-005")
    clock.run_until(clock.now + 20)
    pending = [p for p in store.list("Pod") if not p.spec.node_name]
    return hashlib.sha256(repr(log).encode()).hexdigest(), log, sched, store, pending


def test_pods_sharing_a_spec_are_placed_as_the_plain_path_places_them():
    fast, fast_log, sched, store, pending = _run(True)
    ref, ref_log, _, _, _ = _run(False)
    for a, b in zip(fast_log, ref_log):
        assert a == b
    assert fast == ref
    # the replays did happen: the stored pods of a template share its spec object, and
    # their plans hold recorded answers
    fp = sched._fast["default-scheduler"]
    specs_used = {id(p.spec) for p in pending}
    assert len(specs_used) < len(pending)
    memos = sum(1 for plan in fp._plans.values() for step in plan.pre_filter
                if step[3] is not None)
    assert memos >= len(TEMPLATES)
    reasons = {e[1] for e in fast_log if len(e) == 4}
    assert {"Scheduled", "FailedScheduling", "Preempted"} <= reasons


# -- merged steps: one turn of the loop for a run of recorded answers --------------------------

def _replay(steps):
    """What the loop leaves: the state each live step meets, and the state at the end."""
    state = CycleState()
    seen = []
    for pl, _fn, _ctx, memo in steps:
        if memo is None:
            seen.append((pl, dict(state._data), set(state.skip_filter)))
            continue
        writes, skips = memo
        if writes:
            state.write_all(writes)
        if skips:
            state.skip_filter.update(skips)
    return seen, dict(state._data), set(state.skip_filter)


_STEP = st.one_of(
    st.builds(lambda name: (name, None, False, None), st.sampled_from(["live-a", "live-b"])),
    st.builds(lambda name, writes, skip: (name, None, False, (writes, (name,) if skip else ())),
              st.sampled_from(["P", "Q", "R"]),
              st.dictionaries(st.sampled_from(["k1", "k2", "k3"]), st.integers(0, 3),
                              max_size=2),
              st.booleans()))


@given(st.lists(_STEP, max_size=10))
def test_merged_steps_leave_what_the_steps_one_by_one_leave(steps):
    from ksandbox.scheduler.framework.pod_plan import merged

    out = merged(steps)
    assert _replay(out) == _replay(steps)
    # live steps keep their places; no two recorded steps in a row are left
    assert [s for s in out if s[3] is None] == [s for s in steps if s[3] is None]
    assert not any(a[3] is not None and b[3] is not None for a, b in zip(out, out[1:]))
