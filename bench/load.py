"""Benchmark: load a large cluster file (DESIGN.md §5: 5,000 nodes / 150,000 pods in ≤ 10 s,
≤ 2 KB per pod).

Generates a multi-document YAML file of N nodes (4 CPU / 32Gi / 110 pods, three zones) and P
pods bound round-robin to them (100m / 500Mi, from 100 different "templates" of labels), then
times the three stages separately — YAML parse, decode to typed objects, admission + store —
and reports the resident memory at the end (bytes per pod, everything included) and, with
``--memory``, the traced memory per pod. ``--components`` builds a whole Session (control plane
and all) instead of a bare store. Not a test: it reports, it does not assert.

    python bench/load.py [--nodes 5000] [--pods 50000] [--components] [--memory]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NODE = """apiVersion: v1
kind: Node
metadata:
  name: node-{i}
  labels: {{topology.kubernetes.io/zone: zone-{z}}}
status:
  capacity: {{cpu: "4", memory: 32Gi, pods: "110"}}
---
"""

POD = """apiVersion: v1
kind: Pod
metadata:
  name: pod-{i}
  labels: {{app: app-{t}, tier: backend}}
spec:
  nodeName: node-{n}
  containers:
    - name: app
      image: registry.example/app-{t}:1.0
      resources:
        requests: {{cpu: {cpu}, memory: {memory}}}
---
"""


def cluster_documents(nodes: int, pods: int, cpu: str = "100m", memory: str = "500Mi"):
    """The YAML documents of the benchmark cluster, one string per object (also used by
    bench/simulation.py's idle shape)."""
    for i in range(nodes):
        yield NODE.format(i=i, z=i % 3)
    for i in range(pods):
        yield POD.format(i=i, t=i % 100, n=i % nodes, cpu=cpu, memory=memory)


def generate(path: Path, nodes: int, pods: int) -> None:
    with path.open("w") as f:
        f.writelines(cluster_documents(nodes, pods))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("--memory", action="store_true", help="trace memory (slower)")
    ap.add_argument("--components", action="store_true",
                    help="start the whole control plane (default: the store only)")
    args = ap.parse_args()

    import yaml

    from ksandbox import gcpolicy
    from ksandbox.api.manifest import decode_object, read_text

    gcpolicy.tune()  # as the manifest loader and the Session do
    from ksandbox.apiserver.store import Store, apply_all
    from ksandbox.sim.clock import Clock
    from ksandbox.sim.rand import SimRandom

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        generate(path, args.nodes, args.pods)
        size = path.stat().st_size
        text = read_text(path)

        t0 = time.perf_counter()
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        docs = list(yaml.load_all(text, Loader=loader))
        t1 = time.perf_counter()
        objs = [decode_object(d, str(path), i + 1) for i, d in enumerate(docs) if d]
        t2 = time.perf_counter()
        del docs
        gc.collect()

        if args.memory:
            tracemalloc.start()
        t3 = time.perf_counter()
        if args.components:
            from ksandbox.session import Session

            session = Session(objs, seed=1)
            store = session.store
        else:
            clock = Clock()
            store = Store(lambda: clock.now, SimRandom(1))
            from ksandbox.api.manifest import load_manifests

            apply_all(store, load_manifests("apiVersion: v1\nkind: Namespace\n"
                                            "metadata: {name: default}"))
            apply_all(store, objs)
        t4 = time.perf_counter()
        del objs
        gc.collect()
        current = peak = 0
        if args.memory:
            current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()

    print(f"file: {args.nodes} nodes, {args.pods} pods, {size / 2**20:.1f} MiB of YAML")
    print(f"yaml parse ({loader.__name__}): {t1 - t0:6.2f} s")
    print(f"decode to objects:           {t2 - t1:6.2f} s  "
          f"({(args.nodes + args.pods) / (t2 - t1):,.0f} objects/s)")
    print(f"admit + store{' + control plane' if args.components else ''}: "
          f"{t4 - t3:6.2f} s  ({(args.nodes + args.pods) / (t4 - t3):,.0f} objects/s)")
    print(f"total:                       {t4 - t0:6.2f} s")
    # Resident memory with the cluster loaded (the YAML text and documents freed); the peak
    # includes the parse. Python keeps freed arenas, so the end figure is an upper bound of
    # what the store (and, with --components, the control plane) holds.
    import resource

    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * resource.getpagesize()
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"RSS at the end: {rss / 2**20:.0f} MiB ({rss / max(1, args.pods):,.0f} B per pod, "
          f"everything included), peak {rss_peak / 2**20:.0f} MiB")
    if args.memory:
        print(f"store memory held (tracemalloc, which also slows the run ~2x): "
              f"{current / 2**20:.1f} MiB ({current / max(1, store.count('Pod')):,.0f} B per pod "
              f"incl. nodes), peak {peak / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
