"""The kubelet's image manager: ``pkg/kubelet/images/image_manager.go`` (EnsureImageExists),
in our words — which events a container's start records, by its imagePullPolicy.

* ``Always``: the image is pulled — ``Pulling`` then ``Pulled`` ("Successfully pulled image …
  in 1.5s (1.5s including waiting)"; the image's size is added when the node reports it).
* ``IfNotPresent``: ``Pulled`` "already present on machine" when the node has the image (its
  ``status.images`` lists it, or this kubelet pulled it before), else a pull as above.
* ``Never``: "already present" when present, else a Warning ``ErrImageNeverPull`` and the
  container does not start.

The API server defaults the policy (Always for ``:latest`` or no tag, else IfNotPresent), so
``nginx`` is pulled at every start and ``nginx:1.27`` once per node. The pull takes the
container's start delay (the sandbox has no registry: the time is the seeded start delay).
"""

from __future__ import annotations

from typing import AbstractSet, Any, Iterable

PULLED, PULLING, NEVER_PULL = "Pulled", "Pulling", "ErrImageNeverPull"


class ImageManager:
    """Per kubelet: the images it has pulled (the node's image store)."""

    def __init__(self) -> None:
        # the empty frozenset until an image is pulled: an empty set is 216 bytes, and a
        # loaded cluster's 5,000 kubelets each held four (this, adopted IPs, faults, held)
        self.pulled: AbstractSet[str] = frozenset()

    def mark_pulled(self, images: Iterable[str]) -> None:
        pulled = self.pulled if isinstance(self.pulled, set) else set(self.pulled)
        pulled.update(images)
        self.pulled = pulled

    def present(self, image: str, node: Any) -> bool:
        if image in self.pulled:
            return True
        if node is not None:
            for img in node.status.images:
                if image in img.names:
                    return True
        return False

    def ensure(self, container: Any, node: Any, took: float
               ) -> tuple[list[tuple[str, str, str]], bool]:
        """(events as (type, reason, message), whether the container may start)."""
        image, policy = container.image, container.image_pull_policy or "IfNotPresent"
        present = self.present(image, node)
        if policy == "Never" or (policy == "IfNotPresent" and present):
            if present:
                return [("Normal", PULLED,
                         f'Container image "{image}" already present on machine')], True
            return [("Warning", NEVER_PULL, f'Container image "{image}" is not present with '
                                            "pull policy of Never")], False
        self.mark_pulled((image,))
        size = ""
        if node is not None:
            for img in node.status.images:
                if image in img.names and img.size_bytes:
                    size = f" Image size: {img.size_bytes} bytes."
        return [("Normal", PULLING, f'Pulling image "{image}"'),
                ("Normal", PULLED, f'Successfully pulled image "{image}" in {took:g}s '
                                   f"({took:g}s including waiting).{size}")], True
