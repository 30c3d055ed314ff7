"""Cluster plumbing a real export carries but nothing in the sandbox acts on: admission webhook
configurations, CustomResourceDefinitions, APIServices, RuntimeClasses, API priority and
fairness objects (FlowSchema, PriorityLevelConfiguration) and CertificateSigningRequests.

Each keeps its top-level fields as given (``get -o yaml`` gives them back); the API server
validates their names, and ``kubectl get``/``describe`` show them. Stored only: there is no
webhook call, no CRD serving, no aggregation, no flow control.
"""

from __future__ import annotations

from typing import Any

from .codec import FrozenDict, api_type, extra_field, j
from .meta import ObjectMeta


@api_type
class MutatingWebhookConfiguration:
    api_version: str = j("apiVersion", "admissionregistration.k8s.io/v1")
    kind: str = j("kind", "MutatingWebhookConfiguration")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    webhooks: tuple[Any, ...] = j("webhooks", ())
    extra: FrozenDict = extra_field()


@api_type
class ValidatingWebhookConfiguration:
    api_version: str = j("apiVersion", "admissionregistration.k8s.io/v1")
    kind: str = j("kind", "ValidatingWebhookConfiguration")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    webhooks: tuple[Any, ...] = j("webhooks", ())
    extra: FrozenDict = extra_field()


@api_type
class CustomResourceDefinition:
    api_version: str = j("apiVersion", "apiextensions.k8s.io/v1")
    kind: str = j("kind", "CustomResourceDefinition")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()


@api_type
class APIService:
    api_version: str = j("apiVersion", "apiregistration.k8s.io/v1")
    kind: str = j("kind", "APIService")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()


@api_type
class RuntimeClass:
    api_version: str = j("apiVersion", "node.k8s.io/v1")
    kind: str = j("kind", "RuntimeClass")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    handler: str = j("handler", "")
    overhead: Any = j("overhead", None)
    scheduling: Any = j("scheduling", None)
    extra: FrozenDict = extra_field()


@api_type
class FlowSchema:
    api_version: str = j("apiVersion", "flowcontrol.apiserver.k8s.io/v1")
    kind: str = j("kind", "FlowSchema")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()


@api_type
class PriorityLevelConfiguration:
    api_version: str = j("apiVersion", "flowcontrol.apiserver.k8s.io/v1")
    kind: str = j("kind", "PriorityLevelConfiguration")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()


@api_type
class CertificateSigningRequest:
    api_version: str = j("apiVersion", "certificates.k8s.io/v1")
    kind: str = j("kind", "CertificateSigningRequest")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()
