"""The ReplicationController controller: the ReplicaSet controller run for core/v1
ReplicationControllers, whose selector is a plain label map.

Upstream (``pkg/controller/replication/replication_controller.go``) wraps the ReplicaSet
controller with a conversion layer; here the kind, API version, event source and random
stream are class attributes of the shared controller, and the map selector is turned into a
LabelSelector by ``ReplicaSetController._selector``. Orphan pods are looked up in the
ReplicaSet controller's index (one orphan index serves every workload controller).
"""

from __future__ import annotations

from .replicaset import ReplicaSetController


class ReplicationControllerController(ReplicaSetController):
    name = "replicationcontroller"
    kind = "ReplicationController"
    api_version = "v1"
    # pkg/controller/replication: the event source upstream records under.
    component = "replication-controller"
