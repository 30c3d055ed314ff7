"""The Eviction API: ``POST pods/NAME/eviction``, the subresource that honours PodDisruptionBudgets.

Upstream ``pkg/registry/core/pod/storage/eviction.go``: a terminal, pending or already deleting
pod is deleted without a PDB check; more than one matching PDB is an error (500); a PDB with no
disruptions allowed answers 429 ``Cannot evict pod as it would violate the pod's disruption
budget.``; otherwise the PDB's ``disruptionsAllowed`` is decremented and the pod is deleted
(gracefully) after a ``DisruptionTarget`` condition is added.

Everything that evicts calls this one place: ``kubectl drain`` (``commands/drain_run.py``), the
cluster autoscaler's scale-down and the VPA updater (given an :class:`EvictionAPI` by
``controlplane.build_components``). It is not the kubelet's node-pressure eviction (which
fails pods in place) nor the NoExecute taint manager (which deletes without asking PDBs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from ..api.core import FAILED, PENDING, SUCCEEDED, Pod, pod_condition

if TYPE_CHECKING:
    from ..api.policy import PodDisruptionBudget
    from .store import Store

# pkg/registry/core/pod/storage/eviction.go.
PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_PDBS = ("This pod has more than one PodDisruptionBudget, which the eviction "
                 "subresource does not support.")
EVICTION_CONDITION_REASON = "EvictionByEvictionAPI"
EVICTION_CONDITION_MESSAGE = "Eviction API: evicting"


@attrs.frozen
class EvictionResult:
    code: int            # 201 evicted, 404, 429, 500, 403
    message: str = ""


def _pdb_selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    sel = pdb.spec.selector
    if sel is None or (not sel.match_labels and not sel.match_expressions):
        return False  # a nil or empty PDB selector matches nothing
    return sel.matches(pod.metadata.labels)


def _is_ready(pod: Pod) -> bool:
    c = pod.status.condition("Ready")
    return c is not None and c.status == "True"


def evict_pod(store: Store, namespace: str, name: str, grace_period: int = -1,
              dry_run: bool = False) -> EvictionResult:
    """POST pods/eviction: delete ``namespace/name`` unless a PodDisruptionBudget forbids it."""
    pod = store.get("Pod", name, namespace)
    if pod is None:
        return EvictionResult(404, f'pods "{name}" not found')
    grace = grace_period if grace_period >= 0 else None
    if pod.status.phase in (SUCCEEDED, FAILED, PENDING) or \
            pod.metadata.deletion_timestamp is not None:
        if not dry_run:
            store.delete("Pod", name, namespace, grace_period=grace)
        return EvictionResult(201)
    pdbs = [p for p in store.list("PodDisruptionBudget", namespace) if _pdb_selects(p, pod)]
    if len(pdbs) > 1:
        return EvictionResult(500, MULTIPLE_PDBS)
    if pdbs:
        pdb = pdbs[0]
        st = pdb.status
        unhealthy_ok = (not _is_ready(pod) and st.current_healthy >= st.desired_healthy
                        and st.desired_healthy > 0)
        if not unhealthy_ok:
            if st.extra.get("observedGeneration", 0) < pdb.metadata.generation:
                return EvictionResult(429, PDB_VIOLATION)
            if st.disruptions_allowed < 0:
                return EvictionResult(403, f'poddisruptionbudgets.policy "{pdb.metadata.name}" '
                                           f'is forbidden: pdb disruptions allowed is negative')
            if st.disruptions_allowed == 0:
                return EvictionResult(429, PDB_VIOLATION)
            if not dry_run:
                store.update_status(attrs.evolve(pdb, status=attrs.evolve(
                    st, disruptions_allowed=st.disruptions_allowed - 1)))
    if dry_run:
        return EvictionResult(201)
    cond = pod_condition(pod, "DisruptionTarget", "True", EVICTION_CONDITION_REASON,
                         EVICTION_CONDITION_MESSAGE, store.now())
    conds = tuple(c for c in pod.status.conditions if c.type != "DisruptionTarget") + (cond,)
    store.update_status(attrs.evolve(pod, status=attrs.evolve(pod.status, conditions=conds)))
    store.delete("Pod", name, namespace, grace_period=grace)
    return EvictionResult(201)


class EvictionAPI:
    """The eviction subresource of one store, for the components that evict."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def evict(self, namespace: str, name: str, grace_period: int = -1,
              dry_run: bool = False) -> EvictionResult:
        """201 (evicted or already going), 404, 429 (a PDB forbids it), 403 or 500."""
        return evict_pod(self.store, namespace, name, grace_period, dry_run)
