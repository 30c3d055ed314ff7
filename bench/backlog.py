"""An unschedulable backlog: ``ksandbox sim`` on 2,000 nodes with 34,000 pods that fit nowhere.

    .venv/bin/python bench/backlog.py              # 2,000 nodes / 34,000 pods (issue 14)
    .venv/bin/python bench/backlog.py --scale 4    # a quarter of both: 500 / 8,500
    .venv/bin/python bench/backlog.py --nodes 200 --pods 3400

Nodes are upstream's node-default (4 CPU, 32Gi, 110 pods); every pod asks for 8 CPU, so each
one's first attempt fails everywhere, preemption finds no victims, and it is parked in the
unschedulable queue. What used to grow with nodes × pods: every node event (the kubelets'
first status posts) asked every parked pod's queueing hints, and preemption cloned every node
for every pod. Upstream keeps such pods parked until a cluster event whose hint says Queue or
the 5-minute flush; ksandbox does the same, asking the hints once per group of identical pods
(scheduler/queue.py) and skipping nodes with no possible victim before cloning them.

Reported: wall time to build the session (load + every pod's first attempt at t=0) and to
settle, the attempts per second, and the simulated time reached. Not a test: it reports.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def shape(nodes: int, pods: int) -> str:
    items: list[dict] = []
    cap = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    for i in range(nodes):
        items.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
                      "status": {"capacity": cap, "allocatable": dict(cap)}})
    for i in range(pods):
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": f"big-{i}", "namespace": "default"},
                      "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                               "resources": {"requests": {"cpu": "8"}}}]}})
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--pods", type=int, default=34000)
    ap.add_argument("--scale", type=int, default=1, help="divide both by this")
    args = ap.parse_args()
    nodes, pods = args.nodes // args.scale, args.pods // args.scale

    from ksandbox.session import Session

    text = shape(nodes, pods)
    t0 = time.perf_counter()
    session = Session.from_text(text)
    t1 = time.perf_counter()
    session.settle()
    t2 = time.perf_counter()
    pending = sum(1 for p in session.store.list("Pod") if not p.spec.node_name)
    attempts = sum(1 for e in session.store.occurrences if e.reason == "FailedScheduling")
    print(f"backlog: {nodes:,} nodes, {pods:,} pods that fit nowhere")
    print(f"  load + first attempts : {t1 - t0:7.1f} s")
    print(f"  settle                : {t2 - t1:7.1f} s  (to simulated {session.now:g} s)")
    print(f"  total                 : {t2 - t0:7.1f} s  ({attempts:,} failed attempts, "
          f"{attempts / (t2 - t0):,.0f}/s; {pending:,} pods pending at the end)")


if __name__ == "__main__":
    main()
