"""The Node a new member of a node group would be, and the DaemonSet pods it would carry.

Ported in our own words from ``cluster-autoscaler/processors/nodeinfosprovider`` (TemplateNodeInfo
from a group's real node, sanitized: ``utils/taints`` SanitizeTaints, ``utils/labels``) and
``simulator`` (the DaemonSet pods a new node runs). A group with a ``template`` in its
configuration is built from it, with the allocatable its kubelet would report
(``kubelets.registered_status``); otherwise from its ``like`` node or its first member.
"""

from __future__ import annotations

from typing import Any

from ...api.codec import FrozenDict
from ...api.core import Node, NodeSpec, NodeStatus, Pod
from ...api.evolve import evolve
from ...api.meta import ObjectMeta, owner_ref_for
from ..daemonset_util import daemon_tolerations, should_run
from .scale_down import DELETION_CANDIDATE_TAINT, TO_BE_DELETED_TAINT

# Taints a template never copies: the condition taints the control plane manages and the
# autoscaler's own (utils/taints SanitizeTaints).
_SANITIZED_PREFIX = "node.kubernetes.io/"
_CA_TAINTS = (TO_BE_DELETED_TAINT, DELETION_CANDIDATE_TAINT)
_UNIQUE_LABELS = ("kubernetes.io/hostname",)


class TemplateNodes:
    """Template nodes of the node groups, read from ``store``; ``kubelets`` says what a
    kubelet would register for a node that does not exist yet."""

    def __init__(self, store: Any, kubelets: Any) -> None:
        self.store = store
        self.kubelets = kubelets

    def template(self, group: Any, members: list[Any], index: int = 0) -> Any | None:
        """The Node a new member of ``group`` would be (TemplateNodeInfo, sanitized)."""
        name = f"template-node-for-{group.name}-{index}"
        src = None
        if not group.has_template:
            if group.like is not None:
                src = self.store.get("Node", group.like)
            if src is None and members:
                src = members[0]
            if src is None:
                return None
        if src is not None:
            labels = {k: v for k, v in src.metadata.labels.items() if k not in _UNIQUE_LABELS}
            labels.update(group.labels)
            taints = tuple(evolve(t, time_added=None) for t in src.spec.taints
                           if not t.key.startswith(_SANITIZED_PREFIX) and t.key not in _CA_TAINTS)
            status = NodeStatus(capacity=src.status.capacity,
                                allocatable=src.status.allocatable or src.status.capacity,
                                node_info=src.status.node_info)
        else:
            labels = dict(group.labels)
            taints = group.taints
            status = NodeStatus(capacity=group.capacity, allocatable=group.capacity)
            status = self.kubelets.registered_status(labels, status)
        # What the API server's node defaulting adds (the kubelet's well-known labels).
        labels.setdefault("kubernetes.io/os", "linux")
        labels.setdefault("kubernetes.io/arch", "amd64")
        labels["kubernetes.io/hostname"] = name
        return Node(metadata=ObjectMeta(name=name, labels=FrozenDict(labels)),
                    spec=NodeSpec(taints=taints), status=status)

    def daemon_pods(self, node: Any) -> list[Any]:
        """The DaemonSet pods that would run on ``node`` (they come with every new node)."""
        out = []
        for ds in sorted(self.store.list("DaemonSet"),
                         key=lambda d: (d.metadata.namespace, d.metadata.name)):
            spec = ds.spec.template.spec
            dspec = evolve(spec, tolerations=daemon_tolerations(spec))
            if should_run(node, spec, dspec)[0]:
                out.append(Pod(metadata=ObjectMeta(
                    name=f"{ds.metadata.name}-{node.name}", namespace=ds.metadata.namespace,
                    labels=ds.spec.template.metadata.labels,
                    owner_references=(owner_ref_for(ds, "apps/v1"),)), spec=dspec))
        return out
