"""Scheduler throughput on upstream scheduler_perf's workload shapes.

    .venv/bin/python bench/scheduler.py            # every shape, full size
    .venv/bin/python bench/scheduler.py --quick    # every shape at 1/10 size
    .venv/bin/python bench/scheduler.py --shape SchedulingBasic

Each shape runs in its own process (so peak memory is its own): nodes and initial pods are
created and scheduled first, then the measured pods are created pending and the clock is run
until the scheduler has placed them — the rate is measured pods / wall seconds of that phase,
as upstream's SchedulingThroughput. The scheduler is the real component (default profile,
percentageOfNodesToScore adaptive unless the shape says otherwise) on a store and clock of its
own: no kubelets or controllers, except a reaper that removes pods preemption deleted (what a
kubelet does after the grace period). Fixed seed. Wall-clock rates are noisy on a shared
machine, so the rate per CPU second of the process is printed too. Floors are upstream's CI thresholds
(shared/DESIGN.md §5, reference/performance.md §1a).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ksandbox.api.codec import decode  # noqa: E402
from ksandbox.api.core import Namespace, Node, Pod  # noqa: E402
from ksandbox.api.manifest import ConfigDocument  # noqa: E402
from ksandbox.api.meta import ObjectMeta  # noqa: E402
from ksandbox.api.scheduling import PriorityClass  # noqa: E402
from ksandbox.apiserver.store import Store  # noqa: E402
from ksandbox.controlplane import ControlPlane  # noqa: E402
from ksandbox.scheduler.scheduler import Scheduler  # noqa: E402
from ksandbox.sim.clock import Clock  # noqa: E402
from ksandbox.sim.rand import SimRandom  # noqa: E402

ZONE = "topology.kubernetes.io/zone"
SEED = 42

# name: (nodes, initial pods, measured pods, upstream floor pods/s, options)
SHAPES: dict[str, tuple[int, int, int, float, dict]] = {
    "SchedulingBasic": (5000, 1000, 10000, 680, {}),
    "SchedulingBasic/500Nodes": (500, 500, 1000, 680, {}),
    "SchedulingBasic/AllNodesScored": (5000, 1000, 10000, 680, {"percentage": 100}),
    "TopologySpreading": (5000, 5000, 5000, 460, {"pod": "spread", "zones": 3}),
    "SchedulingNodeAffinity": (5000, 5000, 10000, 220, {"pod": "affinity"}),
    "SchedulingWithNodeInclusionPolicy": (5000, 0, 4000, 270,
                                          {"pod": "inclusion", "tainted": 1000}),
    "SchedulingPodAntiAffinity": (5000, 1000, 2000, 60, {"pod": "anti", "init_pod": "anti"}),
    "PreemptionBasic": (500, 2000, 500, 18, {"pod": "high", "init_pod": "low",
                                             "priority": True}),
}


def make_node(i: int, opts: dict) -> Node:
    zones = opts.get("zones", 0)
    labels = {ZONE: f"zone{i % zones + 1}"} if zones else {}
    if opts.get("pod") == "affinity":
        labels["zone"] = "zone1"
    taints = []
    if i < opts.get("tainted", 0):
        taints = [{"key": "foo", "value": "bar", "effect": "NoSchedule"}]
    cap = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return decode(Node, {"metadata": {"name": f"node-{i}", "labels": labels},
                         "spec": {"taints": taints},
                         "status": {"capacity": cap, "allocatable": cap}})


def make_pod(name: str, kind: str) -> Pod:
    res = {"cpu": "100m", "memory": "500Mi"}
    spec: dict = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                  "resources": {"requests": res, "limits": res}}]}
    labels: dict = {}
    if kind == "spread":
        labels = {"color": "blue"}
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"color": "blue"}}}]
    elif kind == "affinity":
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["zone1", "zone2"]}]}]}}}
    elif kind == "inclusion":
        labels = {"foo": ""}
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "DoNotSchedule", "nodeAffinityPolicy": "Honor",
            "nodeTaintsPolicy": "Honor", "labelSelector": {"matchLabels": {"foo": ""}}}]
    elif kind == "anti":
        labels = {"color": "green"}
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"color": "green"}},
             "topologyKey": "kubernetes.io/hostname"}]}}
    elif kind == "low":
        res = {"cpu": "900m", "memory": "500Mi"}
        spec["containers"][0]["resources"] = {"requests": res}
        spec["priorityClassName"] = "low-priority"
    elif kind == "high":
        res = {"cpu": "3000m", "memory": "500Mi"}
        spec["containers"][0]["resources"] = {"requests": res}
        spec["priorityClassName"] = "high-priority"
    return decode(Pod, {"metadata": {"name": name, "namespace": "default", "labels": labels},
                        "spec": spec})


def run_shape(name: str, scale: float) -> dict:
    n_nodes, n_init, n_measured, floor, opts = SHAPES[name]
    n_nodes = max(1, int(n_nodes * scale))
    n_init = int(n_init * scale)
    n_measured = max(1, int(n_measured * scale))
    if "tainted" in opts:
        opts = dict(opts, tainted=int(opts["tainted"] * scale))
    configs = []
    if "percentage" in opts:
        configs.append(ConfigDocument("KubeSchedulerConfiguration",
                                      "kubescheduler.config.k8s.io/v1",
                                      {"percentageOfNodesToScore": opts["percentage"]},
                                      "<bench>", 1))
    clock = Clock()
    rand = SimRandom(SEED)
    store = Store(lambda: clock.now, rand.child("apiserver"))
    cp = ControlPlane(store, clock, rand, configs)
    sched = Scheduler()
    cp.scheduler = sched
    sched.start(cp)
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    if opts.get("priority"):
        store.create(decode(PriorityClass, {"metadata": {"name": "low-priority"}, "value": 1}))
        store.create(decode(PriorityClass, {"metadata": {"name": "high-priority"},
                                            "value": 10}))

    def reap(ev) -> None:  # what the kubelet does once a deleted pod's containers stopped
        p = ev.obj
        if p.metadata.deletion_timestamp is not None and ev.type == "MODIFIED":
            clock.call_soon(lambda: store.get("Pod", p.metadata.name, "default") is not None
                            and store.remove("Pod", p.metadata.name, "default"))
    store.subscribe("Pod", reap)
    for i in range(n_nodes):
        store.create(make_node(i, opts))
    init_kind = opts.get("init_pod", "default")
    for i in range(n_init):
        store.create(make_pod(f"init-{i}", init_kind))
    clock.run_until(clock.now + 1)
    kind = opts.get("pod", "default")
    pods = [make_pod(f"pod-{i}", kind) for i in range(n_measured)]
    for p in pods:
        store.create(p)
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    clock.run_until(clock.now + 600)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    bound = sum(1 for p in store.list("Pod") if p.spec.node_name
                and p.metadata.name.startswith("pod-"))
    rate = bound / elapsed if elapsed > 0 else 0.0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"shape": name, "nodes": n_nodes, "init_pods": n_init, "measured_pods": n_measured,
            "bound": bound, "seconds": round(elapsed, 3), "pods_per_second": round(rate, 1),
            "cpu_seconds": round(cpu, 3),
            "pods_per_cpu_second": round(bound / cpu, 1) if cpu > 0 else 0.0,
            "floor": floor, "ratio": round(rate / floor, 2), "peak_rss_mb": round(peak_mb, 1),
            "percentage_of_nodes_to_score": opts.get("percentage", "adaptive")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1/10 of each shape")
    ap.add_argument("--shape", choices=sorted(SHAPES), help="run one shape in this process")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    if args.shape:
        print(json.dumps(run_shape(args.shape, scale)))
        return 0
    results = []
    print(f"{'shape':36} {'nodes':>6} {'pods':>6} {'s':>7} {'pods/s':>8} {'floor':>6} "
          f"{'ratio':>6} {'pods/cpu-s':>10} {'peak MB':>8}")
    for name in SHAPES:
        cmd = [sys.executable, __file__, "--shape", name] + (["--quick"] if args.quick else [])
        out = subprocess.run(cmd, capture_output=True, text=True,
                             env=dict(os.environ, PYTHONHASHSEED="0"))
        if out.returncode != 0:
            print(f"{name}: failed\n{out.stderr}", file=sys.stderr)
            return 1
        r = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(r)
        print(f"{name:36} {r['nodes']:>6} {r['measured_pods']:>6} {r['seconds']:>7.2f} "
              f"{r['pods_per_second']:>8.0f} {r['floor']:>6.0f} {r['ratio']:>5.1f}x "
              f"{r['pods_per_cpu_second']:>10.0f} {r['peak_rss_mb']:>8.0f}")
        if r["bound"] != r["measured_pods"]:
            print(f"  note: {r['bound']} of {r['measured_pods']} measured pods bound")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
