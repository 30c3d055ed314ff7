"""A kubelet's pending pod starts (pkg/kubelet/pod_workers.go: one worker per pod, each
started after its admission) are entries of the clock's batches (Clock.call_batched: one heap
entry per start time, not a Timer per pod) that call one shared bound method with the pod's
key — no closure per pod: a 150,000-pod load holds that many at once. They start the same
pods at the same times as before, and a fork taken while they wait goes on exactly as the
original does."""

from __future__ import annotations

from ksandbox.session import Session
from ksandbox.sim.clock import TimerBatch

CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: p{i}}}
spec:
  nodeName: n1
  containers: [{{name: c, image: nginx:1.25, resources: {{requests: {{cpu: 100m}}}}}}]
""" for i in range(5))

# 60 more pods without requests: their starts fall at ~20 distinct times.
MANY = CLUSTER + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: q{i}}}
spec:
  nodeName: n1
  containers: [{{name: c, image: nginx:1.25}}]
""" for i in range(60))


class _Entry:
    """One pending start: the batch's time object, its callback and its argument."""

    def __init__(self, when, callback, arg):
        self.when, self.callback, self.arg = when, callback, arg


def _start_timers(s: Session) -> list:
    out = []
    for _w, _p, t in s.clock.entries():
        if isinstance(t, TimerBatch) and not t.cancelled:
            for i in range(t.next, len(t.args)):
                if t.labels[i] == "kubelet/n1/start" and isinstance(t.args[i], tuple):
                    out.append(_Entry(t.when, t.callbacks[i], t.args[i]))
    return out


def test_pending_starts_share_one_callback_and_carry_the_key():
    s = Session.from_text(CLUSTER)
    timers = _start_timers(s)
    assert len(timers) == 5
    assert len({id(t.callback) for t in timers}) == 1   # one bound method for all
    assert sorted(t.arg for t in timers) == [("default", f"p{i}") for i in range(5)]
    s.run_until(10)
    assert not _start_timers(s)
    assert {p.status.phase for p in s.store.list("Pod")} == {"Running"}


def test_a_fork_taken_while_starts_wait_goes_on_as_the_original():
    s = Session.from_text(CLUSTER)
    other = s.fork()
    assert _start_timers(other) and all(t.callback.__self__ is not t2.callback.__self__
                                        for t, t2 in zip(_start_timers(other), _start_timers(s)))
    s.run_until(30)
    other.run_until(30)
    assert other.view() == s.view()
    started = [(e.involved_object.name, e.first_timestamp) for e in s.store.occurrences
               if e.reason == "Started"]
    assert len(started) == 5 and all(1.0 <= at <= 3.0 for _, at in started)


def test_pending_starts_due_at_one_time_share_its_float():
    """Start delays are tenths of a second, so a load's pods share a few start times: each
    time is one float object (PodWorkers.schedule_start), not one per pod."""
    s = Session.from_text(MANY)
    timers = _start_timers(s)
    assert len(timers) == 65
    by_value: dict = {}
    for t in timers:
        by_value.setdefault(t.when, set()).add(id(t.when))
    assert len(by_value) < 65 and all(len(ids) == 1 for ids in by_value.values())
    heap_times = {id(w) for w, _p, t in s.clock.entries() if isinstance(t, TimerBatch)}
    assert heap_times == {id(t.when) for t in timers}


def test_pending_starts_due_at_one_time_are_one_heap_entry():
    """65 pods waiting to start at ~20 distinct times: one heap entry (a TimerBatch) per
    time, not a Timer, heap tuple and sequence number per pod (~208 bytes each; a 150,000-pod
    load holds them all at once); deleting a pod before its start cancels its entry only."""
    s = Session.from_text(MANY)
    batches = [t for _w, _p, t in s.clock.entries() if isinstance(t, TimerBatch)]
    assert len(_start_timers(s)) == 65
    assert len(batches) == len({t.when for t in _start_timers(s)}) < 30
    s.store.delete("Pod", "q7", "default")
    s.run_until(10)
    pods = {p.metadata.name: p.status.phase for p in s.store.list("Pod")}
    assert "q7" not in pods and set(pods.values()) == {"Running"} and len(pods) == 64
    started = [e.involved_object.name for e in s.store.occurrences if e.reason == "Started"]
    assert "q7" not in started and len(started) == 64


def test_a_waiting_pods_state_holds_only_what_every_pod_has():
    """A kubelet's state of each pod it runs (150,000 after a big load): host ports, a stop
    timer and an eviction in progress live in a part made when the first is set, so a plain
    pod's state is 8 slots (96 bytes), not 11 (120); the pod with host ports, the pod being
    stopped and the pod being evicted read them back as set."""
    import sys

    from ksandbox.kubelet.pod_workers import _PodState

    s = Session.from_text(CLUSTER)
    states = list(s.cp.kubelets.kubelets["n1"].pod_workers.pods.values())
    # the pods that pull nginx:1.25 hold the pull's container names until they start; the
    # others wait for one of those pulls and hold nothing more
    pulling = [st for st in states if st.pulls]
    assert len(states) == 5 and 1 <= len(pulling) < 5
    assert all(st._rare is None for st in states if st not in pulling)
    s.run_until(5)
    assert all(st.started and st.pulls == () and st._rare is None for st in states)
    plain = _PodState("u", 0.0, {}, ())
    assert plain._rare is None and sys.getsizeof(plain) <= 96
    assert plain.host_ports == () and plain.stop_timer is None and plain.evicting is False
    plain.stop_timer = None
    plain.evicting = False
    assert plain._rare is None   # setting the defaults makes nothing
    ports = _PodState("u", 0.0, {}, (("TCP", 80),))
    assert ports.host_ports == (("TCP", 80),) and ports.stop_timer is None
    plain.evicting = True
    plain.stop_timer = "t"
    assert plain.evicting is True and plain.stop_timer == "t" and plain.host_ports == ()
    plain.stop_timer = None
    assert plain.stop_timer is None and plain.evicting is True
