"""The cluster autoscaler's status as text: node groups, provisioning, unneeded nodes.

Upstream publishes this in the ``kube-system/cluster-autoscaler-status`` ConfigMap (per node
group: health, min/max, target size, scale-up and scale-down activity); the sandbox keeps it in
the ``clusterautoscaler`` component (``status()``, plain data) and this presenter lays it out as
kubectl-style tables for ``ksandbox sim -o wide`` and any other view:

    NODE GROUP   MIN   MAX   REGISTERED   READY   UPCOMING   TARGET
    workers      1     4     2            2       0          2

    UNNEEDED NODE    SINCE   REMOVABLE AT
    workers-x7k2p    905s    1505s

Pure: plain data and ``now`` in, text out.
"""

from __future__ import annotations

from typing import Any

from .table import format_table


def _t(value: Any) -> str:
    return "-" if value is None else f"{float(value):g}s"


def render_cluster_autoscaler_status(status: dict) -> str:
    rows = [["NODE GROUP", "MIN", "MAX", "REGISTERED", "READY", "UPCOMING", "TARGET", "BACKOFF"]]
    for g in status["nodeGroups"]:
        upcoming = ",".join(f"{u['node']}@{_t(u['readyAt'])}" for u in g["upcoming"]) or "0"
        rows.append([g["name"], str(g["minSize"]), str(g["maxSize"]), str(g["registered"]),
                     str(g["ready"]), upcoming, str(g["targetSize"]),
                     "until " + _t(g["backoffUntil"]) if g["backoffUntil"] is not None else "-"])
    up, down = status["scaleUp"], status["scaleDown"]
    parts = [f"scale-up: {up['status']} (last {_t(up['lastScaleUpTime'])})"
             f"   scale-down: {down['status']} "
             f"(last {_t(down['lastScaleDownTime'])}"
             + (f", cooldown until {_t(down['cooldownUntil'])}"
                if down["cooldownUntil"] is not None else "")
             + f")   expander: {status['expander']}\n",
             format_table(rows)]
    nodes = [["NODE", "SCALE-DOWN", "UNNEEDED SINCE", "REMOVABLE AT"]]
    unneeded = {u["node"]: u for u in status["unneeded"]}
    names = sorted(set(unneeded) | set(status["unremovable"]) | set(status["deleting"]))
    for name in names:
        u = unneeded.get(name)
        reason = status["unremovable"].get(name, "")
        if name in status["deleting"]:
            state = "Deleting"
        elif u is not None:
            # Unneeded, and why it is not removed yet (time, cooldown, minSize).
            state = "Unneeded" + (f" ({reason})" if reason else "")
        else:
            state = reason
        nodes.append([name, state, _t(u["since"]) if u else "-",
                      _t(u["removableAt"]) if u else "-"])
    if len(nodes) > 1:
        parts += ["\n", format_table(nodes)]
    return "".join(parts)
