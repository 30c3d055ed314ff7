"""The DaemonSet controller's pure pieces: the automatic tolerations, the node-name affinity
that pins a pod to its node, a pod's target node, and whether a node should run the pod.

Ported from upstream ``pkg/controller/daemon/util/daemonset_util.go``
(AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName)
and ``daemon_controller.go`` (NodeShouldRunDaemonPod, predicates), in our own words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..api.core import (
    Affinity,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from ..api.evolve import evolve
from ..api.taints import (
    NO_EXECUTE,
    NO_SCHEDULE,
    TAINT_NODE_DISK_PRESSURE,
    TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
    Toleration,
    find_untolerated_taint,
)
from .controller_utils import OBJECT_NAME_FIELD, node_matches_pod_affinity

if TYPE_CHECKING:
    from ..api.core import Node, Pod

# pkg/apis/apps: the labels a DaemonSet pod carries to say which template made it.
REVISION_HASH_LABEL = "controller-revision-hash"
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
# apps/v1: the DaemonSet's template generation, kept in an annotation by the API server.
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"

_NO_SCHEDULE_OR_EXECUTE = (NO_SCHEDULE, NO_EXECUTE)
_NO_EXECUTE = (NO_EXECUTE,)


def daemon_tolerations(spec: Any) -> tuple[Toleration, ...]:
    """AddOrUpdateDaemonPodTolerations: tolerate node problems for ever (no tolerationSeconds)
    and the condition taints, replacing a user toleration of the same key/operator/value/effect
    (AddOrUpdateTolerationInPodSpec)."""
    wanted = [Toleration(key=TAINT_NODE_NOT_READY, operator="Exists", effect=NO_EXECUTE),
              Toleration(key=TAINT_NODE_UNREACHABLE, operator="Exists", effect=NO_EXECUTE),
              Toleration(key=TAINT_NODE_DISK_PRESSURE, operator="Exists", effect=NO_SCHEDULE),
              Toleration(key=TAINT_NODE_MEMORY_PRESSURE, operator="Exists", effect=NO_SCHEDULE),
              Toleration(key=TAINT_NODE_PID_PRESSURE, operator="Exists", effect=NO_SCHEDULE),
              Toleration(key=TAINT_NODE_UNSCHEDULABLE, operator="Exists", effect=NO_SCHEDULE)]
    if spec.host_network:
        wanted.append(Toleration(key=TAINT_NODE_NETWORK_UNAVAILABLE, operator="Exists",
                                 effect=NO_SCHEDULE))
    out = list(spec.tolerations)
    for t in wanted:
        for i, have in enumerate(out):
            if (have.key, have.operator or "Equal", have.value, have.effect) == \
                    (t.key, t.operator, t.value, t.effect):
                out[i] = t
                break
        else:
            out.append(t)
    return tuple(out)


def node_name_affinity(affinity: Any, node_name: str) -> Affinity:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become the one
    ``metadata.name In [node]`` term; preferred terms and pod (anti-)affinity stay."""
    term = NodeSelectorTerm(match_fields=(NodeSelectorRequirement(
        key=OBJECT_NAME_FIELD, operator="In", values=(node_name,)),))
    required = NodeSelector(node_selector_terms=(term,))
    if affinity is None:
        return Affinity(node_affinity=NodeAffinity(required=required))
    na = affinity.node_affinity or NodeAffinity()
    return evolve(affinity, node_affinity=evolve(na, required=required))


def target_node(pod: Pod) -> str:
    """GetTargetNodeName: the bound node, else the node its matchFields term names ("" when
    neither)."""
    if pod.spec.node_name:
        return pod.spec.node_name
    aff = pod.spec.affinity
    req = aff.node_affinity.required if aff is not None and aff.node_affinity else None
    if req is None:
        return ""
    for term in req.node_selector_terms:
        for r in term.match_fields:
            if r.key == OBJECT_NAME_FIELD and r.operator == "In" and len(r.values) == 1:
                return r.values[0]
    return ""


def should_run(node: Node, template_spec: Any, daemon_spec: Any) -> tuple[bool, bool]:
    """NodeShouldRunDaemonPod: (should run a pod, may keep a running one)."""
    if template_spec.node_name and template_spec.node_name != node.name:
        return False, False
    if not node_matches_pod_affinity(daemon_spec, node):
        return False, False
    taints = node.spec.taints
    if not taints or find_untolerated_taint(taints, daemon_spec.tolerations,
                                            _NO_SCHEDULE_OR_EXECUTE) is None:
        return True, True
    return False, find_untolerated_taint(taints, daemon_spec.tolerations, _NO_EXECUTE) is None
