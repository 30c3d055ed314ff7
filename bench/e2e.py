"""End to end: ``ksandbox sim`` on upstream's SchedulingBasic shape, black-box and per stage.

    .venv/bin/python bench/e2e.py                  # 5,000 nodes / 1,000 + 10,000 pods, YAML
    .venv/bin/python bench/e2e.py --format json    # the same as one `kind: List` JSON export
    .venv/bin/python bench/e2e.py --quick          # 1/10 of the shape
    .venv/bin/python bench/e2e.py --stages-only    # skip the black-box subprocess runs
    .venv/bin/python bench/e2e.py --marginal       # + per stage, what each measured pod adds

Instructions per measured pod (cachegrind, the steady comparison): bench/e2e_instructions.py.

Two files are generated: the *base* file (5,000 nodes of upstream's node-default template —
4 CPU, 32Gi, 110 pods — and 1,000 pods of pod-default, 100m / 500Mi) and the *full* file (the
base plus 10,000 more pods). Every pod is Pending in the file; the scheduler places them.

Black-box (DESIGN.md §5): ``ksandbox sim -f FILE -o json > /dev/null`` is run as a subprocess
on both files; the figure is 10,000 / (time(full) − time(base)) pods/s, wall and CPU (the CPU
time of the child, which a loaded machine disturbs much less).

Per stage: the full file is run once more in this process with timers around each stage, so a
regression shows where it is. Timing is exclusive — a store write made from a scheduler
callback counts as admit/store, not as schedule:

- parse: text → plain data (YAML or JSON);  decode: plain data → typed objects;
- admit/store: every Store write (admission, validation, resourceVersion, indexes, event
  records) wherever it is called from — the initial apply and the run's bindings (pods/binding)
  and status updates (the status subresource);
- watch: the fan-out of each write to its subscribers (informers, the scheduler's cache, the
  kubelets' pod and node handlers) — the work those handlers do inline;
- schedule / kubelet / controllers: clock callbacks by their priority (sim/clock.py), minus
  the store writes they make;
- setup: the rest of building the session (components starting);
- output: the state's JSON text (``views.state.state_json``: ``session.view()`` encoded), as
  ``sim -o json`` prints it.

The goal is ≥ 3,000 pods/s black-box; "a stage that costs more than the scheduler is the next
thing to fix" (issue 11). Not a test: it reports, it does not assert.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GOAL = 3000.0  # pods/s black-box, DESIGN.md §5
SCHEDULER_ALONE = 3652.0  # bench/scheduler.py SchedulingBasic, README

NODE_YAML = """apiVersion: v1
kind: Node
metadata:
  name: node-{i}
status:
  capacity: {{cpu: "4", memory: 32Gi, pods: "110"}}
  allocatable: {{cpu: "4", memory: 32Gi, pods: "110"}}
---
"""

POD_YAML = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
spec:
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {{cpu: 100m, memory: 500Mi}}
      limits: {{cpu: 100m, memory: 500Mi}}
---
"""


def _node(i: int) -> dict:
    cap = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
            "status": {"capacity": cap, "allocatable": dict(cap)}}


def _pod(name: str) -> dict:
    res = {"cpu": "100m", "memory": "500Mi"}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": res, "limits": dict(res)}}]}}


def write_shape(path: Path, nodes: int, init: int, measured: int, fmt: str) -> None:
    names = [f"init-{i}" for i in range(init)] + [f"pod-{i}" for i in range(measured)]
    if fmt == "json":
        items = [_node(i) for i in range(nodes)] + [_pod(n) for n in names]
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items},
                                   indent=4))
        return
    with path.open("w") as f:
        for i in range(nodes):
            f.write(NODE_YAML.format(i=i))
        for n in names:
            f.write(POD_YAML.format(name=n))


def black_box(path: Path, repeat: int) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of ``ksandbox sim -f path -o json``."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ksandbox", "sim", "-f", str(path), "-o", "json"],
                       stdout=subprocess.DEVNULL, check=True,
                       env=dict(os.environ, PYTHONHASHSEED="0"))
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return min(walls), min(cpus)


class Stages:
    """Exclusive timers: entering a stage pauses the one it was entered from."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}
        self._stack: list[list] = []  # [name, started]

    def enter(self, name: str) -> None:
        now = time.perf_counter()
        if self._stack:
            top = self._stack[-1]
            self.total[top[0]] = self.total.get(top[0], 0.0) + now - top[1]
        self._stack.append([name, now])

    def leave(self) -> None:
        now = time.perf_counter()
        name, started = self._stack.pop()
        self.total[name] = self.total.get(name, 0.0) + now - started
        if self._stack:
            self._stack[-1][1] = now

    def wrap(self, name: str, fn):
        def timed(*a, **kw):
            self.enter(name)
            try:
                return fn(*a, **kw)
            finally:
                self.leave()
        return timed


def staged_run(path: Path) -> dict[str, float]:
    """Run ``sim -o json`` on ``path`` in this process with a timer around every stage."""
    from ksandbox import gcpolicy
    from ksandbox.api import manifest
    from ksandbox.api.codec import sharing
    from ksandbox.apiserver.store import Store
    from ksandbox.session import Session
    from ksandbox.sim import clock as clockmod
    from ksandbox.views.state import state_json

    st = Stages()
    bucket = {clockmod.PRIORITY_SCHEDULER: "schedule", clockmod.PRIORITY_KUBELET: "kubelet"}
    real_call_at = clockmod.Clock.call_at

    def call_at(self, when, callback, priority=clockmod.PRIORITY_DEFAULT, label="",
                background=False, *rest, **kw):   # rest: Clock.call_at's later parameters (arg)
        return real_call_at(self, when, st.wrap(bucket.get(priority, "controllers"), callback),
                            priority, label, background, *rest, **kw)

    # Every public write (a nested one, e.g. update_all -> _write, stays in the same stage).
    writes = ("create", "update", "update_all", "update_status", "bind", "remove", "delete",
              "record_event", "admit")
    patched = {name: getattr(Store, name) for name in writes + ("_notify",)}
    clockmod.Clock.call_at = call_at  # type: ignore[method-assign]
    for name, fn in patched.items():
        setattr(Store, name, st.wrap("watch" if name == "_notify" else "admit/store", fn))
    try:
        gc.collect()
        # as `ksandbox sim` runs, from the load to the printed state: without the collector
        with gcpolicy.headless_run():
            cpu0 = time.process_time()
            st.enter("parse")
            text = manifest.read_text(path)
            docs = list(manifest.iter_documents(text, str(path)))
            st.leave()
            st.enter("decode")
            objects = []
            # as the CLI decodes (manifest.decode_documents): pods of one template share their
            # decoded spec, and so the API server's defaulting and validation of it, done once
            with sharing():
                for doc, data in docs:
                    if isinstance(data, dict) and data.get("kind") == "List":
                        objects.extend(manifest.decode_object(item, str(path), doc, f"items[{i}]")
                                       for i, item in enumerate(data["items"]))
                    else:
                        objects.append(manifest.decode_object(data, str(path), doc))
            del docs, text
            st.leave()
            st.enter("setup")
            session = Session.from_documents(objects)
            session.settle()
            st.leave()
            st.enter("output")
            out = state_json(session) + "\n"   # what sim -o json prints
            st.leave()
            assert out
    finally:
        clockmod.Clock.call_at = real_call_at  # type: ignore[method-assign]
        for name, fn in patched.items():
            setattr(Store, name, fn)
    cpu = time.process_time() - cpu0
    bound = sum(1 for p in session.store.list("Pod") if p.spec.node_name)
    return {**st.total, "bound": bound, "cpu": cpu}


ORDER = ("parse", "decode", "admit/store", "watch", "schedule", "kubelet", "controllers",
         "setup", "output")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1/10 of the shape")
    ap.add_argument("--format", choices=("yaml", "json"), default="yaml")
    ap.add_argument("--repeat", type=int, default=1, help="black-box runs per file (best kept)")
    ap.add_argument("--stages-only", action="store_true")
    ap.add_argument("--marginal", action="store_true",
                    help="also run the base file per stage and report what each measured pod "
                         "adds to each stage (full minus base)")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    nodes, init, measured = int(5000 * scale), int(1000 * scale), int(10000 * scale)
    result: dict = {"nodes": nodes, "init_pods": init, "measured_pods": measured,
                    "format": args.format, "goal_pods_per_s": GOAL}
    with tempfile.TemporaryDirectory() as tmp:
        base, full = Path(tmp, f"base.{args.format}"), Path(tmp, f"full.{args.format}")
        write_shape(base, nodes, init, 0, args.format)
        write_shape(full, nodes, init, measured, args.format)
        print(f"SchedulingBasic end to end: {nodes} nodes, {init} existing pods, "
              f"{measured} measured pods ({args.format}); the machine is shared, so "
              f"CPU-time rates are the steadier figure")
        if not args.stages_only:
            bw, bc = black_box(base, args.repeat)
            fw, fc = black_box(full, args.repeat)
            rate_wall = measured / max(fw - bw, 1e-9)
            rate_cpu = measured / max(fc - bc, 1e-9)
            result.update(base_s=round(bw, 2), full_s=round(fw, 2),
                          pods_per_s=round(rate_wall), pods_per_cpu_s=round(rate_cpu))
            print(f"black-box: base {bw:.2f} s ({bc:.2f} CPU-s), full {fw:.2f} s "
                  f"({fc:.2f} CPU-s) -> {rate_wall:,.0f} pods/s wall, {rate_cpu:,.0f} pods per "
                  f"CPU-s (goal >= {GOAL:,.0f}; scheduler alone {SCHEDULER_ALONE:,.0f})")
        base_stages = None
        if args.marginal:
            staged_run(base)   # a warm-up: imports and first-use caches would count as base's
            base_stages = staged_run(base)
        stages = staged_run(full)
        total = sum(stages.get(k, 0.0) for k in ORDER)
        result["stages_s"] = {k: round(stages.get(k, 0.0), 3) for k in ORDER}
        result["bound"] = stages["bound"]
        # The stage timers are wall clock (cheap to read); on a shared machine the other
        # processes' share is spread over the stages, so each is also scaled to the run's
        # CPU time (the steadier figure).
        cpu_share = stages["cpu"] / total if total > 0 else 1.0
        result["stages_cpu_s"] = round(stages["cpu"], 3)
        print(f"stages of the full file in-process ({total:.2f} s wall, {stages['cpu']:.2f} "
              f"CPU-s; {stages['bound']} pods bound):")
        pods = init + measured
        for k in ORDER:
            s = stages.get(k, 0.0)
            flag = "  <- costs more than scheduling" if (
                k != "schedule" and s > stages.get("schedule", 0.0)) else ""
            print(f"  {k:12} {s:7.2f} s  {100 * s / total:5.1f}%  "
                  f"{1e6 * s / pods:7.0f} us/pod  {1e6 * s * cpu_share / pods:7.0f} CPU-us/pod"
                  f"{flag}")
        if base_stages is not None:
            # What each measured pod adds: the full file's stages minus the base file's (the
            # nodes' registration, heartbeats and the existing pods cancel out), per measured
            # pod — the per-stage split of the black-box figure.
            extra = {k: stages.get(k, 0.0) - base_stages.get(k, 0.0) for k in ORDER}
            cpu_extra = stages["cpu"] - base_stages["cpu"]
            wall_extra = sum(extra.values())
            share = cpu_extra / wall_extra if wall_extra > 0 else 1.0
            result["marginal_cpu_us_per_pod"] = {
                k: round(1e6 * v * share / measured, 1) for k, v in extra.items()}
            result["marginal_pods_per_cpu_s"] = round(measured / max(cpu_extra, 1e-9))
            print(f"marginal (full minus base file, per measured pod): {cpu_extra:.2f} CPU-s "
                  f"-> {measured / max(cpu_extra, 1e-9):,.0f} pods per CPU-s in-process "
                  f"(parse to output)")
            sched = extra.get("schedule", 0.0)
            for k in ORDER:
                flag = "  <- costs more than scheduling" if (
                    k != "schedule" and extra[k] > sched) else ""
                print(f"  {k:12} {1e6 * extra[k] * share / measured:7.0f} CPU-us/pod{flag}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
