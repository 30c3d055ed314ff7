"""networking.k8s.io/v1 Ingress, IngressClass and NetworkPolicy; discovery.k8s.io/v1
EndpointSlice.

Stored, validated and shown only: the sandbox has no network data path, so no ingress
controller, no policy enforcement and no EndpointSlice controller — the objects keep what the
manifest says. Field names follow ``k8s.io/api/networking/v1`` and ``k8s.io/api/discovery/v1``.
"""

from __future__ import annotations

from typing import Any

from .codec import FrozenDict, Int32, api_type, extra_field, j
from .meta import ObjectMeta
from .selectors import LabelSelector

PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
POLICY_TYPES = ("Egress", "Ingress")
ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
# networking/v1: the annotation marking the default IngressClass.
DEFAULT_INGRESS_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"


@api_type
class HTTPIngressPath:
    path: str = j("path", "")
    path_type: str = j("pathType", "")
    backend: Any = j("backend", None)
    extra: FrozenDict = extra_field()


@api_type
class HTTPIngressRuleValue:
    paths: tuple[HTTPIngressPath, ...] = j("paths", ())
    extra: FrozenDict = extra_field()


@api_type
class IngressRule:
    host: str = j("host", "")
    http: HTTPIngressRuleValue | None = j("http", None)
    extra: FrozenDict = extra_field()


@api_type
class IngressTLS:
    hosts: tuple[str, ...] = j("hosts", ())
    secret_name: str = j("secretName", "")
    extra: FrozenDict = extra_field()


@api_type
class IngressSpec:
    ingress_class_name: str | None = j("ingressClassName", None)
    default_backend: Any = j("defaultBackend", None)
    tls: tuple[IngressTLS, ...] = j("tls", ())
    rules: tuple[IngressRule, ...] = j("rules", ())
    extra: FrozenDict = extra_field()


@api_type
class Ingress:
    api_version: str = j("apiVersion", "networking.k8s.io/v1")
    kind: str = j("kind", "Ingress")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: IngressSpec = j("spec", IngressSpec())
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()


@api_type
class IngressClassSpec:
    controller: str = j("controller", "")
    parameters: Any = j("parameters", None)
    extra: FrozenDict = extra_field()


@api_type
class IngressClass:
    api_version: str = j("apiVersion", "networking.k8s.io/v1")
    kind: str = j("kind", "IngressClass")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: IngressClassSpec = j("spec", IngressClassSpec())
    extra: FrozenDict = extra_field()


@api_type
class NetworkPolicySpec:
    pod_selector: LabelSelector | None = j("podSelector", None)
    ingress: tuple[Any, ...] = j("ingress", ())
    egress: tuple[Any, ...] = j("egress", ())
    policy_types: tuple[str, ...] = j("policyTypes", ())
    extra: FrozenDict = extra_field()


@api_type
class NetworkPolicy:
    api_version: str = j("apiVersion", "networking.k8s.io/v1")
    kind: str = j("kind", "NetworkPolicy")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: NetworkPolicySpec = j("spec", NetworkPolicySpec())
    extra: FrozenDict = extra_field()


@api_type
class Endpoint:
    addresses: tuple[str, ...] = j("addresses", ())
    conditions: Any = j("conditions", None)
    hostname: str = j("hostname", "")
    target_ref: Any = j("targetRef", None)
    node_name: str = j("nodeName", "")
    zone: str = j("zone", "")
    hints: Any = j("hints", None)
    extra: FrozenDict = extra_field()


@api_type
class EndpointPort:
    name: str | None = j("name", None)
    protocol: str = j("protocol", "")
    port: Int32 | None = j("port", None)
    app_protocol: str = j("appProtocol", "")
    extra: FrozenDict = extra_field()


@api_type
class EndpointSlice:
    api_version: str = j("apiVersion", "discovery.k8s.io/v1")
    kind: str = j("kind", "EndpointSlice")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    address_type: str = j("addressType", "")
    endpoints: tuple[Endpoint, ...] = j("endpoints", ())
    ports: tuple[EndpointPort, ...] = j("ports", ())
    extra: FrozenDict = extra_field()
