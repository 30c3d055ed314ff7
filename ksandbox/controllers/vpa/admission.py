"""The VPA admission controller (``pkg/admission-controller/resource/pod``): a mutating hook on
pod creation giving a new pod of a VPA's target in ``Initial``, ``Recreate`` or ``Auto`` mode the
recommended requests (limits scaled in proportion, unless ``controlledValues: RequestsOnly``) and
the ``vpaUpdates`` / ``vpaObservedContainers`` annotations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.codec import FrozenDict
from ...api.evolve import evolve
from ...api.quantity import Quantity
from .targets import Targets
from .updater import EVICTING_MODES

if TYPE_CHECKING:
    from ...api.core import Pod
    from ...apiserver.store import Store

ADMITTING_MODES = ("Initial",) + EVICTING_MODES
# utils/annotations: what the admission controller leaves on a pod.
VPA_UPDATES_ANNOTATION = "vpaUpdates"
VPA_OBSERVED_CONTAINERS_ANNOTATION = "vpaObservedContainers"


class AdmissionController:
    """Patches new pods from ``store``'s VPAs (found through ``targets``); patched specs are
    cached by (spec, VPA version), as many pods of one template share one spec."""

    def __init__(self, store: Store, targets: Targets) -> None:
        self.store = store
        self.targets = targets
        self._specs: dict[tuple, Any] = {}

    def admit_pod(self, pod: Pod) -> Any:
        """The mutating hook: recommended requests for a new pod of an admitting VPA."""
        if pod.metadata.controller_ref() is None or \
                not self.store.list("VerticalPodAutoscaler", pod.metadata.namespace):
            return pod
        vpa = self.targets.vpa_for(pod)
        if vpa is None or vpa.update_mode not in ADMITTING_MODES or \
                vpa.status.recommendation is None:
            return pod
        key = (id(pod.spec), vpa.metadata.uid, vpa.metadata.resource_version)
        hit = self._specs.get(key)
        if hit is None or hit[0] is not pod.spec:
            spec, updates, observed = self._patched(vpa, pod.spec)
            if len(self._specs) > 1024:
                self._specs.clear()
            hit = self._specs[key] = (pod.spec, spec, updates, observed)
        _, spec, updates, observed = hit
        annotations = dict(pod.metadata.annotations)
        annotations[VPA_OBSERVED_CONTAINERS_ANNOTATION] = observed
        if updates:
            annotations[VPA_UPDATES_ANNOTATION] = (f"Pod resources updated by "
                                                   f"{vpa.metadata.name}: " + "; ".join(updates))
        meta = evolve(pod.metadata, annotations=FrozenDict(annotations))
        return evolve(pod, metadata=meta, spec=spec)

    def _patched(self, vpa: Any, spec: Any) -> tuple[Any, list[str], str]:
        containers = []
        updates = []
        for i, c in enumerate(spec.containers):
            rec = vpa.recommendation_for(c.name)
            policy = vpa.container_policy(c.name)
            if rec is None or (policy is not None and policy.mode == "Off"):
                containers.append(c)
                continue
            requests = dict(c.resources.requests)
            limits = dict(c.resources.limits)
            changed = []
            limits_only = policy is not None and policy.controlled_values == "RequestsOnly"
            for res, target in sorted(rec.target.items()):
                old_req = requests.get(res)
                requests[res] = target
                changed.append(f"{res} request")
                old_lim = limits.get(res)
                if old_lim is not None and not limits_only:
                    base = old_req if old_req is not None and not old_req.is_zero() else old_lim
                    limits[res] = _proportional(old_lim, base, target, res)
                    changed.append(f"{res} limit")
            if changed:
                updates.append(f"container {i}: " + ", ".join(changed))
            res_req = evolve(c.resources, requests=FrozenDict(requests),
                             limits=FrozenDict(limits) if limits else c.resources.limits)
            containers.append(evolve(c, resources=res_req))
        observed = ", ".join(c.name for c in spec.containers)
        return evolve(spec, containers=tuple(containers)), updates, observed


def _proportional(limit: Quantity, request: Quantity, recommended: Quantity, res: str) -> Quantity:
    """getProportionalResourceLimit: keep the limit/request ratio of the original container."""
    if res == "cpu":
        lim, req, rec = limit.milli_value(), request.milli_value(), recommended.milli_value()
        return Quantity.from_scaled(-(-lim * rec // max(1, req)), -3)
    lim, req, rec = limit.value(), request.value(), recommended.value()
    return Quantity.from_scaled(-(-lim * rec // max(1, req)), 0)
