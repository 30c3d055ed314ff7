"""Strict decoding: the fields upstream's types have, so a misspelt key is refused.

``kubectl apply`` / ``create`` ask the API server for strict field validation (kubectl's
``--validate=strict``, the default since 1.27): a key the type does not have fails the request
with ``Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field
"spec.containers[0].imagePullPolicyy"`` (every unknown field listed). The sandbox models only
part of each type, and keeps the rest of a manifest in ``extra``; this table says, per type,
every JSON field the real type has (k8s.io/api core/v1, apps/v1, meta/v1), so a key outside it
is a user's mistake, not a field the sandbox merely does not model.

Only the types listed are strict — the spec side of pods, workloads and nodes, the kinds a user
writes by hand. Status types and the stored-only kinds stay lenient (an export from a newer
cluster may carry status fields this table has never heard of).
"""

from __future__ import annotations

from . import apps, core, meta, selectors, taints
from .codec import EXTRA_SHAPES, GO_FIELD_TYPES, STRICT_FIELDS


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


_TOP = _f("apiVersion", "kind", "metadata", "spec", "status")

_TABLE = {
    meta.ObjectMeta: _f(
        "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
        "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
        "labels", "annotations", "ownerReferences", "finalizers", "managedFields"),
    meta.OwnerReference: _f("apiVersion", "kind", "name", "uid", "controller",
                            "blockOwnerDeletion"),
    core.Pod: _TOP,
    core.PodTemplateSpec: _f("metadata", "spec"),
    core.PodSpec: _f(
        "volumes", "initContainers", "containers", "ephemeralContainers", "restartPolicy",
        "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy", "nodeSelector",
        "serviceAccountName", "serviceAccount", "automountServiceAccountToken", "nodeName",
        "hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "securityContext",
        "imagePullSecrets", "hostname", "subdomain", "affinity", "schedulerName",
        "tolerations", "hostAliases", "priorityClassName", "priority", "dnsConfig",
        "readinessGates", "runtimeClassName", "enableServiceLinks", "preemptionPolicy",
        "overhead", "topologySpreadConstraints", "setHostnameAsFQDN", "os", "hostUsers",
        "schedulingGates", "resourceClaims", "resources", "hostnameOverride"),
    core.Container: _f(
        "name", "image", "command", "args", "workingDir", "ports", "envFrom", "env",
        "resources", "resizePolicy", "restartPolicy", "restartPolicyRules", "volumeMounts",
        "volumeDevices", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
        "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
        "securityContext", "stdin", "stdinOnce", "tty"),
    core.ContainerPort: _f("name", "hostPort", "containerPort", "protocol", "hostIP"),
    core.ResourceRequirements: _f("limits", "requests", "claims"),
    core.Affinity: _f("nodeAffinity", "podAffinity", "podAntiAffinity"),
    core.NodeAffinity: _f("requiredDuringSchedulingIgnoredDuringExecution",
                          "preferredDuringSchedulingIgnoredDuringExecution"),
    core.PodAffinity: _f("requiredDuringSchedulingIgnoredDuringExecution",
                         "preferredDuringSchedulingIgnoredDuringExecution"),
    core.NodeSelector: _f("nodeSelectorTerms"),
    core.NodeSelectorTerm: _f("matchExpressions", "matchFields"),
    core.NodeSelectorRequirement: _f("key", "operator", "values"),
    core.PreferredSchedulingTerm: _f("weight", "preference"),
    core.PodAffinityTerm: _f("labelSelector", "namespaces", "topologyKey", "namespaceSelector",
                             "matchLabelKeys", "mismatchLabelKeys"),
    core.WeightedPodAffinityTerm: _f("weight", "podAffinityTerm"),
    core.TopologySpreadConstraint: _f(
        "maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
        "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"),
    core.Volume: _f(
        "name", "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore",
        "gitRepo", "secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd",
        "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile",
        "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk",
        "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image"),
    core.Node: _TOP,
    core.NodeSpec: _f("podCIDR", "podCIDRs", "providerID", "unschedulable", "taints",
                      "configSource", "externalID"),
    core.Namespace: _TOP,
    taints.Taint: _f("key", "value", "effect", "timeAdded"),
    taints.Toleration: _f("key", "operator", "value", "effect", "tolerationSeconds"),
    selectors.LabelSelector: _f("matchLabels", "matchExpressions"),
    selectors.LabelSelectorRequirement: _f("key", "operator", "values"),
    apps.Deployment: _TOP,
    apps.DeploymentSpec: _f("replicas", "selector", "template", "strategy", "minReadySeconds",
                            "revisionHistoryLimit", "paused", "progressDeadlineSeconds"),
    apps.DeploymentStrategy: _f("type", "rollingUpdate"),
    apps.RollingUpdateDeployment: _f("maxUnavailable", "maxSurge"),
    apps.ReplicaSet: _TOP,
    apps.ReplicaSetSpec: _f("replicas", "minReadySeconds", "selector", "template"),
    apps.ReplicationController: _TOP,
    apps.ReplicationControllerSpec: _f("replicas", "minReadySeconds", "selector", "template"),
    apps.DaemonSet: _TOP,
    apps.DaemonSetSpec: _f("selector", "template", "updateStrategy", "minReadySeconds",
                           "revisionHistoryLimit"),
    apps.DaemonSetUpdateStrategy: _f("type", "rollingUpdate"),
}

STRICT_FIELDS.update(_TABLE)

# The JSON kind and Go type of the fields above the sandbox does not model (kept in ``extra``),
# so `env: prod` is refused as the API server refuses it — "json: cannot unmarshal string into
# Go struct field Container.spec.containers.env of type []v1.EnvVar" — and not kept as it came.
_A, _O, _S, _B, _I = "array", "object", "string", "boolean", "integer"


def _shapes(**fields: tuple[str, str]) -> dict[str, tuple[str, str]]:
    return fields


_VOLUME_SOURCES = {
    "awsElasticBlockStore": "AWSElasticBlockStore", "azureDisk": "AzureDisk",
    "azureFile": "AzureFile", "cephfs": "CephFS", "cinder": "Cinder", "csi": "CSI",
    "downwardAPI": "DownwardAPI", "ephemeral": "Ephemeral", "fc": "FC", "flocker": "Flocker",
    "gcePersistentDisk": "GCEPersistentDisk", "gitRepo": "GitRepo", "glusterfs": "Glusterfs",
    "image": "Image", "iscsi": "ISCSI", "nfs": "NFS",
    "photonPersistentDisk": "PhotonPersistentDisk", "portworxVolume": "PortworxVolume",
    "projected": "Projected", "quobyte": "Quobyte", "rbd": "RBD", "scaleIO": "ScaleIO",
    "storageos": "StorageOS"}

EXTRA_SHAPES.update({
    meta.ObjectMeta: _shapes(managedFields=(_A, "[]v1.ManagedFieldsEntry"),
                             selfLink=(_S, "string")),
    core.PodSpec: _shapes(
        activeDeadlineSeconds=(_I, "int64"), automountServiceAccountToken=(_B, "bool"),
        dnsConfig=(_O, "v1.PodDNSConfig"), dnsPolicy=(_S, "v1.DNSPolicy"),
        enableServiceLinks=(_B, "bool"),
        ephemeralContainers=(_A, "[]v1.EphemeralContainer"),
        hostAliases=(_A, "[]v1.HostAlias"), hostIPC=(_B, "bool"), hostPID=(_B, "bool"),
        hostUsers=(_B, "bool"), hostname=(_S, "string"), hostnameOverride=(_S, "string"),
        imagePullSecrets=(_A, "[]v1.LocalObjectReference"), os=(_O, "v1.PodOS"),
        readinessGates=(_A, "[]v1.PodReadinessGate"),
        resourceClaims=(_A, "[]v1.PodResourceClaim"),
        resources=(_O, "v1.ResourceRequirements"), runtimeClassName=(_S, "string"),
        schedulingGates=(_A, "[]v1.PodSchedulingGate"),
        securityContext=(_O, "v1.PodSecurityContext"), serviceAccount=(_S, "string"),
        serviceAccountName=(_S, "string"), setHostnameAsFQDN=(_B, "bool"),
        shareProcessNamespace=(_B, "bool"), subdomain=(_S, "string")),
    core.Container: _shapes(
        args=(_A, "[]string"), command=(_A, "[]string"), env=(_A, "[]v1.EnvVar"),
        envFrom=(_A, "[]v1.EnvFromSource"), lifecycle=(_O, "v1.Lifecycle"),
        livenessProbe=(_O, "v1.Probe"), readinessProbe=(_O, "v1.Probe"),
        startupProbe=(_O, "v1.Probe"), resizePolicy=(_A, "[]v1.ContainerResizePolicy"),
        restartPolicyRules=(_A, "[]v1.ContainerRestartRule"),
        securityContext=(_O, "v1.SecurityContext"), stdin=(_B, "bool"),
        stdinOnce=(_B, "bool"), tty=(_B, "bool"), terminationMessagePath=(_S, "string"),
        terminationMessagePolicy=(_S, "v1.TerminationMessagePolicy"),
        volumeDevices=(_A, "[]v1.VolumeDevice"), volumeMounts=(_A, "[]v1.VolumeMount"),
        workingDir=(_S, "string")),
    core.ResourceRequirements: _shapes(claims=(_A, "[]v1.ResourceClaim")),
    core.Volume: {**{k: (_O, f"v1.{v}VolumeSource") for k, v in _VOLUME_SOURCES.items()},
                  "flexVolume": (_O, "v1.FlexVolumeSource"),
                  "vsphereVolume": (_O, "v1.VsphereVirtualDiskVolumeSource")},
    core.NodeSpec: _shapes(configSource=(_O, "v1.NodeConfigSource"),
                           externalID=(_S, "string"), podCIDRs=(_A, "[]string")),
    core.Namespace: _shapes(spec=(_O, "v1.NamespaceSpec")),
})


def strict_error(kind: str, api_version: str, unknown: list[str]) -> str:
    """The API server's answer to unknown fields (apimachinery's strict decoding error)."""
    fields = ", ".join(f'unknown field "{p}"' for p in unknown)
    return (f'{kind} in version "{api_version.rsplit("/", 1)[-1]}" cannot be handled as a '
            f'{kind}: strict decoding error: {fields}')

GO_FIELD_TYPES.update({
    meta.ObjectMeta: {"uid": "types.UID"},
    meta.OwnerReference: {"uid": "types.UID"},
    core.PodSpec: {"preemptionPolicy": "v1.PreemptionPolicy", "restartPolicy": "v1.RestartPolicy"},
    core.Container: {"restartPolicy": "v1.ContainerRestartPolicy",
                     "imagePullPolicy": "v1.PullPolicy"},
    core.ContainerPort: {"protocol": "v1.Protocol"},
    core.NodeSelectorRequirement: {"operator": "v1.NodeSelectorOperator"},
    core.TopologySpreadConstraint: {"whenUnsatisfiable": "v1.UnsatisfiableConstraintAction",
                                    "nodeAffinityPolicy": "v1.NodeInclusionPolicy",
                                    "nodeTaintsPolicy": "v1.NodeInclusionPolicy"},
    taints.Taint: {"effect": "v1.TaintEffect"},
    taints.Toleration: {"operator": "v1.TolerationOperator", "effect": "v1.TaintEffect"},
    selectors.LabelSelectorRequirement: {"operator": "v1.LabelSelectorOperator"},
    apps.DeploymentStrategy: {"type": "v1.DeploymentStrategyType"},
    apps.DaemonSetUpdateStrategy: {"type": "v1.DaemonSetUpdateStrategyType"},
})
