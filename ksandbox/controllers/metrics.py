"""The sandbox's stand-in for metrics-server: the simulated CPU and memory usage of pods.

Nothing in the sandbox burns CPU, so usage is what the user says it is. ``set_load(namespace,
kind, name, cpu_percent)`` (the ``ksandbox load deployment/NAME CPU_PERCENT`` verb) declares
that the workload's pods run at ``cpu_percent`` of their CPU request *now*. The work behind
that figure is then treated as a fixed demand spread over the workload's serving pods, the way
a steady request rate behind a Service is: when the HPA doubles the replicas, each pod's usage
halves, so autoscaling settles instead of running away to maxReplicas. The demand is fixed in
cores, not in percent: a pod whose CPU request differs from the one the workload declared when
the load was set (the VPA gave it more) runs at the same cores, so a smaller percent of its
request. A pod's usage is capped at its CPU limit. Workloads without a load idle at 0 %.

``usage(pod) -> percent | None`` answers for a single pod: None unless it is Running (as
metrics-server reports only running pods), else its share of its workload's load.
``cpu_usage_millis(pod)`` is the same share in millicores. A load may be set on a Deployment,
ReplicaSet, ReplicationController, DaemonSet or a bare Pod; a pod takes the load of the nearest
owner that has one.

Memory: ``memory_usage(pod) -> bytes | None`` (Running pods only) is what ``set_memory`` said
for the pod's workload (bytes per pod), else the memory request the workload declares in its
template (a pod uses the memory it asks for), else the pod's own request, else 0. The VPA's
recommender reads it; ``ksandbox load`` stays CPU only.

Serving pod counts are kept from the store's watch (one dict update per pod write), so
``usage`` is O(1).

Not here: custom metrics, the metrics API's timestamps and windows (the HPA controller models
those), node-level usage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Collection, Sequence

from ..api.errors import ApiError
from ..api.kinds import lookup_resource
from ..apiserver.dispatch import ANY_CONTROLLER
from ..apiserver.store import ADDED, DELETED, WatchEvent
from .controller_utils import POD_READY

if TYPE_CHECKING:
    from ..api.core import Pod

# What an idle pod uses, as a percent of its request.
IDLE_PERCENT = 0.0

Level = tuple[str, str, str]  # (namespace, kind, name)


def _declared(obj: Any, resource: str) -> int | None:
    """The per-pod request a workload declares in its template (a bare pod: its own)."""
    spec = getattr(obj, "spec", None)
    template = getattr(spec, "template", None)
    pod_spec = template.spec if template is not None else spec
    requests = getattr(pod_spec, "requests", None)
    return requests.get(resource) if requests is not None else None


def _serving(pod: Pod) -> bool:
    """Running, not terminating, and not marked unready: the pods a Service sends work to."""
    if pod.status.phase != "Running" or pod.metadata.deletion_timestamp is not None:
        return False
    for c in pod.status.conditions:
        if c.type == POD_READY:
            return c.status == "True"
    return True


class Metrics:
    name = "metrics"

    def start(self, cp: Any) -> None:
        self.store = cp.store
        self._loads: dict[Level, tuple[float, int]] = {}
        # The CPU request (millicores) the workload declared when its load was set.
        self._refs: dict[Level, int] = {}
        self._memory: dict[Level, int] = {}
        self._serving: dict[Level, int] = {}
        self._counted: dict[str, dict[str, tuple[Level, ...]]] = {}  # ns → pod → chain
        self._chains: dict[tuple[str, str], tuple[Level, ...]] = {}
        # _pod_event counts serving pods per controller chain: a pod with no controller before
        # or after a write has none, and was not counted (the write that took its
        # controller away uncounted it), so it hears only pods with a controller on a side
        self.store.subscribe("Pod", self._pod_event, owners=(ANY_CONTROLLER,))
        # _owner_event forgets a chain when an owner's own controller may have changed: a
        # write of its status subresource keeps its owner references (and is most of an
        # owner's writes: its controller's count of its pods)
        self.store.subscribe("ReplicaSet", self._owner_event, status=False)
        self.store.subscribe("ReplicationController", self._owner_event, status=False)

    # -- the load ------------------------------------------------------------------------------
    def set_load(self, namespace: str, kind: str, name: str, cpu_percent: float) -> None:
        """Make the workload's pods run at ``cpu_percent`` of their CPU request from now on."""
        info = lookup_resource(kind)
        kind = info.kind if info is not None else kind
        obj = self.store.get(kind, name, namespace)
        if obj is None:
            raise ApiError.not_found(info.display_resource if info else kind.lower(), name)
        level = (namespace, kind, name)
        basis = self._serving.get(level, 0)
        if kind == "Pod":
            basis = 1
        if basis == 0:
            replicas = getattr(getattr(obj, "spec", None), "replicas", None)
            basis = replicas if isinstance(replicas, int) and replicas > 0 else 1
        self._loads[level] = (max(0.0, float(cpu_percent)), basis)
        ref = _declared(obj, "cpu")
        if ref:
            self._refs[level] = ref
        else:
            self._refs.pop(level, None)

    def set_memory(self, namespace: str, kind: str, name: str, memory_bytes: int) -> None:
        """Make each of the workload's pods use ``memory_bytes`` of memory from now on."""
        info = lookup_resource(kind)
        kind = info.kind if info is not None else kind
        if self.store.get(kind, name, namespace) is None:
            raise ApiError.not_found(info.display_resource if info else kind.lower(), name)
        self._memory[(namespace, kind, name)] = max(0, int(memory_bytes))

    def load(self, namespace: str, kind: str, name: str) -> float | None:
        """The percent last set for a workload (None when never set)."""
        info = lookup_resource(kind)
        hit = self._loads.get((namespace, info.kind if info else kind, name))
        return hit[0] if hit is not None else None

    def usage(self, pod: Pod) -> float | None:
        """The pod's CPU usage as a percent of its request; None unless it is Running."""
        if pod.status.phase != "Running":
            return None
        ns = pod.metadata.namespace
        own_level = (ns, "Pod", pod.metadata.name)
        own = self._loads.get(own_level)
        if own is not None:
            if not _serving(pod):
                return IDLE_PERCENT
            return min(self._rescaled(own[0], own_level, pod), self._limit_percent(pod))
        for level in self._chain(pod):
            load = self._loads.get(level)
            if load is None:
                continue
            if not _serving(pod):
                return IDLE_PERCENT
            percent, basis = load
            share = percent * basis / max(1, self._serving.get(level, 0))
            return min(self._rescaled(share, level, pod), self._limit_percent(pod))
        return IDLE_PERCENT

    def _rescaled(self, percent: float, level: Level, pod: Pod) -> float:
        """The same cores as a percent of this pod's request, when it differs from the one
        the workload declared when the load was set."""
        ref = self._refs.get(level)
        request = pod.spec.requests.get("cpu")
        if ref and request and request != ref:
            return percent * ref / request
        return percent

    def cpu_usage_millis(self, pod: Pod) -> float | None:
        """The pod's CPU usage in millicores; None unless it is Running."""
        percent = self.usage(pod)
        if percent is None:
            return None
        request = pod.spec.requests.get("cpu")
        if request:
            return percent * request / 100.0
        return 0.0

    def memory_usage(self, pod: Pod) -> int | None:
        """The pod's memory usage in bytes; None unless it is Running."""
        if pod.status.phase != "Running":
            return None
        ns = pod.metadata.namespace
        own = self._memory.get((ns, "Pod", pod.metadata.name))
        if own is not None:
            return own
        chain = self._chain(pod)
        for level in chain:
            hit = self._memory.get(level)
            if hit is not None:
                return hit
        for level in reversed(chain):
            owner = self.store.get(level[1], level[2], level[0])
            declared = _declared(owner, "memory") if owner is not None else None
            if declared:
                return declared
        return pod.spec.requests.get("memory", 0)

    @staticmethod
    def _limit_percent(pod: Pod) -> float:
        request = pod.spec.requests.get("cpu")
        limit = pod.spec.limits.get("cpu")
        if not request or not limit:
            return float("inf")
        return limit * 100.0 / request

    # -- serving counts, fed by the watch ------------------------------------------------------
    def _chain(self, pod: Pod) -> tuple[Level, ...]:
        """The pod's controllers, nearest first: ReplicaSet then Deployment, and so on."""
        ref = pod.metadata.controller_ref()
        if ref is None:
            return ()
        ns = pod.metadata.namespace
        hit = self._chains.get((ns, ref.uid))
        if hit is not None:
            return hit
        levels = [(ns, ref.kind, ref.name)]
        owner = self.store.get(ref.kind, ref.name, ns) if lookup_resource(ref.kind) else None
        parent = owner.metadata.controller_ref() if owner is not None else None
        if parent is not None:
            levels.append((ns, parent.kind, parent.name))
        chain = tuple(levels)
        if owner is not None:
            self._chains[(ns, ref.uid)] = chain
        return chain

    # -- a Session's load (bulk start: session.py) ---------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The pod watch only counts serving pods per workload (its own tables; an owner it
        reads is written before the pods that name it and not again in a load): a load may
        be read from the store once instead (load_done), in the order it was written."""
        return [] if self.store.count("Pod") else [("Pod", self._pod_event)]

    def load_done(self) -> None:
        for pod in self.store.list("Pod"):
            if _serving(pod):
                self._pod_event(WatchEvent(ADDED, pod))

    def _pod_event(self, ev: WatchEvent) -> None:
        pod = ev.obj
        meta = pod.metadata
        ns, name = meta.namespace, meta.name
        counted = self._counted.get(ns)
        if counted is not None:
            old_levels = counted.pop(name, None)
            if old_levels is not None:
                for level in old_levels:
                    n = self._serving.get(level, 0) - 1
                    if n > 0:
                        self._serving[level] = n
                    else:
                        self._serving.pop(level, None)
        if ev.type == DELETED:
            return
        # _serving(pod), inline: every write of a controlled pod comes here, five a
        # rolling pod's life
        status = pod.status
        if status.phase != "Running" or meta.deletion_timestamp is not None:
            return
        for c in status.conditions:
            if c.type == POD_READY:
                if c.status != "True":
                    return
                break
        levels = self._chain(pod)
        if not levels:
            return
        self._counted.setdefault(ns, {})[name] = levels
        for level in levels:
            self._serving[level] = self._serving.get(level, 0) + 1

    def _owner_event(self, ev: WatchEvent) -> None:
        old = ev.old
        if ev.type == DELETED or (old is not None and
                                  old.metadata.owner_references
                                  != ev.obj.metadata.owner_references):
            self._chains.pop((ev.obj.metadata.namespace, ev.obj.metadata.uid), None)
