"""The kinds the sandbox knows: API versions, resource names, short names, scope.

This is the table behind ``kubectl get <resource>``, the name printer (``deployment.apps/web``)
and manifest decoding (``apiVersion`` + ``kind`` → type). Configuration documents
(KubeSchedulerConfiguration, the legacy scheduler Policy, KubeletConfiguration, the sandbox's
ClusterAutoscalerConfiguration) are listed separately: they configure components and are never
stored as API objects.

``KindInfo.stored_only`` marks the kinds the sandbox keeps, validates, lists and describes but
that no component acts on (ConfigMaps, RBAC, Ingresses, ...): loading one prints a single
``Warning:`` line naming them (:func:`stored_only_warning`), never "no matches for kind".
"""

from __future__ import annotations

import builtins
from importlib import import_module
from typing import Iterable

import attrs

from .apps import (
    ControllerRevision,
    DaemonSet,
    Deployment,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
)
from .coordination import Lease
from .core import Event, Namespace, Node, Pod
from .scheduling import PriorityClass


@attrs.frozen
class KindInfo:
    kind: str
    group: str                     # "" for core
    versions: tuple[str, ...]      # accepted apiVersion values, preferred first
    resource: str                  # plural, as in `kubectl get pods`
    singular: str
    short_names: tuple[str, ...]
    namespaced: bool
    type_ref: builtins.type | str  # the class, or "module.Class" of ksandbox.api (see type)
    stored_only: bool = False      # kept and shown, but no component acts on it

    @property
    def type(self) -> builtins.type:
        """The kind's class. The stored-only kinds' modules (ConfigMaps, RBAC, networking,
        cluster objects: 42 attrs classes) are imported the first time one of their kinds is
        decoded, not when the sandbox starts."""
        ref = self.type_ref
        if isinstance(ref, str):
            module, _, name = ref.rpartition(".")
            cls: builtins.type = getattr(import_module(f".{module}", __package__), name)
            return cls
        return ref

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
             "policy.HorizontalPodAutoscaler"),
    KindInfo("PodDisruptionBudget", "policy", ("policy/v1",), "poddisruptionbudgets",
             "poddisruptionbudget", ("pdb",), True, "policy.PodDisruptionBudget"),
    KindInfo("Event", "", ("v1", "events.k8s.io/v1"), "events", "event", ("ev",), True, Event),
    KindInfo("Lease", "coordination.k8s.io", ("coordination.k8s.io/v1",), "leases", "lease", (),
             True, Lease),
    KindInfo("VerticalPodAutoscaler", "autoscaling.k8s.io",
             ("autoscaling.k8s.io/v1", "autoscaling.k8s.io/v1beta2"), "verticalpodautoscalers",
             "verticalpodautoscaler", ("vpa",), True, "vpa.VerticalPodAutoscaler"),
    # Workloads with controllers (controllers/statefulset.py, job.py, cronjob.py).
    KindInfo("StatefulSet", "apps", ("apps/v1",), "statefulsets", "statefulset", ("sts",), True,
             StatefulSet),
    KindInfo("ControllerRevision", "apps", ("apps/v1",), "controllerrevisions",
             "controllerrevision", (), True, ControllerRevision),
    KindInfo("Job", "batch", ("batch/v1",), "jobs", "job", (), True, "batch.Job"),
    KindInfo("CronJob", "batch", ("batch/v1",), "cronjobs", "cronjob", ("cj",), True, "batch.CronJob"),
    # Read by the scheduler (default spreading selectors, volume plugins) and the PV controller.
    KindInfo("Service", "", ("v1",), "services", "service", ("svc",), True,
             "core_objects.Service"),
    KindInfo("PersistentVolume", "", ("v1",), "persistentvolumes", "persistentvolume", ("pv",),
             False, "storage.PersistentVolume"),
    KindInfo("PersistentVolumeClaim", "", ("v1",), "persistentvolumeclaims",
             "persistentvolumeclaim", ("pvc",), True, "storage.PersistentVolumeClaim"),
    KindInfo("StorageClass", "storage.k8s.io", ("storage.k8s.io/v1",), "storageclasses",
             "storageclass", ("sc",), False, "storage.StorageClass"),
    # Stored only.
    KindInfo("ConfigMap", "", ("v1",), "configmaps", "configmap", ("cm",), True,
             "core_objects.ConfigMap",
             True),
    KindInfo("Secret", "", ("v1",), "secrets", "secret", (), True, "core_objects.Secret", True),
    KindInfo("ServiceAccount", "", ("v1",), "serviceaccounts", "serviceaccount", ("sa",), True,
             "core_objects.ServiceAccount", True),
    KindInfo("Endpoints", "", ("v1",), "endpoints", "endpoints", ("ep",), True,
             "core_objects.Endpoints", True),
    KindInfo("LimitRange", "", ("v1",), "limitranges", "limitrange", ("limits",), True,
             "core_objects.LimitRange", True),
    KindInfo("ResourceQuota", "", ("v1",), "resourcequotas", "resourcequota", ("quota",), True,
             "core_objects.ResourceQuota", True),
    KindInfo("PodTemplate", "", ("v1",), "podtemplates", "podtemplate", (), True,
             "core_objects.PodTemplate",
             True),
    KindInfo("Role", "rbac.authorization.k8s.io", ("rbac.authorization.k8s.io/v1",), "roles",
             "role", (), True, "rbac.Role", True),
    KindInfo("ClusterRole", "rbac.authorization.k8s.io", ("rbac.authorization.k8s.io/v1",),
             "clusterroles", "clusterrole", (), False, "rbac.ClusterRole", True),
    KindInfo("RoleBinding", "rbac.authorization.k8s.io", ("rbac.authorization.k8s.io/v1",),
             "rolebindings", "rolebinding", (), True, "rbac.RoleBinding", True),
    KindInfo("ClusterRoleBinding", "rbac.authorization.k8s.io",
             ("rbac.authorization.k8s.io/v1",), "clusterrolebindings", "clusterrolebinding", (),
             False, "rbac.ClusterRoleBinding", True),
    KindInfo("Ingress", "networking.k8s.io", ("networking.k8s.io/v1",), "ingresses", "ingress",
             ("ing",), True, "networking.Ingress", True),
    KindInfo("IngressClass", "networking.k8s.io", ("networking.k8s.io/v1",), "ingressclasses",
             "ingressclass", (), False, "networking.IngressClass", True),
    KindInfo("NetworkPolicy", "networking.k8s.io", ("networking.k8s.io/v1",), "networkpolicies",
             "networkpolicy", ("netpol",), True, "networking.NetworkPolicy", True),
    KindInfo("EndpointSlice", "discovery.k8s.io", ("discovery.k8s.io/v1",), "endpointslices",
             "endpointslice", (), True, "networking.EndpointSlice", True),
    KindInfo("CSIDriver", "storage.k8s.io", ("storage.k8s.io/v1",), "csidrivers", "csidriver",
             (), False, "storage.CSIDriver", True),
    KindInfo("CSINode", "storage.k8s.io", ("storage.k8s.io/v1",), "csinodes", "csinode", (),
             False, "storage.CSINode", True),
    KindInfo("VolumeAttachment", "storage.k8s.io", ("storage.k8s.io/v1",), "volumeattachments",
             "volumeattachment", (), False, "storage.VolumeAttachment", True),
    KindInfo("MutatingWebhookConfiguration", "admissionregistration.k8s.io",
             ("admissionregistration.k8s.io/v1",), "mutatingwebhookconfigurations",
             "mutatingwebhookconfiguration", (), False, "cluster_objects.MutatingWebhookConfiguration", True),
    KindInfo("ValidatingWebhookConfiguration", "admissionregistration.k8s.io",
             ("admissionregistration.k8s.io/v1",), "validatingwebhookconfigurations",
             "validatingwebhookconfiguration", (), False, "cluster_objects.ValidatingWebhookConfiguration", True),
    KindInfo("CustomResourceDefinition", "apiextensions.k8s.io", ("apiextensions.k8s.io/v1",),
             "customresourcedefinitions", "customresourcedefinition", ("crd", "crds"), False,
             "cluster_objects.CustomResourceDefinition", True),
    KindInfo("APIService", "apiregistration.k8s.io", ("apiregistration.k8s.io/v1",),
             "apiservices", "apiservice", (), False, "cluster_objects.APIService", True),
    KindInfo("RuntimeClass", "node.k8s.io", ("node.k8s.io/v1",), "runtimeclasses",
             "runtimeclass", (), False, "cluster_objects.RuntimeClass", True),
    KindInfo("FlowSchema", "flowcontrol.apiserver.k8s.io",
             ("flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta3"),
             "flowschemas", "flowschema", (), False, "cluster_objects.FlowSchema", True),
    KindInfo("PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io",
             ("flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta3"),
             "prioritylevelconfigurations", "prioritylevelconfiguration", (), False,
             "cluster_objects.PriorityLevelConfiguration", True),
    KindInfo("CertificateSigningRequest", "certificates.k8s.io", ("certificates.k8s.io/v1",),
             "certificatesigningrequests", "certificatesigningrequest", ("csr",), False,
             "cluster_objects.CertificateSigningRequest", True),
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


def stored_only_warning(kinds: Iterable[str]) -> str | None:
    """The one line a load prints for the stored-only kinds it contains (None if there are
    none): ``stored but not simulated: "core_objects.ConfigMap", "networking.Ingress" (kept, listed and described; no
    component acts on them)``."""
    names = sorted({k for k in kinds if k in BY_KIND and BY_KIND[k].stored_only})
    if not names:
        return None
    return (f"stored but not simulated: {', '.join(names)} (kept, listed and described; no "
            f"component acts on them)")
