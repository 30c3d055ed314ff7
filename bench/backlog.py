"""An unschedulable backlog: ``ksandbox sim`` on 2,000 nodes with 34,000 pods that fit nowhere.

    .venv/bin/python bench/backlog.py              # 2,000 nodes / 34,000 pods (issue 14)
    .venv/bin/python bench/backlog.py --scale 4    # a quarter of both: 500 / 8,500
    .venv/bin/python bench/backlog.py --nodes 200 --pods 3400

Nodes are upstream's node-default (4 CPU, 32Gi, 110 pods); every pod asks for 8 CPU, so each
one's first attempt fails everywhere, preemption finds no victims, and it is parked in the
unschedulable queue. What used to grow with nodes × pods, and what ksandbox does instead:

- every node event (the kubelets' first status posts) asked every parked pod's queueing
  hints; upstream keeps such pods parked until a cluster event whose hint says Queue or the
  5-minute flush, and ksandbox asks the hints once per group of identical pods
  (scheduler/queue.py);
- each attempt's diagnosis was a dict of 2,000 node names, counted again for the message and
  walked again by preemption; NodeToStatus now lists nodes that failed alike as one shared
  Status over an index array (framework/types.py), so the "0/2000 nodes are available: 2000
  Insufficient cpu." count, the Unschedulable nodes preemption may try and the FitError
  message cost O(groups); the per-node dict is built only when explain asks per node;
- preemption cloned every node; it now skips, with numpy over each node's lowest pod
  priority, the nodes with no possible victim (all of them when no pod anywhere is lower),
  drawing its random offset as before (plugins/default_preemption.py);
- NodeResourcesFit's vectorized filter keeps its answer for pods asking alike while no node
  changed, and the fast path's search stops short when a pod fits nowhere (framework/fast.py).

Every message, event and random draw is what it was: tests/scheduler/framework/
test_node_to_status.py holds the grouped diagnosis to the per-node one and preemption's
candidates to upstream's one-by-one walk.

Reported: wall time to build the session (load + every pod's first attempt at t=0) and to
settle, the attempts per second, the simulated time reached, the process's CPU seconds and
the machine's load average (on a shared machine CPU seconds are the steadier figure). Not a
test: it reports.
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
    c0 = time.process_time()
    t0 = time.perf_counter()
    session = Session.from_text(text)
    t1 = time.perf_counter()
    session.settle()
    t2 = time.perf_counter()
    cpu = time.process_time() - c0
    pending = sum(1 for p in session.store.list("Pod") if not p.spec.node_name)
    attempts = sum(1 for e in session.store.occurrences if e.reason == "FailedScheduling")
    print(f"backlog: {nodes:,} nodes, {pods:,} pods that fit nowhere")
    print(f"  load + first attempts : {t1 - t0:7.1f} s")
    print(f"  settle                : {t2 - t1:7.1f} s  (to simulated {session.now:g} s)")
    print(f"  total                 : {t2 - t0:7.1f} s  ({attempts:,} failed attempts, "
          f"{attempts / (t2 - t0):,.0f}/s; {pending:,} pods pending at the end)")
    print(f"  CPU                   : {cpu:7.1f} s  (load average {_load()})")


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
