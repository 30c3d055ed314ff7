"""core/v1 types: Namespace, Node, Pod and the pieces of a pod spec the sandbox models.

Each type is a frozen attrs value (change it with ``attrs.evolve``). Field names are
Kubernetes' own in snake_case; the JSON key is declared with ``j()``. Unknown keys are kept in
``extra`` so a manifest round-trips. Derived facts the control plane asks for often (a pod's
total requests, its QoS class) are ``cached_property``s computed once per immutable value.

Not here: semantic validation (``ksandbox.apiserver.validation``) and defaulting
(``ksandbox.apiserver.admission``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from .codec import (
    CACHED_SLOTS,
    EMPTY,
    FrozenDict,
    Int32,
    ResourceList,
    api_type,
    cached_getter,
    extra_field,
    j,
    register_shared,
)
from .evolve import by_identity
from .meta import ObjectMeta
from .selectors import LabelSelector
from .taints import Taint, Toleration

# -- resources --------------------------------------------------------------------------------


@api_type
class ResourceRequirements:
    requests: ResourceList = j("requests", EMPTY)
    limits: ResourceList = j("limits", EMPTY)
    extra: FrozenDict = extra_field()


@api_type
class ContainerPort:
    container_port: Int32 = j("containerPort", 0)
    host_port: Int32 = j("hostPort", 0)
    protocol: str = j("protocol", "")
    host_ip: str = j("hostIP", "")
    name: str = j("name", "")
    extra: FrozenDict = extra_field()


@api_type
class Container:
    name: str = j("name", "")
    image: str = j("image", "")
    resources: ResourceRequirements = j("resources", ResourceRequirements())
    ports: tuple[ContainerPort, ...] = j("ports", ())
    # restartPolicy: Always on an init container makes it a sidecar (KEP-753).
    restart_policy: str = j("restartPolicy", "")
    # Always, IfNotPresent or Never; the API server defaults it from the image's tag.
    image_pull_policy: str = j("imagePullPolicy", "")
    extra: FrozenDict = extra_field()


# -- affinity ---------------------------------------------------------------------------------


@api_type
class NodeSelectorRequirement:
    key: str = j("key", "")
    operator: str = j("operator", "")
    values: tuple[str, ...] = j("values", ())
    extra: FrozenDict = extra_field()


@api_type
class NodeSelectorTerm:
    match_expressions: tuple[NodeSelectorRequirement, ...] = j("matchExpressions", ())
    match_fields: tuple[NodeSelectorRequirement, ...] = j("matchFields", ())
    extra: FrozenDict = extra_field()


@api_type
class NodeSelector:
    node_selector_terms: tuple[NodeSelectorTerm, ...] = j("nodeSelectorTerms", ())
    extra: FrozenDict = extra_field()


@api_type
class PreferredSchedulingTerm:
    weight: Int32 = j("weight", 0)
    preference: NodeSelectorTerm = j("preference", NodeSelectorTerm())
    extra: FrozenDict = extra_field()


@api_type
class NodeAffinity:
    required: NodeSelector | None = j("requiredDuringSchedulingIgnoredDuringExecution", None)
    preferred: tuple[PreferredSchedulingTerm, ...] = j(
        "preferredDuringSchedulingIgnoredDuringExecution", ())
    extra: FrozenDict = extra_field()


@api_type
class PodAffinityTerm:
    label_selector: LabelSelector | None = j("labelSelector", None)
    namespaces: tuple[str, ...] = j("namespaces", ())
    topology_key: str = j("topologyKey", "")
    namespace_selector: LabelSelector | None = j("namespaceSelector", None)
    match_label_keys: tuple[str, ...] = j("matchLabelKeys", ())
    mismatch_label_keys: tuple[str, ...] = j("mismatchLabelKeys", ())
    extra: FrozenDict = extra_field()


@api_type
class WeightedPodAffinityTerm:
    weight: Int32 = j("weight", 0)
    pod_affinity_term: PodAffinityTerm = j("podAffinityTerm", PodAffinityTerm())
    extra: FrozenDict = extra_field()


@api_type
class PodAffinity:
    required: tuple[PodAffinityTerm, ...] = j(
        "requiredDuringSchedulingIgnoredDuringExecution", ())
    preferred: tuple[WeightedPodAffinityTerm, ...] = j(
        "preferredDuringSchedulingIgnoredDuringExecution", ())
    extra: FrozenDict = extra_field()


@api_type
class Affinity:
    node_affinity: NodeAffinity | None = j("nodeAffinity", None)
    pod_affinity: PodAffinity | None = j("podAffinity", None)
    pod_anti_affinity: PodAffinity | None = j("podAntiAffinity", None)
    extra: FrozenDict = extra_field()


@api_type
class TopologySpreadConstraint:
    max_skew: Int32 = j("maxSkew", 0)
    topology_key: str = j("topologyKey", "")
    when_unsatisfiable: str = j("whenUnsatisfiable", "")
    label_selector: LabelSelector | None = j("labelSelector", None)
    min_domains: Int32 | None = j("minDomains", None)
    node_affinity_policy: str = j("nodeAffinityPolicy", "")
    node_taints_policy: str = j("nodeTaintsPolicy", "")
    match_label_keys: tuple[str, ...] = j("matchLabelKeys", ())
    extra: FrozenDict = extra_field()


# -- volumes ----------------------------------------------------------------------------------


@api_type
class Volume:
    """A pod volume. Only the source's kind matters to the sandbox; its body is kept as is."""

    name: str = j("name", "")
    empty_dir: Any = j("emptyDir", None)
    host_path: Any = j("hostPath", None)
    persistent_volume_claim: Any = j("persistentVolumeClaim", None)
    config_map: Any = j("configMap", None)
    secret: Any = j("secret", None)
    extra: FrozenDict = extra_field()

    @property
    def is_empty_dir(self) -> bool:
        return self.empty_dir is not None


# -- pod --------------------------------------------------------------------------------------

def _pod_requests(containers: tuple[Container, ...], init_containers: tuple[Container, ...],
                  overhead: FrozenDict) -> FrozenDict:
    """PodSpec.requests' arithmetic."""
    from .quantity import resource_amount

    total: dict[str, int] = {}
    for c in containers:
        for name, q in c.resources.requests.items():
            total[name] = total.get(name, 0) + resource_amount(name, q)
    init_max: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    for c in init_containers:
        req = {n: resource_amount(n, q) for n, q in c.resources.requests.items()}
        if c.restart_policy == "Always":
            for n, v in req.items():
                sidecars[n] = sidecars.get(n, 0) + v
                init_max[n] = max(init_max.get(n, 0), sidecars[n])
        else:
            for n, v in req.items():
                init_max[n] = max(init_max.get(n, 0), v + sidecars.get(n, 0))
    for n, v in sidecars.items():
        total[n] = total.get(n, 0) + v
    for n, v in init_max.items():
        if v > total.get(n, 0):
            total[n] = v
    for name, q in overhead.items():
        total[name] = total.get(name, 0) + resource_amount(name, q)
    return FrozenDict(total)


# pkg/apis/core: pod phases.
PENDING, RUNNING, SUCCEEDED, FAILED, UNKNOWN = "Pending", "Running", "Succeeded", "Failed", "Unknown"
# The phases of a pod that has finished for good (Pod.is_terminated). A handler that hears
# every pod write tests `pod.status.phase in TERMINATED_PHASES` itself: a property read costs
# a call from C into a new interpreter frame (~600 instructions), ~10 of them per scheduled pod.
TERMINATED_PHASES = frozenset((SUCCEEDED, FAILED))


# Pods of one template on one node share one spec while a file loads (codec.sharing).
@register_shared
@api_type
class PodSpec:
    containers: tuple[Container, ...] = j("containers", ())
    init_containers: tuple[Container, ...] = j("initContainers", ())
    node_name: str = j("nodeName", "")
    node_selector: FrozenDict = j("nodeSelector", EMPTY)
    affinity: Affinity | None = j("affinity", None)
    tolerations: tuple[Toleration, ...] = j("tolerations", ())
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = j(
        "topologySpreadConstraints", ())
    scheduler_name: str = j("schedulerName", "")
    priority_class_name: str = j("priorityClassName", "")
    # Printed even when 0, as the API server returns it once admission resolved it.
    priority: Int32 | None = j("priority", None, omit_empty=False)
    preemption_policy: str = j("preemptionPolicy", "")
    termination_grace_period_seconds: int | None = j("terminationGracePeriodSeconds", None)
    restart_policy: str = j("restartPolicy", "")
    volumes: tuple[Volume, ...] = j("volumes", ())
    overhead: ResourceList = j("overhead", EMPTY)
    host_network: bool = j("hostNetwork", False)
    extra: FrozenDict = extra_field()

    @cached_property
    def requests(self) -> FrozenDict:
        """Effective requests as integers (cpu in millicores, others in base units).

        pkg/api/v1/resource (PodRequests): the sum over containers, raised to the largest init
        container (sidecars — restartPolicy Always — add to what follows them), plus overhead.
        Pods of one template share their containers, and so this total (by_identity)."""
        return by_identity(_pod_requests, self.containers, self.init_containers, self.overhead)

    @cached_property
    def limits(self) -> FrozenDict:
        from .quantity import resource_amount

        total: dict[str, int] = {}
        for c in self.containers:
            for name, q in c.resources.limits.items():
                total[name] = total.get(name, 0) + resource_amount(name, q)
        for c in self.init_containers:
            for name, q in c.resources.limits.items():
                v = resource_amount(name, q)
                if v > total.get(name, 0):
                    total[name] = v
        return FrozenDict(total)

    @cached_property
    def host_ports(self) -> tuple[tuple[str, str, int], ...]:
        """(hostIP, protocol, hostPort) of the ports a pod holds on its node while it runs
        (pkg/scheduler/util GetHostPorts): its sidecars' (init containers with
        restartPolicy Always, which run for the pod's whole life) and its containers'. A
        regular init container has exited before the containers start, so its host ports
        are not held — NodePorts ignores them."""
        out = []
        for c in self.init_containers:
            if c.restart_policy != "Always":
                continue
            for p in c.ports:
                if p.host_port:
                    out.append((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port))
        for c in self.containers:
            for p in c.ports:
                if p.host_port:
                    out.append((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port))
        return tuple(out)

    @cached_property
    def qos_class(self) -> str:
        """pkg/apis/core/v1/helper/qos (GetPodQOS): Guaranteed, Burstable or BestEffort."""
        containers = self.containers + self.init_containers
        any_set = False
        guaranteed = True
        for c in containers:
            req, lim = c.resources.requests, c.resources.limits
            for name in ("cpu", "memory"):
                r, l = req.get(name), lim.get(name)
                if (r is not None and not r.is_zero()) or (l is not None and not l.is_zero()):
                    any_set = True
                if l is None or l.is_zero():
                    guaranteed = False
                elif r is not None and r != l:
                    guaranteed = False
        if not any_set:
            return "BestEffort"
        return "Guaranteed" if guaranteed else "Burstable"

    def with_node_name(self, node_name: str) -> PodSpec:
        """This spec bound to ``node_name`` (pods/binding), with this spec's derived values:
        none of them reads ``node_name``, and recomputing the requests of every pod
        the scheduler binds (then re-reading them in its cache and the kubelet) is a per-pod
        cost of the whole pipeline."""
        key = (id(self), node_name)
        hit = _BOUND.get(key)
        if hit is not None and hit[0] is self:
            return hit[1]
        global _WITH_NODE
        if _WITH_NODE is None:
            from .evolve import replacer

            _WITH_NODE = replacer(PodSpec, ("node_name",))
        new = _WITH_NODE(self, node_name)   # evolve(self, node_name=...), without its key
        # Each computed here (once per spec: the template's pods share it) and handed over:
        # testing for one not computed yet raised an AttributeError per bind (limits, mostly),
        # as dear as computing it once.
        for read, slot in _NODE_FREE_SLOTS:
            slot.__set__(new, read(self))
        if len(_BOUND) >= BOUND_LIMIT:
            _BOUND.clear()
        _BOUND[key] = (self, new)
        return new


# The cached properties as functions (codec.cached_getter), for readers that run for every
# scheduled pod: spec_requests(spec) is spec.requests, and so on.
spec_requests = cached_getter(PodSpec, "requests")
spec_limits = cached_getter(PodSpec, "limits")
spec_host_ports = cached_getter(PodSpec, "host_ports")
spec_qos_class = cached_getter(PodSpec, "qos_class")

# evolve(spec, node_name=...) of a PodSpec, made at the first bind
_WITH_NODE: Any = None
# The cached derived values of a PodSpec (their slots) that do not depend on node_name.
# (attrs' own slots of its name when the class kept attrs' way: codec._slot_cached_properties)
# Each as (its getter, the slot).
_NODE_FREE_SLOTS = tuple((read, CACHED_SLOTS.get(PodSpec, PodSpec.__dict__)[name])
                         for read, name in ((spec_requests, "requests"), (spec_limits, "limits"),
                                            (spec_host_ports, "host_ports"),
                                            (spec_qos_class, "qos_class")))
# (id(spec), node name) -> (spec, spec bound to that node): pods of one template bound to one
# node share one bound spec, as pods of a template on a node share one spec when a file loads
# (codec.sharing) — the scheduler binds 10,000 pods of one template to 5,000 nodes. The entry
# keeps the spec alive, so its id is not reused while it is remembered. Bounded: the table
# starts over when full (above a 5,000-node cluster's nodes per template).
_BOUND: dict[tuple[int, str], tuple[PodSpec, PodSpec]] = {}
BOUND_LIMIT = 1 << 14


@api_type
class PodCondition:
    type: str = j("type", "")
    # the pod's metadata.generation its writer acted on (KEP 5067, GA in v1.35): every
    # writer of a pod condition sets it — kubelet, scheduler, taint manager, PodGC, eviction
    observed_generation: int = j("observedGeneration", 0)
    status: str = j("status", "")
    reason: str = j("reason", "")
    message: str = j("message", "")
    last_transition_time: Any = j("lastTransitionTime", None)
    extra: FrozenDict = extra_field()


def pod_condition(pod: Pod, type_: str, status: str, reason: str = "", message: str = "",
                  at: Any = None) -> PodCondition:
    """A condition the scheduler, a controller or the API server sets on ``pod``, as of
    ``pod``'s generation: podutil.CalculatePodConditionObservedGeneration, always the pod's
    metadata.generation since PodObservedGenerationTracking went GA (v1.35). The kubelet's
    conditions take the generation of the pod it synced instead (kubelet/generation.py)."""
    return PodCondition(type=type_, observed_generation=pod.metadata.generation,
                        status=status, reason=reason, message=message, last_transition_time=at)


@api_type
class PodStatus:
    # the metadata.generation the kubelet synced when it wrote this status (KEP 5067; the
    # first field of upstream's PodStatus, so -o json prints it first)
    observed_generation: int = j("observedGeneration", 0)
    phase: str = j("phase", "")
    conditions: tuple[PodCondition, ...] = j("conditions", ())
    reason: str = j("reason", "")
    message: str = j("message", "")
    nominated_node_name: str = j("nominatedNodeName", "")
    host_ip: str = j("hostIP", "")
    pod_ip: str = j("podIP", "")
    start_time: Any = j("startTime", None)
    qos_class: str = j("qosClass", "")
    extra: FrozenDict = extra_field()

    def condition(self, type_: str) -> PodCondition | None:
        for c in self.conditions:
            if c.type == type_:
                return c
        return None


@api_type
class Pod:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "Pod")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: PodSpec = j("spec", PodSpec())
    status: PodStatus = j("status", PodStatus())
    extra: FrozenDict = extra_field()

    @property
    def key(self) -> str:
        return f"{self.metadata.namespace}/{self.metadata.name}"

    @property
    def is_terminated(self) -> bool:
        return self.status.phase in TERMINATED_PHASES

    @property
    def is_mirror(self) -> bool:
        return MIRROR_ANNOTATION in self.metadata.annotations


# pkg/kubelet/types: the annotation that marks a mirror pod of a static pod.
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source"


@api_type
class PodTemplateSpec:
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: PodSpec = j("spec", PodSpec())
    extra: FrozenDict = extra_field()


# -- node -------------------------------------------------------------------------------------


@api_type
class NodeSpec:
    unschedulable: bool = j("unschedulable", False)
    taints: tuple[Taint, ...] = j("taints", ())
    pod_cidr: str = j("podCIDR", "")
    provider_id: str = j("providerID", "")
    extra: FrozenDict = extra_field()


@api_type
class NodeCondition:
    type: str = j("type", "")
    status: str = j("status", "")
    reason: str = j("reason", "")
    message: str = j("message", "")
    last_heartbeat_time: Any = j("lastHeartbeatTime", None)
    last_transition_time: Any = j("lastTransitionTime", None)
    extra: FrozenDict = extra_field()


@api_type
class NodeAddress:
    type: str = j("type", "")
    address: str = j("address", "")
    extra: FrozenDict = extra_field()


@api_type
class ContainerImage:
    names: tuple[str, ...] = j("names", ())
    size_bytes: int = j("sizeBytes", 0)
    extra: FrozenDict = extra_field()


@api_type
class NodeSystemInfo:
    kubelet_version: str = j("kubeletVersion", "")
    os_image: str = j("osImage", "")
    kernel_version: str = j("kernelVersion", "")
    container_runtime_version: str = j("containerRuntimeVersion", "")
    architecture: str = j("architecture", "")
    operating_system: str = j("operatingSystem", "")
    extra: FrozenDict = extra_field()


@api_type
class NodeStatus:
    capacity: ResourceList = j("capacity", EMPTY)
    allocatable: ResourceList = j("allocatable", EMPTY)
    conditions: tuple[NodeCondition, ...] = j("conditions", ())
    addresses: tuple[NodeAddress, ...] = j("addresses", ())
    node_info: NodeSystemInfo = j("nodeInfo", NodeSystemInfo())
    images: tuple[ContainerImage, ...] = j("images", ())
    extra: FrozenDict = extra_field()

    def condition(self, type_: str) -> NodeCondition | None:
        for c in self.conditions:
            if c.type == type_:
                return c
        return None


@api_type
class Node:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "Node")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: NodeSpec = j("spec", NodeSpec())
    status: NodeStatus = j("status", NodeStatus())
    extra: FrozenDict = extra_field()

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def ready(self) -> str:
        """The Ready condition's status: "True", "False" or "Unknown" (Unknown if absent)."""
        c = self.status.condition("Ready")
        return c.status if c is not None else "Unknown"

    @cached_property
    def allocatable_amounts(self) -> FrozenDict:
        """Allocatable as integers (cpu millicores, memory bytes, pods count, ...). Nodes of
        one shape share their allocatable map (the kubelet posts one per shape:
        node_status.reported_resources), and so these amounts (by_identity): 5,000
        registrations compute a few."""
        return by_identity(_amounts, self.status.allocatable or self.status.capacity)


def _amounts(resources: Any) -> FrozenDict:
    from .quantity import resource_amount

    return FrozenDict({n: resource_amount(n, q) for n, q in resources.items()})


# Node.allocatable_amounts as a function (codec.cached_getter)
node_allocatable_amounts = cached_getter(Node, "allocatable_amounts")


# -- namespace --------------------------------------------------------------------------------


@api_type
class NamespaceStatus:
    phase: str = j("phase", "")
    extra: FrozenDict = extra_field()


@api_type
class Namespace:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "Namespace")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    status: NamespaceStatus = j("status", NamespaceStatus())
    extra: FrozenDict = extra_field()


# -- event ------------------------------------------------------------------------------------


@api_type
class ObjectReference:
    kind: str = j("kind", "")
    namespace: str = j("namespace", "")
    name: str = j("name", "")
    uid: str = j("uid", "")
    api_version: str = j("apiVersion", "")
    extra: FrozenDict = extra_field()


@api_type
class Event:
    """core/v1 Event as ``kubectl get events`` shows it; times are simulated seconds."""

    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "Event")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    involved_object: ObjectReference = j("involvedObject", ObjectReference())
    reason: str = j("reason", "")
    message: str = j("message", "")
    type: str = j("type", "Normal")
    source_component: str = j("reportingComponent", "")
    count: Int32 = j("count", 1)
    first_timestamp: float = j("firstTimestamp", 0.0)
    last_timestamp: float = j("lastTimestamp", 0.0)
    extra: FrozenDict = extra_field()

    @property
    def object_path(self) -> str:
        """``Pod/default/web-1`` or ``Node/node-1``, as `sim -o json` prints the object."""
        o = self.involved_object
        return object_path(o.kind, o.namespace, o.name)


def object_path(kind: str, namespace: str, name: str) -> str:
    """An event's object as `sim -o json` prints it (``Event.object_path``; the event log
    reads it from its records without building the Event)."""
    return f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"
