"""What a node's card on the board shows, as a comparable value.

:func:`summarize` reads one node and its pods into a :class:`NodeSummary` — status, roles, key
labels, taints, conditions, requested vs allocatable, and a :class:`PodMark` per pod (phase,
DaemonSet / static / placeholder marker, eviction deadline and tolerationSeconds). Summaries
are frozen and compare by value, so the board redraws a card only when what it shows changed:
a kubelet heartbeat rewrites the Node object every ten simulated seconds but leaves its summary
equal. :func:`card_height` says how many lines a card takes at a width without drawing it, so
the board can lay out 1,000 cards and draw only the visible ones.

No Textual here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.core import MIRROR_ANNOTATION
from ..api.taints import NO_EXECUTE
from ..controllers.tainteviction import matching_tolerations, min_toleration_time, no_execute_taints
from ..views.printers import node_roles, node_status

if TYPE_CHECKING:
    from ..api.core import Node, Pod
    from ..apiserver.store import Store
    from ..session import Session

# Labels worth a glance on a card, in this order (the zone and the seeds' hw-type first).
KEY_LABELS = ("topology.kubernetes.io/zone", "hw-type", "node.kubernetes.io/instance-type",
              "disktype", "gpu")
LABEL_SHORT = {"topology.kubernetes.io/zone": "", "node.kubernetes.io/instance-type": ""}
# Pods that only hold resources for containers the cluster does not manage (seed 001): a
# pause image, or marked explicitly.
PLACEHOLDER_ANNOTATION = "ksandbox.dev/placeholder"
# Conditions that are bad when True (everything but Ready).
PROBLEM_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable")

# Fixed lines of a card: top border, roles/labels, cpu, memory and pods bars, bottom border.
FIXED_LINES = 6


@attrs.frozen
class PodMark:
    namespace: str
    name: str
    state: str          # running | pending | failed | terminating | succeeded
    marker: str         # "" | "ds" | "static" | "placeholder"
    deadline: float | None = None
    toleration_seconds: int | None = None

    @property
    def sort_key(self) -> tuple:
        # Countdowns first (soonest first), then terminating, then by name.
        if self.deadline is not None:
            return (0, self.deadline, self.name)
        if self.state == "terminating":
            return (1, 0.0, self.name)
        return (2, 0.0, self.namespace, self.name)


@attrs.frozen
class NodeSummary:
    name: str
    status: str                          # kubectl's: Ready | NotReady | Unknown
    cordoned: bool
    roles: str
    labels: tuple[str, ...]
    taints: tuple[tuple[str, str, str], ...]   # (text, effect, key)
    conditions: tuple[str, ...]
    cpu: tuple[int, int]                 # (requested millicores, allocatable)
    memory: tuple[int, int]
    pods_used: tuple[int, int]
    pods: tuple[PodMark, ...]
    ready_condition: str = "True"
    """The Ready condition's status (True/False/Unknown): the card's colour tells a node that
    says it is not ready from one that stopped reporting (kubectl prints NotReady for both)."""

    @property
    def failed(self) -> bool:
        return self.status != "Ready"

    @property
    def has_countdown(self) -> bool:
        return any(p.deadline is not None for p in self.pods)

    @property
    def state(self) -> str:
        """The card's look: ``failed`` (NotReady/Unknown), ``cordoned`` or ``ok``."""
        if self.failed:
            return "failed"
        return "cordoned" if self.cordoned else "ok"


def pod_marker(pod: Pod) -> str:
    """The card's tag: what the pod is (a mirror, a DaemonSet's pod), as its metadata says,
    before what its image suggests. A DaemonSet running the pause image (node-failure's
    node-agent) is one pod per node, not a placeholder holding room; the pause-image guess is
    for the pods nothing else names (a bare pod, an overprovisioning Deployment's)."""
    if MIRROR_ANNOTATION in pod.metadata.annotations:
        return "static"
    if pod.metadata.annotations.get(PLACEHOLDER_ANNOTATION, "").lower() == "true":
        return "placeholder"
    ref = pod.metadata.controller_ref()
    if ref is not None and ref.kind == "DaemonSet":
        return "ds"
    containers = pod.spec.containers
    if containers and all("/pause" in c.image or c.image.startswith("pause")
                          for c in containers):
        return "placeholder"
    return ""


def pod_card_state(pod: Pod) -> str:
    if pod.metadata.deletion_timestamp is not None:
        return "terminating"
    phase = pod.status.phase or "Pending"
    if phase == "Running":
        return "running"
    if phase == "Succeeded":
        return "succeeded"
    if phase == "Failed":
        return "failed"
    return "pending"


def toleration_seconds_for(pod: Pod, taints: Any) -> int | None:
    """The tolerationSeconds behind the pod's eviction deadline, by the taint manager's own
    rule (controllers/tainteviction: the *first* toleration matching each NoExecute taint,
    then the least of those), so the card's ``/300s`` is the number the deadline came from."""
    ok, used = matching_tolerations(no_execute_taints(taints), pod.spec.tolerations)
    secs = min_toleration_time(used) if ok else 0.0
    return int(secs) if secs > 0 else None


def summarize(session: Session, node: Node) -> NodeSummary:
    store = session.store
    labels = node.metadata.labels
    shown = []
    for key in KEY_LABELS:
        if key in labels:
            value = labels[key]
            prefix = LABEL_SHORT.get(key, f"{key}=")
            shown.append(f"{prefix}{value}" if value else key)
    taints = tuple((t.to_string(), t.effect, t.key) for t in node.spec.taints)
    conditions = problem_conditions(node)
    has_no_execute = any(t.effect == NO_EXECUTE for t in node.spec.taints)
    alloc = node.allocatable_amounts
    cpu = mem = count = 0
    marks = []
    for pod in store.pods_on_node(node.name):
        if pod.is_terminated:
            state = pod_card_state(pod)
            marks.append(PodMark(pod.metadata.namespace, pod.metadata.name, state,
                                 pod_marker(pod)))
            continue
        count += 1
        req = pod.spec.requests
        cpu += req.get("cpu", 0)
        mem += req.get("memory", 0)
        deadline = secs = None
        # A pod already being deleted is terminating, not counting down.
        if has_no_execute and pod.metadata.deletion_timestamp is None:
            deadline = session.eviction_deadline(pod)
            if deadline is not None:
                secs = toleration_seconds_for(pod, node.spec.taints)
        marks.append(PodMark(pod.metadata.namespace, pod.metadata.name, pod_card_state(pod),
                             pod_marker(pod), deadline, secs))
    marks.sort(key=lambda m: m.sort_key)
    return NodeSummary(
        # kubectl's STATUS without ",SchedulingDisabled" (the card shows cordoning itself).
        name=node.name, status=node_status(node).split(",")[0],
        cordoned=bool(node.spec.unschedulable), roles=",".join(node_roles(node)) or "<none>",
        labels=tuple(shown),
        taints=taints, conditions=conditions, cpu=(cpu, alloc.get("cpu", 0)),
        memory=(mem, alloc.get("memory", 0)), pods_used=(count, alloc.get("pods", 0)),
        pods=tuple(marks), ready_condition=node.ready)


def clock_text(seconds: float) -> str:
    """A countdown as ``4:32`` (or ``1:02:03`` past an hour)."""
    s = max(0, int(seconds + 0.999))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def chip_text(text: str, width: int) -> str:
    """A taint chip that fits ``width``: the well-known prefix goes before the effect does
    (``node.kubernetes.io/unreachable:NoExecute`` → ``…/unreachable:NoExecute``). Taint keys
    and values are ASCII, so a character is a cell."""
    if len(text) <= width:
        return text
    _prefix, slash, rest = text.partition("/")
    if slash:
        text = "…/" + rest
        if len(text) <= width:
            return text
    return text[: max(0, width - 1)] + "…" if width > 0 else ""


def chip_lines(taints: tuple[tuple[str, str, str], ...], inner: int) -> int:
    """Lines the taint chips take when wrapped into ``inner`` cells (one space between)."""
    if not taints:
        return 0
    lines, used = 1, 0
    for text, _effect, _key in taints:
        w = len(chip_text(text, inner))
        if used and used + 1 + w > inner:
            lines += 1
            used = w
        else:
            used = w if not used else used + 1 + w
    return lines


def shown_pods(summary: NodeSummary, max_pods: int) -> tuple[int, int]:
    """(pod lines drawn, pods left out). A "+N more" line replaces the last one when needed."""
    n = len(summary.pods)
    if n <= max_pods:
        return n, 0
    return max_pods - 1, n - (max_pods - 1)


@attrs.frozen
class CardShape:
    """What a card's height depends on — cheap to read for all 1,000 nodes, where a full
    :class:`NodeSummary` is only built for the cards on screen."""

    taints: tuple[tuple[str, str, str], ...]
    conditions: bool
    pods: int
    no_execute: bool


def problem_conditions(node: Node) -> tuple[str, ...]:
    out = []
    ready = node.status.condition("Ready")
    if ready is not None and ready.status != "True" and ready.reason:
        out.append(ready.reason)
    for name in PROBLEM_CONDITIONS:
        c = node.status.condition(name)
        if c is not None and c.status == "True":
            out.append(name)
    return tuple(out)


def card_shape(store: Store, node: Node) -> CardShape:
    taints = tuple((t.to_string(), t.effect, t.key) for t in node.spec.taints)
    return CardShape(taints, bool(problem_conditions(node)), len(store.pods_on_node(node.name)),
                     any(t[1] == NO_EXECUTE for t in taints))


def card_height(card: NodeSummary | CardShape, width: int, max_pods: int) -> int:
    inner = max(1, width - 4)
    n = card.pods if isinstance(card, CardShape) else len(card.pods)
    has_conditions = bool(card.conditions)
    shown, more = (n, 0) if n <= max_pods else (max_pods - 1, n - (max_pods - 1))
    return (FIXED_LINES + chip_lines(card.taints, inner) + (1 if has_conditions else 0)
            + max(1, shown + (1 if more else 0)))
