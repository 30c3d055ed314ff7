"""The building blocks of ``kubectl describe``: the prefix writer and the shared sections.

kubectl's describers write tab-separated lines through a PrefixWriter (each write at a level
gets two spaces per level) into one tabwriter, flushed before the events table; the helpers
here (labels, annotations, taints, tolerations, resources, containers, volumes, the pod
template, events) are ports of the functions of the same names in
``kubernetes/kubectl`` ``pkg/describe/describe.go``. Their text — including kubectl's quirks,
such as the trailing space after a condition's status — is reproduced, so the tabwriter lays
it out exactly as kubectl does.

Not here: the per-kind describers (``describe.py``, ``describe_workloads.py``).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..api.quantity import Quantity
from .age import age
from .table import DESCRIBE_MINWIDTH, DESCRIBE_PADDING, tabwrite
from .timefmt import rfc1123z, sim_seconds

LEVEL_0, LEVEL_1, LEVEL_2, LEVEL_3 = 0, 1, 2, 3
# describe.go: annotations longer than this are folded and shortened.
MAX_ANNOTATION_LEN = 140
# Annotations describe never shows (describe.go skipAnnotations).
SKIP_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})


class Writer:
    """PrefixWriter over a tabwriter: ``write(level, text)``, ``flush()``, ``render()``."""

    def __init__(self) -> None:
        self._segments: list[list[str]] = [[]]

    def write(self, level: int, text: str) -> None:
        self._segments[-1].append("  " * level + text)

    def line(self, text: str = "") -> None:
        self._segments[-1].append(text + "\n")

    def flush(self) -> None:
        self._segments.append([])

    def render(self) -> str:
        return "".join(tabwrite("".join(seg), minwidth=DESCRIBE_MINWIDTH,
                                padding=DESCRIBE_PADDING) for seg in self._segments)


def labels_multiline(w: Writer, title: str, labels: Mapping[str, str] | None,
                     initial_indent: str = "", inner_indent: str = "\t") -> None:
    """printLabelsMultilineWithIndent: one ``key=value`` per line, sorted."""
    w.write(LEVEL_0, f"{initial_indent}{title}:{inner_indent}")
    if not labels:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(labels)):
        if i:
            w.write(LEVEL_0, initial_indent + inner_indent)
        w.write(LEVEL_0, f"{key}={labels[key]}\n")


def _shorten(s: str, max_len: int) -> str:
    return s[:max_len] + "..." if len(s) > max_len else s


def annotations_multiline(w: Writer, title: str, annotations: Mapping[str, str] | None) -> None:
    """printAnnotationsMultiline: ``key: value``, long or multi-line values folded."""
    w.write(LEVEL_0, f"{title}:\t")
    keys = sorted(k for k in (annotations or {}) if k not in SKIP_ANNOTATIONS)
    if not keys:
        w.line("<none>")
        return
    indent = "\t"
    for i, key in enumerate(keys):
        if i:
            w.write(LEVEL_0, indent)
        value = str(annotations[key]).removesuffix("\n")  # type: ignore[index]
        if len(value) + len(key) + 2 > MAX_ANNOTATION_LEN or "\n" in value:
            w.write(LEVEL_0, f"{key}:\n")
            for s in value.split("\n"):
                w.write(LEVEL_0, f"{indent}  {_shorten(s, MAX_ANNOTATION_LEN - 2)}\n")
        else:
            w.write(LEVEL_0, f"{key}: {value}\n")


def taints_multiline(w: Writer, title: str, taints: Iterable[Any]) -> None:
    """printNodeTaintsMultiline: sorted by effect, then key."""
    w.write(LEVEL_0, f"{title}:\t")
    taints = sorted(taints, key=lambda t: f"{t.effect},{t.key}")
    if not taints:
        w.line("<none>")
        return
    for i, t in enumerate(taints):
        if i:
            w.write(LEVEL_0, "\t")
        w.write(LEVEL_0, t.to_string() + "\n")


def tolerations_multiline(w: Writer, title: str, tolerations: Iterable[Any]) -> None:
    """printPodTolerationsMultiline: sorted by key, ``key:Effect op=Exists for 300s``."""
    w.write(LEVEL_0, f"{title}:\t")
    tolerations = sorted(tolerations, key=lambda t: t.key)
    if not tolerations:
        w.line("<none>")
        return
    for i, t in enumerate(tolerations):
        if i:
            w.write(LEVEL_0, "\t")
        w.write(LEVEL_0, t.to_string() + "\n")


def describe_events(w: Writer, events: list[Any], now: float) -> None:
    """DescribeEvents: ``Events: <none>``, or a table flushed apart from what precedes it.
    A repeated event's age reads ``5s (x3 over 2m)``."""
    if not events:
        w.write(LEVEL_0, "Events:\t<none>\n")
        return
    w.flush()
    w.write(LEVEL_0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(LEVEL_1, "----\t------\t----\t----\t-------\n")
    for e in sorted(events, key=lambda e: e.last_timestamp or e.first_timestamp):
        first = age(e.first_timestamp, now)
        interval = f"{age(e.last_timestamp, now)} (x{e.count} over {first})" \
            if e.count > 1 else first
        w.write(LEVEL_1, f"{e.type}\t{e.reason}\t{interval}\t{e.source_component}\t"
                         f"{e.message.strip()}\n")


def resources(w: Writer, req: Any, level: int) -> None:
    """describeResources: Limits then Requests, names sorted."""
    if req.limits:
        w.write(level, "Limits:\n")
    for name in sorted(req.limits):
        w.write(level + 1, f"{name}:\t{req.limits[name]}\n")
    if req.requests:
        w.write(level, "Requests:\n")
    for name in sorted(req.requests):
        w.write(level + 1, f"{name}:\t{req.requests[name]}\n")


def _ports(ports: Iterable[Any], host: bool) -> str:
    return ", ".join(f"{p.host_port if host else p.container_port}/{p.protocol or 'TCP'}"
                     for p in ports)


def containers(w: Writer, label: str, items: Iterable[Any], space: str = "",
               statuses: Iterable[Any] = ()) -> None:
    """describeContainers; ``statuses``: the pod's container statuses (a template has none):
    a container with one shows its IDs, state, last state, readiness and restarts."""
    items = list(items)
    by_name = {s.get("name"): s for s in statuses if isinstance(s, Mapping)}
    w.write(LEVEL_0, f"{space}{label}:{' <none>' if not items else ''}\n")
    name_indent = " " if space else ""
    for c in items:
        status = by_name.get(c.name)
        w.write(LEVEL_1, f"{name_indent}{c.name}:\n")
        if status is not None:
            w.write(LEVEL_2, f"Container ID:\t{status.get('containerID') or ''}\n")
        w.write(LEVEL_2, f"Image:\t{c.image}\n")
        if status is not None:
            w.write(LEVEL_2, f"Image ID:\t{status.get('imageID') or ''}\n")
        ports, host_ports = _ports(c.ports, False), _ports(c.ports, True)
        w.write(LEVEL_2, f"Ports:\t{ports}\n" if "," in ports else f"Port:\t{ports or '<none>'}\n")
        w.write(LEVEL_2, f"Host Ports:\t{host_ports}\n" if "," in host_ports
                else f"Host Port:\t{host_ports or '<none>'}\n")
        for key, title in (("command", "Command"), ("args", "Args")):
            values = c.extra.get(key) or ()
            if values:
                w.write(LEVEL_2, f"{title}:\n")
                for v in values:
                    for s in str(v).split("\n"):
                        w.write(LEVEL_3, f"{s}\n")
        if status is not None:
            container_state(w, status)
        resources(w, c.resources, LEVEL_2)
        env = [e for e in (c.extra.get("env") or ()) if isinstance(e, Mapping)]
        w.write(LEVEL_2, "Environment:" + ("" if env else "\t<none>") + "\n")
        for e in env:
            w.write(LEVEL_3, f"{e.get('name', '')}:\t{e.get('value', '')}\n")
        mounts = [m for m in (c.extra.get("volumeMounts") or ()) if isinstance(m, Mapping)]
        w.write(LEVEL_2, "Mounts:" + ("" if mounts else "\t<none>") + "\n")
        for m in sorted(mounts, key=lambda m: str(m.get("mountPath", ""))):
            flag = "ro" if m.get("readOnly") else "rw"
            w.write(LEVEL_3, f"{m.get('mountPath', '')} from {m.get('name', '')} ({flag})\n")


def container_state(w: Writer, status: Mapping) -> None:
    """describeContainerState: the state, the last state when it terminated, readiness and
    the restart count."""
    state = status.get("state")
    _state(w, "State", state if isinstance(state, Mapping) else {})
    last = status.get("lastState")
    if isinstance(last, Mapping) and isinstance(last.get("terminated"), Mapping):
        _state(w, "Last State", last)
    w.write(LEVEL_2, f"Ready:\t{'True' if status.get('ready') else 'False'}\n")
    w.write(LEVEL_2, f"Restart Count:\t{_int(status.get('restartCount'))}\n")


def _state(w: Writer, title: str, state: Mapping) -> None:
    """describeStatus: Running (since), Waiting (reason) or Terminated (reason, message, exit
    code, signal, start and finish)."""
    def part(name: str) -> Mapping | None:
        value = state.get(name)
        return None if value is None else value if isinstance(value, Mapping) else {}

    running, waiting, terminated = part("running"), part("waiting"), part("terminated")
    if running is not None:
        w.write(LEVEL_2, f"{title}:\tRunning\n")
        w.write(LEVEL_3, f"Started:\t{_when(running.get('startedAt'))}\n")
    elif waiting is not None:
        w.write(LEVEL_2, f"{title}:\tWaiting\n")
        reason = waiting.get("reason")
        if reason:
            w.write(LEVEL_3, f"Reason:\t{reason}\n")
    elif terminated is not None:
        t = terminated
        w.write(LEVEL_2, f"{title}:\tTerminated\n")
        if t.get("reason"):
            w.write(LEVEL_3, f"Reason:\t{t['reason']}\n")
        if t.get("message"):
            w.write(LEVEL_3, f"Message:\t{t['message']}\n")
        w.write(LEVEL_3, f"Exit Code:\t{_int(t.get('exitCode'))}\n")
        if _int(t.get("signal")) > 0:
            w.write(LEVEL_3, f"Signal:\t{_int(t.get('signal'))}\n")
        w.write(LEVEL_3, f"Started:\t{_when(t.get('startedAt'))}\n")
        w.write(LEVEL_3, f"Finished:\t{_when(t.get('finishedAt'))}\n")
    else:
        w.write(LEVEL_2, f"{title}:\tWaiting\n")


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _when(value: Any) -> str:
    """A status time as describe prints it (Go's zero time for one unset or unreadable)."""
    return rfc1123z(sim_seconds(value))


def volumes(w: Writer, items: Iterable[Any], space: str = "") -> None:
    """describeVolumes for the sources the sandbox knows (emptyDir, hostPath, configMap,
    secret, persistentVolumeClaim)."""
    items = list(items)
    if not items:
        w.write(LEVEL_0, f"{space}Volumes:\t<none>\n")
        return
    w.write(LEVEL_0, f"{space}Volumes:\n")
    name_indent = " " if space else ""
    for v in items:
        w.write(LEVEL_1, f"{name_indent}{v.name}:\n")
        if v.host_path is not None:
            w.write(LEVEL_2, "Type:\tHostPath (bare host directory volume)\n"
                             f"    Path:\t{v.host_path.get('path', '')}\n"
                             f"    HostPathType:\t{v.host_path.get('type') or '<none>'}\n")
        elif v.empty_dir is not None:
            limit = (v.empty_dir or {}).get("sizeLimit") or "<unset>"
            w.write(LEVEL_2, "Type:\tEmptyDir (a temporary directory that shares a pod's "
                             "lifetime)\n"
                             f"    Medium:\t{(v.empty_dir or {}).get('medium', '')}\n"
                             f"    SizeLimit:\t{limit}\n")
        elif v.config_map is not None:
            w.write(LEVEL_2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n"
                             f"    Name:\t{v.config_map.get('name', '')}\n"
                             f"    Optional:\t{_bool(v.config_map.get('optional'))}\n")
        elif v.secret is not None:
            w.write(LEVEL_2, "Type:\tSecret (a volume populated by a Secret)\n"
                             f"    SecretName:\t{v.secret.get('secretName', '')}\n"
                             f"    Optional:\t{_bool(v.secret.get('optional'))}\n")
        elif v.persistent_volume_claim is not None:
            pvc = v.persistent_volume_claim
            w.write(LEVEL_2, "Type:\tPersistentVolumeClaim (a reference to a "
                             "PersistentVolumeClaim in the same namespace)\n"
                             f"    ClaimName:\t{pvc.get('claimName', '')}\n"
                             f"    ReadOnly:\t{_bool(pvc.get('readOnly'))}\n")
        else:
            w.write(LEVEL_1, "<unknown>\n")


def _bool(v: Any) -> str:
    return "true" if v else "false"


def topology_spread(w: Writer, constraints: Iterable[Any], space: str = "") -> None:
    constraints = sorted(constraints, key=lambda c: c.topology_key)
    if not constraints:
        return
    w.write(LEVEL_0, f"{space}Topology Spread Constraints:\t")
    for i, c in enumerate(constraints):
        if i:
            w.write(LEVEL_0, space + "\t")
        text = f"{c.topology_key}:{c.when_unsatisfiable} when max skew {c.max_skew} is exceeded"
        if c.label_selector is not None:
            text += f" for selector {str(c.label_selector) or '<none>'}"
        w.write(LEVEL_0, text + "\n")


def pod_template(w: Writer, template: Any) -> None:
    """DescribePodTemplate, as deployments, replica sets and daemon sets show it."""
    w.write(LEVEL_0, "Pod Template:\n")
    spec = template.spec
    labels_multiline(w, "  Labels", template.metadata.labels)
    if template.metadata.annotations:
        annotations_multiline(w, "  Annotations", template.metadata.annotations)
    if spec.init_containers:
        containers(w, "Init Containers", spec.init_containers, "  ")
    containers(w, "Containers", spec.containers, "  ")
    volumes(w, spec.volumes, "  ")
    topology_spread(w, spec.topology_spread_constraints, "  ")
    if spec.priority_class_name:
        w.write(LEVEL_1, f"Priority Class Name:\t{spec.priority_class_name}\n")
    labels_multiline(w, "  Node-Selectors", spec.node_selector)
    tolerations_multiline(w, "  Tolerations", spec.tolerations)


def pod_requests_limits(spec: Any) -> tuple[dict[str, Quantity], dict[str, Quantity]]:
    """resourcehelper.PodRequestsAndLimits as Quantities (so sums print like kubectl's):
    containers summed, raised to any larger init container, plus overhead."""
    def total(attr: str) -> dict[str, Quantity]:
        out: dict[str, Quantity] = {}
        for c in spec.containers:
            for name, q in getattr(c.resources, attr).items():
                out[name] = out[name] + q if name in out else q
        for c in spec.init_containers:
            for name, q in getattr(c.resources, attr).items():
                if name not in out or q > out[name]:
                    out[name] = q
        if attr == "requests":
            for name, q in spec.overhead.items():
                out[name] = out[name] + q if name in out else q
        return out

    return total("requests"), total("limits")
