"""The pod generation the kubelet reports (KEP 5067, pod generation tracking, GA in v1.35).

Each status the kubelet's status manager posts carries ``status.observedGeneration``: the
``metadata.generation`` of the pod the kubelet synced. The conditions the kubelet owns are
rebuilt on every status it generates, so each carries that generation too (its transition time
stays the old one while its status does not change). A static pod's generation is its
manifest's, which has none: a mirror pod's status carries no generation at all, as upstream's
kubelet does not pass the mirror pod's on (the KEP's "Mirror pods").
"""

from __future__ import annotations

from ..api.core import Pod, PodStatus
from ..api.evolve import evolve

# pkg/kubelet/types.PodConditionByKubelet: the conditions generateAPIPodStatus writes
KUBELET_CONDITIONS = frozenset(("PodScheduled", "Ready", "Initialized", "ContainersReady",
                                "PodReadyToStartContainers"))


def kubelet_generation(pod: Pod) -> int:
    """podutil.CalculatePodStatusObservedGeneration of the pod the kubelet syncs."""
    return 0 if pod.is_mirror else pod.metadata.generation


def as_posted(pod: Pod, status: PodStatus) -> PodStatus:
    """``status`` as the status manager posts it for ``pod``: the kubelet's generation in
    observedGeneration and in each condition the kubelet owns. ``status`` itself when it
    carries them already."""
    gen = kubelet_generation(pod)
    conds = status.conditions
    if status.observed_generation == gen and all(
            c.observed_generation == gen for c in conds if c.type in KUBELET_CONDITIONS):
        return status
    return evolve(status, observed_generation=gen, conditions=tuple(
        evolve(c, observed_generation=gen)
        if c.type in KUBELET_CONDITIONS and c.observed_generation != gen else c
        for c in conds))
