"""ExplainScreen: why a pod is (or is not) placed where it is, updated as the cluster changes.

The scheduler computes the explanation on demand (``session.explain(ns, name)``, ≤ 50 ms at
5,000 nodes); the screen asks again after changes, at most a few times a second. It shows the
"0/N nodes are available: …" line (or the chosen node), a legend of the plugin columns and
weights, and the node × plugin matrix.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Static

from ...api.errors import KsandboxError
from ..model import ChangeSet
from ..widgets.explain_matrix import ExplainMatrix, short_name
from ..widgets.header import sim_time_text
from .base import KsScreen, Target

# Real seconds between two recomputations while the cluster keeps changing.
MIN_INTERVAL = 0.25


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
        yield Static(id="explain-legend")
        yield ExplainMatrix(id="matrix")

    @property
    def matrix(self) -> ExplainMatrix:
        return self.query_one(ExplainMatrix)

    def on_mount(self) -> None:
        super().on_mount()
        self.recompute()
        self.matrix.focus()
        self.set_interval(MIN_INTERVAL, self._maybe_recompute)

    def refresh_view(self, changes: ChangeSet) -> None:
        if not changes.empty:
            self._stale = True
        self._maybe_recompute()

    def _maybe_recompute(self) -> None:
        if self._stale and time.perf_counter() - self._last >= MIN_INTERVAL:
            self.recompute()

    def action_reload(self) -> None:
        self.recompute()

    def recompute(self) -> None:
        try:
            self._recompute()
        except NoMatches:  # closed before it finished opening
            pass

    def _recompute(self) -> None:
        self._stale = False
        self._last = time.perf_counter()
        session = self.session
        title = Text()
        title.append("explain ", "bold")
        title.append(f"pod/{self.namespace}/{self.pod_name}", "bold")
        title.append(f"   at {sim_time_text(session.now)}", "dim")
        self.query_one("#explain-title", Static).update(title)
        message = self.query_one("#explain-message", Static)
        legend = self.query_one("#explain-legend", Static)
        try:
            explanation = session.explain(self.namespace, self.pod_name)
            data = explanation_dict(explanation)
        except KsandboxError as exc:
            self.error = str(exc)
            message.update(Text(self.error, "bold"))
            message.set_class(True, "-warning")
            return
        except Exception as exc:  # a scheduler bug must not take the UI down
            self.error = f"explain failed: {exc}"
            message.update(Text(self.error, "bold"))
            message.set_class(True, "-warning")
            return
        self.error = ""
        weights = explanation_weights(explanation, data)
        selected = data.get("selected")
        pod = session.store.get("Pod", self.pod_name, self.namespace)
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
        message.update(line)
        self.matrix.set_explanation(data, weights,
                                    tuple(getattr(explanation, "filter_plugins", ()) or ()))
        names = [*self.matrix.filters, *self.matrix.scores]
        legend.update(Text("  ".join(f"{short_name(p)}={p}" for p in dict.fromkeys(names)),
                           "dim"))

    def target(self) -> Target | None:
        name = self.matrix.selected_name
        if self.focused is self.matrix and name:
            return Target("Node", "", name)
        return Target("Pod", self.namespace, self.pod_name)

    def explain_target(self) -> Target | None:
        return Target("Pod", self.namespace, self.pod_name)
