"""``kubectl top nodes|pods``: the simulated metrics server's usage, as kubectl prints it.

As kubectl's ``pkg/cmd/top`` (top_node.go, top_pod.go) and ``pkg/metricsutil/metrics_printer.go``
(printMetricsLine, printSingleResourceUsage, printMissingMetricsNodeLine): CPU in millicores
(``250m``), memory in whole MiB (``128Mi``), a node's percentages of its allocatable (integer,
truncated). The numbers are the sandbox's metrics server's (``controllers/metrics.py``): a pod
uses what ``ksandbox load`` set for its workload (else it idles), its memory request otherwise;
only Running pods have metrics. A node's usage is the sum of its pods'; a node whose kubelet is
not reporting (NotReady) has none: ``<unknown>``.

Flags: ``-n``, ``-A``, ``-l``, ``--sort-by=cpu|memory``, ``--no-headers``. Not here:
``--containers`` (the simulated metrics are per pod), ``--sum``, ``--show-capacity``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import ApiError, CommandError
from ..views.table import format_table
from .common import selector_of
from .parse import ALL_NAMESPACES, BOOL, NAMESPACE, SELECTOR, STR, Flag, namespace_of, parse_flags

if TYPE_CHECKING:
    from ..session import Session

MIB = 1024 * 1024


@attrs.frozen
class TopCommand:
    what: str                 # nodes | pods
    names: tuple[str, ...] = ()
    namespace: str = "default"
    all_namespaces: bool = False
    selector: str = ""
    sort_by: str = ""
    no_headers: bool = False


def parse(tokens: list[str]) -> TopCommand:
    if not tokens or tokens[0].startswith("-"):
        raise CommandError("kubectl top: a resource is required (node or pod)",
                           hint="See 'kubectl top -h' for help and examples")
    word = tokens[0]
    what = {"node": "nodes", "nodes": "nodes", "no": "nodes", "pod": "pods", "pods": "pods",
            "po": "pods"}.get(word)
    if what is None:
        raise CommandError(f'unknown command "{word}" for "kubectl top"',
                           hint="See 'kubectl top -h' for help and examples")
    flags = [SELECTOR, Flag("sort-by", STR, "", ""), Flag("no-headers", BOOL, "", False)]
    if what == "pods":
        flags += [NAMESPACE, ALL_NAMESPACES, Flag("containers", BOOL, "", False)]
    a = parse_flags(f"top {what[:-1]}", tokens[1:], flags)
    if a["sort-by"] not in ("", "cpu", "memory"):
        raise CommandError("--sort-by accepts only cpu or memory")
    if what == "pods" and a["containers"]:
        raise CommandError("kubectl top pod --containers is not supported by ksandbox (the "
                           "simulated metrics are per pod)")
    if len(a.positionals) > 1:
        raise CommandError(f"only one {what[:-1]} name may be given, got "
                           f"{len(a.positionals)}")
    if a.positionals and a["selector"]:
        raise CommandError("only one of NAME or --selector can be provided")
    selector_of(a["selector"])
    ns = namespace_of(a) if what == "pods" else ""
    return TopCommand(what, tuple(a.positionals), ns,
                      bool(a["all-namespaces"]) if what == "pods" else False,
                      a["selector"], a["sort-by"], a["no-headers"])


def _cpu(millis: float) -> str:
    return f"{int(millis)}m"


def _mem(bytes_: float) -> str:
    return f"{int(bytes_) // MIB}Mi"


def run(session: Session, cmd: TopCommand, stdin: str | None) -> str:
    metrics = session.cp.metrics
    selector = selector_of(cmd.selector)
    if cmd.what == "pods":
        return _pods(session, cmd, metrics, selector)
    return _nodes(session, cmd, metrics, selector)


def _pod_usage(metrics: Any, pod: Any) -> tuple[float, int] | None:
    cpu = metrics.cpu_usage_millis(pod)
    mem = metrics.memory_usage(pod)
    if cpu is None or mem is None:
        return None
    return cpu, mem


def _pods(session: Session, cmd: TopCommand, metrics: Any, selector: Any) -> str:
    ns = None if cmd.all_namespaces else cmd.namespace
    pods = session.store.list("Pod", ns)
    if cmd.names:
        pods = [p for p in pods if p.metadata.name == cmd.names[0]]
    if selector is not None:
        pods = [p for p in pods if selector.matches(p.metadata.labels)]
    rows = []
    for p in sorted(pods, key=lambda p: (p.metadata.namespace, p.metadata.name)):
        usage = _pod_usage(metrics, p)
        if usage is not None:
            rows.append((p, usage))
    if cmd.names and not rows:
        raise ApiError.not_found("podmetrics.metrics.k8s.io",
                                 f"{cmd.namespace}/{cmd.names[0]}")
    if not rows:
        if ns is None:
            return "No resources found\n"
        return f"No resources found in {ns} namespace.\n"
    if cmd.sort_by:
        idx = 0 if cmd.sort_by == "cpu" else 1
        rows.sort(key=lambda r: -r[1][idx])
    table: list[list[str]] = []
    if not cmd.no_headers:
        table.append((["NAMESPACE"] if cmd.all_namespaces else []) +
                     ["NAME", "CPU(cores)", "MEMORY(bytes)"])
    for p, (cpu, mem) in rows:
        table.append(([p.metadata.namespace] if cmd.all_namespaces else []) +
                     [p.metadata.name, _cpu(cpu), _mem(mem)])
    return format_table(table)


def _nodes(session: Session, cmd: TopCommand, metrics: Any, selector: Any) -> str:
    nodes = session.store.nodes()
    if cmd.names:
        nodes = [n for n in nodes if n.metadata.name == cmd.names[0]]
        if not nodes:
            raise ApiError.not_found("nodes", cmd.names[0])
    if selector is not None:
        nodes = [n for n in nodes if selector.matches(n.metadata.labels)]
    if not nodes:
        return "No resources found\n"
    reporting, missing = [], []
    for n in sorted(nodes, key=lambda n: n.metadata.name):
        ready = any(c.type == "Ready" and c.status == "True" for c in n.status.conditions)
        if not ready or session.cp.kubelets.is_failed(n.metadata.name):
            missing.append(n)
            continue
        cpu = mem = 0.0
        for p in session.store.pods_on_node(n.metadata.name):
            usage = _pod_usage(metrics, p)
            if usage is not None:
                cpu += usage[0]
                mem += usage[1]
        reporting.append((n, cpu, mem))
    if cmd.sort_by:
        idx = 1 if cmd.sort_by == "cpu" else 2
        reporting.sort(key=lambda r: -r[idx])
    table: list[list[str]] = []
    if not cmd.no_headers:
        table.append(["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"])
    for n, cpu, mem in reporting:
        alloc = n.allocatable_amounts
        table.append([n.metadata.name, _cpu(cpu), _percent(cpu, alloc.get("cpu", 0)),
                      _mem(mem), _percent(mem, alloc.get("memory", 0))])
    for n in missing:
        table.append([n.metadata.name] + ["<unknown>"] * 4)
    return format_table(table)


def _percent(used_milli: float, available_milli: int) -> str:
    """printSingleResourceUsage: int64(used / available * 100)."""
    if not available_milli:
        return "0%"
    return f"{int(used_milli / available_milli * 100)}%"
