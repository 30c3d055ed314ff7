"""Bounded work (issue 13, item 3): no unbounded work at one simulated instant.

- The pod storm upstream also has: a ReplicaSet/ReplicationController/StatefulSet whose pods
  tolerate every taint, on a node under disk pressure — scheduled, rejected by the kubelet's
  eviction admission (pkg/kubelet/eviction/eviction_manager.go Admit), replaced, ... Here, as
  upstream, the controller's API client is rate limited (kube-controller-manager
  --kube-api-qps 20 / --kube-api-burst 30, client-go flowcontrol token bucket), so the storm
  advances simulated time: ~20 Failed pods a second, podgc holding terminated pods at its
  threshold (pkg/controller/podgc gcTerminated, --terminated-pod-gc-threshold 12500).
- ``replicas: 2147483647`` and ``kubectl scale --replicas=10000000`` grow at the same rate, and
  the sandbox-wide object cap (sim/limits.py) turns what is left into refused creates with
  the controller's FailedCreate Warning events (replica_set.go manageReplicas).
- ctrl+c during ``ksandbox sim`` stops between two clock slices and prints the state so far.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

from ksandbox.cli import main
from ksandbox.session import Session
from ksandbox.sim import limits

NODE = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
        "status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}\n")


def workload(kind: str = "Deployment", replicas: int = 2, tolerate_all: bool = True) -> str:
    api = {"ReplicationController": "v1"}.get(kind, "apps/v1")
    selector = "{app: s}" if kind == "ReplicationController" else "{matchLabels: {app: s}}"
    extra = "  serviceName: s\n" if kind == "StatefulSet" else ""
    tol = "      tolerations: [{operator: Exists}]\n" if tolerate_all else ""
    return (f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: storm}}\nspec:\n{extra}"
            f"  replicas: {replicas}\n  selector: {selector}\n  template:\n"
            f"    metadata: {{labels: {{app: s}}}}\n    spec:\n{tol}"
            f"      containers: [{{name: c, image: i}}]\n")


def phases(s: Session) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in s.store.list("Pod"):
        out[p.status.phase] = out.get(p.status.phase, 0) + 1
    return out


def test_the_pod_storm_advances_simulated_time_at_the_controller_client_rate():
    s = Session.from_text(NODE + "---\n" + workload("Deployment"))
    assert s.submit("ksandbox pressure node n1 disk on").ok
    s.run_until(15.0)     # the kubelet notices the pressure at its next eviction sync (10 s)
    before = phases(s).get("Failed", 0)
    began = time.monotonic()
    s.run_until(45.0)
    assert time.monotonic() - began < 60, "30 simulated seconds of storm must not take a minute"
    assert s.now == 45.0
    failed = phases(s).get("Failed", 0) - before
    # 20 creates a second once the burst is spent: ~600 in 30 s (a little more from the burst).
    assert 500 <= failed <= 700, failed
    evicted = sum(e.count for e in s.store.events if e.reason == "Evicted")
    assert evicted >= failed


def test_a_statefulset_storm_is_bounded_too():
    s = Session.from_text(NODE + "---\n" + workload("StatefulSet"))
    s.submit("ksandbox pressure node n1 disk on")
    s.run_until(40.0)
    # one event, counted (upstream's correlator): a replacement costs a delete and a create,
    # so ~10 a second
    created = sum(e.count for e in s.store.events if e.reason == "SuccessfulCreate")
    assert 300 <= created <= 450, created


def test_huge_replicas_grow_at_the_client_rate_not_at_once():
    s = Session.from_text(NODE + "---\n" + workload("ReplicaSet", 2147483647, False))
    assert s.store.count("Pod") == 30            # the client's burst at t=0
    s.run_until(10.0)
    assert 220 <= s.store.count("Pod") <= 240     # + 20 a second
    r = s.submit("kubectl scale replicaset storm --replicas=10000000")
    assert r.ok, r.error
    s.run_until(12.0)
    assert s.store.count("Pod") <= 290


def test_the_object_cap_refuses_creates_with_a_warning_event():
    s = Session.from_text(NODE)
    cap = s.store.object_count() + 50
    limits.configure(max_objects=cap)
    try:
        r = s.submit("kubectl apply -f -", stdin=workload("ReplicaSet", 2147483647, False))
        assert r.ok, r.error
        s.run_until(20.0)
        assert s.store.object_count() == cap
        failed = [e for e in s.store.events if e.reason == "FailedCreate"]
        assert failed and failed[0].type == "Warning"
        assert failed[0].message.startswith(
            f'Error creating: pods "storm-" is forbidden: the sandbox holds {cap} objects, its '
            f'limit (--max-objects)')
        r = s.submit("kubectl run one-more --image=i")
        assert r.error.startswith('Error from server (Forbidden): pods "one-more" is forbidden')
    finally:
        limits.configure(max_objects=limits.SimLimits().max_objects)


def test_ctrl_c_stops_a_sim_run_and_prints_the_state_so_far(tmp_path, capsys):
    m = tmp_path / "storm.yaml"
    m.write_text(NODE + "---\n" + workload("ReplicationController"))
    script = tmp_path / "s.yaml"
    script.write_text("steps:\n  - at: 1\n    command: ksandbox pressure node n1 disk on\n")
    # (the handler the run must put back: Python's, or SIG_IGN in a process started in the
    # background by a shell without job control)
    before = signal.getsignal(signal.SIGINT)
    # ctrl+c once the run has put its own handler in place (a fixed delay raced the load on a
    # busy CI machine: the signal came first and Python's KeyboardInterrupt went elsewhere)
    done = threading.Event()

    def press_ctrl_c() -> None:
        while signal.getsignal(signal.SIGINT) is before:
            if done.wait(0.01):
                return
        if not done.wait(0.5):  # let some simulated time pass
            os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press_ctrl_c)
    presser.start()
    try:
        code = main(["sim", "-f", str(m), "--script", str(script), "--until", "100000",
                     "-o", "json"])
    finally:
        done.set()
        presser.join()
    out, err = capsys.readouterr()
    assert code == 130
    assert "interrupted at " in err and "Traceback" not in err
    state = json.loads(out)
    assert 0 < state["time"] < 100000
    assert signal.getsignal(signal.SIGINT) is before
