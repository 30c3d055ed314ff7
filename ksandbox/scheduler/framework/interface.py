"""The scheduling framework's vocabulary: status codes, Status, extension-point protocols.

Modelled on upstream's ``framework/interface.go`` (kube-scheduler): a plugin implements only the
extension points it needs, each a small protocol; optional behaviour (``normalize_score``,
PreFilter extensions, ``events_to_register``) is an optional method, never a flag. A ``None``
status means Success, as upstream's nil ``*Status``.

Vectorized twins (``filter_vec`` / ``score_vec``) are ksandbox's own: a plugin may offer them
so the fast path (``framework/fast.py``) evaluates every node at once with numpy. They must
agree with the scalar methods exactly; the scalar ones are the reference.

Not here: running plugins (``runtime.py``), node data (``node_info.py``).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Iterable, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ...api.core import Pod

# pkg/scheduler/framework: the range of a normalized score.
MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
# pkg/scheduler/apis/config: the range of RequestedToCapacityRatio shape scores.
MAX_CUSTOM_PRIORITY_SCORE = 10
# Score plugin weights are bounded by upstream's config validation.
MAX_TOTAL_SCORE = (1 << 63) - 1


class Code(enum.IntEnum):
    """framework.Code, in upstream's order (the names print as upstream's strings)."""

    # The plugin ran and found the pod fit (or did its work).
    SUCCESS = 0
    # An internal problem: the cycle aborts and the pod is retried after backoff.
    ERROR = 1
    # The node does not fit now, but removing pods (preemption) might help.
    UNSCHEDULABLE = 2
    # The node does not fit, and preemption cannot change that.
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    # Permit only; unused in the sandbox.
    WAIT = 4
    # The plugin has nothing to do for this pod (from PreFilter / PreScore).
    SKIP = 5
    # Waiting on something outside the scheduler; unused in the sandbox.
    PENDING = 6

    def __str__(self) -> str:
        return _CODE_NAMES[self]


_CODE_NAMES = {
    Code.SUCCESS: "Success", Code.ERROR: "Error", Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable", Code.WAIT: "Wait",
    Code.SKIP: "Skip", Code.PENDING: "Pending",
}


class Status:
    """A plugin's answer: a code, its human reasons, and which plugin said so.

    ``detail`` is ksandbox's addition: a more specific sentence for explain's wide form (the
    taint that was not tolerated) when upstream's reason is deliberately generic.
    """

    __slots__ = ("code", "reasons", "plugin", "detail")

    def __init__(self, code: Code, *reasons: str, plugin: str = "", detail: str = "") -> None:
        self.code = code
        self.reasons = tuple(reasons)
        self.plugin = plugin
        self.detail = detail

    # -- named constructors --
    @classmethod
    def unschedulable(cls, *reasons: str, detail: str = "") -> "Status":
        return cls(Code.UNSCHEDULABLE, *reasons, detail=detail)

    @classmethod
    def unresolvable(cls, *reasons: str, detail: str = "") -> "Status":
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons, detail=detail)

    @classmethod
    def skip(cls) -> "Status":
        """The one shared Skip (ten plugins answer Skip for a plain pod every cycle; callers
        only read a Skip's code — it is never given a plugin name or reasons)."""
        return _SKIP

    @classmethod
    def error(cls, message: str) -> "Status":
        return cls(Code.ERROR, message)

    # -- questions --
    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_rejected(self) -> bool:
        """Unschedulable or UnschedulableAndUnresolvable (upstream IsRejected)."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, name: str) -> "Status":
        self.plugin = name
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return self.code == other.code and self.reasons == other.reasons

    def __hash__(self) -> int:
        return hash((self.code, self.reasons))

    def __repr__(self) -> str:
        extra = f" plugin={self.plugin}" if self.plugin else ""
        return f"<Status {self.code} {list(self.reasons)}{extra}>"


class _SharedStatus(Status):
    """A Status handed to every caller alike: changing it would change everyone's."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a shared Status is read-only (set {name!r} on a copy)")


_SKIP = _SharedStatus.__new__(_SharedStatus)
for _slot, _value in (("code", Code.SKIP), ("reasons", ()), ("plugin", ""), ("detail", "")):
    object.__setattr__(_SKIP, _slot, _value)


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.SUCCESS


def code_of(status: Status | None) -> Code:
    return Code.SUCCESS if status is None else status.code


class PreFilterResult:
    """PreFilter may narrow the nodes worth filtering (NodeAffinity on ``metadata.name``)."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: Iterable[str] | None = None) -> None:
        self.node_names = None if node_names is None else frozenset(node_names)

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        return PreFilterResult(self.node_names & other.node_names)


# -- cluster events (requeueing) ---------------------------------------------------------------

class ActionType(enum.IntFlag):
    """What happened to an object (framework.ActionType); Update is split by what changed."""

    ADD = 1
    DELETE = 2
    UPDATE_NODE_ALLOCATABLE = 4
    UPDATE_NODE_LABEL = 8
    UPDATE_NODE_TAINT = 16
    UPDATE_NODE_CONDITION = 32
    UPDATE_NODE_ANNOTATION = 64
    UPDATE_POD_LABEL = 128
    UPDATE_POD_SCALE_DOWN = 256
    UPDATE_POD_TOLERATION = 512
    UPDATE_POD_OTHER = 1024
    UPDATE = (UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT
              | UPDATE_NODE_CONDITION | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL
              | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATION | UPDATE_POD_OTHER)
    ALL = ADD | DELETE | UPDATE


# Event resources.
NODE = "Node"
ASSIGNED_POD = "AssignedPod"
UNSCHEDULED_POD = "UnscheduledPod"
POD = "Pod"  # matches assigned and unscheduled pods
PDB = "PodDisruptionBudget"
PERSISTENT_VOLUME = "PersistentVolume"
PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
STORAGE_CLASS = "storage.k8s.io/StorageClass"
WILDCARD = "*"


class ClusterEvent:
    __slots__ = ("resource", "action", "_label")

    def __init__(self, resource: str, action: ActionType, label: str = "") -> None:
        self.resource = resource
        self.action = action
        self._label = label

    @property
    def label(self) -> str:
        # Spelt out only when asked: an enum flag's repr costs more than the event's whole
        # handling, and the scheduler makes one event per pod write.
        return self._label or f"{self.resource}/{self.action!r}"

    def matches(self, incoming: "ClusterEvent") -> bool:
        """Whether ``incoming`` is this registered event or a more specific one."""
        if self.resource == WILDCARD:
            return True
        same = self.resource == incoming.resource or (
            self.resource == POD and incoming.resource in (ASSIGNED_POD, UNSCHEDULED_POD))
        return same and bool(self.action & incoming.action)


class QueueingHint(enum.IntEnum):
    QUEUE_SKIP = 0
    QUEUE = 1


class ClusterEventWithHint:
    """A registered event plus an optional hint ``fn(pod, old, new) -> QueueingHint``."""

    __slots__ = ("event", "hint")

    def __init__(self, event: ClusterEvent, hint: Any = None) -> None:
        self.event = event
        self.hint = hint


# -- the extension points ------------------------------------------------------------------------

@runtime_checkable
class Plugin(Protocol):
    name: str


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(self, state: Any, pod: Pod, nodes: list) -> tuple[PreFilterResult | None,
                                                                        Status | None]: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None: ...


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    # ``ctx``: what preemption needs of the scheduler (scheduler.PreemptionContext).
    def post_filter(self, state: Any, pod: Pod, statuses: Any,
                    ctx: Any) -> tuple[Any, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status | None: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: Any, pod: Pod, node_info: Any) -> int: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: Any, pod: Pod, node_name: str) -> Status | None: ...

    def unreserve(self, state: Any, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind(self, state: Any, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    def bind(self, state: Any, pod: Pod, node_name: str) -> Status | None: ...


def implements(plugin: Any, point: str) -> bool:
    """Whether ``plugin`` offers the extension point named ``point`` (``filter``, ...)."""
    return callable(getattr(plugin, point, None))
