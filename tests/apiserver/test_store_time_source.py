"""The store's time source: a store handed a Clock's ``read`` reads the clock's ``now``
attribute itself (no call per write), any other callable is called. Both must stamp every
write, event and deletion with the same simulated second."""

from __future__ import annotations

from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver.store import Store, apply_all
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom

SETUP = """
apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: node-1
  containers: [{name: c, image: nginx}]
"""


def _facts(store: Store) -> list:
    pod = store.get("Pod", "web", "default")
    return [store.now(), store.last_change_time, pod.metadata.creation_timestamp,
            pod.metadata.deletion_timestamp,
            [(e.last_timestamp, e.reason, e.count) for e in store.occurrences]]


def _run(store: Store, clock: Clock) -> list:
    seen = []
    clock.run_until(3.5)
    apply_all(store, load_manifests(SETUP))
    seen.append(_facts(store))
    clock.run_until(7.0)
    pod = store.get("Pod", "web", "default")
    store.record_event(pod, "Normal", "Pulled", "pulled")
    store.write_status(pod, pod.status)
    seen.append(_facts(store))
    clock.run_until(9.25)
    store.record_event(pod, "Normal", "Pulled", "pulled")   # a repeat: its last time moves
    store.delete("Pod", "web", "default")                   # graceful: now + 30
    seen.append(_facts(store))
    return seen


def test_a_clock_read_store_reads_the_clock_itself_and_stamps_as_a_called_one() -> None:
    clock_a, clock_b = Clock(), Clock()
    direct = Store(clock_a.read, SimRandom(1))
    called = Store(lambda: clock_b.now, SimRandom(1))
    # the fast way is the one taken: the clock is read as an attribute
    assert direct._time is clock_a
    assert called._time is not clock_b
    a, b = _run(direct, clock_a), _run(called, clock_b)
    assert a == b
    assert a[0][:3] == [3.5, 3.5, 3.5]
    assert a[1][:2] == [7.0, 7.0]
    assert a[2][:4] == [9.25, 9.25, 3.5, 39.25]
    assert a[2][4][-1] == (9.25, "Pulled", 2)


def test_a_fork_reads_the_time_source_it_is_given() -> None:
    clock, other = Clock(), Clock()
    store = Store(clock.read, SimRandom(1))
    fork = store.fork(other.read, SimRandom(2))
    clock.run_until(4.0)
    other.run_until(2.0)
    assert (store.now(), fork.now()) == (4.0, 2.0)
