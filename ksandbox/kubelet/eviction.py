"""Node-pressure eviction: which pod the kubelet evicts first, and what it says.

Ported from ``pkg/kubelet/eviction`` (eviction_manager.go ``synchronize``, helpers.go
``rankMemoryPressure`` / ``rankDiskPressureFunc`` / ``rankPIDPressure``, ``evictionMessage``)
and ``pkg/kubelet/types`` (``IsCriticalPod``). The manager loop itself — when it runs, what it
writes — lives in ``eviction_manager.py``; this module is pure.

The sandbox has no cAdvisor, so usage is a documented model rather than a measurement:

* a pod uses exactly what it requests of a resource when every container requests that
  resource and limits it to the same amount (memory-"Guaranteed" for memory); every other pod
  is taken to use more than it requests — BestEffort pods always do;
* among pods that exceed their requests, upstream evicts the one exceeding by most; the sandbox
  cannot measure that and ranks BestEffort before Burstable before Guaranteed instead.

So, for memory and disk pressure, the order is upstream's ``exceeds requests`` → ``priority``
(lower first) → the QoS stand-in for usage → name; for PID pressure, ``priority`` → more
containers (processes) first → QoS → name. Critical pods (static and mirror pods, priority at or
above system-cluster-critical) are never evicted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from ..api.quantity import BINARY_SI, Quantity
from ..api.taints import NO_SCHEDULE, TAINT_NODE_MEMORY_PRESSURE, Taint, tolerations_tolerate_taint

if TYPE_CHECKING:
    from ..api.core import Pod

# pkg/kubelet/eviction/helpers.go: the status reason and message fragments.
REASON_EVICTED = "Evicted"
NODE_LOW_MESSAGE = "The node was low on resource: {}. "
NODE_CONDITION_MESSAGE = "The node had condition: {}. "
THRESHOLD_MET_MESSAGE = "Threshold quantity: {}, available: {}. "
# core/v1: the DisruptionTarget condition the kubelet adds to pods it evicts.
DISRUPTION_TARGET = "DisruptionTarget"
REASON_TERMINATION_BY_KUBELET = "TerminationByKubelet"
# pkg/kubelet/eviction/eviction_manager.go: hard thresholds give pods 1 s to stop.
IMMEDIATE_EVICTION_GRACE_PERIOD = 1
# pkg/kubelet/eviction/eviction_manager.go (waitForPodsCleanup): poll every second after an
# eviction before synchronizing again.
POD_CLEANUP_POLL = 1.0
# pkg/kubelet/kubelet.go: evictionMonitoringPeriod.
EVICTION_MONITORING_PERIOD = 10.0
# pkg/apis/scheduling: SystemCriticalPriority (system-cluster-critical).
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000

# The sandbox's pressure kinds → (node condition, eviction signal, resource to reclaim).
PRESSURE_KINDS = {
    "memory": ("MemoryPressure", "memory.available", "memory"),
    "disk": ("DiskPressure", "nodefs.available", "ephemeral-storage"),
    "pid": ("PIDPressure", "pid.available", "pids"),
}
# byEvictionPriority: memory first, then the others.
RECLAIM_ORDER = ("memory", "disk", "pid")

_MEMORY_PRESSURE_TAINT = Taint(key=TAINT_NODE_MEMORY_PRESSURE, effect=NO_SCHEDULE)
_QOS_RANK = {"BestEffort": 0, "Burstable": 1, "Guaranteed": 2}


def is_critical(pod: Pod) -> bool:
    """kubelettypes.IsCriticalPod: static, mirror, or system-critical priority."""
    if pod.is_mirror:
        return True
    source = pod.metadata.annotations.get("kubernetes.io/config.source")
    if source and source != "api":
        return True
    priority = pod.spec.priority
    return priority is not None and priority >= SYSTEM_CRITICAL_PRIORITY


def exceeds_requests(pod: Pod, resource: str) -> bool:
    """The usage model: within its request only when every container limits ``resource`` to
    exactly what it requests."""
    containers = pod.spec.containers
    if not containers:
        return False
    for c in containers:
        req = c.resources.requests.get(resource)
        lim = c.resources.limits.get(resource)
        if req is None or lim is None or req != lim or req.is_zero():
            return True
    return False


def rank(pods: Iterable[Any], kind: str) -> list[Any]:
    """The pods in the order the kubelet would evict them for ``kind`` pressure."""
    resource = PRESSURE_KINDS[kind][2]

    def priority(p: Any) -> int:
        return p.spec.priority or 0

    def qos(p: Any) -> int:
        return _QOS_RANK.get(p.spec.qos_class, 1)

    if kind == "pid":
        key = lambda p: (priority(p), -len(p.spec.containers), qos(p),  # noqa: E731
                         p.metadata.namespace, p.metadata.name)
    else:
        key = lambda p: (not exceeds_requests(p, resource), priority(p), qos(p),  # noqa: E731
                         p.metadata.namespace, p.metadata.name)
    return sorted(pods, key=key)


def eviction_message(kind: str, threshold: Any, capacity: int) -> str:
    """evictionMessage without the per-container usage lines (no usage is measured).

    With a configured threshold the message carries it and the simulated observation, which
    is half the threshold while the pressure fault is on.
    """
    resource = PRESSURE_KINDS[kind][2]
    message = NODE_LOW_MESSAGE.format(resource)
    if threshold is not None:
        amount = threshold.amount(capacity)
        quantity = threshold.quantity if threshold.quantity is not None \
            else Quantity.from_int(amount, BINARY_SI)
        available = Quantity.from_int(amount // 2, BINARY_SI if resource != "pids" else "DecimalSI")
        message += THRESHOLD_MET_MESSAGE.format(quantity, available)
    return message


def admission_rejection(conditions: Iterable[str], pod: Pod) -> str | None:
    """The eviction manager's Admit: the message refusing ``pod`` on a node under pressure.

    Memory pressure alone refuses only BestEffort pods that do not tolerate the memory-pressure
    taint; any other pressure refuses every pod. Critical pods are always admitted.
    """
    conds = sorted(conditions, key=lambda c: ("MemoryPressure", "DiskPressure",
                                              "PIDPressure").index(c))
    if not conds or is_critical(pod):
        return None
    if conds == ["MemoryPressure"]:
        if pod.spec.qos_class != "BestEffort":
            return None
        if tolerations_tolerate_taint(pod.spec.tolerations, _MEMORY_PRESSURE_TAINT):
            return None
    return NODE_CONDITION_MESSAGE.format("[" + " ".join(conds) + "]")
