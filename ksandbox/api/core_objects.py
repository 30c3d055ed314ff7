"""core/v1 kinds a real cluster's export holds besides pods and nodes: Services, Endpoints,
ConfigMaps, Secrets, ServiceAccounts, LimitRanges, ResourceQuotas and PodTemplates.

These are stored, validated, listed and described; the scheduler reads one of them — a
Service's ``selector`` is part of the default spreading selector (``scheduler/plugins/
helper.py``). Nothing here routes traffic: there is no kube-proxy, no ClusterIP allocation, and
no Endpoints controller (Endpoints and EndpointSlices keep what the manifest says).
Field names follow ``k8s.io/api/core/v1/types.go``; bodies the sandbox never reads are kept
as given (``Any``) so ``get -o yaml`` gives them back.
"""

from __future__ import annotations

from typing import Any

from .codec import EMPTY, FrozenDict, Int32, IntOrString, ResourceList, api_type, extra_field, j
from .core import PodTemplateSpec
from .meta import ObjectMeta

# -- Service ----------------------------------------------------------------------------------

SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
CLUSTER_IP_NONE = "None"


@api_type
class ServicePort:
    name: str = j("name", "")
    protocol: str = j("protocol", "")
    app_protocol: str = j("appProtocol", "")
    port: Int32 = j("port", 0)
    target_port: IntOrString | None = j("targetPort", None)
    node_port: Int32 = j("nodePort", 0)
    extra: FrozenDict = extra_field()


@api_type
class ServiceSpec:
    type: str = j("type", "")
    selector: FrozenDict = j("selector", EMPTY)
    ports: tuple[ServicePort, ...] = j("ports", ())
    cluster_ip: str = j("clusterIP", "")
    cluster_ips: tuple[str, ...] = j("clusterIPs", ())
    external_ips: tuple[str, ...] = j("externalIPs", ())
    external_name: str = j("externalName", "")
    load_balancer_ip: str = j("loadBalancerIP", "")
    session_affinity: str = j("sessionAffinity", "")
    extra: FrozenDict = extra_field()


@api_type
class Service:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "Service")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: ServiceSpec = j("spec", ServiceSpec())
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()

    @property
    def service_type(self) -> str:
        """The defaulted type (SetDefaults_Service: ClusterIP)."""
        return self.spec.type or "ClusterIP"


@api_type
class Endpoints:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "Endpoints")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    subsets: tuple[Any, ...] = j("subsets", ())
    extra: FrozenDict = extra_field()


# -- configuration ----------------------------------------------------------------------------


@api_type
class ConfigMap:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "ConfigMap")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    data: FrozenDict = j("data", EMPTY)
    binary_data: FrozenDict = j("binaryData", EMPTY)
    immutable: bool | None = j("immutable", None)
    extra: FrozenDict = extra_field()


SECRET_TYPE_OPAQUE = "Opaque"
SECRET_TYPE_SA_TOKEN = "kubernetes.io/service-account-token"
SECRET_TYPE_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson"
SECRET_TYPE_DOCKERCFG = "kubernetes.io/dockercfg"
SECRET_TYPE_TLS = "kubernetes.io/tls"
SECRET_TYPE_BASIC_AUTH = "kubernetes.io/basic-auth"
SECRET_TYPE_SSH_AUTH = "kubernetes.io/ssh-auth"


@api_type
class Secret:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "Secret")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    type: str = j("type", "")
    data: FrozenDict = j("data", EMPTY)
    string_data: FrozenDict = j("stringData", EMPTY)
    immutable: bool | None = j("immutable", None)
    extra: FrozenDict = extra_field()

    @property
    def secret_type(self) -> str:
        """SetDefaults_Secret: Opaque."""
        return self.type or SECRET_TYPE_OPAQUE

    def keys(self) -> set[str]:
        """The keys the stored object holds (stringData is merged into data on write)."""
        return set(self.data) | set(self.string_data)


@api_type
class ServiceAccount:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "ServiceAccount")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    secrets: tuple[Any, ...] = j("secrets", ())
    image_pull_secrets: tuple[Any, ...] = j("imagePullSecrets", ())
    automount_service_account_token: bool | None = j("automountServiceAccountToken", None)
    extra: FrozenDict = extra_field()


# -- policy objects -----------------------------------------------------------------------------

LIMIT_TYPES = ("Container", "PersistentVolumeClaim", "Pod")


@api_type
class LimitRangeItem:
    type: str = j("type", "")
    max: ResourceList = j("max", EMPTY)
    min: ResourceList = j("min", EMPTY)
    default: ResourceList = j("default", EMPTY)
    default_request: ResourceList = j("defaultRequest", EMPTY)
    max_limit_request_ratio: ResourceList = j("maxLimitRequestRatio", EMPTY)
    extra: FrozenDict = extra_field()


@api_type
class LimitRangeSpec:
    limits: tuple[LimitRangeItem, ...] = j("limits", ())
    extra: FrozenDict = extra_field()


@api_type
class LimitRange:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "LimitRange")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: LimitRangeSpec = j("spec", LimitRangeSpec())
    extra: FrozenDict = extra_field()


@api_type
class ResourceQuotaSpec:
    hard: ResourceList = j("hard", EMPTY)
    scopes: tuple[str, ...] = j("scopes", ())
    scope_selector: Any = j("scopeSelector", None)
    extra: FrozenDict = extra_field()


@api_type
class ResourceQuotaStatus:
    hard: ResourceList = j("hard", EMPTY)
    used: ResourceList = j("used", EMPTY)
    extra: FrozenDict = extra_field()


@api_type
class ResourceQuota:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "ResourceQuota")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: ResourceQuotaSpec = j("spec", ResourceQuotaSpec())
    status: ResourceQuotaStatus = j("status", ResourceQuotaStatus())
    extra: FrozenDict = extra_field()


@api_type
class PodTemplate:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "PodTemplate")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    extra: FrozenDict = extra_field()
