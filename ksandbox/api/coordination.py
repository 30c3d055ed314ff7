"""coordination.k8s.io/v1 Lease: the kubelet's heartbeat object.

Every node's kubelet holds a Lease named after the node in the ``kube-node-lease`` namespace and
renews it every few seconds; the node lifecycle controller reads ``spec.renewTime`` to decide
whether the node is alive (``kubectl describe node`` shows it under ``Lease:``). Times are
simulated seconds, like every other time in the sandbox.
"""

from __future__ import annotations

from typing import Any

from .codec import FrozenDict, Int32, api_type, extra_field, j
from .meta import ObjectMeta

# The namespace every node's lease lives in (core/v1 NamespaceNodeLease).
NAMESPACE_NODE_LEASE = "kube-node-lease"


@api_type
class LeaseSpec:
    holder_identity: str = j("holderIdentity", "")
    lease_duration_seconds: Int32 | None = j("leaseDurationSeconds", None)
    acquire_time: Any = j("acquireTime", None)
    renew_time: Any = j("renewTime", None)
    lease_transitions: Int32 | None = j("leaseTransitions", None)
    extra: FrozenDict = extra_field()


@api_type
class Lease:
    api_version: str = j("apiVersion", "coordination.k8s.io/v1")
    kind: str = j("kind", "Lease")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: LeaseSpec = j("spec", LeaseSpec())
    extra: FrozenDict = extra_field()
