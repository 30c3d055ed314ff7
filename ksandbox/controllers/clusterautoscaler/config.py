"""The cluster autoscaler's configuration: a ``ClusterAutoscalerConfiguration`` document.

A real cluster autoscaler learns its node groups from a cloud provider (``--nodes=1:5:my-asg``,
auto-discovery tags) and its options from flags. The sandbox has no cloud, so both come from one
document loaded with the cluster's manifests::

    apiVersion: ksandbox.io/v1alpha1
    kind: ClusterAutoscalerConfiguration
    scanInterval: 10s                      # every option is optional; upstream's defaults
    expander: random                       # random | least-waste | most-pods | priority (a list:
                                           # "priority,least-waste")
    nodeGroups:
      - name: workers
        minSize: 1
        maxSize: 5
        provisionSeconds: 60               # how long a new node takes to appear (default 60)
        like: node-1                       # a new node is shaped like this node ...
        template:                          # ... or like this (labels, taints, capacity)
          labels: {pool: workers}
          taints: [{key: dedicated, value: batch, effect: NoSchedule}]
          capacity: {cpu: "4", memory: 8Gi, pods: "110"}
        priority: 10                       # for the priority expander (or use ``priorities``)

A Node belongs to a group when it carries the label ``ksandbox.io/node-group: <name>``; nodes
the autoscaler creates get it (and every label of the template). Without ``like`` or
``template`` a group's new nodes copy an existing node of the group, as upstream builds its
template from a real node. The options and their defaults are upstream's flags
(``cluster-autoscaler/config/flags/flags.go``, ``FAQ.md`` "What are the parameters to CA?"):
durations take Go's syntax (``10s``, ``10m``) or plain seconds.

``read_config(docs)`` returns a :class:`Config` or raises ManifestError naming the file, the
document and the field. Not here: acting on it (``clusterautoscaler.py``).
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from ...api.codec import EMPTY, FrozenDict
from ...api.errors import ManifestError
from ...api.quantity import Quantity, QuantityError
from ...api.taints import Taint

KIND = "ClusterAutoscalerConfiguration"
# The label that puts a Node in a node group (the sandbox's stand-in for a cloud instance group).
NODE_GROUP_LABEL = "ksandbox.io/node-group"

# Upstream defaults (config/flags/flags.go, config/const.go; FAQ.md's parameter table).
DEFAULT_SCAN_INTERVAL = 10.0                       # --scan-interval 10s
DEFAULT_SCALE_DOWN_DELAY_AFTER_ADD = 600.0         # --scale-down-delay-after-add 10m
DEFAULT_SCALE_DOWN_DELAY_AFTER_DELETE = 0.0        # --scale-down-delay-after-delete 0s
DEFAULT_SCALE_DOWN_DELAY_AFTER_FAILURE = 180.0     # --scale-down-delay-after-failure 3m
DEFAULT_SCALE_DOWN_UNNEEDED_TIME = 600.0           # --scale-down-unneeded-time 10m
DEFAULT_SCALE_DOWN_UNREADY_TIME = 1200.0           # --scale-down-unready-time 20m
DEFAULT_SCALE_DOWN_UTILIZATION_THRESHOLD = 0.5     # --scale-down-utilization-threshold 0.5
DEFAULT_MAX_NODE_PROVISION_TIME = 900.0            # --max-node-provision-time 15m
DEFAULT_MAX_GRACEFUL_TERMINATION = 600             # --max-graceful-termination-sec 600
DEFAULT_MAX_POD_EVICTION_TIME = 120.0              # --max-pod-eviction-time 2m
DEFAULT_MAX_EMPTY_BULK_DELETE = 10                 # --max-empty-bulk-delete 10
DEFAULT_EXPENDABLE_PODS_PRIORITY_CUTOFF = -10      # --expendable-pods-priority-cutoff -10
DEFAULT_UNREMOVABLE_NODE_RECHECK_TIMEOUT = 300.0   # --unremovable-node-recheck-timeout 5m
DEFAULT_EXPANDER = "random"                        # FAQ.md: random (flags.go of 2025: least-waste)
DEFAULT_PROVISION_SECONDS = 60.0                   # the sandbox's: a cloud VM's boot + join
EXPANDERS = ("random", "most-pods", "least-waste", "priority")

_GROUP_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


@attrs.frozen
class NodeGroupSpec:
    name: str
    min_size: int
    max_size: int
    provision_seconds: float = DEFAULT_PROVISION_SECONDS
    like: str | None = None
    labels: FrozenDict = EMPTY
    taints: tuple[Taint, ...] = ()
    capacity: FrozenDict = EMPTY
    has_template: bool = False
    priority: int | None = None


@attrs.frozen
class Config:
    node_groups: tuple[NodeGroupSpec, ...] = ()
    scan_interval: float = DEFAULT_SCAN_INTERVAL
    scale_down_enabled: bool = True
    scale_down_delay_after_add: float = DEFAULT_SCALE_DOWN_DELAY_AFTER_ADD
    scale_down_delay_after_delete: float = DEFAULT_SCALE_DOWN_DELAY_AFTER_DELETE
    scale_down_delay_after_failure: float = DEFAULT_SCALE_DOWN_DELAY_AFTER_FAILURE
    scale_down_unneeded_time: float = DEFAULT_SCALE_DOWN_UNNEEDED_TIME
    scale_down_unready_time: float = DEFAULT_SCALE_DOWN_UNREADY_TIME
    scale_down_utilization_threshold: float = DEFAULT_SCALE_DOWN_UTILIZATION_THRESHOLD
    max_node_provision_time: float = DEFAULT_MAX_NODE_PROVISION_TIME
    max_graceful_termination_sec: int = DEFAULT_MAX_GRACEFUL_TERMINATION
    max_pod_eviction_time: float = DEFAULT_MAX_POD_EVICTION_TIME
    max_empty_bulk_delete: int = DEFAULT_MAX_EMPTY_BULK_DELETE
    expendable_pods_priority_cutoff: int = DEFAULT_EXPENDABLE_PODS_PRIORITY_CUTOFF
    skip_nodes_with_system_pods: bool = True
    skip_nodes_with_local_storage: bool = True
    expander: tuple[str, ...] = (DEFAULT_EXPANDER,)
    # The priority expander's ConfigMap data: priority -> name regexps.
    priorities: tuple[tuple[int, tuple[str, ...]], ...] = ()

    def group(self, name: str) -> NodeGroupSpec | None:
        for g in self.node_groups:
            if g.name == name:
                return g
        return None


def parse_duration(value: Any) -> float:
    """Go's time.ParseDuration (``10s``, ``1m30s``), or a number of seconds."""
    if isinstance(value, bool):
        raise ValueError(f"invalid duration {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str) or not value:
        raise ValueError(f"time: invalid duration {value!r}")
    if value == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(value):
        m = _DURATION_PART.match(value, pos)
        if m is None:
            raise ValueError(f'time: invalid duration "{value}"')
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    return total


class _Reader:
    def __init__(self, doc: Any) -> None:
        self.doc = doc

    def fail(self, path: str, message: str) -> ManifestError:
        return ManifestError(self.doc.source, self.doc.document, f"{path}: {message}")

    def duration(self, data: dict, key: str, default: float, path: str = "") -> float:
        if data.get(key) is None:
            return default
        try:
            v = parse_duration(data[key])
        except ValueError as exc:
            raise self.fail(path + key, str(exc)) from None
        if v < 0:
            raise self.fail(path + key, f"Invalid value: {data[key]!r}: must not be negative")
        return v

    def integer(self, data: dict, key: str, default: int | None, path: str = "",
                minimum: int | None = 0) -> int | None:
        v = data.get(key)
        if v is None:
            return default
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(path + key, f"Invalid value: {v!r}: must be an integer")
        if minimum is not None and v < minimum:
            raise self.fail(path + key, f"Invalid value: {v}: must be greater than or equal "
                                        f"to {minimum}")
        return v

    def boolean(self, data: dict, key: str, default: bool) -> bool:
        v = data.get(key)
        if v is None:
            return default
        if not isinstance(v, bool):
            raise self.fail(key, f"Invalid value: {v!r}: must be true or false")
        return v


_TOP_KEYS = {"apiVersion", "kind", "metadata", "nodeGroups", "scanInterval", "scaleDownEnabled",
             "scaleDownDelayAfterAdd", "scaleDownDelayAfterDelete", "scaleDownDelayAfterFailure",
             "scaleDownUnneededTime", "scaleDownUnreadyTime", "scaleDownUtilizationThreshold",
             "maxNodeProvisionTime", "maxGracefulTerminationSec", "maxPodEvictionTime",
             "maxEmptyBulkDelete", "expendablePodsPriorityCutoff", "skipNodesWithSystemPods",
             "skipNodesWithLocalStorage", "expander", "priorities"}
_GROUP_KEYS = {"name", "minSize", "maxSize", "provisionSeconds", "like", "template", "priority"}
_TEMPLATE_KEYS = {"labels", "taints", "capacity"}


def _group(r: _Reader, i: int, raw: Any) -> NodeGroupSpec:
    path = f"nodeGroups[{i}]."
    if not isinstance(raw, dict):
        raise r.fail(f"nodeGroups[{i}]", "expected a map (name, minSize, maxSize, ...)")
    unknown = sorted(set(raw) - _GROUP_KEYS)
    if unknown:
        raise r.fail(path + unknown[0], "unknown field (a node group has name, minSize, "
                                        "maxSize, provisionSeconds, like, template, priority)")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise r.fail(path + "name", "Required value")
    if len(name) > 63 or not _GROUP_NAME.match(name):
        raise r.fail(path + "name", f'Invalid value: "{name}": a node group name must be a '
                                    "valid label value (lower case alphanumerics, '-', '.')")
    lo = r.integer(raw, "minSize", 0, path)
    hi = r.integer(raw, "maxSize", None, path)
    if hi is None:
        raise r.fail(path + "maxSize", "Required value")
    if hi < lo:
        raise r.fail(path + "maxSize", f"Invalid value: {hi}: must be greater than or equal to "
                                       f"minSize ({lo})")
    provision = r.duration(raw, "provisionSeconds", DEFAULT_PROVISION_SECONDS, path)
    like = raw.get("like")
    if like is not None and (not isinstance(like, str) or not like):
        raise r.fail(path + "like", "expected the name of a Node")
    labels: dict[str, str] = {}
    taints: list[Taint] = []
    capacity: dict[str, Quantity] = {}
    tmpl = raw.get("template")
    if tmpl is not None:
        if like is not None:
            raise r.fail(path + "template", "give either like or template, not both")
        if not isinstance(tmpl, dict):
            raise r.fail(path + "template", "expected a map with labels, taints and capacity")
        unknown = sorted(set(tmpl) - _TEMPLATE_KEYS)
        if unknown:
            raise r.fail(path + "template." + unknown[0], "unknown field (a template has "
                                                          "labels, taints, capacity)")
        for k, v in (tmpl.get("labels") or {}).items():
            if not isinstance(k, str) or not isinstance(v, (str, int, float, bool)):
                raise r.fail(path + "template.labels", "expected a map of label keys to values")
            labels[k] = v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) \
                else str(v)
        for j_, t in enumerate(tmpl.get("taints") or []):
            tp = f"{path}template.taints[{j_}]"
            if not isinstance(t, dict) or not t.get("key") or \
                    t.get("effect") not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
                raise r.fail(tp, "expected {key, value, effect: NoSchedule|PreferNoSchedule|"
                                 "NoExecute}")
            taints.append(Taint(key=str(t["key"]), value=str(t.get("value") or ""),
                                effect=t["effect"]))
        for k, v in (tmpl.get("capacity") or {}).items():
            try:
                capacity[k] = Quantity.coerce(v)
            except (QuantityError, ValueError, TypeError) as exc:
                raise r.fail(f"{path}template.capacity.{k}", str(exc)) from None
        if not capacity:
            raise r.fail(path + "template.capacity", "Required value: a template needs a "
                                                     "capacity (cpu, memory, pods)")
    prio = r.integer(raw, "priority", None, path, minimum=None)
    labels[NODE_GROUP_LABEL] = name
    return NodeGroupSpec(name=name, min_size=lo, max_size=hi, provision_seconds=provision,
                         like=like, labels=FrozenDict(labels), taints=tuple(taints),
                         capacity=FrozenDict(capacity), has_template=tmpl is not None,
                         priority=prio)


def _expander(r: _Reader, raw: Any) -> tuple[str, ...]:
    if raw is None:
        return (DEFAULT_EXPANDER,)
    if not isinstance(raw, str) or not raw:
        raise r.fail("expander", "expected a name or a comma-separated list")
    names = tuple(x.strip() for x in raw.split(","))
    for n in names:
        if n not in EXPANDERS:
            raise r.fail("expander", f'Unsupported value: "{n}": supported values: '
                         + ", ".join(f'"{e}"' for e in EXPANDERS))
    if len(set(names)) != len(names):
        raise r.fail("expander", "an expander may appear in the list only once")
    return names


def _priorities(r: _Reader, raw: Any) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The priority expander's configuration (its ConfigMap's ``priorities`` data): a map of
    priority to a list of regular expressions matched against node group names."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise r.fail("priorities", "expected a map of priority to a list of name regexps")
    out = []
    for k, v in raw.items():
        try:
            prio = int(k)
        except (TypeError, ValueError):
            raise r.fail(f"priorities.{k}", "the key must be an integer priority") from None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise r.fail(f"priorities.{k}", "expected a list of regular expressions")
        for x in v:
            try:
                re.compile(x)
            except re.error as exc:
                raise r.fail(f"priorities.{k}", f'invalid regular expression "{x}": {exc}') \
                    from None
        out.append((prio, tuple(v)))
    return tuple(sorted(out, reverse=True))


def read_config(docs: list[Any]) -> Config | None:
    """The configuration from the loaded documents (the last one wins), or None."""
    if not docs:
        return None
    doc = docs[-1]
    r = _Reader(doc)
    data = doc.data
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise r.fail(unknown[0], "unknown field")
    raw_groups = data.get("nodeGroups") or []
    if not isinstance(raw_groups, list):
        raise r.fail("nodeGroups", "expected a list of node groups")
    groups = [_group(r, i, g) for i, g in enumerate(raw_groups)]
    seen: set[str] = set()
    for i, g in enumerate(groups):
        if g.name in seen:
            raise r.fail(f"nodeGroups[{i}].name", f'Duplicate value: "{g.name}"')
        seen.add(g.name)
    threshold = data.get("scaleDownUtilizationThreshold")
    if threshold is None:
        threshold = DEFAULT_SCALE_DOWN_UTILIZATION_THRESHOLD
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or \
            not 0 <= threshold <= 1:
        raise r.fail("scaleDownUtilizationThreshold",
                     f"Invalid value: {threshold!r}: must be a number between 0 and 1")
    scan = r.duration(data, "scanInterval", DEFAULT_SCAN_INTERVAL)
    if scan <= 0:
        raise r.fail("scanInterval", "Invalid value: must be greater than 0")
    return Config(
        node_groups=tuple(groups),
        scan_interval=scan,
        scale_down_enabled=r.boolean(data, "scaleDownEnabled", True),
        scale_down_delay_after_add=r.duration(data, "scaleDownDelayAfterAdd",
                                              DEFAULT_SCALE_DOWN_DELAY_AFTER_ADD),
        scale_down_delay_after_delete=r.duration(data, "scaleDownDelayAfterDelete",
                                                 DEFAULT_SCALE_DOWN_DELAY_AFTER_DELETE),
        scale_down_delay_after_failure=r.duration(data, "scaleDownDelayAfterFailure",
                                                  DEFAULT_SCALE_DOWN_DELAY_AFTER_FAILURE),
        scale_down_unneeded_time=r.duration(data, "scaleDownUnneededTime",
                                            DEFAULT_SCALE_DOWN_UNNEEDED_TIME),
        scale_down_unready_time=r.duration(data, "scaleDownUnreadyTime",
                                           DEFAULT_SCALE_DOWN_UNREADY_TIME),
        scale_down_utilization_threshold=float(threshold),
        max_node_provision_time=r.duration(data, "maxNodeProvisionTime",
                                           DEFAULT_MAX_NODE_PROVISION_TIME),
        max_graceful_termination_sec=r.integer(data, "maxGracefulTerminationSec",
                                               DEFAULT_MAX_GRACEFUL_TERMINATION),
        max_pod_eviction_time=r.duration(data, "maxPodEvictionTime",
                                         DEFAULT_MAX_POD_EVICTION_TIME),
        max_empty_bulk_delete=r.integer(data, "maxEmptyBulkDelete", DEFAULT_MAX_EMPTY_BULK_DELETE,
                                        minimum=1),
        expendable_pods_priority_cutoff=r.integer(data, "expendablePodsPriorityCutoff",
                                                  DEFAULT_EXPENDABLE_PODS_PRIORITY_CUTOFF,
                                                  minimum=None),
        skip_nodes_with_system_pods=r.boolean(data, "skipNodesWithSystemPods", True),
        skip_nodes_with_local_storage=r.boolean(data, "skipNodesWithLocalStorage", True),
        expander=_expander(r, data.get("expander")),
        priorities=_priorities(r, data.get("priorities")),
    )
