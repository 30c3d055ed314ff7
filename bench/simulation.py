"""Benchmark: simulated-to-real time ratios (DESIGN.md §5) on three cluster shapes.

``--shape failure`` (the default; the original benchmark): an hour of simulated time, 500 nodes,
10,000 pods, one node failing. N nodes (16 CPU / 64Gi / 110 pods, three zones, a
KubeletConfiguration so every kubelet computes its allocatable) and D Deployments whose P pods
the scheduler places. The clock runs until the pods are created (at the ReplicaSet controller's
client rate, 20 a second: ~500 s for 10,000), scheduled and started, one node fails then, and
the clock runs an hour more: lease renewals every 10 s and node status checks on 500
kubelets, the lifecycle controller's 5-second passes, the unreachable taints, the 300 s
countdowns, the evictions and the replacements being scheduled elsewhere.

``--shape rolling``: 500 nodes, 15,000 pods in 50 Deployments, and a rolling update that never
ends: at t=60 every Deployment gets a new image, and each time one finishes its rollout it gets
the next image. Every Deployment rolls with maxSurge 1 / maxUnavailable 0, so across 50 of them
the churn is about 10 pod creates and 10 deletes per simulated second (a new pod is Running after
the kubelet's seeded 1-3 s start delay, then an old one is deleted and stops after its 30 s
grace). The measured span is 600 simulated seconds (``--span``); the rates actually reached are
printed, so a behaviour change shows.

``--shape idle``: 5,000 nodes, 150,000 pods bound directly to them (no controllers own them),
started, then 600 idle simulated seconds: heartbeats, leases, node monitor, podgc, the periodic
scans of the autoscalers — whatever runs when nothing changes.

Each shape reports the wall time of the measured span and the ratio of simulated to real time,
plus what happened. Not a test: it reports, it does not assert. Each runs as ``ksandbox sim``
runs a cluster: without the cycle collector (gcpolicy.headless_run).

``--instructions`` counts instead of timing: the same run under valgrind's callgrind
(PYTHONHASHSEED=0, OPENBLAS_NUM_THREADS=1), collecting only inside the measured span (the span
runs inside ``itertools.starmap`` and callgrind toggles on ``starmap_next``), so the load and
the start-up are left out. It reports the instructions of the span and per simulated second:
the steady figure to compare two trees with (``--tree DIR``, repeatable; each tree's own
``.venv``), where the ratio on a shared 2-core machine moves by 15 % between runs. A smaller
shape is quicker (``--nodes 50 --pods 1000 --deployments 10 --rolling 4 --span 120``: ~1
minute); at the full rolling shape valgrind spends a few minutes on the setup.

    python bench/simulation.py [--shape failure|rolling|idle] [--nodes N] [--pods P]
                               [--deployments D] [--span SECONDS] [--profile]
                               [--instructions [--tree DIR]...]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

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


class _Profile:
    """cProfile around the measured span when ``--profile`` is given (top 30 by cumulative and
    by own time)."""

    def __init__(self, on: bool) -> None:
        self.profiler = None
        self.dump = os.environ.get("KSANDBOX_PROFILE_DUMP")  # also save raw stats (pstats)
        if on:
            import cProfile

            self.profiler = cProfile.Profile()

    def __enter__(self) -> "_Profile":
        if self.profiler is not None:
            self.profiler.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.profiler is not None:
            import pstats

            self.profiler.disable()
            if self.dump:
                self.profiler.dump_stats(self.dump)
            stats = pstats.Stats(self.profiler)
            stats.sort_stats("cumulative").print_stats(30)
            stats.sort_stats("tottime").print_stats(30)


def _measured(args: argparse.Namespace, span: "Callable[[], None]") -> None:
    """Run the measured span. Under ``--instructions`` it runs inside ``itertools.starmap``:
    callgrind then collects only while ``starmap_next`` is on the stack."""
    if args.span_only:
        list(itertools.starmap(span, [()]))
    else:
        span()


class GcTime:
    """Wall time the cyclic garbage collector takes, per generation (gc.callbacks): at 15,000+
    pods a full collection walks every live object, so it shows up in the ratios. The shapes
    run without the collector, as ``ksandbox sim`` does (main): a collection counted here is
    one something turned the collector back on for."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.counts = [0, 0, 0]
        self._start = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start
            self.counts[info["generation"]] += 1

    def reset(self) -> None:
        self.seconds = 0.0
        self.counts = [0, 0, 0]

    def __str__(self) -> str:
        return f"{self.seconds:.2f} s in gc (collections per generation: {self.counts})"


def _run_until_running(session: object, pods: int, limit: float = 3600.0) -> float:
    """Run in 30-second steps until ``pods`` pods are Running (at least to t=60): the
    ReplicaSet controller creates pods at its API client's rate (20 a second, as
    kube-controller-manager's --kube-api-qps), so 10,000 replicas take ~500 simulated seconds
    to exist. The time reached."""
    t = 60.0
    session.run_until(t)  # type: ignore[attr-defined]
    store = session.store  # type: ignore[attr-defined]
    while t < limit and sum(1 for p in store.list("Pod") if p.status.phase == "Running") < pods:
        t += 30.0
        session.run_until(t)  # type: ignore[attr-defined]
    return t


def failure(args: argparse.Namespace) -> None:
    from ksandbox.session import Session

    nodes = args.nodes or 500
    pods = args.pods or 10_000
    t0 = time.perf_counter()
    session = Session.from_text(manifest(nodes, pods, args.deployments), seed=1)
    t1 = time.perf_counter()
    start = _run_until_running(session, pods)
    t2 = time.perf_counter()
    running = sum(1 for p in session.store.list("Pod") if p.status.phase == "Running")
    victim = "node-007"
    on_victim = len(session.store.pods_on_node(victim))
    session.submit(f"ksandbox fail node {victim}")
    events_before = session.clock.events_run

    gct = GcTime()
    with _Profile(args.profile):
        c3 = time.process_time()
        t3 = time.perf_counter()
        _measured(args, lambda: session.run_until(start + args.hour))
        t4 = time.perf_counter()
        c4 = time.process_time()

    hour = t4 - t3
    marked = [e for e in session.store.events if e.reason == "TaintManagerEviction"
              and e.message.startswith("Marking for deletion")]
    times = sorted({e.first_timestamp for e in marked})
    running_after = sum(1 for p in session.store.list("Pod")
                        if p.status.phase == "Running" and p.spec.node_name != victim)
    print(f"cluster: {nodes} nodes, {pods} pods in {args.deployments} deployments")
    print(f"load: {t1 - t0:.2f} s; create, schedule and start (0-{start:g} s simulated): "
          f"{t2 - t1:.2f} s ({running} pods Running)")
    taints = ", ".join(f"{t.to_string()}@{t.time_added:g}"
                       for t in session.store.get("Node", victim).spec.taints)
    print(f"{victim} fails at {start:g} s with {on_victim} pods; its taints: {taints}")
    print(f"evictions: {len(marked)} pods marked for deletion at {times}")
    print(f"after the hour: {running_after} pods Running on healthy nodes")
    print(f"simulated hour: {hour:.2f} s real, {session.clock.events_run - events_before} clock "
          f"callbacks; {gct}")
    print(f"ratio: {args.hour / hour:.0f}x real time (DESIGN.md §5 asks >= 100x); "
          f"{args.hour / (c4 - c3):.0f}x per CPU second")


ROLLING_STRATEGY = """  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
"""


def rolling(args: argparse.Namespace) -> None:
    """A rolling update that never ends, ~10 creates and ~10 deletes per simulated second."""
    import attrs

    from ksandbox.apiserver.store import ADDED, MODIFIED
    from ksandbox.session import Session

    nodes = args.nodes or 500
    pods = args.pods or 15_000
    text = manifest(nodes, pods, args.deployments).replace(
        "  selector:\n", ROLLING_STRATEGY + "  selector:\n")
    t0 = time.perf_counter()
    session = Session.from_text(text, seed=1)
    t1 = time.perf_counter()
    start = _run_until_running(session, pods)
    t2 = time.perf_counter()
    store = session.store
    running = sum(1 for p in store.list("Pod") if p.status.phase == "Running")

    counts = {"created": 0, "deleted": 0}

    def count(ev: object) -> None:
        if ev.type == ADDED:
            counts["created"] += 1
        elif ev.type == MODIFIED and ev.obj.metadata.deletion_timestamp is not None \
                and ev.old.metadata.deletion_timestamp is None:
            counts["deleted"] += 1

    store.subscribe("Pod", count)
    version = {d.metadata.name: 1 for d in store.list("Deployment")}

    def bump(d: object) -> None:
        """The next image: a new pod template, so a new ReplicaSet and a new rollout."""
        name = d.metadata.name
        version[name] += 1
        containers = tuple(attrs.evolve(c, image=f"registry.example/{name}:1.{version[name]}")
                           for c in d.spec.template.spec.containers)
        template = attrs.evolve(d.spec.template, spec=attrs.evolve(d.spec.template.spec,
                                                                   containers=containers))
        store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, template=template)))

    def done(d: object) -> bool:
        s = d.status
        return (s.observed_generation >= d.metadata.generation
                and s.updated_replicas == d.spec.replicas == s.replicas
                == s.available_replicas)

    # ``--rolling`` Deployments start rolling at t=60 (one step of maxSurge 1 takes ~2.5 s:
    # the start delay, then the scale-down, so 20 of them give ~10 creates/s); the driver looks
    # every simulated second and, when one finishes, gives the next Deployment in turn a new
    # image (a user re-deploying), keeping the churn steady.
    deployments = sorted(store.list("Deployment"), key=lambda d: d.metadata.name)
    names = [d.metadata.name for d in deployments]
    active = set(names[:args.rolling])
    for name in sorted(active):
        bump(store.get("Deployment", name, "default"))
    next_up = args.rolling % len(names)
    rollouts = 0
    events_before = session.clock.events_run
    end = start + args.span

    def span() -> None:
        nonlocal next_up, rollouts
        t = start
        while t < end:
            t += 1.0
            session.run_until(t)
            for name in sorted(active):
                if done(store.get("Deployment", name, "default")):
                    rollouts += 1
                    active.discard(name)
                    while names[next_up] in active:
                        next_up = (next_up + 1) % len(names)
                    active.add(names[next_up])
                    bump(store.get("Deployment", names[next_up], "default"))
                    next_up = (next_up + 1) % len(names)

    gct = GcTime()
    with _Profile(args.profile):
        c3 = time.process_time()
        t3 = time.perf_counter()
        _measured(args, span)
        t4 = time.perf_counter()
        c4 = time.process_time()
    wall = t4 - t3
    print(f"cluster: {nodes} nodes, {pods} pods in {args.deployments} deployments, "
          f"{args.rolling} rolling at a time (maxSurge 1, maxUnavailable 0)")
    print(f"load: {t1 - t0:.2f} s; create, schedule and start (0-{start:g} s simulated): "
          f"{t2 - t1:.2f} s ({running} pods Running)")
    print(f"churn: {counts['created'] / args.span:.1f} creates/s, "
          f"{counts['deleted'] / args.span:.1f} deletes/s (simulated); {rollouts} rollouts "
          f"finished; {store.count('Pod')} pods at the end")
    print(f"simulated {args.span:g} s: {wall:.2f} s real, "
          f"{session.clock.events_run - events_before} clock callbacks; {gct}")
    print(f"ratio: {args.span / wall:.0f}x real time (goal >= 150x, issue 11; DESIGN.md §5 "
          f"asks >= 100x); {args.span / (c4 - c3):.0f}x per CPU second (steadier on a shared "
          "machine)")


def idle(args: argparse.Namespace) -> None:
    """The whole envelope, idle: only the periodic housekeeping runs."""
    from ksandbox.session import Session

    nodes = args.nodes or 5000
    pods = args.pods or 150_000
    from load import cluster_documents  # bench/load.py: the same generated cluster

    parts = list(cluster_documents(nodes, pods, cpu="10m", memory="100Mi"))
    t0 = time.perf_counter()
    session = Session.from_text("".join(parts), seed=1)
    t1 = time.perf_counter()
    session.run_until(60.0)
    t2 = time.perf_counter()
    store = session.store
    running = sum(1 for p in store.list("Pod") if p.status.phase == "Running")
    rv_before = store.resource_version
    changed_before = store.last_change_time
    events_before = session.clock.events_run
    end = 60.0 + args.span
    gct = GcTime()
    with _Profile(args.profile):
        c3 = time.process_time()
        t3 = time.perf_counter()
        _measured(args, lambda: session.run_until(end))
        t4 = time.perf_counter()
        c4 = time.process_time()
    wall = t4 - t3
    print(f"cluster: {nodes} nodes, {pods} pods bound to them")
    print(f"load: {t1 - t0:.2f} s; start (0-60 s simulated): {t2 - t1:.2f} s "
          f"({running} pods Running)")
    print(f"idle {args.span:g} s: {store.resource_version - rv_before} writes, last change at "
          f"{store.last_change_time:g} s (before: {changed_before:g} s)")
    print(f"simulated {args.span:g} s: {wall:.2f} s real, "
          f"{session.clock.events_run - events_before} clock callbacks; {gct}")
    print(f"ratio: {args.span / wall:.1f}x real time (DESIGN.md §5 asks >= 10x); "
          f"{args.span / (c4 - c3):.1f}x per CPU second")


ROOT = Path(__file__).resolve().parent.parent
_TOTALS = re.compile(r"^(?:summary|totals):\s*(\d+)", re.M)


def rest_trees(argv: list[str]) -> list[Path]:
    return [Path(argv[i + 1]) for i, a in enumerate(argv[:-1]) if a == "--tree"] + \
        [Path(a.split("=", 1)[1]) for a in argv if a.startswith("--tree=")]


def strip_trees(argv: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--tree":
            skip = True
        elif not a.startswith("--tree="):
            out.append(a)
    return out


def count_instructions(tree: Path, args: argparse.Namespace, argv: list[str]) -> None:
    """Run ``tree``'s bench/simulation.py with ``argv`` under callgrind, collecting only the
    measured span, and print its instruction count."""
    venv = tree / ".venv" / "bin" / "python"
    python = str(venv) if venv.exists() else sys.executable
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
               "--toggle-collect=starmap_next", f"--callgrind-out-file={out}",
               python, str(tree / "bench" / "simulation.py"), *argv, "--span-only"]
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        found = _TOTALS.search(out.read_text()) if out.exists() else None
        if done.returncode != 0 or found is None:
            raise SystemExit(f"valgrind run failed in {tree}:\n{done.stderr[-2000:]}")
    span = args.hour if args.shape == "failure" else args.span
    total = int(found.group(1))
    print(f"{tree}:")
    for line in done.stdout.splitlines():
        if line.startswith(("cluster", "churn", "idle", "evictions")):
            print(f"  {line}")
    print(f"  measured span: {total / 1e6:,.1f}M instructions, "
          f"{total / span / 1e6:,.2f}M per simulated second")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=("failure", "rolling", "idle"), default="failure")
    ap.add_argument("--nodes", type=int, default=None,
                    help="default: 500 (failure, rolling), 5000 (idle)")
    ap.add_argument("--pods", type=int, default=None,
                    help="default: 10,000 (failure), 15,000 (rolling), 150,000 (idle)")
    ap.add_argument("--deployments", type=int, default=50)
    ap.add_argument("--hour", type=float, default=3600.0, help="failure: simulated span")
    ap.add_argument("--rolling", type=int, default=20,
                    help="rolling: Deployments rolling at the same time")
    ap.add_argument("--span", type=float, default=600.0,
                    help="rolling, idle: simulated seconds measured")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--instructions", action="store_true",
                    help="count the measured span's instructions (valgrind callgrind)")
    ap.add_argument("--tree", action="append", type=Path,
                    help="--instructions: a ksandbox checkout to measure (its .venv's python); "
                         "repeatable; default: this one")
    ap.add_argument("--span-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.instructions:
        rest = [a for a in (argv if argv is not None else sys.argv[1:])
                if a != "--instructions"]
        trees = rest_trees(rest)
        for tree in trees or [ROOT]:
            count_instructions(tree.resolve(), args, strip_trees(rest))
        return
    from ksandbox import gcpolicy

    # As `ksandbox sim` runs a cluster (gcpolicy.headless_run, from its load to its printed
    # state): without the cycle collector. With it, a young collection every 50,000 net
    # allocations walked the pods made since the last one, and every 20th walked all the
    # setup's survivors too (1.5-2.5 s of a 300 s rolling span at 15,000 pods, when one fell
    # in it: which run it fell in was chance, so the ratio jumped by ~7 % between runs).
    with gcpolicy.headless_run():
        {"failure": failure, "rolling": rolling, "idle": idle}[args.shape](args)


if __name__ == "__main__":
    main()
