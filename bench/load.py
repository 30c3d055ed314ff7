"""Benchmark: load a large cluster file (DESIGN.md §5: 5,000 nodes / 150,000 pods in ≤ 10 s,
≤ 2 KB per pod).

Generates a file of N nodes (4 CPU / 32Gi / 110 pods, three zones) and P pods bound
round-robin to them (100m / 500Mi, from 100 different "templates" of labels) — multi-document
YAML, or with ``--format json`` one ``kind: List`` as ``kubectl get -o json`` prints it — then
times the stages of ``ksandbox sim FILE`` separately (wall and CPU seconds): reading, parsing
through the real loader (safeload's limits, its YAML fast path or JSON) and decoding to typed
objects (one stage: each document is decoded as it is parsed), admission + store
(``--components``: the whole Session) — and reports the resident memory at the end (bytes per
pod, everything included) and, with ``--memory``, the traced memory per pod. ``--components`` builds a whole Session (control plane
and all) instead of a bare store. Not a test: it reports, it does not assert.

    python bench/load.py [--nodes 5000] [--pods 50000] [--format yaml|json] [--components]
                         [--memory] [--profile FILE]
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


def generate(path: Path, nodes: int, pods: int, fmt: str = "yaml") -> None:
    """The benchmark cluster as multi-document YAML, or as ``kubectl get -o json`` prints it
    (one ``kind: List``, four-space indent)."""
    if fmt == "yaml":
        with path.open("w") as f:
            f.writelines(cluster_documents(nodes, pods))
        return
    import json

    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    items = [yaml.load(d.rstrip("-\n"), Loader=loader) for d in cluster_documents(nodes, pods)]
    with path.open("w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items,
                   "metadata": {"resourceVersion": ""}}, f, indent=4)


class Stages:
    """Wall and CPU seconds of each stage (CPU: what a shared machine disturbs least)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []
        self._w = time.perf_counter()
        self._c = time.process_time()

    def mark(self, name: str) -> None:
        w, c = time.perf_counter(), time.process_time()
        self.rows.append((name, w - self._w, c - self._c))
        self._w, self._c = w, c


def _loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("--format", choices=("yaml", "json"), default="yaml",
                    help="multi-document YAML, or a kubectl get -o json List export")
    ap.add_argument("--memory", action="store_true", help="trace memory (slower)")
    ap.add_argument("--components", action="store_true",
                    help="start the whole control plane (default: the store only)")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of the load to FILE")
    args = ap.parse_args()

    from ksandbox import gcpolicy
    from ksandbox.api import safeload
    from ksandbox.api.manifest import SourceTexts, load_manifests_with_origins

    gcpolicy.tune()  # as the manifest loader and the Session do
    from ksandbox.apiserver.store import Store, apply_all
    from ksandbox.sim.clock import Clock
    from ksandbox.sim.rand import SimRandom

    load_before = _loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"cluster.{args.format}"
        generate(path, args.nodes, args.pods, args.format)
        size = path.stat().st_size
        gc.collect()
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        stages = Stages()
        # The stages as `ksandbox sim FILE` runs them (cli._load_session), timed one by one:
        # the real loader (safeload's limits, fastyaml / json), then the decoder, then the
        # store (and with --components the whole Session).
        text = safeload.read_source(path)
        # kept compressed for the session's replays, as cli._load_session keeps it
        # (manifest.SourceTexts: the session holds the texts, not the decoded objects)
        sources = SourceTexts()
        sources.add(str(path), text)
        stages.mark("read")
        # as the CLI reads a file: each document decoded as it is parsed (safeload.Documents),
        # so parsing and decoding are one stage (a JSON export is one document, a List)
        loaded = load_manifests_with_origins(text, str(path))
        del text
        objs, origins = [o for o, _ in loaded], [o for _, o in loaded]
        del loaded   # handed over to the session as cli._load_session does (take=True)
        stages.mark("parse + decode")
        if args.memory:
            tracemalloc.start()
        if args.components:
            from ksandbox.session import Session

            session = Session.from_documents(objs, seed=1, origins=origins, source=sources,
                                             take=True)
            store = session.store
        else:
            clock = Clock()
            store = Store(lambda: clock.now, SimRandom(1))
            from ksandbox.api.manifest import load_manifests

            apply_all(store, load_manifests("apiVersion: v1\nkind: Namespace\n"
                                            "metadata: {name: default}"))
            apply_all(store, objs)
        stages.mark("session (admit + store + control plane)" if args.components
                    else "admit + store")
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        del objs, origins
        gc.collect()
        current = peak = 0
        if args.memory:
            current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()

    n = args.nodes + args.pods
    print(f"file: {args.nodes} nodes, {args.pods} pods, {size / 2**20:.1f} MiB of "
          f"{args.format.upper()}; load average {load_before} before, {_loadavg()} after")
    print(f"{'stage':42} {'wall s':>8} {'CPU s':>8} {'objects/CPU s':>14}")
    for name, wall, cpu in stages.rows:
        print(f"{name:42} {wall:8.2f} {cpu:8.2f} {n / max(cpu, 1e-9):14,.0f}")
    print(f"{'total':42} {sum(r[1] for r in stages.rows):8.2f} "
          f"{sum(r[2] for r in stages.rows):8.2f}")
    # Resident memory with the cluster loaded (the text and documents freed). Python keeps
    # freed arenas, so the end figure is an upper bound of what the store (and, with
    # --components, the control plane) holds.
    import resource

    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * resource.getpagesize()
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"RSS at the end: {rss / 2**20:.0f} MiB ({rss / max(1, args.pods):,.0f} B per pod, "
          f"everything included), peak {rss_peak / 2**20:.0f} MiB")
    # Without a bytecode cache (PYTHONDONTWRITEBYTECODE set and no __pycache__ in the tree),
    # every module the stages import is compiled from source first: ~0.2 CPU s of the session
    # stage (the control plane's modules) that an installed ksandbox, which has its .pyc
    # files, never pays.
    import importlib.util

    import ksandbox.session

    cached = importlib.util.cache_from_source(ksandbox.session.__file__)
    if not Path(cached).exists():
        print("note: no bytecode cache for ksandbox (PYTHONDONTWRITEBYTECODE, no __pycache__): "
              "the stages include compiling the modules they import; `python -m compileall "
              "ksandbox` once measures without it")
    if args.memory:
        print(f"memory held by the store/session (tracemalloc, which also slows the run ~2x): "
              f"{current / 2**20:.1f} MiB ({current / max(1, store.count('Pod')):,.0f} B per pod "
              f"incl. nodes), peak {peak / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
