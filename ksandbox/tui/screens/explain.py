"""ExplainScreen: why a pod is (or is not) placed where it is, updated as the cluster changes.

The scheduler computes the explanation on demand (``session.explain(ns, name)``); the screen
asks again after changes, at most a few times a second. It shows the
"0/N nodes are available: …" line (or the chosen node), a legend of the plugin columns and
weights, and the node × plugin matrix — and beside it, in the learner's words
(:mod:`ksandbox.views.pod_asks`): what the pod asks for, PodTopologySpread's per-domain counts
and skews, and what the node under the cursor answered. A pod bound through ``spec.nodeName``
gets the truth first (the scheduler never saw it; its kubelet admitted or rejected it, or the
node does not exist), and a banner says what a disrupted zone does to evictions (every zone
fully disrupted: the node lifecycle controller evicts nobody). ``d`` describes the explained pod.

The explanation is computed in a worker thread, never on the UI thread (at 1,000 nodes it
costs ~50-150 ms): the screen says "computing…" at once and keeps its last matrix while a newer
one is computed; the worker holds ``Session.lock`` while it reads (the clock skips its ticks,
commands and forks wait), so it sees one moment of the cluster; an answer overtaken by a newer
request, for another session, or arriving after the view closed is dropped. The matrix is laid
out (sorted, measured) in the worker too, and results are cached per (pod, store version).
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.widget import Widget
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
from ..widgets.explain_matrix import EMPTY, ExplainMatrix, MatrixLayout, matrix_layout, short_name
from ..widgets.header import sim_time_text
from ..widgets.key_footer import KeyFooter
from ..widgets.key_scroll import KeyScroll
from ..widgets.static_content import put
from .base import KsScreen, Target

# Real seconds between two recomputations while the cluster keeps changing (at least; and at
# least COST_FACTOR times what the last one cost).
MIN_INTERVAL = 0.25
COST_FACTOR = 4.0
# Narrower than this, the learner's panel goes below the matrix (the matrix keeps its full
# width for the REASON column) instead of beside it.
SIDE_BY_SIDE = 180
COMPUTING = "computing the scheduler's verdicts…"


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
    """What the worker computed for one pod at one moment: plain values the screen draws.

    ``version`` is the store's resource version it was computed at and ``now`` the simulated
    time (None: not known): a result whose version is no longer the store's is an older
    moment — the title says when, and a fresh one is asked for."""

    namespace: str = ""
    name: str = ""
    version: int | None = None
    now: float | None = None
    explanation: Any = None
    data: dict = attrs.field(factory=dict)
    layout: MatrixLayout = EMPTY
    pod: Any = None
    spread: tuple[Any, ...] = ()
    banner: str = ""
    error: str = ""
    facts_error: str = ""


def compute_explanation(session: Any, namespace: str, name: str) -> Explained:
    """Everything the explain screen shows that costs time, for a worker thread.

    The caller holds the session's lock (``Session.lock``): the clock, commands and forks
    wait (the UI's clock tick skips while it is held), so every fact comes from one moment of
    the cluster. The facts are the scheduler's (``session.explain``) and ``spread_facts``;
    this only gathers them and lays the matrix out. Never raises: an error is a result with
    ``error`` set."""
    version, now = session.resource_version, session.now
    try:
        explanation = session.explain(namespace, name)
        data = explanation_dict(explanation)
    except KsandboxError as exc:
        return Explained(namespace, name, version, now, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - a scheduler bug must not take the UI down
        return Explained(namespace, name, version, now, error=f"explain failed: {exc}")
    pod = session.store.get("Pod", name, namespace)
    spread: tuple[Any, ...] = ()
    facts_error = ""
    if pod is not None:
        try:
            spread = tuple(spread_facts(session.cp.scheduler, pod))
        except Exception as exc:  # noqa: BLE001 - never take the screen down for the panel
            facts_error = f"spread facts failed: {exc}"
    banner = disruption_banner(session)
    weights = explanation_weights(explanation, data)
    layout = matrix_layout(data, weights,
                           tuple(getattr(explanation, "filter_plugins", ()) or ()))
    return Explained(namespace, name, version, now, explanation, data, layout, pod, spread,
                     banner, "", facts_error)


# The last explanations computed, per session: reopening explain on a pod whose cluster has
# not changed since (a paused clock) shows it at once. Keyed by the store's version.
_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], Explained]] = \
    weakref.WeakKeyDictionary()
CACHE_PODS = 4


def cached(session: Any, namespace: str, name: str) -> Explained | None:
    hit = _CACHE.get(session, {}).get((namespace, name))
    if hit is not None and hit.version == session.resource_version:
        return hit
    return None


def remember(session: Any, result: Explained) -> None:
    per = _CACHE.setdefault(session, {})
    per.pop((result.namespace, result.name), None)
    per[(result.namespace, result.name)] = result
    while len(per) > CACHE_PODS:
        del per[next(iter(per))]


# The app's explain view, kept when it closes and pushed again for the next pod: a new one
# costs the UI thread ~60 ms at 1,000 nodes before its first frame (composing and mounting its
# widgets, the stylesheet applied three times over them). With the real clock, the first one is
# built in idle time after the app's first frame (prebuild_explain), with no pod yet.
_KEPT: weakref.WeakKeyDictionary[Any, ExplainScreen] = weakref.WeakKeyDictionary()
KEPT_NAME = "ksandbox-explain"


def open_explain(app: Any, namespace: str, name: str) -> None:
    """Push the explain view of a pod: the kept one when it is closed (not on any screen
    stack), it was made for the terminal's size now and a recording plays as it did then (the
    playback bar is composed in or not), else a new one, which is kept (installed: Textual
    removes a popped screen unless it is installed)."""
    kept = _KEPT.get(app)
    if kept is not None and kept.is_attached and kept.made_for == app.size \
            and bool(kept.query("PlayerPane")) == (getattr(app, "player", None) is not None) \
            and not app.is_on_a_stack(kept):
        app.push_screen(kept)  # on the stack at once; drawn after reopen emptied it
        kept.reopen(namespace, name)
        # Laid out now, before its first frame: the emptied widgets' own layout requests come
        # through the message queue, after the repaint the push asks for, and that first
        # frame kept the last pod's heights (blank rows).
        for node in (kept, *kept.query("#explain-body, #explain-asks")):
            node._clear_arrangement_cache()  # else the last pod's heights are reused
        # And drawn whole: the terminal shows the screen beneath until then, and a partial
        # update draws only what the layout moved or what asked for a repaint (at times
        # nothing: the emptied widgets' requests are still queued).
        kept._set_dirty()
        kept._dirty_widgets.add(kept)
        kept._refresh_layout(app.size)
        # Whatever was asked before this full layout is done (a view laid out ahead, off
        # screen, still had its widgets' requests from then): no second layout after the
        # first frame, and no second whole repaint when its ScreenResume comes.
        kept._layout_required = False
        kept.drawn_at_push()
        return
    screen = ExplainScreen(namespace, name)
    if kept is None or not app.is_on_a_stack(kept):
        _forget(app, kept)
        app.install_screen(screen, KEPT_NAME)
        _KEPT[app] = screen
    app.push_screen(screen)


def _forget(app: Any, kept: Any) -> None:
    """Drop a kept view that no longer fits (laid out at another size, or before a recording
    started or stopped playing): a new one takes its place."""
    if kept is not None and app.is_screen_installed(kept):
        app.uninstall_screen(kept)
        if kept.is_attached:
            kept.remove()


def prebuild_explain(app: Any) -> None:
    """Compose, mount and lay out the app's kept explain view while the app is idle, off
    screen and with no pod yet, so that the first `e` of a session reopens it (open_explain)
    as every later one does, instead of building a new one (~60 ms of UI thread at 1,000
    nodes before its first frame). Textual starts an installed screen when asked for it
    (``_get_screen``); it is shown only by open_explain, which first empties it for its pod.
    A view kept already, or one of ours on the stack, is left as it is."""
    kept = _KEPT.get(app)
    if kept is not None and kept.is_attached and kept.made_for == app.size:
        return
    if kept is not None and app.is_on_a_stack(kept):
        return
    _forget(app, kept)
    screen = ExplainScreen()
    app.install_screen(screen, KEPT_NAME)
    _KEPT[app] = screen
    # Composed and mounted through the message queue, off screen.
    _, mounted = app._get_screen(screen)

    async def lay_out_ahead() -> None:
        # Laid out once off screen too, in the screen's own queue: its widgets get their
        # sizes now, not in open_explain's layout, which then resized them all and asked for
        # a second layout and full repaint of the screen after its first frame.
        await mounted
        if screen.is_attached and screen.made_for == app.size and not app.is_on_a_stack(screen):
            screen._refresh_layout(app.size)
            screen._styled_for = screen._style_inputs()  # mounted: styled as things are now
            screen.shape_ahead()

    screen.call_later(lay_out_ahead)


class ExplainScreen(KsScreen):
    """The explain view. The explanation is computed in a worker thread, never on the UI
    thread (at 1,000 nodes it costs ~50-150 ms): the screen opens at once saying
    "computing…", keeps the last matrix on show while a newer one is computed, and drops a
    result nobody asked for any more (a newer request, another session, a closed screen)."""

    BINDINGS = [Binding("d", "describe", "Describe", id="object.describe"),
                Binding("y", "yaml", "YAML", show=False, id="object.yaml"),
                Binding("ctrl+r", "reload", "Refresh", show=False, id="view.refresh")]
    view_name = "explain"

    def __init__(self, namespace: str = "", name: str = "") -> None:
        """``name`` "": no pod yet (prebuild_explain); reopen gives it one as it is pushed."""
        super().__init__()
        self.namespace = namespace
        self.pod_name = name
        self.made_for: Any = None
        """The terminal's size this view was composed or last resized at (open_explain
        reopens it only at that size)."""
        self._last = 0.0
        self._stale = False
        self.error = ""
        self.request = 0
        """Serial of the latest computation asked for; a result of an older one is dropped."""
        self.computing = False
        """A worker is computing (at most one at a time; a newer request waits for it)."""
        self.shown: Explained | None = None
        """The result on show (None: nothing yet)."""
        self._pod: Any = None
        self._bypassed = False
        self._facts: tuple[Any, ...] = ()
        self._delivered = 0
        self._gap = MIN_INTERVAL
        self._awaited = False
        """Nothing on show yet and an answer asked for: the frame that shows it is owed."""
        self._reading = False
        """A worker holds the session's lock (set from its thread)."""

    def compose_body(self) -> ComposeResult:
        self.made_for = self.app.size
        yield Static(id="explain-title")
        yield Static(Text(COMPUTING, "dim"), id="explain-message")
        yield Static(id="explain-banner")
        yield Static(id="explain-legend")
        # The panel's place for this width now, not on the first Resize: that class, new after
        # the first layout, restyled and laid the whole screen out again (and a view built
        # ahead drew its first frame with the panel on the wrong side).
        with Horizontal(id="explain-body",
                        classes="-narrow" if self.app.size.width < SIDE_BY_SIDE else ""):
            yield ExplainMatrix(id="matrix")
            with KeyScroll(id="explain-asks"):
                yield Static(id="explain-asks-text")

    def on_resize(self, event: Any) -> None:
        self.made_for = self.app.size
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
        # The worker starts now, while the screen's first frame is being laid out: the two
        # share the interpreter, so "computing…" comes a little later, but the answer much
        # sooner than when the worker waited for that frame (1,000 nodes / 30,000 pods, same
        # process, alternated, busy machine: the result's frame 538 -> 434 ms, the first
        # frame 201 -> 259 ms; the UI thread's CPU for the whole opening 167 -> 150 ms).
        # A view built ahead with no pod (prebuild_explain) computes nothing until reopen.
        if self.pod_name:
            self.recompute()
        matrix.focus()
        self.set_interval(MIN_INTERVAL, self._maybe_recompute)
        self.watch(matrix, "cursor", lambda _old, _new: self._show_asks(), init=False)

    def refresh_view(self, changes: ChangeSet) -> None:
        if not changes.empty:
            self._stale = True
        self._maybe_recompute()

    def _maybe_recompute(self) -> None:
        # is_open first: a kept view's timer still runs while it is closed, and while the
        # app closes (no screen on the stack: app.screen raises).
        if self._stale and not self.computing and self.is_open and self.app.screen is self \
                and time.perf_counter() - self._last >= self._gap:
            self.recompute()

    def action_reload(self) -> None:
        self.recompute()

    def reopen(self, namespace: str, name: str) -> None:
        """Make this closed view the explain view of another pod (or the same one again),
        as a new one would open: nothing of the last pod stays on show (the verdict line,
        the banner, the legend, the matrix and the learner's panel are emptied as it is
        pushed again, before its first frame), the cursor is on the first node, the matrix has the focus,
        and the answer is computed afresh or taken from the cache."""
        self._dismissed = False
        self.generation = self.model.generation
        self.error = ""
        self._pod, self._bypassed, self._facts = None, False, ()
        self._stale, self._gap = False, MIN_INTERVAL
        message = self.query_one("#explain-message", Static)
        rows = message.size.height if message.is_mounted else 1
        put(message, Text(COMPUTING + "\n" * (rows - 1), "dim"))
        message.set_class(False, "-warning")
        banner = self.query_one("#explain-banner", Static)
        if banner.display:
            banner.display = False
        # The legend and the learner's panel are emptied to blank rows as many as they had,
        # and the matrix keeps room for one row per node: an answer of the same shape (a
        # pod of the same profile, any pod's matrix) then takes their places without a
        # layout of the screen.
        put(self.query_one("#explain-legend", Static), _blank_like(
            self.query_one("#explain-legend", Static)))
        matrix = self.matrix
        matrix.reserved = Size(matrix.content_width() if matrix.row_count() else 0,
                               self.session.store.count("Node"))
        matrix.set_layout(EMPTY)
        matrix.scroll_to(0, 0, animate=False, immediate=True)
        self.query_one("#explain-asks", KeyScroll).scroll_to(0, 0, animate=False,
                                                                   immediate=True)
        panel = self.query_one("#explain-asks-text", Static)
        put(panel, _blank_like(panel))  # the panel, emptied
        self.set_focus(matrix)
        # A view built ahead was on no stack: its crumbs and its key line were read then.
        self.show_crumbs()
        for footer in self.query(KeyFooter):
            footer.update_keys()
        self.retarget(namespace, name)

    def retarget(self, namespace: str, name: str) -> None:
        """Explain another pod here: whatever is being computed for the old one is dropped."""
        self.namespace, self.pod_name = namespace, name
        self.shown = None
        self.recompute()

    @property
    def frame_owed(self) -> bool:
        """The view has nothing on show and its answer is on the way, but no worker is reading
        the sandbox: the app's clock gives way for a few ticks (KsandboxApp._tick), as it does
        for a screen's first frame. A tick is 10-15 ms at 1,000 nodes / 30,000 pods; one
        before the worker takes the lock, or between its end and the answer's frame, was
        paid by the key that opened the view. (While the worker reads, the clock waits on the
        lock anyway.)"""
        return self._awaited and not self._reading

    @property
    def answer_owed(self) -> bool:
        """The view waits for its first answer (computing, or about to): the collector waits
        too, until the frame that shows it (KsandboxApp._display, gc_hold.py). Not owed any
        more once the answer is shown, so the frame that writes it releases the collector."""
        return self._awaited and self.shown is None

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()
        if self._awaited and self.shown is not None:
            self._awaited = False  # the answer's frame is out

    def recompute(self) -> None:
        """Ask for a fresh explanation: shown at once from the cache when the cluster has not
        changed since it was computed, else computed in a worker and shown when it comes."""
        self._stale = False
        self._last = time.perf_counter()
        self.request += 1
        self._awaited = self.shown is None
        session = self.session
        hit = cached(session, self.namespace, self.pod_name)
        if hit is not None:
            self._deliver(self.request, session, hit)
            return
        self._show_title()
        if self.computing:
            return  # the running worker's result is dropped; _deliver asks again
        self.computing = True
        request, namespace, name = self.request, self.namespace, self.pod_name

        def work() -> tuple[int, Any, Explained, float]:
            with session.lock:  # one moment of the cluster (see Session.lock)
                self._reading = True
                try:
                    t0 = time.perf_counter()
                    result = compute_explanation(session, namespace, name)
                    return request, session, result, time.perf_counter() - t0
                finally:
                    self._reading = False

        self.run_worker(work, thread=True, group="explain", exit_on_error=False)

    def shape_ahead(self) -> None:
        """Built ahead with no pod (prebuild_explain), the view takes the shape of an answer
        off screen: one pod's, computed in a worker as any answer is. The first `e` then
        reopens a view of an answer's shape, as every later `e` does: emptied to blank rows as
        tall as that answer's (reopen), and the pod's own answer, of the same shape for a pod
        of the same profile, written without a layout of the screen. Built empty, the first
        answer changed the legend's, the matrix's and the panel's heights: a layout, and every
        widget below the verdict drawn again (1,000 nodes / 3,000 pods, clock paused: the
        opening frame 118 lines, the answer's 83, against 75 and 35 for a reopened view)."""
        session = self.session
        first = next(iter(session.store.items("Pod")), None)
        if first is None:
            return
        (namespace, name), _pod = first

        def work() -> tuple[Any, Explained]:
            with session.lock:  # one moment of the cluster, as recompute's worker
                return session, compute_explanation(session, namespace, name)

        self.run_worker(work, thread=True, group="explain-ahead", exit_on_error=False)

    def _take_shape(self, session: Any, result: Explained) -> None:
        """Lay the view built ahead out with ``result`` on show, off screen, unless it was
        opened meanwhile (then its own answer is on the way) or no longer fits."""
        app: Any = self.app
        if result.error or session is not self.session or not self.is_attached \
                or app.is_on_a_stack(self) or self.made_for != app.size:
            return
        try:
            self._show(result)
        except NoMatches:
            return
        for node in (self, *self.query("#explain-body, #explain-asks")):
            node._clear_arrangement_cache()
        # Laid out until nothing asks for another layout: a scrollbar that a layout turns on
        # (the matrix's, now taller than its box) is placed only by the next one, and its size
        # set there asks for one more. Left to the opening, that took a second layout of the
        # view after its first frame (or in the answer's frame, if the answer came first).
        for _ in range(_SETTLE_LAYOUTS):
            self._refresh_layout(app.size)
            if not _meet_layout_requests(self.walk_children()):
                break
        self._layout_required = False
        # And drawn once, off screen (the frame is thrown away): the widgets that opening
        # leaves as they are (the key line, the crumbs, the bar, the frames, the scrollbars)
        # keep their drawn lines, as a view shown before does (the opening frame: 143 lines
        # drawn, against 75 for a view shown before).
        self._compositor.render_full_update()

    def on_worker_state_changed(self, event: Any) -> None:
        from textual.worker import WorkerState

        worker = event.worker
        if worker.group == "explain-ahead":
            if event.state == WorkerState.SUCCESS:
                self._take_shape(*worker.result)
            return
        if worker.group != "explain" or event.state not in (
                WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        self.computing = False
        if event.state == WorkerState.SUCCESS:
            request, session, result, cost = worker.result
            # While the cluster keeps changing, recompute at most every 4× what a computation
            # costs: the clock waits while a worker holds the lock, so it keeps >= 80% of the
            # time (at 1,000 nodes a computation is ~50-250 ms).
            self._gap = max(MIN_INTERVAL, COST_FACTOR * cost)
            self._last = time.perf_counter()
            self._deliver(request, session, result)
            self._draw_now()
        elif event.state == WorkerState.ERROR:  # compute_explanation catches; belt and braces
            self._delivered = self.request
            self._awaited = False
            try:
                self._show_title()
                self._show_error(f"explain failed: {worker.error}")
            except NoMatches:
                pass
        else:
            return  # cancelled: the screen is closing
        if self.is_open and self.request != self._delivered:
            self.recompute()  # asked again (another pod, ctrl+r) while the worker ran

    @property
    def is_open(self) -> bool:
        """On the screen stack (on show or covered); a closed view is kept for the next
        opening (open_explain) and neither shows nor computes anything meanwhile."""
        return self.is_attached and self in self.app.screen_stack

    def _deliver(self, request: int, session: Any, result: Explained) -> None:
        """Show a worker's result if it is still the one wanted: the latest request, for the
        session on show and the pod on show, while the view is open (a closed view is kept
        for the next opening: see open_explain). An older moment of the same pod is shown
        with its own time in the title and a fresh computation is asked for."""
        if not self.is_open or request != self.request or session is not self.session:
            return  # another pod, a newer request or another session: recompute() follows
        self._delivered = request
        if not result.error and result.version is not None:
            remember(session, result)
        if result.version is not None and result.version != session.resource_version:
            self._stale = True
        try:
            self._show(result)
        except NoMatches:  # closing
            pass

    def _draw_now(self) -> None:
        """Write a worker's answer's frame now, all of it: each widget the answer changed asks the
        screen for its repaint or its layout through the message queue, and Textual's update
        timer drew whatever had arrived when it fired (at 1,000 nodes the verdict line in one
        frame, the matrix and the panel 10-30 ms later; a clock tick could come in between).
        When the answer kept every height (the emptied view keeps the last one's: reopen), the
        repaints asked for are made here, in one frame. When a height changed, the screen is
        laid out here as Textual's timer would lay it out for those requests (the containers
        above a resized widget forget their arrangement, then a full layout, which draws the
        frame), and the requests are met."""
        app = self.app
        if not self.is_attached or app._batch_count or app.screen is not self \
                or getattr(app, "_painted", None) is not self or self._scroll_required \
                or self._recompose_required:
            return
        widgets = list(self.walk_children())
        if any(w._scroll_required for w in widgets):
            return
        dirty = self._dirty_widgets
        for widget in widgets:
            if widget._repaint_required and widget.display:
                widget._repaint_required = False
                dirty.add(widget)
        if _meet_layout_requests(widgets) or self._layout_required:
            self._refresh_layout(app.size)
            return
        if self._repaint_required:
            self._repaint_required = False
            dirty.add(self)
        if dirty:
            self._compositor.update_widgets(dirty)
            self._compositor_refresh()

    def _show_title(self) -> None:
        title = Text()
        title.append("explain ", "bold")
        title.append(f"pod/{self.namespace}/{self.pod_name}", "bold")
        shown = self.shown
        if shown is not None and shown.now is not None:
            title.append(f"   at {sim_time_text(shown.now)}", "dim")
        if self.computing or shown is None or self._stale:
            title.append("   computing…" if shown is None else "   updating…", "dim italic")
        try:
            put(self.query_one("#explain-title", Static), title)
        except NoMatches:
            pass

    def _show_error(self, error: str) -> None:
        self.error = error
        message = self.query_one("#explain-message", Static)
        put(message, Text(error, "bold"))
        message.set_class(True, "-warning")

    def _show(self, result: Explained) -> None:
        self.shown = result
        self._show_title()
        message = self.query_one("#explain-message", Static)
        legend = self.query_one("#explain-legend", Static)
        if result.error:
            self._show_error(result.error)
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
            line = Text(facts.summary(f"{result.namespace}/{result.name}"), "bold")
            line.append("\nthe matrix below is a what-if: where the scheduler would put it "
                        "with nodeName cleared", "dim")
            message.set_class(facts.kubelet != "admitted", "-warning")
        put(message, line)
        banner = self.query_one("#explain-banner", Static)
        if result.banner or banner.display:
            put(banner, Text(result.banner, "bold"))
        if banner.display != bool(result.banner):  # setting it at all asks for a layout
            banner.display = bool(result.banner)
        self._pod = pod
        self._bypassed = facts is not None and not facts.by_scheduler
        self._facts = result.spread
        self.matrix.set_layout(result.layout)
        names = [*self.matrix.filters, *self.matrix.scores]
        put(legend, Text("  ".join(f"{short_name(p)}={p}" for p in dict.fromkeys(names)),
                           "dim"))
        self._show_asks()

    def _show_asks(self) -> None:
        """The learner's panel: the pod's wishes, the spread arithmetic, one node's answers."""
        try:
            panel = self.query_one("#explain-asks-text", Static)
        except NoMatches:
            return
        pod = self._pod
        if pod is None:
            put(panel, "")
            return
        text = Text()
        text.append("THE POD ASKS FOR\n", "bold underline")
        bypassed = self._bypassed
        for line in pod_asks(pod, bypassed):
            text.append(f"  {line}\n")
        node_name = self.matrix.selected_name
        facts = self._facts
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
        put(panel, text)

    def target(self) -> Target | None:
        # d / y describe the explained pod; node keys act on the node under the cursor.
        return Target("Pod", self.namespace, self.pod_name)

    def node_target(self) -> str | None:
        name = self.matrix.selected_name
        return name if self.focused is self.matrix and name else None

    def explain_target(self) -> Target | None:
        return Target("Pod", self.namespace, self.pod_name)


_SETTLE_LAYOUTS = 4
"""Layouts of the view built ahead, at most, until no widget asks for another (two or three)."""


def _meet_layout_requests(widgets: list[Any]) -> bool:
    """Take the layout requests of ``widgets`` for the layout the caller makes next: each
    asking widget's ancestors forget their arrangement, as Textual's ``Widget._check_refresh``
    does before it posts the request to the screen. Whether any widget asked."""
    asked = False
    for widget in widgets:
        if not widget._layout_required:
            continue
        asked = True
        widget._layout_required = False
        for ancestor in widget.ancestors:
            if not isinstance(ancestor, Widget):
                break
            ancestor._clear_arrangement_cache()
            ancestor._layout_updates += 1
            if not ancestor.styles.auto_dimensions:
                break
    return asked


def _blank_like(static: Static) -> str:
    """Blank rows as many as ``static`` shows now ("" for none)."""
    rows = static.size.height if static.is_mounted and static.display else 0
    return "\n" * (rows - 1) if rows > 1 else " " if rows == 1 else ""


def _mark_style(line: str) -> str:
    stripped = line.strip()
    if stripped.startswith("✗"):
        return "bold red"
    if stripped.startswith("✓"):
        return "green"
    return ""
