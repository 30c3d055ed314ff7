"""The pod generation the kubelet reports (KEP 5067, pod generation tracking, GA in v1.35).

Each status the kubelet's status manager posts carries ``status.observedGeneration``: the
``metadata.generation`` of the pod the kubelet synced. The conditions the kubelet owns are
rebuilt on every status it generates, so each carries that generation too (its transition time
stays the old one while its status does not change). A static pod's generation is its
manifest's, which has none: a mirror pod's status carries no generation at all, as upstream's
kubelet does not pass the mirror pod's on (the KEP's "Mirror pods").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..api.core import MIRROR_ANNOTATION, Pod, PodCondition, PodStatus
from ..api.evolve import evolve, replacer

if TYPE_CHECKING:
    from ..apiserver.store import Store

# pkg/kubelet/types.PodConditionByKubelet: the conditions generateAPIPodStatus writes
KUBELET_CONDITIONS = frozenset(("PodScheduled", "Ready", "Initialized", "ContainersReady",
                                "PodReadyToStartContainers"))

# evolve(c, observed_generation=...) and evolve(status, observed_generation=..., conditions=...)
# built once: a terminating pod's five conditions are re-stamped on every kill
_STAMP_CONDITION: Any = replacer(PodCondition, ("observed_generation",))
_STAMP_STATUS: Any = replacer(PodStatus, ("observed_generation", "conditions"))
assert _STAMP_CONDITION is not None and _STAMP_STATUS is not None


def kubelet_generation(pod: Pod) -> int:
    """podutil.CalculatePodStatusObservedGeneration of the pod the kubelet syncs."""
    return 0 if pod.is_mirror else pod.metadata.generation


def as_posted(pod: Pod, status: PodStatus) -> PodStatus:
    """``status`` as the status manager posts it for ``pod``: the kubelet's generation in
    observedGeneration and in each condition the kubelet owns. ``status`` itself when it
    carries them already."""
    meta = pod.metadata   # kubelet_generation(pod), inline (it and is_mirror are two frames)
    gen = 0 if MIRROR_ANNOTATION in meta.annotations else meta.generation
    conds = status.conditions
    out = None
    for i, c in enumerate(conds):
        if c.observed_generation != gen and c.type in KUBELET_CONDITIONS:
            if out is None:
                out = list(conds)
            out[i] = _STAMP_CONDITION(c, gen) if type(c) is PodCondition \
                else evolve(c, observed_generation=gen)
    if out is None and status.observed_generation == gen:
        return status
    stamped = conds if out is None else tuple(out)
    if type(status) is PodStatus:
        return _STAMP_STATUS(status, gen, stamped)
    return evolve(status, observed_generation=gen, conditions=stamped)


def post_status(store: Store, pod: Pod, status: PodStatus) -> Pod:
    """The status manager's post of ``status`` for ``pod`` (as_posted): written unless it is
    the stored status already (nothing changed); the pod as stored afterwards."""
    posted = as_posted(pod, status)
    if posted is pod.status:
        return pod
    return store.write_status(pod, posted)
