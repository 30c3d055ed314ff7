"""ImageLocality: prefer nodes that already have the pod's container images.

Upstream ``plugins/imagelocality/image_locality.go``: each image present on the node adds its
size scaled by the fraction of nodes that have it (so an image on every node counts little),
clamped between 23 MiB and 1000 MiB per container, then mapped onto 0..100.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.evolve import by_identity
from ..framework.interface import MAX_NODE_SCORE
from . import names

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.IMAGE_LOCALITY
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Add ``:latest`` when the image names no tag."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def _image_names(init_containers: tuple, containers: tuple) -> tuple[str, ...]:
    return tuple(normalized_image_name(c.image) for c in init_containers + containers)


class ImageLocality:
    name = NAME

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def _images(self, pod: Pod) -> tuple[str, ...]:
        spec = pod.spec
        # Pods of a template share their container tuples: named once per template.
        return by_identity(_image_names, spec.init_containers, spec.containers)

    def score(self, state: Any, pod: Pod, node_info: Any) -> int:
        images = self._images(pod)
        total = self.handle.num_nodes()
        counts = self.handle.image_nodes()
        s = 0
        for image in images:
            size = node_info.images.get(image)
            if size is not None:
                # scaledImageScore: int64(float64(size) * float64(numNodes)/float64(total))
                s += int(float(size) * (counts.get(image, 0) / total))
        return calculate_priority(s, len(images))

    def score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> np.ndarray:
        return ctx.gather(self._full(state, pod, ctx)[0], idx)

    def constant_score(self, state: Any, pod: Pod, ctx: Any) -> int | None:
        """Every node's score when it is one number (an image no node has: a rollout's new
        tag), else None."""
        return self._full(state, pod, ctx)[1]

    def _full(self, state: Any, pod: Pod, ctx: Any) -> tuple[np.ndarray, int | None]:
        """Every node's score, and the one value they all have (or None): both as static as
        the nodes' images."""
        images = self._images(pod)
        return ctx.static((NAME, images), lambda: _with_constant(
            self._column(state, pod, ctx, images)))

    def _column(self, state: Any, pod: Pod, ctx: Any, images: tuple[str, ...]) -> np.ndarray:
        """Every node's score, made once per image set while the nodes stay as they are."""
        counts = self.handle.image_nodes()
        if not any(image in counts for image in images):
            # No node has any of the images (a rollout's new tag before a kubelet reports
            # it): every node sums nothing, so every node scores what a sum of 0 maps to —
            # not score() asked of every node for each new image.
            return np.full(ctx.n, calculate_priority(0, len(images)), dtype=np.int64)
        return np.array([self.score(state, pod, ni) for ni in ctx.infos], dtype=np.int64)


def _with_constant(full: np.ndarray) -> tuple[np.ndarray, int | None]:
    if not len(full):
        return full, None
    first = int(full[0])
    return full, first if bool((full == first).all()) else None


def new(args: Any, handle: Any) -> ImageLocality:
    return ImageLocality(handle)
