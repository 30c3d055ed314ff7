"""rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding.

Stored, validated (``pkg/apis/rbac/validation``) and shown; never enforced — every command in
the sandbox runs as a cluster administrator. ClusterRoles' ``aggregationRule`` is kept as given
and not aggregated.
"""

from __future__ import annotations

from typing import Any

from .codec import FrozenDict, api_type, extra_field, j
from .meta import ObjectMeta

RBAC_GROUP = "rbac.authorization.k8s.io"
SUBJECT_KINDS = ("Group", "ServiceAccount", "User")


@api_type
class PolicyRule:
    verbs: tuple[str, ...] = j("verbs", ())
    api_groups: tuple[str, ...] = j("apiGroups", ())
    resources: tuple[str, ...] = j("resources", ())
    resource_names: tuple[str, ...] = j("resourceNames", ())
    non_resource_urls: tuple[str, ...] = j("nonResourceURLs", ())
    extra: FrozenDict = extra_field()


@api_type
class RoleRef:
    api_group: str = j("apiGroup", "")
    kind: str = j("kind", "")
    name: str = j("name", "")
    extra: FrozenDict = extra_field()


@api_type
class Subject:
    kind: str = j("kind", "")
    api_group: str = j("apiGroup", "")
    name: str = j("name", "")
    namespace: str = j("namespace", "")
    extra: FrozenDict = extra_field()


@api_type
class Role:
    api_version: str = j("apiVersion", "rbac.authorization.k8s.io/v1")
    kind: str = j("kind", "Role")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    rules: tuple[PolicyRule, ...] = j("rules", ())
    extra: FrozenDict = extra_field()


@api_type
class ClusterRole:
    api_version: str = j("apiVersion", "rbac.authorization.k8s.io/v1")
    kind: str = j("kind", "ClusterRole")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    rules: tuple[PolicyRule, ...] = j("rules", ())
    aggregation_rule: Any = j("aggregationRule", None)
    extra: FrozenDict = extra_field()


@api_type
class RoleBinding:
    api_version: str = j("apiVersion", "rbac.authorization.k8s.io/v1")
    kind: str = j("kind", "RoleBinding")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    subjects: tuple[Subject, ...] = j("subjects", ())
    role_ref: RoleRef = j("roleRef", RoleRef())
    extra: FrozenDict = extra_field()


@api_type
class ClusterRoleBinding:
    api_version: str = j("apiVersion", "rbac.authorization.k8s.io/v1")
    kind: str = j("kind", "ClusterRoleBinding")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    subjects: tuple[Subject, ...] = j("subjects", ())
    role_ref: RoleRef = j("roleRef", RoleRef())
    extra: FrozenDict = extra_field()
