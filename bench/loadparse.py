"""The parser candidates for loading a large cluster, on the same generated text.

    .venv/bin/python bench/loadparse.py [--nodes 5000] [--pods 50000]

Times (best of 3, CPU seconds, which a shared machine disturbs least) for turning the
bench/load.py cluster — as multi-document YAML and as one ``kind: List`` JSON export — into
plain data: PyYAML's safe loader over libyaml (the plain path), ksandbox's safeload (limits
included; takes fastyaml's path when it may), yaml_rs directly, and for JSON the json module,
orjson and msgspec when installed. Candidates that are not installed are skipped. Not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import cluster_documents  # noqa: E402


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        c = time.process_time()
        fn()
        times.append(time.process_time() - c)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    args = ap.parse_args()
    import yaml

    from ksandbox.api import safeload

    text = "".join(cluster_documents(args.nodes, args.pods))
    items = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    jtext = json.dumps({"apiVersion": "v1", "kind": "List",
                        "items": [d for d in items if d]}, indent=4)
    print(f"{args.nodes} nodes, {args.pods} pods: {len(text) / 2**20:.1f} MiB YAML, "
          f"{len(jtext) / 2**20:.1f} MiB JSON (CPU seconds, best of 3; machine shared)")
    rows = [("yaml", "PyYAML CSafeLoader (plain path)",
             lambda: list(yaml.load_all(text, Loader=yaml.CSafeLoader))),
            ("yaml", "ksandbox safeload (limits; fast path)",
             lambda: safeload.load_yaml_documents(text, "x.yaml"))]
    try:
        import yaml_rs
        rows.append(("yaml", "yaml_rs.loads (YAML 1.2)", lambda: yaml_rs.loads(text)))
    except ImportError:
        pass
    rows.append(("json", "json.loads", lambda: json.loads(jtext)))
    rows.append(("json", "ksandbox safeload (json + limits)",
                 lambda: safeload.load_yaml_documents(jtext, "x.json")))
    try:
        import orjson
        rows.append(("json", "orjson.loads", lambda: orjson.loads(jtext)))
    except ImportError:
        pass
    try:
        import msgspec
        rows.append(("json", "msgspec.json.decode", lambda: msgspec.json.decode(jtext)))
    except ImportError:
        pass
    base = {}
    for fmt, name, fn in rows:
        t = best(fn)
        base.setdefault(fmt, t)
        print(f"  {fmt:4} {name:40} {t:7.3f} s  {base[fmt] / t:5.1f}x")


if __name__ == "__main__":
    main()
