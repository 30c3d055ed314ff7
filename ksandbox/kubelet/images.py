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
container's start delay (the sandbox has no registry: the time is the seeded start delay), so
whether a container pulls is decided, and ``Pulling`` recorded, when the pod is admitted
(:meth:`ImageManager.must_pull`), and ``Pulled`` when it starts (:meth:`pull_done`): the event
log reads in time order, as the kubelet records them. A pod admitted while a pull of its image
is under way waits for that pull when it finishes before the pod's own start would (the image
is present then); one that would start sooner pulls too, as concurrent pod workers each find
the image absent. A pull waited for that never finishes (its pod deleted first) leaves the
waiting pod to pull at its start.
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
        # image -> when the soonest pull of it under way finishes (None until a pull begins)
        self.pull_ends: dict[str, float] | None = None

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

    def must_pull(self, container: Any, node: Any, start_at: float | None = None) -> bool:
        """Whether ``container``'s image is pulled now (EnsureImageExists' shouldPullImage):
        always under ``Always``, when absent under ``IfNotPresent``, never under ``Never``.
        ``start_at``: when the container would start; a pull under way that finishes by then
        is waited for (the image is present at the start)."""
        policy = container.image_pull_policy or "IfNotPresent"
        if policy == "Always":
            return True
        if policy != "IfNotPresent" or self.present(container.image, node):
            return False
        ends = self.pull_ends.get(container.image) if self.pull_ends else None
        return ends is None or start_at is None or ends > start_at

    def begin_pull(self, container: Any, start_at: float) -> None:
        """A pull of ``container``'s image began; it finishes at ``start_at``."""
        ends = self.pull_ends
        if ends is None:
            ends = self.pull_ends = {}
        image = container.image
        if image not in ends or start_at < ends[image]:
            ends[image] = start_at

    @staticmethod
    def pulling(container: Any) -> tuple[str, str, str]:
        """The event recorded as a pull begins."""
        return ("Normal", PULLING, f'Pulling image "{container.image}"')

    def pull_done(self, container: Any, node: Any, took: float) -> tuple[str, str, str]:
        """A pull that began ``took`` seconds ago is done: the image is on the node now."""
        image = container.image
        self.mark_pulled((image,))
        if self.pull_ends:
            self.pull_ends.pop(image, None)
        size = ""
        if node is not None:
            for img in node.status.images:
                if image in img.names and img.size_bytes:
                    size = f" Image size: {img.size_bytes} bytes."
        took_s = f"{took:g}"   # (formatted once for both places)
        return ("Normal", PULLED, f'Successfully pulled image "{image}" in {took_s}s '
                                  f"({took_s}s including waiting).{size}")

    def ensure(self, container: Any, node: Any, took: float, pulled: bool = False
               ) -> tuple[list[tuple[str, str, str]], bool]:
        """At a container's start: (events as (type, reason, message), whether it may start).
        ``pulled``: its pull began at admission (``Pulling`` was recorded then) and ends now.
        Else the image is checked now; one found missing though it was there at admission
        (the node's image list changed) is pulled now."""
        if pulled:
            return [self.pull_done(container, node, took)], True
        image = container.image
        if not self.must_pull(container, node):
            if self.present(image, node):
                return [("Normal", PULLED,
                         f'Container image "{image}" already present on machine')], True
            return [("Warning", NEVER_PULL, f'Container image "{image}" is not present with '
                                            "pull policy of Never")], False
        return [self.pulling(container), self.pull_done(container, node, took)], True
