"""The ReplicationController controller: the ReplicaSet controller run for core/v1
ReplicationControllers, whose selector is a plain label map.

Upstream (``pkg/controller/replication/replication_controller.go``) wraps the ReplicaSet
controller with a conversion layer; here the kind, API version, event source and random
stream are class attributes of the shared controller, and the map selector is turned into a
LabelSelector by ``ReplicaSetController._selector``. Pods, owned and orphan, come from the
shared index (``apiserver/informers.py``) every workload controller reads.
"""

from __future__ import annotations

from .replicaset import ReplicaSetController


class ReplicationControllerController(ReplicaSetController):
    name = "replicationcontroller"
    kind = "ReplicationController"
    api_version = "v1"
    # pkg/controller/replication: the event source upstream records under.
    component = "replication-controller"
