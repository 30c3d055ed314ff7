"""Which pods a VerticalPodAutoscaler controls (``pkg/utils/vpa/api.go``
GetControllingVPAForPod, ``pkg/target/controller_fetcher``): a pod belongs to a VPA when the
top of its controller chain (a Deployment over its ReplicaSet) is the VPA's target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..controller_utils import pod_active

if TYPE_CHECKING:
    from ...api.core import Pod
    from ...apiserver.store import Store

TARGET_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "DaemonSet")


class Targets:
    """Reads ``store`` to match pods with the VPAs that target them."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _top_controller(self, pod: Pod) -> tuple[str, str] | None:
        """(kind, name) of the top of the pod's controller chain (a Deployment over its
        ReplicaSet)."""
        ref = pod.metadata.controller_ref()
        if ref is None:
            return None
        top = (ref.kind, ref.name)
        if ref.kind == "ReplicaSet":
            rs = self.store.get("ReplicaSet", ref.name, pod.metadata.namespace)
            parent = rs.metadata.controller_ref() if rs is not None else None
            if parent is not None and parent.kind == "Deployment":
                top = (parent.kind, parent.name)
        return top

    def _targets(self, vpa: Any, pod: Pod) -> bool:
        ref = vpa.spec.target_ref
        return ref is not None and self._top_controller(pod) == (ref.kind, ref.name)

    def pods_of(self, vpa: Any) -> list[Any]:
        """The live pods the VPA controls, by name."""
        ref = vpa.spec.target_ref
        if ref is None or ref.kind not in TARGET_KINDS:
            return []
        ns = vpa.metadata.namespace
        pods = [p for p in self.store.list("Pod", ns)
                if pod_active(p) and self._top_controller(p) == (ref.kind, ref.name)]
        return sorted(pods, key=lambda p: p.metadata.name)

    def vpa_for(self, pod: Pod) -> Any | None:
        """GetControllingVPAForPod: the oldest VPA in the pod's namespace targeting it."""
        ns = pod.metadata.namespace
        matches = [v for v in self.store.list("VerticalPodAutoscaler", ns) if self._targets(v, pod)]
        if not matches:
            return None
        return min(matches, key=lambda v: (v.metadata.creation_timestamp or 0, v.metadata.name))
