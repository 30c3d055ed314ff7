"""The cluster autoscaler's drain rules: may a node's pods move, and how full is it.

Ported in our own words from ``cluster-autoscaler/simulator`` (``drainability/rules``,
``utilization``), following ``FAQ.md`` "What types of pods can prevent CA from removing a
node?". Pure functions over the store's objects; the planner in ``scale_down.py`` calls them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.core import FAILED, SUCCEEDED
from ...api.evolve import evolve

if TYPE_CHECKING:
    from ...api.core import Node, Pod
    from ...apiserver.store import Store

# The annotations of FAQ.md that a pod carries.
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
ENABLE_DS_EVICTION = "cluster-autoscaler.kubernetes.io/enable-ds-eviction"
# simulator/drain: BlockingPodReason.
NOT_REPLICATED = "NotReplicated"
CONTROLLER_NOT_FOUND = "ControllerNotFound"
LOCAL_STORAGE_REQUESTED = "LocalStorageRequested"
NOT_SAFE_TO_EVICT = "NotSafeToEvictAnnotation"
UNMOVABLE_KUBE_SYSTEM_POD = "UnmovableKubeSystemPod"
NOT_ENOUGH_PDB = "NotEnoughPdb"


def is_daemonset_pod(pod: Pod) -> bool:
    ref = pod.metadata.controller_ref()
    return ref is not None and ref.kind == "DaemonSet"


def pod_gone(pod: Pod) -> bool:
    return pod.status.phase in (SUCCEEDED, FAILED)


def utilization(store: Store, node: Node) -> float:
    """utilization.Calculate: max(cpu, memory) requested / allocatable (all pods counted)."""
    alloc = node.allocatable_amounts
    cpu = mem = 0
    for p in store.pods_on_node(node.name):
        if pod_gone(p):
            continue
        r = p.spec.requests
        cpu += r.get("cpu", 0)
        mem += r.get("memory", 0)
    shares = []
    for used, have in ((cpu, alloc.get("cpu", 0)), (mem, alloc.get("memory", 0))):
        if have > 0:
            shares.append(used / have)
    return max(shares) if shares else 0.0


def _pdb_selects(pdb: Any, pod: Pod) -> bool:
    sel = pdb.spec.selector
    if sel is None or (not sel.match_labels and not sel.match_expressions):
        return False
    return sel.matches(pod.metadata.labels)


def drain_plan(store: Store, config: Any, pods: list[Any]) -> tuple[list[Any], list[Any],
                                                                  tuple[str, str] | None]:
    """(pods to move, DaemonSet pods to evict, the first blocking (pod, reason) or None)."""
    move: list[Any] = []
    daemons: list[Any] = []
    pdbs_by_ns: dict[str, list[Any]] = {}
    for pod in sorted(pods, key=lambda p: (p.metadata.namespace, p.metadata.name)):
        ann = pod.metadata.annotations
        if pod.is_mirror or pod_gone(pod):
            continue
        if pod.metadata.deletion_timestamp is not None:
            continue    # already going
        if is_daemonset_pod(pod):
            if ann.get(ENABLE_DS_EVICTION) != "false":
                daemons.append(pod)
            continue
        safe = ann.get(SAFE_TO_EVICT)
        if safe == "false":
            return move, daemons, (pod.key, NOT_SAFE_TO_EVICT)
        ns = pod.metadata.namespace
        if ns not in pdbs_by_ns:
            pdbs_by_ns[ns] = store.list("PodDisruptionBudget", ns)
        if safe != "true":
            ref = pod.metadata.controller_ref()
            if ref is None:
                return move, daemons, (pod.key, NOT_REPLICATED)
            if ref.kind in ("ReplicaSet", "ReplicationController", "Deployment") and \
                    store.get(ref.kind, ref.name, ns) is None:
                return move, daemons, (pod.key, CONTROLLER_NOT_FOUND)
            if config.skip_nodes_with_system_pods and ns == "kube-system" and \
                    not any(_pdb_selects(b, pod) for b in pdbs_by_ns[ns]):
                return move, daemons, (pod.key, UNMOVABLE_KUBE_SYSTEM_POD)
            if config.skip_nodes_with_local_storage and _local_storage_blocks(pod):
                return move, daemons, (pod.key, LOCAL_STORAGE_REQUESTED)
        move.append(pod)
    # PDBs: the budget must allow every pod of the node it selects to go.
    for ns, pdbs in pdbs_by_ns.items():
        for pdb in pdbs:
            selected = [p for p in move if p.metadata.namespace == ns and _pdb_selects(pdb, p)]
            if selected and pdb.status.disruptions_allowed < len(selected):
                return move, daemons, (selected[0].key, NOT_ENOUGH_PDB)
    return move, daemons, None


def _local_storage_blocks(pod: Pod) -> bool:
    allowed = {v.strip() for v in pod.metadata.annotations.get(SAFE_TO_EVICT_LOCAL_VOLUMES,
                                                               "").split(",") if v.strip()}
    for vol in pod.spec.volumes:
        local = vol.host_path is not None or (
            vol.empty_dir is not None and
            (vol.empty_dir.get("medium") if hasattr(vol.empty_dir, "get") else "") != "Memory")
        if local and vol.name not in allowed:
            return True
    return False


def unbound(pod: Pod) -> Any:
    """The pod as the simulation reschedules it: not bound to any node."""
    return evolve(pod, spec=evolve(pod.spec, node_name=""))
