"""``ksandbox explain -o wide``: the scheduler's decision as a node × plugin matrix.

A pure text presenter over ``ksandbox.scheduler.explain.Explanation`` (no Textual, no Rich).
Two tables: the filters (one column per filter plugin, in the profile's order: ``ok``,
``skip``, ``FAIL`` or ``-`` when it did not run because an earlier filter failed, and the
failing filter's reason — the specific taint, not the aggregate wording), then, for every
scored node, each score plugin's normalized score × weight and the weighted total, best
first, the chosen node marked with ``*``.
"""

from __future__ import annotations

from typing import Any

_SHORT = {"Success": "ok", "Skip": "skip"}


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r, widths)]
        out.append("  ".join(cells).rstrip())
    return out


def _abbrev(name: str) -> str:
    """Column headers: the plugin names, shortened where they are long."""
    return {"NodeResourcesBalancedAllocation": "BalancedAllocation",
            "NodeResourcesFit": "Fit", "NodeUnschedulable": "Unschedulable",
            "PodTopologySpread": "TopologySpread", "TaintToleration": "Taints",
            "InterPodAffinity": "PodAffinity", "VolumeRestrictions": "VolRestrict"}.get(name, name)


def render_explain_wide(ex: Any) -> str:
    lines = [f"Pod:        {ex.pod}",
             f"Scheduler:  {ex.scheduler}",
             f"Selected:   {ex.selected or '<none>'}"]
    if ex.nominated:
        lines.append(f"Nominated:  {ex.nominated} (preemption would make room there)")
    lines.append(f"Message:    {ex.message}")
    b = getattr(ex, "bound", None)
    if b is not None:
        how = "by the scheduler" if b.by_scheduler else \
            "spec.nodeName: the scheduler was bypassed"
        lines.append(f"Bound:      {b.node} ({how})")
        lines.append(f"Node:       {b.node} {'exists' if b.node_exists else 'does not exist'}")
        kubelet = {"admitted": "admitted it", "waiting": "has not admitted it yet",
                   "no-node": "none (no such node)",
                   "rejected": f"rejected it: {b.reason}: {b.message}"}[b.kubelet]
        lines.append(f"Kubelet:    {kubelet}")
        if not b.by_scheduler:
            lines.append("What-if:    the table below clears spec.nodeName "
                         "(where the scheduler would put it)")
    if not ex.served or not ex.nodes:
        return "\n".join(lines) + "\n"
    lines += ["", "Filters:"]
    head = ["NODE"] + [_abbrev(p) for p in ex.filter_plugins] + ["REASON"]
    rows = [head]
    for n in ex.nodes:
        verdicts = {f.plugin: f for f in n.filters}
        cells = [n.name]
        reason = ""
        for p in ex.filter_plugins:
            f = verdicts.get(p)
            if f is None:
                cells.append("-")
            elif f.status in _SHORT:
                cells.append(_SHORT[f.status])
            else:
                cells.append("FAIL")
                reason = f"{p}: {f.reason}"
        pre = [f for f in n.filters if f.plugin not in ex.filter_plugins]
        if pre:
            reason = f"{pre[0].plugin}: {pre[0].reason}"
        if not n.evaluated and not reason and n.feasible:
            reason = "(not evaluated: enough feasible nodes were found first)"
        rows.append(cells + [reason])
    lines += ["  " + line for line in _table(rows)]
    scored = [n for n in ex.nodes if n.scored]
    if scored:
        lines += ["", "Scores (normalized score x weight):"]
        head = ["", "NODE"] + [f"{_abbrev(p)}({w})" for p, w in ex.score_plugins] + ["TOTAL"]
        rows = [head]
        for n in sorted(scored, key=lambda n: (-n.total, n.name)):
            mark = "*" if n.name == ex.selected else ""
            rows.append([mark, n.name] + [f"{n.scores.get(p, 0)}x{w}={n.scores.get(p, 0) * w}"
                                          for p, w in ex.score_plugins] + [str(n.total)])
        lines += ["  " + line for line in _table(rows)]
    return "\n".join(lines) + "\n"


explain_wide = render_explain_wide
