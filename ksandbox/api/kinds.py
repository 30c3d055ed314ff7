"""The kinds the sandbox knows: API versions, resource names, short names, scope.

This is the table behind ``kubectl get <resource>``, the name printer (``deployment.apps/web``)
and manifest decoding (``apiVersion`` + ``kind`` → type). Configuration documents
(KubeSchedulerConfiguration, the legacy scheduler Policy, KubeletConfiguration, the sandbox's
ClusterAutoscalerConfiguration) are listed separately: they configure components and are never
stored as API objects.
"""

from __future__ import annotations

import attrs

from .apps import DaemonSet, Deployment, ReplicaSet, ReplicationController
from .coordination import Lease
from .core import Event, Namespace, Node, Pod
from .policy import HorizontalPodAutoscaler, PodDisruptionBudget, PriorityClass
from .vpa import VerticalPodAutoscaler


@attrs.frozen
class KindInfo:
    kind: str
    group: str                     # "" for core
    versions: tuple[str, ...]      # accepted apiVersion values, preferred first
    resource: str                  # plural, as in `kubectl get pods`
    singular: str
    short_names: tuple[str, ...]
    namespaced: bool
    type: type

    @property
    def api_version(self) -> str:
        return self.versions[0]

    @property
    def qualified(self) -> str:
        """What kubectl's name printer shows: ``pod``, ``deployment.apps``."""
        return f"{self.singular}.{self.group}" if self.group else self.singular

    @property
    def display_resource(self) -> str:
        """``pods``, ``deployments.apps`` — used in NotFound messages."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


KINDS: tuple[KindInfo, ...] = (
    KindInfo("Namespace", "", ("v1",), "namespaces", "namespace", ("ns",), False, Namespace),
    KindInfo("Node", "", ("v1",), "nodes", "node", ("no",), False, Node),
    KindInfo("PriorityClass", "scheduling.k8s.io", ("scheduling.k8s.io/v1",), "priorityclasses",
             "priorityclass", ("pc",), False, PriorityClass),
    KindInfo("Pod", "", ("v1",), "pods", "pod", ("po",), True, Pod),
    KindInfo("ReplicationController", "", ("v1",), "replicationcontrollers",
             "replicationcontroller", ("rc",), True, ReplicationController),
    KindInfo("ReplicaSet", "apps", ("apps/v1",), "replicasets", "replicaset", ("rs",), True,
             ReplicaSet),
    KindInfo("Deployment", "apps", ("apps/v1",), "deployments", "deployment", ("deploy",), True,
             Deployment),
    KindInfo("DaemonSet", "apps", ("apps/v1",), "daemonsets", "daemonset", ("ds",), True,
             DaemonSet),
    KindInfo("HorizontalPodAutoscaler", "autoscaling", ("autoscaling/v2", "autoscaling/v1"),
             "horizontalpodautoscalers", "horizontalpodautoscaler", ("hpa",), True,
             HorizontalPodAutoscaler),
    KindInfo("PodDisruptionBudget", "policy", ("policy/v1",), "poddisruptionbudgets",
             "poddisruptionbudget", ("pdb",), True, PodDisruptionBudget),
    KindInfo("Event", "", ("v1", "events.k8s.io/v1"), "events", "event", ("ev",), True, Event),
    KindInfo("Lease", "coordination.k8s.io", ("coordination.k8s.io/v1",), "leases", "lease", (),
             True, Lease),
    KindInfo("VerticalPodAutoscaler", "autoscaling.k8s.io",
             ("autoscaling.k8s.io/v1", "autoscaling.k8s.io/v1beta2"), "verticalpodautoscalers",
             "verticalpodautoscaler", ("vpa",), True, VerticalPodAutoscaler),
)

BY_KIND: dict[str, KindInfo] = {k.kind: k for k in KINDS}

# Configuration documents: (apiVersion prefix, kind). Routed to their component on load.
CONFIG_KINDS: dict[str, tuple[str, ...]] = {
    "KubeSchedulerConfiguration": ("kubescheduler.config.k8s.io/v1",),
    "Policy": ("v1", "kubescheduler.config.k8s.io/v1"),
    "KubeletConfiguration": ("kubelet.config.k8s.io/v1beta1", "kubelet.config.k8s.io/v1"),
    "ClusterAutoscalerConfiguration": ("ksandbox.io/v1alpha1",),
}

_ALIASES: dict[str, KindInfo] = {}
for _k in KINDS:
    for _alias in (_k.kind.lower(), _k.resource, _k.singular, *_k.short_names,
                   _k.qualified, _k.display_resource):
        _ALIASES[_alias] = _k


def lookup_resource(name: str) -> KindInfo | None:
    """Resolve what a user typed (``po``, ``pods``, ``Pod``, ``deployment.apps``)."""
    return _ALIASES.get(name.lower())
