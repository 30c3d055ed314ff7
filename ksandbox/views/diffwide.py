"""The text of ``ksandbox diff -o wide``: two branches side by side, only what differs.

Reads the dict of ``recording/diff.py`` (the one diff; the TUI's diff view draws the same
dict through :func:`pod_cell`, :func:`node_cells` and friends), returns kubectl-shaped tables:
a header with the time and the two branches' names, then PODS, WORKLOADS, EVICTIONS, NODES and
EVENTS — each only when something in it differs.

Pure: no session, no clock; every time shown is a simulated second from the dict.
"""

from __future__ import annotations

from typing import Any

from .age import human_duration
from .table import format_table

ABSENT = "(gone)"


def pod_cell(side: dict | None, now: float) -> str:
    """One branch's pod in a few words: where, what phase, why (pending: the reason)."""
    if side is None:
        return ABSENT
    if not side["node"]:
        why = side["message"] or side["reason"]
        return f"Pending: {why}" if why else "Pending"
    text = f"{side['node']} {side['phase']}"
    if side["reason"]:
        text += f" ({side['reason']})"
    if side["evictionAt"] is not None:
        text += f", eviction in {human_duration(max(0.0, side['evictionAt'] - now))}" \
                f" (at {side['evictionAt']:g}s)"
    return text


def placement_cell(counts: dict[str, int]) -> str:
    return " ".join(f"{where}:{n}" for where, n in counts.items()) or "(none)"


def evictions_cell(times: list[float]) -> str:
    return ", ".join(f"{t:g}s" for t in times) or "-"


def node_field_cell(side: dict | None, field: str) -> str:
    if side is None:
        return "(no such node)"
    value = side[field]
    if field == "taints":
        return ",".join(value) or "<none>"
    if field == "conditions":
        return ",".join(f"{k}={v}" for k, v in value.items()) or "<none>"
    if field in ("requested", "allocatable"):
        return " ".join(f"{k}={v}" for k, v in value.items() if k in ("cpu", "memory", "pods"))
    if field == "unschedulable":
        return "cordoned" if value else "schedulable"
    return str(value)


def node_rows(entry: dict) -> list[tuple[str, str, str]]:
    """(field, A, B) for each field of a node that differs; requested is shown against
    allocatable, as the node board shows it."""
    rows = []
    for field in entry["differences"]:
        if field == "allocatable" and "requested" in entry["differences"]:
            continue
        a = node_field_cell(entry["a"], field)
        b = node_field_cell(entry["b"], field)
        if field == "requested":
            field = "requested/allocatable"
            a = _share(entry["a"])
            b = _share(entry["b"])
        rows.append((field, a, b))
    return rows


def _share(side: dict | None) -> str:
    if side is None:
        return "(no such node)"
    req, alloc = side["requested"], side["allocatable"]
    return " ".join(f"{k}={req.get(k, '0')}/{alloc.get(k, '0')}"
                    for k in ("cpu", "memory", "pods"))


def render_diff_wide(diff: dict[str, Any]) -> str:
    now = diff["time"]
    a, b = diff["branches"]["a"], diff["branches"]["b"]
    out = [f"Simulated time: {now:g}s ({human_duration(now)})   A: {a}   B: {b}\n"]
    if diff["identical"]:
        out.append("\nNo differences: both branches are in the same state.\n")
        return "".join(out)
    if diff["pods"]:
        rows = [["NAMESPACE", "NAME", "DIFFERENCE", "A", "B"]]
        rows += [[p["namespace"], p["name"], p["difference"], pod_cell(p["a"], now),
                  pod_cell(p["b"], now)] for p in diff["pods"]]
        out += ["\nPODS\n", format_table(rows)]
    if diff["workloads"]:
        rows = [["NAMESPACE", "OWNER", "A (NODE:PODS)", "B (NODE:PODS)"]]
        rows += [[w["namespace"], w["owner"], placement_cell(w["a"]), placement_cell(w["b"])]
                 for w in diff["workloads"]]
        out += ["\nWORKLOADS\n", format_table(rows)]
    if diff["evictions"]:
        rows = [["POD", "EVICTED IN A", "EVICTED IN B"]]
        rows += [[e["pod"], evictions_cell(e["a"]), evictions_cell(e["b"])]
                 for e in diff["evictions"]]
        out += ["\nEVICTIONS\n", format_table(rows)]
    if diff["nodes"]:
        rows = [["NODE", "FIELD", "A", "B"]]
        for n in diff["nodes"]:
            rows += [[n["name"], f, va, vb] for f, va, vb in node_rows(n)]
        out += ["\nNODES\n", format_table(rows)]
    if diff["events"]:
        rows = [["REASON", "A", "B"]]
        rows += [[e["reason"], str(e["a"]), str(e["b"])] for e in diff["events"]]
        out += ["\nEVENTS (COUNT BY REASON)\n", format_table(rows)]
    return "".join(out)
