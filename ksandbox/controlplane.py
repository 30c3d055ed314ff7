"""The control plane's wiring: which components run, and what they share.

A component is any object with ``name`` and ``start(cp)``; in ``start`` it subscribes to the
store's watches and schedules its own timers on ``cp.clock``. It may also offer
``busy_until() -> float | None`` (simulated time until which it expects to act even though no
timer of its own is in the foreground — e.g. the node lifecycle controller while a silent node's
grace period runs) and ``fork(cp) -> component`` for what-if copies.

``build_components`` is the one list of what a sandbox runs, in start order. Each subsystem
adds itself here.
"""

from __future__ import annotations

from typing import Any, Protocol

from .api.manifest import ConfigDocument
from .apiserver.eviction import EvictionAPI
from .apiserver.store import Store
from .sim.clock import Clock
from .sim.rand import SimRandom


class Component(Protocol):
    name: str

    def start(self, cp: "ControlPlane") -> None: ...


class ControlPlane:
    """What components share: the store, the clock, the seeded random source, configs, and the
    API server's eviction subresource."""

    def __init__(self, store: Store, clock: Clock, rand: SimRandom,
                 configs: list[ConfigDocument]) -> None:
        self.store = store
        self.clock = clock
        self.rand = rand
        self.configs = list(configs)
        self.eviction = EvictionAPI(store)
        self.components: dict[str, Any] = {}

    def component(self, name: str) -> Any | None:
        return self.components.get(name)

    def configs_of(self, kind: str) -> list[ConfigDocument]:
        return [c for c in self.configs if c.kind == kind]


def build_components(cp: ControlPlane) -> list[Any]:
    """Every component of a sandbox, in start order (controllers, scheduler, kubelets)."""
    components: list[Any] = []
    # -- components register below, one line each -------------------------------------------
    from .controllers import daemonset, deployment, hpa, metrics, replicaset, replicationcontroller
    components.append(metrics.Metrics())
    components.append(replicaset.ReplicaSetController())
    components.append(replicationcontroller.ReplicationControllerController())
    components.append(deployment.DeploymentController())
    components.append(daemonset.DaemonSetController())
    from .controllers import job, statefulset
    components.append(statefulset.StatefulSetController())
    components.append(job.JobController())
    components.append(hpa.HorizontalPodAutoscalerController())
    from .controllers import vpa
    components.append(vpa.VerticalPodAutoscalerController())
    from .controllers import disruption, nodelifecycle, podgc, tainteviction
    components.append(nodelifecycle.NodeLifecycleController())
    components.append(tainteviction.TaintEvictionController())
    components.append(podgc.PodGCController())
    components.append(disruption.DisruptionController())
    from .controllers import clusterautoscaler
    components.append(clusterautoscaler.ClusterAutoscaler())
    from .commands.drain_run import DrainRunner
    components.append(DrainRunner())
    from .scheduler import Scheduler
    components.append(Scheduler())
    from .kubelet.manager import KubeletManager
    components.append(KubeletManager())  # kubelets last: they act on what controllers decided
    return components
