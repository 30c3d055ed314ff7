"""The kubelet's configuration: a real ``KubeletConfiguration`` document, and what follows from it.

A sandbox loads ``kubelet.config.k8s.io/v1beta1`` ``KubeletConfiguration`` documents with the
cluster's manifests. The fields the emulator honours are upstream's own, with upstream's defaults
(``pkg/kubelet/apis/config/v1beta1/defaults.go``):

* ``nodeStatusUpdateFrequency`` (10s), ``nodeStatusReportFrequency`` (5m),
  ``nodeLeaseDurationSeconds`` (40; the lease is renewed every quarter of it),
* ``kubeReserved``, ``systemReserved``, ``evictionHard`` (``memory.available: 100Mi``,
  ``nodefs.available: 10%`` ... when unset), ``mergeDefaultEvictionSettings``,
  ``evictionPressureTransitionPeriod`` (5m), ``maxPods`` (110),
* ``staticPodPath`` (shown, never read from disk).

The sandbox adds one block, ``ksandbox:``, that a real kubelet would ignore as an unknown field:

* ``ksandbox.nodeSelector`` — a label map choosing the nodes this configuration applies to
  (absent: every node). A node uses the last document whose selector matches it; documents
  with a selector win over documents without one.
* ``ksandbox.staticPods`` — the pod manifests the node's ``staticPodPath`` holds.

Allocatable follows ``pkg/kubelet/cm`` (GetNodeAllocatableReservation, hardEvictionReservation):
``capacity − kubeReserved − systemReserved − hard eviction threshold`` per resource, where only
``memory.available`` (memory) and ``nodefs.available`` (ephemeral-storage) reserve anything.

Not here: running anything (``kubelet.py``), choosing which node gets which configuration at
run time (``manager.py``).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

import attrs

from ..api.codec import EMPTY, FrozenDict
from ..api.core import Pod
from ..api.errors import ManifestError
from ..api.manifest import ConfigDocument, decode_object
from ..api.quantity import BINARY_SI, Quantity, QuantityError

# pkg/kubelet/apis/config/v1beta1/defaults.go (SetDefaults_KubeletConfiguration).
DEFAULT_NODE_STATUS_UPDATE_FREQUENCY = 10.0      # nodeStatusUpdateFrequency: 10s
DEFAULT_NODE_STATUS_REPORT_FREQUENCY = 300.0     # nodeStatusReportFrequency: 5m
DEFAULT_NODE_LEASE_DURATION_SECONDS = 40         # nodeLeaseDurationSeconds: 40
DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD = 300.0  # evictionPressureTransitionPeriod: 5m
DEFAULT_MAX_PODS = 110                           # maxPods: 110
# pkg/kubelet/kubelet.go: the lease is renewed every nodeLeaseRenewIntervalFraction (0.25) of
# its duration — 10 s with the defaults.
NODE_LEASE_RENEW_INTERVAL_FRACTION = 0.25
# pkg/kubelet/eviction/defaults_linux.go: DefaultEvictionHard.
DEFAULT_EVICTION_HARD: Mapping[str, str] = FrozenDict({
    "memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%",
    "imagefs.available": "15%", "imagefs.inodesFree": "5%"})
# pkg/kubelet/eviction/api/types.go: the signals a threshold may name.
EVICTION_SIGNALS = ("memory.available", "allocatableMemory.available", "nodefs.available",
                    "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree",
                    "containerfs.available", "containerfs.inodesFree", "pid.available")
# pkg/kubelet/cm (hardEvictionReservation): the signals that reserve capacity, and what.
_RESERVING_SIGNALS = {"memory.available": "memory", "nodefs.available": "ephemeral-storage"}

SANDBOX_KEY = "ksandbox"

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
                   "h": 3600.0}


def parse_duration(text: Any) -> float:
    """Go's ``time.ParseDuration`` (``10s``, ``5m0s``, ``1h30m``, ``250ms``) → seconds."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"time: invalid duration {text!r}")
    s = text
    sign = 1.0
    if s[0] in "+-":
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None:
            raise ValueError(f'time: invalid duration "{text}"')
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if pos == 0:
        raise ValueError(f'time: invalid duration "{text}"')
    return sign * total


@attrs.frozen
class Threshold:
    """One hard eviction threshold: ``signal < quantity`` or ``signal < percentage``."""

    signal: str
    quantity: Quantity | None = None
    percentage: float | None = None

    def amount(self, capacity: int) -> int:
        """evictionapi.GetThresholdQuantity: the threshold in the resource's units."""
        if self.quantity is not None:
            return self.quantity.value()
        return int(capacity * (self.percentage or 0.0))

    def text(self) -> str:
        if self.quantity is not None:
            return str(self.quantity)
        pct = (self.percentage or 0.0) * 100
        return f"{pct:g}%"


@attrs.frozen
class KubeletConfig:
    """The settings one kubelet runs with (upstream defaults for everything unset)."""

    node_status_update_frequency: float = DEFAULT_NODE_STATUS_UPDATE_FREQUENCY
    node_status_report_frequency: float = DEFAULT_NODE_STATUS_REPORT_FREQUENCY
    node_lease_duration_seconds: int = DEFAULT_NODE_LEASE_DURATION_SECONDS
    eviction_pressure_transition_period: float = DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD
    max_pods: int | None = None
    kube_reserved: FrozenDict = EMPTY
    system_reserved: FrozenDict = EMPTY
    eviction_hard: tuple[Threshold, ...] = ()
    static_pod_path: str = ""
    static_pods: tuple[Pod, ...] = ()
    node_selector: FrozenDict | None = None
    # Where it came from ("" for the built-in defaults): the file and document.
    source: str = ""
    document: int = 0
    explicit: bool = False

    @property
    def lease_renew_interval(self) -> float:
        return self.node_lease_duration_seconds * NODE_LEASE_RENEW_INTERVAL_FRACTION

    def threshold(self, signal: str) -> Threshold | None:
        for t in self.eviction_hard:
            if t.signal == signal:
                return t
        return None

    def matches(self, labels: Mapping[str, str]) -> bool:
        sel = self.node_selector
        if sel is None:
            return True
        return all(labels.get(k) == v for k, v in sel.items())

    def breakdown(self, capacity: Mapping[str, Quantity]) -> dict[str, dict[str, Quantity]]:
        """Per capacity resource: what each of kubeReserved, systemReserved and the hard eviction
        threshold holds back, and the allocatable that is left (GetNodeAllocatableReservation)."""
        evict: dict[str, Quantity] = {}
        for t in self.eviction_hard:
            resource = _RESERVING_SIGNALS.get(t.signal)
            if resource is not None and resource in capacity:
                evict[resource] = Quantity.from_int(t.amount(capacity[resource].value()),
                                                    BINARY_SI)
        out: dict[str, dict[str, Quantity]] = {}
        for name, cap in capacity.items():
            parts = {"capacity": cap}
            alloc = cap
            for label, source in (("kubeReserved", self.kube_reserved),
                                  ("systemReserved", self.system_reserved),
                                  ("evictionHard", evict)):
                q = source.get(name)
                if q is not None and not q.is_zero():
                    parts[label] = q
                    alloc = alloc - q
            if alloc.sign() < 0:  # negative allocatable makes no sense: upstream clamps to 0
                alloc = Quantity.from_int(0, cap.format)
            parts["allocatable"] = alloc
            out[name] = parts
        return out

    def allocatable(self, capacity: Mapping[str, Quantity]) -> dict[str, Quantity]:
        """capacity − kubeReserved − systemReserved − hard eviction threshold, per resource."""
        return {name: parts["allocatable"] for name, parts in self.breakdown(capacity).items()}


def _split_value(value: str) -> tuple[Quantity | None, float | None]:
    """An evictionHard value: ``100Mi`` or ``10%`` (ParseThresholdConfig's parseThresholdStatement)."""
    if value.endswith("%"):
        pct = float(value[:-1])
        if pct < 0 or pct > 100:
            raise ValueError(f"eviction percentage threshold must be >= 0% and <= 100%: {value}")
        return None, pct / 100.0
    q = Quantity.parse(value)
    if q.sign() < 0:
        raise ValueError(f"eviction threshold cannot be negative: {value}")
    return q, None


def _thresholds(values: Mapping[str, str]) -> tuple[Threshold, ...]:
    out = []
    for signal, value in values.items():
        q, pct = _split_value(value)
        # A zero threshold disables the signal (ParseThresholdConfig skips them).
        if (q is not None and q.is_zero()) or pct == 0.0:
            continue
        out.append(Threshold(signal, q, pct))
    return tuple(out)


DEFAULT_CONFIG = KubeletConfig(eviction_hard=_thresholds(DEFAULT_EVICTION_HARD))


# -- reading a document ---------------------------------------------------------------------


class _Reader:
    def __init__(self, doc: ConfigDocument) -> None:
        self.doc = doc

    def fail(self, path: str, message: str) -> ManifestError:
        return ManifestError(self.doc.source, self.doc.document, f"{path}: {message}")

    def duration(self, data: dict, key: str, default: float) -> float:
        if key not in data or data[key] is None:
            return default
        try:
            value = parse_duration(data[key])
        except ValueError as exc:
            raise self.fail(key, str(exc)) from None
        if value <= 0:
            raise self.fail(key, f"Invalid value: {data[key]!r}: must be greater than 0")
        return value

    def integer(self, data: dict, key: str) -> int | None:
        v = data.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise self.fail(key, f"Invalid value: {v!r}: must be a positive integer")
        return v

    def resources(self, data: dict, key: str) -> FrozenDict:
        v = data.get(key)
        if v is None:
            return EMPTY
        if not isinstance(v, dict):
            raise self.fail(key, "expected a map of resource names to quantities")
        out = {}
        for name, raw in v.items():
            try:
                q = Quantity.coerce(raw)
            except (QuantityError, ValueError, TypeError) as exc:
                raise self.fail(f"{key}.{name}", str(exc)) from None
            if q.sign() < 0:
                raise self.fail(f"{key}.{name}", f"Invalid value: {str(raw)!r}: must be "
                                                 f"greater than or equal to 0")
            out[name] = q
        return FrozenDict(out) if out else EMPTY

    def eviction(self, data: dict) -> tuple[Threshold, ...]:
        v = data.get("evictionHard")
        merge = data.get("mergeDefaultEvictionSettings") is True
        if v is None:
            return _thresholds(DEFAULT_EVICTION_HARD)
        if not isinstance(v, dict):
            raise self.fail("evictionHard", "expected a map of eviction signals to thresholds")
        values: dict[str, str] = dict(DEFAULT_EVICTION_HARD) if merge else {}
        for signal, raw in v.items():
            if signal not in EVICTION_SIGNALS:
                raise self.fail(f"evictionHard.{signal}", f"unsupported eviction signal {signal}")
            if not isinstance(raw, (str, int)):
                raise self.fail(f"evictionHard.{signal}", "expected a quantity or a percentage")
            values[signal] = str(raw)
        try:
            return _thresholds(values)
        except (QuantityError, ValueError) as exc:
            raise self.fail("evictionHard", str(exc)) from None

    def sandbox(self, data: dict) -> tuple[FrozenDict | None, tuple[Pod, ...]]:
        block = data.get(SANDBOX_KEY)
        if block is None:
            return None, ()
        if not isinstance(block, dict):
            raise self.fail(SANDBOX_KEY, "expected a map with nodeSelector and staticPods")
        unknown = sorted(set(block) - {"nodeSelector", "staticPods"})
        if unknown:
            raise self.fail(f"{SANDBOX_KEY}.{unknown[0]}",
                            "unknown field (the sandbox block holds nodeSelector and staticPods)")
        selector = None
        if block.get("nodeSelector") is not None:
            sel = block["nodeSelector"]
            if not isinstance(sel, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in sel.items()):
                raise self.fail(f"{SANDBOX_KEY}.nodeSelector", "expected a map of label keys "
                                                               "to string values")
            selector = FrozenDict(sel)
        pods = []
        raw_pods = block.get("staticPods") or []
        if not isinstance(raw_pods, list):
            raise self.fail(f"{SANDBOX_KEY}.staticPods", "expected a list of Pod manifests")
        for i, item in enumerate(raw_pods):
            path = f"{SANDBOX_KEY}.staticPods[{i}]"
            obj = decode_object(item, self.doc.source, self.doc.document, path)
            if getattr(obj, "kind", None) != "Pod":
                raise self.fail(path, "a static pod manifest must be a v1 Pod")
            pods.append(obj)
        names = [(p.metadata.namespace or "default", p.metadata.name) for p in pods]
        for i, key in enumerate(names):
            if key in names[:i]:
                raise self.fail(f"{SANDBOX_KEY}.staticPods[{i}].metadata.name",
                                f'Duplicate value: "{key[1]}"')
        return selector, tuple(pods)


def read_config(doc: ConfigDocument) -> KubeletConfig:
    """One KubeletConfiguration document → a KubeletConfig (ManifestError on bad fields)."""
    r = _Reader(doc)
    data = doc.data
    selector, static_pods = r.sandbox(data)
    lease = r.integer(data, "nodeLeaseDurationSeconds")
    update = r.duration(data, "nodeStatusUpdateFrequency", DEFAULT_NODE_STATUS_UPDATE_FREQUENCY)
    # defaults.go: an explicit update frequency is also the report frequency unless that is set.
    report_default = (update if data.get("nodeStatusUpdateFrequency") is not None
                      else DEFAULT_NODE_STATUS_REPORT_FREQUENCY)
    path = data.get("staticPodPath") or ""
    if not isinstance(path, str):
        raise r.fail("staticPodPath", "expected a string")
    return KubeletConfig(
        node_status_update_frequency=update,
        node_status_report_frequency=r.duration(data, "nodeStatusReportFrequency",
                                                report_default),
        node_lease_duration_seconds=lease or DEFAULT_NODE_LEASE_DURATION_SECONDS,
        eviction_pressure_transition_period=r.duration(
            data, "evictionPressureTransitionPeriod", DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD),
        max_pods=r.integer(data, "maxPods"),
        kube_reserved=r.resources(data, "kubeReserved"),
        system_reserved=r.resources(data, "systemReserved"),
        eviction_hard=r.eviction(data),
        static_pod_path=path or ("/etc/kubernetes/manifests" if static_pods else ""),
        static_pods=static_pods,
        node_selector=selector,
        source=doc.source,
        document=doc.document,
        explicit=True,
    )


def read_configs(docs: Iterable[ConfigDocument]) -> list[KubeletConfig]:
    return [read_config(d) for d in docs]


def config_for(configs: list[KubeletConfig], labels: Mapping[str, str]) -> KubeletConfig:
    """The configuration a node with ``labels`` runs with.

    The last matching document with a nodeSelector, else the last one without, else upstream's
    defaults.
    """
    chosen: KubeletConfig | None = None
    for c in configs:
        if c.node_selector is not None and c.matches(labels):
            chosen = c
    if chosen is not None:
        return chosen
    for c in configs:
        if c.node_selector is None:
            chosen = c
    return chosen if chosen is not None else DEFAULT_CONFIG
