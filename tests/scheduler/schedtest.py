"""Builders for scheduler tests, in the spirit of upstream's ``st.MakePod()``/``MakeNode()``.

Objects are decoded from manifest-shaped dicts, so tests read like the YAML users write.
``run_filter`` / ``run_scores`` drive one plugin through PreFilter/Filter or
PreScore/Score/NormalizeScore the way the framework does.
"""

from __future__ import annotations

from typing import Any

from ksandbox.api.codec import decode
from ksandbox.api.core import Node, Pod
from ksandbox.scheduler.framework.cache import SchedulerCache
from ksandbox.scheduler.framework.interface import Code
from ksandbox.scheduler.framework.runtime import Handle
from ksandbox.scheduler.schedule_one import new_cycle_state


def node(name: str, *, labels: dict | None = None, taints: list | None = None,
         unschedulable: bool = False, capacity: dict | None = None, images: list | None = None,
         pods: str | None = "110") -> Node:
    cap = dict(capacity if capacity is not None else {"cpu": "4", "memory": "8Gi"})
    if pods is not None and "pods" not in cap:
        cap["pods"] = pods
    d: dict[str, Any] = {"metadata": {"name": name, "labels": labels or {}},
                         "spec": {"taints": taints or [], "unschedulable": unschedulable},
                         "status": {"capacity": cap, "allocatable": cap}}
    if images:
        d["status"]["images"] = [{"names": n, "sizeBytes": s} for n, s in images]
    return decode(Node, d)


def pod(name: str = "p", *, namespace: str = "default", labels: dict | None = None,
        requests: list | None = None, init_requests: list | None = None,
        node_name: str = "", tolerations: list | None = None, node_selector: dict | None = None,
        affinity: dict | None = None, spread: list | None = None, ports: list | None = None,
        priority: int | None = None, images: list | None = None, overhead: dict | None = None,
        volumes: list | None = None, scheduler_name: str = "default-scheduler",
        start_time: float | None = None, owner: dict | None = None,
        preemption_policy: str = "") -> Pod:
    containers = []
    for i, r in enumerate(requests if requests is not None else [None]):
        c: dict[str, Any] = {"name": f"c{i}", "image": (images or ["img"])[min(i, len(images or ["img"]) - 1)]}
        if r:
            c["resources"] = {"requests": r}
        containers.append(c)
    if requests == []:
        containers = []
    if ports:
        containers = containers or [{"name": "c0", "image": "img"}]
        containers[0]["ports"] = ports
    spec: dict[str, Any] = {"containers": containers, "nodeName": node_name,
                            "schedulerName": scheduler_name}
    if init_requests:
        spec["initContainers"] = [{"name": f"i{i}", "image": "img",
                                   "resources": {"requests": r}}
                                  for i, r in enumerate(init_requests)]
    for key, val in (("tolerations", tolerations), ("nodeSelector", node_selector),
                     ("affinity", affinity), ("topologySpreadConstraints", spread),
                     ("priority", priority), ("overhead", overhead), ("volumes", volumes),
                     ("preemptionPolicy", preemption_policy)):
        if val:
            spec[key] = val
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [owner]
    status: dict[str, Any] = {}
    if start_time is not None:
        status["startTime"] = start_time
    return decode(Pod, {"metadata": meta, "spec": spec, "status": status})


def cache_of(nodes: list, pods: list = ()) -> SchedulerCache:
    cache = SchedulerCache()
    for n in nodes:
        cache.add_node(n)
    for p in pods:
        cache.add_pod(p)
    return cache


def code_name(st: Any) -> str:
    return "Success" if st is None else str(st.code)


def run_filter(new: Any, p: Pod, nodes: list, pods: list = (), args: Any = None,
               store: Any = None) -> dict[str, Any]:
    """``new(args, handle)`` builds the plugin; PreFilter then Filter on every node:
    node name -> Status (None for success). A PreFilter rejection is every node's status;
    a PreFilter Skip means success."""
    cache = cache_of(nodes, pods)
    plugin = new(args, Handle(cache, store))
    state, _ = new_cycle_state(p)
    infos = cache.node_list()
    if hasattr(plugin, "pre_filter"):
        _, st = plugin.pre_filter(state, p, infos)
        if st is not None and st.code == Code.SKIP:
            return {ni.name: None for ni in infos}
        if st is not None:
            return {ni.name: st for ni in infos}
    return {ni.name: plugin.filter(state, p, ni) for ni in infos}


def run_scores(new: Any, p: Pod, nodes: list, pods: list = (),
               feasible: list | None = None, args: Any = None,
               store: Any = None) -> dict[str, int]:
    """PreScore, Score and NormalizeScore over ``feasible`` (default: all) nodes."""
    cache = cache_of(nodes, pods)
    plugin = new(args, Handle(cache, store))
    state, _ = new_cycle_state(p)
    infos = cache.node_list()
    if feasible is not None:
        infos = [ni for ni in infos if ni.name in feasible]
    if hasattr(plugin, "pre_score"):
        st = plugin.pre_score(state, p, infos)
        if st is not None and st.code == Code.SKIP:
            return {ni.name: 0 for ni in infos}
    scores = [plugin.score(state, p, ni) for ni in infos]
    norm = getattr(plugin, "normalize_score", None)
    if norm is not None:
        norm(state, p, scores, infos)
    return {ni.name: s for ni, s in zip(infos, scores)}


def handle_for(nodes: list, pods: list = (), store: Any = None) -> Handle:
    return Handle(cache_of(nodes, pods), store)


def store_cluster(nodes: int, *, seed: int, use_fast: bool | None = None,
                  namespaces: tuple = ("default", "other"), labels_of: Any = None,
                  capacity: dict | None = None, name: str = "node-{:02d}") -> tuple:
    """A store with a control plane whose scheduler is started, its namespaces and ``nodes``
    nodes (``labels_of(i)`` gives node i's labels) → (store, clock, scheduler)."""
    from ksandbox.api.core import Namespace
    from ksandbox.api.meta import ObjectMeta
    from ksandbox.apiserver.store import Store
    from ksandbox.controlplane import ControlPlane
    from ksandbox.scheduler.scheduler import Scheduler
    from ksandbox.sim.clock import Clock
    from ksandbox.sim.rand import SimRandom

    clock = Clock()
    rand = SimRandom(seed)
    store = Store(lambda: clock.now, rand.child("apiserver"))
    cp = ControlPlane(store, clock, rand, [])
    sched = Scheduler(use_fast=use_fast)
    cp.scheduler = sched
    sched.start(cp)
    for ns in namespaces:
        store.create(Namespace(metadata=ObjectMeta(name=ns)))
    cap = capacity or {"cpu": "64", "memory": "256Gi", "pods": "110"}
    for i in range(nodes):
        meta = {"name": name.format(i), "labels": labels_of(i) if labels_of else {}}
        store.create(decode(Node, {"metadata": meta,
                                   "status": {"capacity": cap, "allocatable": cap}}))
    return store, clock, sched


def bound_pod(name: str, ns: str, labels: dict, node: str) -> Pod:
    """A one-container pod already bound to ``node`` (spec.nodeName)."""
    return decode(Pod, {"metadata": {"name": name, "namespace": ns, "labels": labels},
                        "spec": {"nodeName": node,
                                 "containers": [{"name": "c", "image": "nginx"}]}})
