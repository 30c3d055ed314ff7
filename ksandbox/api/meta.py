"""ObjectMeta and OwnerReference: the metadata every stored object carries.

Times are simulated seconds (floats), not timestamps: the sandbox's clock starts at 0. Views
turn them into ages (``5m30s``) or, for YAML, RFC 3339 strings from a fixed epoch.
``uid``, ``resourceVersion`` and ``creationTimestamp`` are set by the API server; values a
loaded manifest carries for them (a real cluster's export) are ignored on create.
"""

from __future__ import annotations

from typing import Any

from .codec import EMPTY, FrozenDict, api_type, extra_field, j
from .evolve import evolve


@api_type
class OwnerReference:
    api_version: str = j("apiVersion", "")
    kind: str = j("kind", "")
    name: str = j("name", "")
    uid: str = j("uid", "")
    controller: bool = j("controller", False)
    block_owner_deletion: bool = j("blockOwnerDeletion", False)
    extra: FrozenDict = extra_field()


@api_type
class ObjectMeta:
    name: str = j("name", "")
    generate_name: str = j("generateName", "")
    namespace: str = j("namespace", "")
    uid: str = j("uid", "")
    resource_version: str | None = j("resourceVersion", None)
    generation: int = j("generation", 0)
    creation_timestamp: Any = j("creationTimestamp", None)
    deletion_timestamp: Any = j("deletionTimestamp", None)
    deletion_grace_period_seconds: int | None = j("deletionGracePeriodSeconds", None)
    labels: FrozenDict = j("labels", EMPTY)
    annotations: FrozenDict = j("annotations", EMPTY)
    owner_references: tuple[OwnerReference, ...] = j("ownerReferences", ())
    finalizers: tuple[str, ...] = j("finalizers", ())
    extra: FrozenDict = extra_field()

    def controller_ref(self) -> OwnerReference | None:
        """The owner reference with ``controller: true`` (upstream metav1.GetControllerOf)."""
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None

    def with_labels(self, labels: dict[str, str]) -> "ObjectMeta":
        return evolve(self, labels=FrozenDict(labels) if labels else EMPTY)


def owner_ref_for(obj: Any, api_version: str) -> OwnerReference:
    """The controller reference a controller puts on what it creates."""
    return OwnerReference(api_version=api_version, kind=obj.kind, name=obj.metadata.name,
                          uid=obj.metadata.uid, controller=True, block_owner_deletion=True)
