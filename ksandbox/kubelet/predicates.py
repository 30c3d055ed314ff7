"""The kubelet's admission predicates: ``pkg/kubelet/lifecycle/predicate.go`` (generalFilter,
predicateAdmitHandler.Admit) and the scheduler's ``AdmissionCheck`` it calls.

A pod bound with ``spec.nodeName`` bypasses the scheduler, not the kubelet: before it runs a
pod the kubelet checks, in this order, that the node has room (every insufficient resource:
pods, cpu, memory, ephemeral-storage, extended resources), that the pod's nodeSelector and
required node affinity match the node, that ``spec.nodeName`` is this node, that its host ports
are free, and that it tolerates the node's NoExecute taints (static pods are not checked for
taints). The first failure is the pod's rejection: the reason (``OutOfcpu``, ``NodeAffinity``,
``NodeName``, ``NodePorts``, ``TaintToleration``) and message the pod's status and a Warning
event carry.

The node-affinity and host-port rules are the scheduler's own (``ksandbox.api.node_affinity``,
``ksandbox.api.host_ports``), as upstream shares them.
"""

from __future__ import annotations

from typing import Any, Collection, Mapping

from ..api.core import spec_host_ports
from ..api.evolve import by_identity
from ..api.host_ports import HostPort, ports_fit
from ..api.node_affinity import spec_matches_node
from ..api.taints import NO_EXECUTE, find_untolerated_taint

# Reasons and descriptions: the scheduler plugins' names and ErrReasons.
NODE_AFFINITY, NODE_NAME, NODE_PORTS, TAINT_TOLERATION = (
    "NodeAffinity", "NodeName", "NodePorts", "TaintToleration")
DESCRIPTIONS = {
    NODE_AFFINITY: "node(s) didn't match Pod's node affinity/selector",
    NODE_NAME: "node(s) didn't match the requested node name",
    NODE_PORTS: "node(s) didn't have free ports for the requested pod ports",
    TAINT_TOLERATION: "node(s) had untolerated taint",
}
# noderesources.Fits checks the resources in this order, then extended ones by name.
_FIT_ORDER = ("cpu", "memory", "ephemeral-storage")


def insufficient_message(name: str, requested: int, used: int, capacity: int) -> str:
    """InsufficientResourceError.Error (cpu in millicores, memory in bytes)."""
    return (f"Node didn't have enough resource: {name}, requested: {requested}, "
            f"used: {used}, capacity: {capacity}")


def predicate_message(name: str) -> str:
    """PredicateFailureError.Error."""
    return f"Predicate {name} failed: {DESCRIPTIONS[name]}"


def resource_failures(pod: Any, node: Any, used: Mapping[str, int]) -> list[tuple[str, str]]:
    """noderesources.Fits as the kubelet reports it: (``OutOf<name>``, message) for each."""
    req = pod.spec.requests
    # by identity: pods of one template share their requests (PodSpec.requests), and so
    # the order their resources are checked in
    return fit_failures(req, by_identity(fit_order, req), node.allocatable_amounts, used)


def fit_failures(req: Mapping[str, int], order: tuple[str, ...], alloc: Mapping[str, int],
                 used: Mapping[str, int]) -> list[tuple[str, str]]:
    """resource_failures of requests ``req`` (their ``fit_order``) on a node whose
    allocatable amounts are ``alloc`` and of which the pods held use ``used``."""
    out = []
    used_pods = used.get("pods", 0)
    if "pods" in alloc and used_pods + 1 > alloc["pods"]:
        out.append(("OutOfpods", insufficient_message("pods", 1, used_pods, alloc["pods"])))
    for name in order:
        amount = req[name]
        if amount <= 0:
            continue
        have, in_use = alloc.get(name, 0), used.get(name, 0)
        if in_use + amount > have:
            out.append((f"OutOf{name}", insufficient_message(name, amount, in_use, have)))
    return out


def fit_order(requests: Mapping[str, int]) -> tuple[str, ...]:
    """The requested resources in the order noderesources.Fits checks them."""
    return tuple([n for n in _FIT_ORDER if n in requests]
                 + sorted(n for n in requests if n not in _FIT_ORDER))


def general_filter(pod: Any, node: Any, used: Mapping[str, int],
                   used_ports: Collection[HostPort], static: bool = False
                   ) -> list[tuple[str, str]]:
    """generalFilter: every failure, (reason, message), in upstream's order."""
    out = resource_failures(pod, node, used)
    out.extend(spec_failures(pod.spec, node, used_ports, static))
    return out


def spec_failures(spec: Any, node: Any, used_ports: Collection[HostPort],
                  static: bool = False) -> list[tuple[str, str]]:
    """generalFilter's failures after the resources', in upstream's order: what the pod's
    spec asks of the node (its affinity, its node name, its tolerations) and, for a spec
    with host ports, of the ports the node's pods hold (``used_ports``)."""
    out = []
    if not spec_matches_node(spec, node):
        out.append((NODE_AFFINITY, predicate_message(NODE_AFFINITY)))
    if spec.node_name and spec.node_name != node.metadata.name:
        out.append((NODE_NAME, predicate_message(NODE_NAME)))
    # (a pod without host ports fits any; a node without taints taints no pod: neither is
    # asked — 150,000 loaded pods are admitted at t=0)
    host_ports = spec_host_ports(spec)
    if host_ports and not ports_fit(host_ports, used_ports):
        out.append((NODE_PORTS, predicate_message(NODE_PORTS)))
    if not static and node.spec.taints and \
            find_untolerated_taint(node.spec.taints, spec.tolerations,
                                   (NO_EXECUTE,)) is not None:
        out.append((TAINT_TOLERATION, predicate_message(TAINT_TOLERATION)))
    return out
