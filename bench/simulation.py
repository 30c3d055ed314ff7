"""Benchmark: an hour of simulated time, 500 nodes, 10,000 pods, one node failing.

The cluster: N nodes (16 CPU / 64Gi / 110 pods, three zones, a KubeletConfiguration so every
kubelet computes its allocatable) and D Deployments whose P pods the scheduler places. The
clock runs to t=60 (pods scheduled and started), one node fails at t=60, and the clock runs
to t=3660: lease renewals every 10 s and node status checks on 500 kubelets, the lifecycle
controller's 5-second passes, the unreachable taints, the 300 s countdowns, the evictions and
the replacements being scheduled elsewhere. Reports the wall time of that hour and the ratio
of simulated to real time, plus what happened (so a regression in behaviour shows too).
Not a test: it reports, it does not assert.

    python bench/simulation.py [--nodes 500] [--pods 10000] [--deployments 50] [--profile]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CONFIG = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
kubeReserved: {cpu: 100m, memory: 512Mi}
systemReserved: {cpu: 100m, memory: 512Mi}
---
"""

NODE = """apiVersion: v1
kind: Node
metadata:
  name: node-{i:03d}
  labels: {{topology.kubernetes.io/zone: zone-{z}}}
status:
  capacity: {{cpu: "16", memory: 64Gi, pods: "110"}}
---
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{i:02d}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: app-{i:02d}}}
  template:
    metadata:
      labels: {{app: app-{i:02d}}}
    spec:
      containers:
        - name: app
          image: registry.example/app-{i:02d}:1.0
          resources:
            requests: {{cpu: 100m, memory: 256Mi}}
---
"""


def manifest(nodes: int, pods: int, deployments: int) -> str:
    parts = [CONFIG]
    parts += [NODE.format(i=i, z=i % 3) for i in range(nodes)]
    per = pods // deployments
    parts += [DEPLOYMENT.format(i=i, replicas=per) for i in range(deployments)]
    return "".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=10_000)
    ap.add_argument("--deployments", type=int, default=50)
    ap.add_argument("--hour", type=float, default=3600.0)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    from ksandbox.session import Session

    t0 = time.perf_counter()
    session = Session.from_text(manifest(args.nodes, args.pods, args.deployments), seed=1)
    t1 = time.perf_counter()
    session.run_until(60.0)
    t2 = time.perf_counter()
    running = sum(1 for p in session.store.list("Pod") if p.status.phase == "Running")
    victim = "node-007"
    on_victim = len(session.store.pods_on_node(victim))
    session.submit(f"ksandbox fail node {victim}")
    events_before = session.clock.events_run

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t3 = time.perf_counter()
    session.run_until(60.0 + args.hour)
    t4 = time.perf_counter()
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)

    hour = t4 - t3
    marked = [e for e in session.store.events if e.reason == "TaintManagerEviction"
              and e.message.startswith("Marking for deletion")]
    times = sorted({e.first_timestamp for e in marked})
    running_after = sum(1 for p in session.store.list("Pod")
                        if p.status.phase == "Running" and p.spec.node_name != victim)
    print(f"cluster: {args.nodes} nodes, {args.pods} pods in {args.deployments} deployments")
    print(f"load: {t1 - t0:.2f} s; schedule and start (0-60 s simulated): {t2 - t1:.2f} s "
          f"({running} pods Running)")
    taints = ", ".join(f"{t.to_string()}@{t.time_added:g}"
                       for t in session.store.get("Node", victim).spec.taints)
    print(f"{victim} fails at 60 s with {on_victim} pods; its taints: {taints}")
    print(f"evictions: {len(marked)} pods marked for deletion at {times}")
    print(f"after the hour: {running_after} pods Running on healthy nodes")
    print(f"simulated hour: {hour:.2f} s real, {session.clock.events_run - events_before} clock "
          f"callbacks")
    print(f"ratio: {args.hour / hour:.0f}x real time (DESIGN.md §5 asks >= 100x)")


if __name__ == "__main__":
    main()
