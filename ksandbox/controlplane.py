"""The control plane's wiring: which components run, and what they share.

A component is any object with ``name`` and ``start(cp)``; in ``start`` it subscribes to the
store's watches and schedules its own timers on ``cp.clock``. It may also offer
``busy_until() -> float | None`` (simulated time until which it expects to act even though no
timer of its own is in the foreground — e.g. the node lifecycle controller while a silent node's
grace period runs) and ``fork(cp) -> component`` for what-if copies.

``build_components`` is the one list of what a sandbox runs, in start order, and the one place
that wires them: each component is constructed with the other components and services it uses
(the metrics server, the scheduler, the kubelets, the Eviction API), and the ones the session,
commands and views address are kept as attributes of the control plane (``cp.scheduler``,
``cp.kubelets``, ...). Nothing looks a component up by name. Not here: what any component
does, or the session's commands and views.
"""

from __future__ import annotations

from typing import Any, Protocol

from .api.manifest import ConfigDocument
from .apiserver.eviction import EvictionAPI
from .apiserver.informers import Informers
from .apiserver.store import Store
from .sim.clock import Clock
from .sim.rand import SimRandom


class Component(Protocol):
    name: str

    def start(self, cp: "ControlPlane") -> None: ...


class ControlPlane:
    """What components share: the store, the clock, the seeded random source, configs, the
    API server's eviction subresource and the shared informers' indexes."""

    def __init__(self, store: Store, clock: Clock, rand: SimRandom,
                 configs: list[ConfigDocument]) -> None:
        self.store = store
        self.clock = clock
        self.rand = rand
        self.configs = list(configs)
        self.eviction = EvictionAPI(store)
        # The shared indexes (pods and ReplicaSets by controller), fed from before any
        # component starts; handed to the controllers that read them.
        self.informers = Informers(store)
        self.components: dict[str, Any] = {}
        # Set by build_components: the components the session, commands and views address.
        self.metrics: Any = None
        self.scheduler: Any = None
        self.kubelets: Any = None
        self.tainteviction: Any = None
        self.clusterautoscaler: Any = None
        self.drain: Any = None

    def configs_of(self, kind: str) -> list[ConfigDocument]:
        return [c for c in self.configs if c.kind == kind]


def build_components(cp: ControlPlane) -> list[Any]:
    """Every component of a sandbox, in start order (controllers, scheduler, kubelets), each
    handed what it uses; the ones the session, commands and views address are kept on ``cp``.
    """
    from .commands.drain_run import DrainRunner
    from .controllers import (
        clusterautoscaler,
        cronjob,
        daemonset,
        deployment,
        disruption,
        hpa,
        job,
        metrics,
        nodelifecycle,
        persistentvolume,
        podgc,
        replicaset,
        replicationcontroller,
        statefulset,
        tainteviction,
        vpa,
    )
    from .kubelet.manager import KubeletManager
    from .scheduler import Scheduler

    cp.metrics = metrics.Metrics()
    cp.scheduler = Scheduler()
    cp.kubelets = KubeletManager()
    cp.tainteviction = tainteviction.TaintEvictionController()
    cp.clusterautoscaler = clusterautoscaler.ClusterAutoscaler(
        scheduler=cp.scheduler, kubelets=cp.kubelets, eviction=cp.eviction)
    cp.drain = DrainRunner(cp.eviction)
    informers = cp.informers
    return [
        cp.metrics,
        replicaset.ReplicaSetController(informers),
        replicationcontroller.ReplicationControllerController(informers),
        deployment.DeploymentController(informers),
        daemonset.DaemonSetController(informers),
        statefulset.StatefulSetController(informers),
        job.JobController(informers),
        cronjob.CronJobController(),
        persistentvolume.PersistentVolumeController(),
        hpa.HorizontalPodAutoscalerController(metrics=cp.metrics),
        vpa.VerticalPodAutoscalerController(metrics=cp.metrics, eviction=cp.eviction),
        nodelifecycle.NodeLifecycleController(),
        cp.tainteviction,
        podgc.PodGCController(),
        disruption.DisruptionController(),
        cp.clusterautoscaler,
        cp.drain,
        cp.scheduler,
        cp.kubelets,   # kubelets last: they act on what controllers decided
    ]
