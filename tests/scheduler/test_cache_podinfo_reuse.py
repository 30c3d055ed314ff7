"""The scheduler cache's PodInfos equal freshly parsed ones, however they were made.

At a bind the cache takes the scheduling queue's PodInfo of the pending pod (its parsed
affinity terms, request totals and ports) for the bound version, and when a pod turns
terminating it keeps its own, instead of parsing the pod again — as upstream's cache keeps the
assumed pod's PodInfo (``pkg/scheduler/backend/cache/cache.go`` AddPod after AssumePod).
This workload (affinity, anti-affinity, host ports, priorities, preemption, deletes, node
churn: test_scheduler_fast_path's) holds every PodInfo in the cache to ``PodInfo(pod)``.
"""

from test_scheduler_fast_path import build, node, pod

from ksandbox.api.codec import decode
from ksandbox.api.scheduling import PriorityClass
from ksandbox.scheduler.framework.node_info import PodInfo
from ksandbox.sim.rand import SimRandom

_PLAIN = ("key", "namespace", "labels", "priority", "start_time", "requests", "non_zero_cpu",
          "non_zero_mem", "host_ports", "terminating")
_TERMS = ("required_affinity", "required_anti_affinity", "preferred_affinity",
          "preferred_anti_affinity")
_TERM_SLOTS = ("namespaces", "selector", "topology_key", "namespace_selector", "weight")


def _same(a: PodInfo, b: PodInfo) -> None:
    assert a.pod is b.pod
    for name in _PLAIN:
        assert getattr(a, name) == getattr(b, name), name
    for name in _TERMS:
        ta, tb = getattr(a, name), getattr(b, name)
        assert len(ta) == len(tb), name
        for x, y in zip(ta, tb):
            assert [getattr(x, s) for s in _TERM_SLOTS] == [getattr(y, s) for s in _TERM_SLOTS]
    assert a.has_affinity == b.has_affinity


def _check(sched) -> int:
    n = 0
    for ni in sched.cache.node_infos.values():
        for key, pi in ni.pods.items():
            _same(pi, PodInfo(pi.pod, key))
            n += 1
    return n


def test_cache_podinfos_equal_fresh_ones_through_binds_and_terminations():
    store, clock, sched = build(True)
    r = SimRandom(99)
    store.create(decode(PriorityClass, {"metadata": {"name": "low"}, "value": -5}))
    store.create(decode(PriorityClass, {"metadata": {"name": "high"}, "value": 1000}))
    for i in range(120):
        store.create(node(i, r))
    reused = []
    original = PodInfo.with_pod
    PodInfo.with_pod = lambda self, p: reused.append(p) or original(self, p)
    try:
        terminating = 0
        for step in range(8):
            for i in range(step * 80, step * 80 + 80):
                store.create(pod(i, r))
            clock.run_until(clock.now + 3)
            for p in store.list("Pod")[::5]:
                if p.spec.node_name and p.metadata.deletion_timestamp is None:
                    store.delete("Pod", p.metadata.name, "default")   # terminating, still there
                    terminating += 1
            assert _check(sched) > 0
            for p in store.list("Pod")[::7]:
                if p.metadata.deletion_timestamp is not None:
                    store.remove("Pod", p.metadata.name, "default")
            if step == 4:
                store.delete("Node", "node-003")
        assert _check(sched) > 300 and terminating > 50
    finally:
        PodInfo.with_pod = original
    assert len(reused) > 300   # the bind and terminating paths were taken
