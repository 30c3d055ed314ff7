"""PodInfo and NodeInfo: what the scheduler knows about a pod and about a node.

Upstream ``framework/types.go``: a PodInfo is a pod with its parsed affinity terms; a NodeInfo
is a node with the pods on it and running totals — requested resources, the "non-zero"
requested resources used for scoring (a container without a cpu/memory request counts as
100m / 200Mi), used host ports, and the images present. Totals change by adding and removing
one pod (O(1)), never by re-summing, so the cache keeps them up to date from watch events.

Not here: keeping NodeInfos current (``cache.py``); the plugins that read them.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ...api.codec import FrozenDict
from ...api.core import Pod, spec_host_ports, spec_requests
from ...api.evolve import by_identity
from ...api.host_ports import port_conflict as host_port_conflict
from ...api.quantity import resource_amount
from ...api.selectors import IN, NOT_IN, LabelSelector, LabelSelectorRequirement

if TYPE_CHECKING:
    from ...api.core import Node

# pkg/scheduler/util/pod_resources.go: the request a container without one counts as, for
# scoring only (DefaultMilliCPURequest, DefaultMemoryRequest).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
# The kubelet's default maxPods (--max-pods): assumed when a node reports no "pods" allocatable.
DEFAULT_MAX_PODS = 110

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
_NATIVE = frozenset((CPU, MEMORY, EPHEMERAL_STORAGE, PODS))
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"


def is_scalar_resource(name: str) -> bool:
    """Extended resources (nvidia.com/gpu), hugepages-*, attachable volumes."""
    return name not in _NATIVE


# What a PodInfo reads of its pod's spec: (priority, requests, non-zero cpu, non-zero memory,
# host ports).
SpecParts = tuple[int, Any, int, int, tuple]
_new_object = object.__new__


def spec_parts(spec: Any) -> SpecParts:
    """What :class:`PodInfo` reads of a pod spec."""
    return (spec.priority or 0, spec_requests(spec), *non_zero_requests(spec),
            spec_host_ports(spec))


def has_pod_affinity(spec: Any) -> bool:
    """Whether a pod of this spec has pod affinity or anti-affinity (its PodInfo is an
    :class:`AffinityPodInfo`)."""
    aff = spec.affinity
    return aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None)


def non_zero_requests(spec: Any) -> tuple[int, int]:
    """(milli-cpu, memory bytes) with 100m / 200Mi for each container that requests none.

    component-helpers PodRequests with NonMissingContainerRequests: the default replaces a
    *missing* request per container (init containers and sidecars included), then the usual
    max-of-init rule and the overhead. Computed once per distinct containers, init containers
    and overhead (pods of a template share them: evolve.by_identity).
    """
    return by_identity(_non_zero_requests, spec.containers, spec.init_containers, spec.overhead)


def _non_zero_requests(containers: tuple, init_containers: tuple,
                       overhead: Any) -> tuple[int, int]:
    out = []
    for name, default in ((CPU, DEFAULT_MILLI_CPU_REQUEST), (MEMORY, DEFAULT_MEMORY_REQUEST)):
        def req(c: Any) -> int:
            q = c.resources.requests.get(name)  # noqa: B023 - called at once
            return default if q is None else resource_amount(name, q)  # noqa: B023 - called at once
        total = sum(req(c) for c in containers)
        init_max = 0
        sidecars = 0
        for c in init_containers:
            v = req(c)
            if c.restart_policy == "Always":
                sidecars += v
                init_max = max(init_max, sidecars)
            else:
                init_max = max(init_max, v + sidecars)
        total += sidecars
        total = max(total, init_max)
        q = overhead.get(name)
        if q is not None:
            total += resource_amount(name, q)
        out.append(total)
    return (out[0], out[1])


# -- pod affinity terms -------------------------------------------------------------------------

class AffinityTerm:
    """A parsed PodAffinityTerm (framework.AffinityTerm): namespaces, selector, topology key.

    A missing labelSelector or namespaceSelector matches nothing (LabelSelectorAsSelector(nil));
    with neither ``namespaces`` nor ``namespaceSelector`` the term means the owner's namespace.
    """

    __slots__ = ("namespaces", "selector", "topology_key", "namespace_selector", "weight")

    def __init__(self, owner: Any, term: Any, weight: int = 0) -> None:
        if not term.namespaces and term.namespace_selector is None:
            self.namespaces = frozenset((owner.metadata.namespace,))
        else:
            self.namespaces = frozenset(term.namespaces)
        self.selector = _merge_label_keys(term.label_selector, term.match_label_keys,
                                          term.mismatch_label_keys, owner.metadata.labels)
        self.topology_key = term.topology_key
        self.namespace_selector = term.namespace_selector
        self.weight = weight

    def matches(self, pod: Pod, ns_labels: Any) -> bool:
        """Whether ``pod`` (in a namespace labelled ``ns_labels``) is selected by the term."""
        if self.selector is None:
            return False
        if pod.metadata.namespace in self.namespaces or (
                self.namespace_selector is not None and ns_labels is not None
                and self.namespace_selector.matches(ns_labels)):
            return self.selector.matches(pod.metadata.labels)
        return False


def _merge_label_keys(selector: LabelSelector | None, match_keys: tuple, mismatch_keys: tuple,
                      labels: Any) -> LabelSelector | None:
    """matchLabelKeys / mismatchLabelKeys: add ``key In/NotIn (own value)`` to the selector."""
    if selector is None or not (match_keys or mismatch_keys):
        return selector
    extra = [LabelSelectorRequirement(k, IN, (labels[k],)) for k in match_keys if k in labels]
    extra += [LabelSelectorRequirement(k, NOT_IN, (labels[k],))
              for k in mismatch_keys if k in labels]
    if not extra:
        return selector
    return LabelSelector(match_labels=selector.match_labels,
                         match_expressions=selector.match_expressions + tuple(extra))


class PodInfo:
    """A pod plus what the plugins ask of it again and again.

    A pod without pod (anti-)affinity — most pods, every pod of a big load — is a PodInfo
    whose four affinity term tuples are the class's empty ones and ``has_affinity`` is False
    (no slots of its own: 32 bytes less per pod, 150,000 in the scheduler's cache after a
    load); ``PodInfo(pod)`` of a pod with affinity is an :class:`AffinityPodInfo`, which
    holds its terms."""

    __slots__ = ("pod", "key", "namespace", "labels", "priority", "start_time", "requests",
                 "non_zero_cpu", "non_zero_mem", "host_ports", "terminating")

    # Upstream podWithAffinity: any pod (anti-)affinity at all (read on hot paths: a class
    # attribute, not a property). AffinityPodInfo says True and has its own terms.
    has_affinity = False
    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[AffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[AffinityTerm, ...] = ()

    def __new__(cls, pod: Pod | None = None, key: str | None = None) -> "PodInfo":
        # (no arguments: a copy's or with_pod's blank instance of the class asked for)
        if cls is PodInfo and pod is not None and has_pod_affinity(pod.spec):
            cls = AffinityPodInfo
        return _new_object(cls)

    def __init__(self, pod: Pod, key: str | None = None) -> None:
        """``key``: ``namespace/name`` when the caller has it (one string per pod, not two)."""
        meta = pod.metadata
        self._fill(pod, key if key is not None else f"{meta.namespace}/{meta.name}",
                   spec_parts(pod.spec))

    def _fill(self, pod: Pod, key: str, parts: SpecParts) -> None:
        """Set every field: ``parts`` are ``spec_parts(pod.spec)``."""
        self.pod = pod
        meta = pod.metadata
        self.key = key
        self.namespace = meta.namespace
        self.labels = meta.labels
        self.priority, self.requests, self.non_zero_cpu, self.non_zero_mem, \
            self.host_ports = parts
        st = pod.status.start_time
        self.start_time = float(st) if isinstance(st, (int, float)) else None
        self.terminating = meta.deletion_timestamp is not None

    @staticmethod
    def plain(pod: Pod, key: str, parts: SpecParts) -> "PodInfo":
        """``PodInfo(pod, key)`` of a pod without pod (anti-)affinity whose spec's
        ``spec_parts`` are ``parts`` (a load's pods of one spec share them: the scheduler
        cache's add_pods), without working them out again."""
        pi = _new_object(PodInfo)
        pi._fill(pod, key, parts)
        return pi

    def with_pod(self, pod: Pod) -> "PodInfo":
        """This PodInfo for a newer version of the same pod whose spec, labels and
        deletion state are unchanged (a status write): only the pod and its start time are
        re-read; the parsed terms and request totals are shared."""
        # (object.__new__ itself: PodInfo.__new__ would only pass the class on to it)
        pi = _new_object(self.__class__)
        pi.key, pi.namespace, pi.labels, pi.priority = (self.key, self.namespace, self.labels,
                                                         self.priority)
        pi.requests, pi.non_zero_cpu, pi.non_zero_mem = (self.requests, self.non_zero_cpu,
                                                         self.non_zero_mem)
        pi.host_ports, pi.terminating = self.host_ports, self.terminating
        pi.pod = pod
        st = pod.status.start_time
        pi.start_time = float(st) if isinstance(st, (int, float)) else None
        return pi

    def same_terms(self, pod: Pod) -> bool:
        """Whether ``pod`` (the same pod, a later version) parses to the same terms, totals
        and ports as this PodInfo's pod: the same labels, containers, init containers,
        overhead and affinity objects and the same priority. Its nodeName and status may
        differ (the bind); terminating is read afresh by the caller."""
        old = self.pod
        if old is pod:
            return True
        a, b = old.spec, pod.spec
        return (old.metadata.labels is pod.metadata.labels and a.containers is b.containers
                and a.init_containers is b.init_containers and a.overhead is b.overhead
                and a.affinity is b.affinity and a.priority == b.priority
                and old.metadata.namespace == pod.metadata.namespace
                and old.metadata.name == pod.metadata.name)

    def __repr__(self) -> str:
        return f"<PodInfo {self.key}>"


class AffinityPodInfo(PodInfo):
    """The PodInfo of a pod with pod affinity or anti-affinity: its parsed terms."""

    __slots__ = ("required_affinity", "required_anti_affinity", "preferred_affinity",
                 "preferred_anti_affinity")

    has_affinity = True

    def __init__(self, pod: Pod, key: str | None = None) -> None:
        super().__init__(pod, key)
        aff = pod.spec.affinity
        pa = aff.pod_affinity if aff is not None else None
        paa = aff.pod_anti_affinity if aff is not None else None
        self.required_affinity = tuple(AffinityTerm(pod, t) for t in pa.required) if pa else ()
        self.required_anti_affinity = (tuple(AffinityTerm(pod, t) for t in paa.required)
                                       if paa else ())
        self.preferred_affinity = (tuple(AffinityTerm(pod, w.pod_affinity_term, w.weight)
                                         for w in pa.preferred) if pa else ())
        self.preferred_anti_affinity = (tuple(AffinityTerm(pod, w.pod_affinity_term, w.weight)
                                              for w in paa.preferred) if paa else ())

    def with_pod(self, pod: Pod) -> "PodInfo":
        pi = super().with_pod(pod)
        assert isinstance(pi, AffinityPodInfo)
        pi.required_affinity = self.required_affinity
        pi.required_anti_affinity = self.required_anti_affinity
        pi.preferred_affinity = self.preferred_affinity
        pi.preferred_anti_affinity = self.preferred_anti_affinity
        return pi




# -- nodes --------------------------------------------------------------------------------------

# Selectors whose counts a NodeInfo remembers at once (count_matching).
MATCHING_KEPT = 16


class NodeInfo:
    """A node and the pods on it, with running totals (framework.NodeInfo)."""

    __slots__ = ("node", "name", "labels", "pods", "pods_with_affinity",
                 "pods_with_required_anti_affinity", "req_cpu", "req_mem", "req_eph",
                 "req_scalar", "nz_cpu", "nz_mem", "alloc_cpu", "alloc_mem", "alloc_eph",
                 "alloc_pods", "alloc_scalar", "used_ports", "images", "generation", "index",
                 "_lowest", "_lowest_gen", "_matching")

    def __init__(self, node: Node | None = None) -> None:
        self.pods: dict[str, PodInfo] = {}
        self.pods_with_affinity: dict[str, PodInfo] = {}
        self.pods_with_required_anti_affinity: dict[str, PodInfo] = {}
        self.req_cpu = self.req_mem = self.req_eph = 0
        self.req_scalar: dict[str, int] = {}
        self.nz_cpu = self.nz_mem = 0
        self.used_ports: Counter = Counter()
        self.generation = 0
        self.index = -1
        self._lowest: int | None = None
        self._lowest_gen = -1
        self._matching: tuple[int, dict] | None = None
        # The Node; None for the NodeInfo of pods whose node the cache has not seen (yet).
        self.node: Any = None
        self.set_node(node)

    def set_node(self, node: Node | None) -> None:
        prev = self.node
        if node is not None and prev is not None:
            st, was = node.status, prev.status
            if st.allocatable is was.allocatable and st.capacity is was.capacity \
                    and st.images is was.images:
                # A kubelet's status post (new conditions, the same resources and images):
                # what set_node derives from them is what it derived last time, so only the
                # node, its labels and the generation change (not its 6 amounts parsed again
                # from Quantities and its image map rebuilt for every heartbeat).
                self.node = node
                self.name = node.metadata.name
                self.labels = node.metadata.labels
                self.generation += 1
                return
        self.node = node
        self.name = node.metadata.name if node is not None else ""
        self.labels = node.metadata.labels if node is not None else FrozenDict()
        alloc = node.allocatable_amounts if node is not None else {}
        self.alloc_cpu = alloc.get(CPU, 0)
        self.alloc_mem = alloc.get(MEMORY, 0)
        self.alloc_eph = alloc.get(EPHEMERAL_STORAGE, 0)
        self.alloc_pods = alloc.get(PODS, DEFAULT_MAX_PODS if node is not None else 0)
        self.alloc_scalar = {k: v for k, v in alloc.items() if k not in _NATIVE}
        imgs: dict[str, int] = {}
        if node is not None:
            for image in node.status.images:
                for name in image.names:
                    imgs[name] = image.size_bytes
        self.images = imgs
        self.generation += 1

    # -- pods --
    def add_pod(self, pi: PodInfo) -> None:
        self.pods[pi.key] = pi
        if pi.has_affinity:
            self.pods_with_affinity[pi.key] = pi
        if pi.required_anti_affinity:
            self.pods_with_required_anti_affinity[pi.key] = pi
        self._update(pi, 1)

    def add_pods(self, pis: list[PodInfo]) -> None:
        """``add_pod(pi)`` of each in turn, for pods without (anti-)affinity or host ports
        (SchedulerCache.add_pods, a load's): the totals of the pods that share one requests
        object and non-zero amounts (a template's) are added by one _update with their
        count as its sign — integer sums, so the totals are the ones one add per pod
        leaves — and the generation moves as far as one add per pod moves it."""
        pods = self.pods
        same: dict[tuple[int, int, int], list] = {}
        for pi in pis:
            assert not pi.has_affinity and not pi.host_ports, "add_pod takes those"
            pods[pi.key] = pi
            k = (id(pi.requests), pi.non_zero_cpu, pi.non_zero_mem)
            entry = same.get(k)
            if entry is None:
                same[k] = [pi, 1]
            else:
                entry[1] += 1
        for pi, count in same.values():
            self._update(pi, count)
        self.generation += len(pis) - len(same)

    def remove_pod(self, key: str) -> PodInfo | None:
        pi = self.pods.pop(key, None)
        if pi is None:
            return None
        self.pods_with_affinity.pop(key, None)
        self.pods_with_required_anti_affinity.pop(key, None)
        self._update(pi, -1)
        return pi

    def _update(self, pi: PodInfo, sign: int) -> None:
        r = pi.requests
        for name, v in r.items():
            if name == CPU:
                self.req_cpu += sign * v
            elif name == MEMORY:
                self.req_mem += sign * v
            elif name == EPHEMERAL_STORAGE:
                self.req_eph += sign * v
            elif name != PODS:
                self.req_scalar[name] = self.req_scalar.get(name, 0) + sign * v
        self.nz_cpu += sign * pi.non_zero_cpu
        self.nz_mem += sign * pi.non_zero_mem
        for hp in pi.host_ports:
            self.used_ports[hp] += sign
            if self.used_ports[hp] <= 0:
                del self.used_ports[hp]
        self.generation += 1

    def requested(self, name: str) -> int:
        if name == CPU:
            return self.req_cpu
        if name == MEMORY:
            return self.req_mem
        if name == EPHEMERAL_STORAGE:
            return self.req_eph
        if name == PODS:
            return len(self.pods)
        return self.req_scalar.get(name, 0)

    def allocatable(self, name: str) -> int:
        if name == CPU:
            return self.alloc_cpu
        if name == MEMORY:
            return self.alloc_mem
        if name == EPHEMERAL_STORAGE:
            return self.alloc_eph
        if name == PODS:
            return self.alloc_pods
        return self.alloc_scalar.get(name, 0)

    def port_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """HostPortInfo.CheckConflict: 0.0.0.0 clashes with any IP on the same port."""
        return host_port_conflict(self.used_ports, ip, protocol, port)

    def clone(self) -> "NodeInfo":
        """A copy whose pod set can change without touching this one (preemption's dry run)."""
        c = NodeInfo.__new__(NodeInfo)
        c.node, c.name, c.labels = self.node, self.name, self.labels
        c.pods = dict(self.pods)
        c.pods_with_affinity = dict(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = dict(self.pods_with_required_anti_affinity)
        c.req_cpu, c.req_mem, c.req_eph = self.req_cpu, self.req_mem, self.req_eph
        c.req_scalar = dict(self.req_scalar)
        c.nz_cpu, c.nz_mem = self.nz_cpu, self.nz_mem
        c.alloc_cpu, c.alloc_mem, c.alloc_eph = self.alloc_cpu, self.alloc_mem, self.alloc_eph
        c.alloc_pods, c.alloc_scalar = self.alloc_pods, self.alloc_scalar
        c.used_ports = Counter(self.used_ports)
        c.images = self.images
        c.generation = self.generation
        c.index = self.index
        c._lowest, c._lowest_gen = self._lowest, self._lowest_gen
        c._matching = None
        return c

    def lowest_priority(self) -> int | None:
        """The lowest priority of the pods here (None without pods), kept until they
        change: preemption's quick answer to "is there a possible victim here"."""
        if self._lowest_gen != self.generation:
            self._lowest = min((pi.priority for pi in self.pods.values()), default=None)
            self._lowest_gen = self.generation
        return self._lowest

    def count_matching(self, namespace: str, selector: Any) -> int:
        """How many pods here are not terminating, are in ``namespace`` and have labels
        ``selector`` matches (countPodsMatchSelector). Remembered per (namespace, selector
        object) until the pods here change (the generation moves with every add, remove and
        swap): an explain or a plain scheduling cycle counts every node's pods, and the next
        one — the explain view refreshing as the clock runs, spread_facts after explain —
        finds most nodes unchanged."""
        key = (namespace, id(selector))
        # _matching_now's check inline: every node of the cluster asks here once per explain
        # or plain cycle, and most answers are remembered.
        memo = self._matching
        if memo is not None and memo[0] == self.generation:
            seen = memo[1]
            hit = seen.get(key)
            if hit is not None and hit[0] is selector:
                return hit[1]
        else:
            seen = self._matching_now()
        n = 0
        matches = selector.matches
        for pi in self.pods.values():
            if not pi.terminating and pi.namespace == namespace and matches(pi.labels):
                n += 1
        self._remember_matching(seen, namespace, selector, n)
        return n

    @staticmethod
    def seed_matching(infos: Any, namespace: str, selector: Any, counts: Any) -> None:
        """Remember each count of ``counts`` as count_matching's answer now on the node of
        ``infos`` in the same place — counts kept current elsewhere (the fast path's per-node
        counters, the same rule over the same pods). One loop, not two calls per node:
        explain seeds every node of the cluster."""
        key = (namespace, id(selector))
        for ni, n in zip(infos, counts):
            memo = ni._matching
            gen = ni.generation
            if memo is None or memo[0] != gen:
                # The entry keeps the selector alive, so its id is not reused while
                # remembered (as _remember_matching's).
                ni._matching = (gen, {key: (selector, n)})
                continue
            NodeInfo._remember_matching(memo[1], namespace, selector, n)

    def _matching_now(self) -> dict:
        """count_matching's answers for the pods here now (a new dict once they changed)."""
        gen = self.generation
        memo = self._matching
        if memo is None or memo[0] != gen:
            memo = self._matching = (gen, {})
        return memo[1]

    @staticmethod
    def _remember_matching(seen: dict, namespace: str, selector: Any, n: int) -> None:
        if len(seen) >= MATCHING_KEPT:
            seen.clear()
        # The entry keeps the selector alive, so its id is not reused while remembered.
        seen[(namespace, id(selector))] = (selector, n)

    def has_pod_below(self, priority: int) -> bool:
        """Whether a pod here has a priority below ``priority`` (a possible victim)."""
        low = self.lowest_priority()
        return low is not None and low < priority

    def __repr__(self) -> str:
        return f"<NodeInfo {self.name} pods={len(self.pods)}>"
