"""ExplainScreen: why a pod is (or is not) placed where it is, updated as the cluster changes.

The scheduler computes the explanation on demand (``session.explain(ns, name)``, ≤ 50 ms at
5,000 nodes); the screen asks again after changes, at most a few times a second. It shows the
"0/N nodes are available: …" line (or the chosen node), a legend of the plugin columns and
weights, and the node × plugin matrix — and beside it, in the learner's words
(:mod:`ksandbox.views.pod_asks`): what the pod asks for, PodTopologySpread's per-domain counts
and skews, and what the node under the cursor answered. A pod bound through ``spec.nodeName``
gets the truth first (the scheduler never saw it; its kubelet admitted or rejected it, or the
node does not exist), and a banner says what a disrupted zone does to evictions (every zone
fully disrupted: the node lifecycle controller evicts nobody). ``d`` describes the explained pod.

The explanation is computed in a worker thread, never on the UI thread: at 1,000 nodes it took
~150 ms, a stall of every key and frame. While it runs the screen says "computing…" (and keeps
the last matrix), the clock waits for it (``app.sim_lock``: nothing writes the sandbox while a
worker reads it), and a result that is no longer wanted — a newer one was asked for, or the
screen closed — is dropped.
"""

from __future__ import annotations

import time
from typing import Any

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Static

from ...api.errors import KsandboxError
from ...controllers.nodelifecycle import (
    STATE_FULL_DISRUPTION,
    STATE_PARTIAL_DISRUPTION,
    NodeLifecycleController,
    zone_name,
)
from ...scheduler.spread_facts import spread_facts
from ...views.pod_asks import node_answers, pod_asks, spread_lines
from ..model import ChangeSet
from ..widgets.explain_matrix import ExplainMatrix, short_name
from ..widgets.header import sim_time_text
from .base import KsScreen, Target

# Real seconds between two recomputations while the cluster keeps changing.
MIN_INTERVAL = 0.25
# Narrower than this, the learner's panel goes below the matrix (the matrix keeps its full
# width for the REASON column) instead of beside it.
SIDE_BY_SIDE = 180


def disruption_banner(session: Any) -> str:
    """What the node lifecycle controller's zone states mean for evictions, or "" if nothing.

    As upstream pkg/controller/nodelifecycle (handleDisruption, setLimiterInZone): when every
    zone is FullDisruption the controller assumes the control plane is at fault, marks every
    node reachable again and evicts nobody; a single zone in FullDisruption while others are
    healthy keeps the normal eviction rate (the zone is taken to be really down); a zone in
    PartialDisruption stops evicting in a small cluster and slows down in a large one.
    """
    nlc = next((c for c in session.cp.components.values()
                if isinstance(c, NodeLifecycleController)), None)
    if nlc is None or not nlc.zone_states:
        return ""
    states = nlc.zone_states
    full = sorted(zone_name(z) for z, st in states.items() if st == STATE_FULL_DISRUPTION)
    partial = sorted(zone_name(z) for z, st in states.items()
                     if st == STATE_PARTIAL_DISRUPTION)
    lines = []
    if full and len(full) == len(states):
        lines.append("⚠ every zone fully disrupted (no node Ready): the node lifecycle "
                     "controller assumes the control plane is at fault and has stopped "
                     "evicting pods everywhere")
    elif full:
        lines.append(f"⚠ zone {', '.join(full)} fully disrupted (no node Ready) while other "
                     "zones are healthy: evictions there continue at the normal rate")
    if partial:
        lines.append(f"⚠ zone {', '.join(partial)} partially disrupted (≥55% NotReady): "
                     "evictions there stop (≤50 nodes) or slow down")
    return "\n".join(lines)


def explanation_dict(explanation: Any) -> dict:
    if isinstance(explanation, dict):
        return explanation
    return explanation.to_dict()


def explanation_weights(explanation: Any, data: dict) -> dict[str, int]:
    """Score plugin → weight, in the profile's order (``Explanation.score_plugins``)."""
    weights = (data.get("weights") or getattr(explanation, "score_plugins", None)
               or getattr(explanation, "weights", None) or {})
    try:
        return {str(k): int(v) for k, v in dict(weights).items()}
    except (TypeError, ValueError):
        return {}


@attrs.frozen
class Explained:
    """What a worker computed for the screen (plain values; the screen draws them)."""

    explanation: Any = None
    data: dict = attrs.field(factory=dict)
    weights: dict[str, int] = attrs.field(factory=dict)
    pod: Any = None
    spread: tuple[Any, ...] = ()
    banner: str = ""
    error: str = ""
    facts_error: str = ""


def compute_explanation(session: Any, namespace: str, name: str) -> Explained:
    """Everything the explain screen shows that costs time (run in a worker thread)."""
    try:
        explanation = session.explain(namespace, name)
        data = explanation_dict(explanation)
    except KsandboxError as exc:
        return Explained(error=str(exc))
    except Exception as exc:  # noqa: BLE001 - a scheduler bug must not take the UI down
        return Explained(error=f"explain failed: {exc}")
    pod = session.store.get("Pod", name, namespace)
    spread: tuple[Any, ...] = ()
    facts_error = ""
    if pod is not None:
        try:
            spread = tuple(spread_facts(session.cp.scheduler, pod))
        except Exception as exc:  # noqa: BLE001 - never take the screen down for the panel
            facts_error = f"spread facts failed: {exc}"
    return Explained(explanation, data, explanation_weights(explanation, data), pod, spread,
                     disruption_banner(session), "", facts_error)


class ExplainScreen(KsScreen):
    BINDINGS = [Binding("d", "describe", "Describe", id="object.describe"),
                Binding("y", "yaml", "YAML", show=False, id="object.yaml"),
                Binding("ctrl+r", "reload", "Refresh", show=False, id="view.refresh")]
    view_name = "explain"

    def __init__(self, namespace: str, name: str) -> None:
        super().__init__()
        self.namespace = namespace
        self.pod_name = name
        self._last = 0.0
        self._stale = False
        self.error = ""

    def compose_body(self) -> ComposeResult:
        yield Static(id="explain-title")
        yield Static(id="explain-message")
        yield Static(id="explain-banner")
        yield Static(id="explain-legend")
        with Horizontal(id="explain-body"):
            yield ExplainMatrix(id="matrix")
            with VerticalScroll(id="explain-asks"):
                yield Static(id="explain-asks-text")

    def on_resize(self, event: Any) -> None:
        try:
            self.query_one("#explain-body").set_class(self.size.width < SIDE_BY_SIDE,
                                                      "-narrow")
        except NoMatches:
            pass

    @property
    def matrix(self) -> ExplainMatrix:
        return self.query_one(ExplainMatrix)

    def on_mount(self) -> None:
        super().on_mount()
        try:
            matrix = self.matrix
        except NoMatches:  # closed before it finished opening (a burst of keys)
            return
        self.recompute()
        matrix.focus()
        self.set_interval(MIN_INTERVAL, self._maybe_recompute)
        self.watch(matrix, "cursor", lambda _old, _new: self._show_asks(), init=False)

    def refresh_view(self, changes: ChangeSet) -> None:
        if not changes.empty:
            self._stale = True
        self._maybe_recompute()

    def _maybe_recompute(self) -> None:
        if self._stale and not self.computing \
                and time.perf_counter() - self._last >= MIN_INTERVAL:
            self.recompute()

    def action_reload(self) -> None:
        self.recompute()

    computing = False
    """A worker is computing the explanation (the screen says so)."""
    _request = 0

    def recompute(self) -> None:
        """Ask for a fresh explanation; it is computed in a worker and shown when it comes."""
        self._stale = False
        self._last = time.perf_counter()
        self._request += 1
        request = self._request
        try:
            self._show_title()
            if not self.computing and not getattr(self, "_shown", False):
                message = self.query_one("#explain-message", Static)
                message.update(Text("computing…", "dim"))
        except NoMatches:  # closed before it finished opening
            return
        self.computing = True
        session, lock = self.session, self.app.sim_lock  # type: ignore[attr-defined]

        def work() -> None:
            with lock:  # the clock and commands wait: nothing writes while this reads
                result = compute_explanation(session, self.namespace, self.pod_name)
            try:
                self.app.call_from_thread(self._apply, request, result)
            except RuntimeError:  # the app is gone
                pass

        self.run_worker(work, thread=True, group="explain", exit_on_error=False)

    def _show_title(self) -> None:
        title = Text()
        title.append("explain ", "bold")
        title.append(f"pod/{self.namespace}/{self.pod_name}", "bold")
        title.append(f"   at {sim_time_text(self.session.now)}", "dim")
        self.query_one("#explain-title", Static).update(title)

    def _apply(self, request: int, result: "Explained") -> None:
        """Show a worker's result — unless a newer one was asked for meanwhile (that one
        will be shown) or the screen has closed."""
        if request != self._request or not self.is_mounted:
            return
        self.computing = False
        try:
            self._show(result)
        except NoMatches:  # closing
            pass

    def _show(self, result: "Explained") -> None:
        self._shown = True
        message = self.query_one("#explain-message", Static)
        legend = self.query_one("#explain-legend", Static)
        if result.error:
            self.error = result.error
            message.update(Text(self.error, "bold"))
            message.set_class(True, "-warning")
            return
        self.error = result.facts_error
        data, explanation, pod = result.data, result.explanation, result.pod
        selected = data.get("selected")
        bound = pod.spec.node_name if pod is not None else ""
        line = Text()
        if selected:
            line.append("✔ ", "bold")
            line.append(f"would place it on {selected}", "bold")
            if bound:
                line.append(f"   (bound to {bound})")
            message.set_class(False, "-warning")
        else:
            line.append(data.get("message") or "no node fits", "bold")
            if bound:
                line.append(f"   (bound to {bound})")
            message.set_class(True, "-warning")
        if data.get("scheduler") and data.get("scheduler") != "default-scheduler":
            line.append(f"   scheduler: {data['scheduler']}")
        facts = getattr(explanation, "bound", None)
        if facts is not None and not facts.by_scheduler:
            # The truth first: the scheduler never saw it; the table is only a what-if.
            line = Text(facts.summary(f"{self.namespace}/{self.pod_name}"), "bold")
            line.append("\nthe matrix below is a what-if: where the scheduler would put it "
                        "with nodeName cleared", "dim")
            message.set_class(facts.kubelet != "admitted", "-warning")
        message.update(line)
        banner = self.query_one("#explain-banner", Static)
        banner.update(Text(result.banner, "bold"))
        banner.display = bool(result.banner)
        self._pod = pod
        self._bypassed = facts is not None and not facts.by_scheduler
        self._facts: tuple[Any, ...] = result.spread
        self.matrix.set_explanation(data, result.weights,
                                    tuple(getattr(explanation, "filter_plugins", ()) or ()))
        names = [*self.matrix.filters, *self.matrix.scores]
        legend.update(Text("  ".join(f"{short_name(p)}={p}" for p in dict.fromkeys(names)),
                           "dim"))
        self._show_asks()

    def _show_asks(self) -> None:
        """The learner's panel: the pod's wishes, the spread arithmetic, one node's answers."""
        try:
            panel = self.query_one("#explain-asks-text", Static)
        except NoMatches:
            return
        pod = getattr(self, "_pod", None)
        if pod is None:
            panel.update("")
            return
        text = Text()
        text.append("THE POD ASKS FOR\n", "bold underline")
        bypassed = getattr(self, "_bypassed", False)
        for line in pod_asks(pod, bypassed):
            text.append(f"  {line}\n")
        node_name = self.matrix.selected_name
        facts = getattr(self, "_facts", ())
        if facts:
            text.append("\nTOPOLOGY SPREAD\n", "bold underline")
            for line in spread_lines(facts):
                text.append(f"{line}\n", _mark_style(line))
        node = self.session.store.get("Node", node_name) if node_name else None
        if node is not None and node_name:
            text.append(f"\n{node_name.upper()} ANSWERS\n", "bold underline")
            skews = [line.strip() for line in spread_lines(facts, node_name)
                     if line.strip()[:1] in ("✓", "✗", "·")]
            answers = node_answers(pod, node, bypassed) + [f"spread: {line}" for line in skews]
            for line in answers or ["(nothing the pod asks of a node's labels or taints)"]:
                text.append(f"  {line}\n", _mark_style(line))
        panel.update(text)

    def target(self) -> Target | None:
        # d / y describe the explained pod; node keys act on the node under the cursor.
        return Target("Pod", self.namespace, self.pod_name)

    def node_target(self) -> str | None:
        name = self.matrix.selected_name
        return name if self.focused is self.matrix and name else None

    def explain_target(self) -> Target | None:
        return Target("Pod", self.namespace, self.pod_name)


def _mark_style(line: str) -> str:
    stripped = line.strip()
    if stripped.startswith("✗"):
        return "bold red"
    if stripped.startswith("✓"):
        return "green"
    return ""
