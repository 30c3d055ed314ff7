"""Benchmark: seeking in a one-hour recording of the 500-node sample (issue 10: ≤ 1 s).

The cluster is bench/simulation.py's ``failure`` shape — 500 nodes, 10,000 pods in 20
Deployments, node-007 failing at t=60 — written as a v1alpha2 recording (inline cluster) whose
timeline runs to t=3660: the failure, a cordon, a scale-up and a recovery as steps, captions
and markers between them.

What is measured:
  1. load: reading the recording and building the session at its start;
  2. first play-through: playing the hour once, as a viewer does, which takes a checkpoint
     every 60 simulated seconds (a fork sharing the immutable objects);
  3. seeks: N random targets anywhere in the hour, alternately backwards and forwards, from
     wherever the last one landed — each restores the nearest checkpoint at or before the
     target and plays forward at most 60 s; the wall time of each seek;
  4. a cold forward seek (a fresh player, no checkpoints yet ahead): what a seek costs before
     the part of the recording it lands in was ever played (it has to simulate the way there).

Checks that a seek lands on the same state as playing there (for a few targets) unless
``--no-verify``. Not a test: it reports.

    python bench/seek.py [--nodes 500] [--pods 10000] [--seeks 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.simulation import manifest  # noqa: E402

HOUR = 3600.0
END = 60.0 + HOUR


def recording_text(nodes: int, pods: int, deployments: int) -> str:
    import yaml

    docs = [d for d in yaml.safe_load_all(manifest(nodes, pods, deployments)) if d]
    steps = [
        {"at": 0, "caption": f"{nodes} nodes, {pods} pods: everything scheduled in a minute"},
        {"at": 60, "command": "ksandbox fail node node-007"},
        {"at": 60, "marker": "node-007 fails"},
        {"at": 120, "caption": "Ready=Unknown: the unreachable taints, 300 s countdowns"},
        {"at": 400, "marker": "evictions"},
        {"at": 900, "command": "kubectl cordon node-010"},
        {"at": 1200, "command": "kubectl scale deployment app-03 --replicas=600"},
        {"at": 1200, "caption": "app-03 scaled up: 100 more pods to place"},
        {"at": 1800, "command": "ksandbox recover node node-007"},
        {"at": 1800, "marker": "node-007 back"},
        {"at": 2400, "command": "kubectl uncordon node-010"},
        {"at": 3000, "caption": "quiet: heartbeats, leases, the controllers' passes"},
    ]
    doc = {"apiVersion": "ksandbox/v1alpha2", "kind": "Recording",
           "title": "one hour of the 500-node sample", "seed": 1, "cluster": docs,
           "terminal": {"cols": 160, "rows": 48}, "end": END, "steps": steps}
    return yaml.safe_dump(doc, sort_keys=False)


def _rss_mb() -> float:
    """Peak resident memory so far (Linux reports kilobytes)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def state(session) -> str:
    return json.dumps(session.view(), sort_keys=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=10_000)
    ap.add_argument("--deployments", type=int, default=20)
    ap.add_argument("--seeks", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--checkpoint-every", type=float, default=None,
                    help="simulated seconds between checkpoints (default: the player's, 60)")
    ap.add_argument("--checkpoint-work", type=int, default=None,
                    help="clock callbacks between checkpoints (default: the player's)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold forward seek")
    args = ap.parse_args()

    from ksandbox.recording.player import Player, load_recording_session

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hour.recording.yaml"
        path.write_text(recording_text(args.nodes, args.pods, args.deployments))
        t0 = time.perf_counter()
        rec, session = load_recording_session(path)
        t1 = time.perf_counter()
        c1 = time.process_time()
        every: dict = {}
        if args.checkpoint_every is not None:
            every["checkpoint_every"] = args.checkpoint_every
        if args.checkpoint_work is not None:
            every["checkpoint_work"] = args.checkpoint_work
        rss_before = _rss_mb()
        player = Player(rec, session, **every)
        player.seek(END)
        t2 = time.perf_counter()
        c2 = time.process_time()
        print(f"recording: {args.nodes} nodes, {args.pods} pods, {rec.end - rec.start:.0f} "
              f"simulated seconds, {len(rec.steps)} steps")
        print(f"load: {t1 - t0:.2f} s; first play-through of the hour: {t2 - t1:.2f} s "
              f"({(END - rec.start) / (t2 - t1):.0f}x real time; {c2 - c1:.1f} s CPU, "
              f"{(END - rec.start) / (c2 - c1):.0f}x per CPU second), "
              f"{len(player.checkpoints)} checkpoints; peak memory {_rss_mb():.0f} MB "
              f"({rss_before:.0f} MB before playing)")
        forks = []
        for _ in range(3):
            w, c = time.perf_counter(), time.process_time()
            player.session.fork()
            forks.append((time.perf_counter() - w, time.process_time() - c))
        print("one fork (what a checkpoint and a restore cost): "
              + ", ".join(f"{w:.2f} s wall / {c:.2f} s CPU" for w, c in forks))

        rnd = random.Random(args.seed)
        walls, cpus = [], []
        for i in range(args.seeks):
            # Alternate: a target behind the position, then one ahead of it.
            here = player.now
            if i % 2 == 0 and here > rec.start + 1:
                target = round(rnd.uniform(rec.start, here), 3)
            else:
                target = round(rnd.uniform(rec.start, END), 3)
            began, cpu = time.perf_counter(), time.process_time()
            player.seek(target)
            walls.append(time.perf_counter() - began)
            cpus.append(time.process_time() - cpu)
            assert player.now == target
        walls_ms = sorted(w * 1000 for w in walls)
        print(f"{len(walls)} seeks anywhere (backwards and forwards): median "
              f"{statistics.median(walls_ms):.0f} ms, p90 {walls_ms[int(0.9 * len(walls_ms)) - 1]:.0f}"
              f" ms, max {walls_ms[-1]:.0f} ms wall (target: <= 1000 ms); CPU median "
              f"{statistics.median(cpus) * 1000:.0f} ms, max {max(cpus) * 1000:.0f} ms")
        try:
            load = os.getloadavg()[0]
            print(f"machine load average: {load:.1f} on {os.cpu_count()} CPUs")
        except OSError:
            pass

        if not args.no_verify:
            for target in (700.25,):
                player.seek(target)
                rec2, fresh = load_recording_session(path)
                Player(rec2, fresh).seek(target)
                same = state(player.session) == state(fresh)
                print(f"seek to {target:g} equals play to {target:g}: {same}")
                if not same:
                    raise SystemExit("seek and play disagree")

        if args.no_cold:
            return
        cold_target = 600.0
        rec3, fresh = load_recording_session(path)
        cold = Player(rec3, fresh)
        began = time.perf_counter()
        cold.seek(cold_target)
        print(f"cold forward seek to {cold_target:g} (never played there): "
              f"{time.perf_counter() - began:.2f} s — it simulates the way there, taking the "
              f"checkpoints a later seek uses")


if __name__ == "__main__":
    main()
