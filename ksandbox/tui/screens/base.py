"""KsScreen: what every full screen shares — header, command bar, footer, and the actions.

Each action turns a key into command text and hands it to the App's ``submit`` (which calls
``session.submit``), directly (``c`` → ``kubectl cordon node-2``) or through a dialog that
returns the text (``t`` → TaintDialog → ``kubectl taint nodes node-2 key=value:NoSchedule``).
A subclass says what the keys act on by overriding :meth:`target` (the highlighted object) and
draws its body in :meth:`compose_body`; :meth:`refresh_view` is called with each coalesced
change set.

Binding ids (``node.taint``, ``object.delete`` …) are what users remap in their config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from ..commandline import Vocabulary
from ..filtering import RowFilter, parse_filter
from ..focus_paint import FocusPaintsWidgets
from ..guard import DismissOnce, Guarded
from ..messages import ClusterChanged
from ..model import ChangeSet
from ..screen_layout import LayoutOnce
from ..widgets.command_bar import CommandBar
from ..widgets.header import ClusterHeader
from ..widgets.key_footer import KeyFooter
from ..widgets.player_bar import PlayerPane

if TYPE_CHECKING:
    from ...session import Session


@attrs.frozen
class Target:
    """The object the keys act on."""

    kind: str
    namespace: str
    name: str

    @property
    def resource(self) -> str:
        return {"Node": "node", "Pod": "pod", "Deployment": "deployment",
                "ReplicaSet": "replicaset", "DaemonSet": "daemonset",
                "HorizontalPodAutoscaler": "hpa", "Namespace": "namespace",
                "PodDisruptionBudget": "pdb", "PriorityClass": "priorityclass",
                "Event": "event"}.get(self.kind, self.kind.lower())

    @property
    def ns_flag(self) -> str:
        return f" -n {self.namespace}" if self.namespace else ""


NODE_BINDINGS = [
    Binding("t", "taint", "Taint", id="node.taint"),
    Binding("T", "untaint", "Untaint", show=False, id="node.untaint"),
    Binding("c", "cordon", "Cordon", id="node.cordon"),
    Binding("u", "uncordon", "Uncordon", show=False, id="node.uncordon"),
    Binding("r", "drain", "Drain", id="node.drain"),
    Binding("x", "fail", "Fail", id="node.fail"),
    Binding("X", "recover", "Recover", show=False, id="node.recover"),
    Binding("p", "pressure", "Pressure", show=False, id="node.pressure"),
    Binding("l", "label", "Label", show=False, id="node.label"),
]
OBJECT_BINDINGS = [
    Binding("e", "explain", "Explain", id="pod.explain"),
    Binding("s", "scale", "Scale", id="workload.scale"),
    Binding("d", "describe", "Describe", show=False, id="object.describe"),
    Binding("y", "yaml", "YAML", show=False, id="object.yaml"),
    Binding("ctrl+d", "delete", "Delete", show=False, id="object.delete"),
]
# `:` and `/` are priority bindings: they run while the App reads the key, before it forwards
# the next one, so a burst `:cordon node-3⏎` opens the bar first and the rest goes into it
# (as a plain binding the whole burst was forwarded to the board, and `c` cordoned the
# selected node). check_action lets them through to an input that has the focus.
VIEW_BINDINGS = [
    Binding("colon", "command", "Cmd", priority=True, id="app.command"),
    Binding("slash", "filter", "Filter", show=False, priority=True, id="app.filter"),
    Binding("question_mark", "help", "Help", id="app.help"),
    Binding("escape", "back", "Back", show=False, id="view.back"),
    # k9s's ctrl+a answers in every view, the board too (it was bound on the lists only).
    Binding("ctrl+a", "aliases", "Aliases", show=False, id="view.aliases"),
]
NODE_ACTIONS = {"taint", "untaint", "cordon", "uncordon", "drain", "fail", "recover",
                "pressure", "label"}


def keep_regions_while_covered(screen: Screen) -> bool:
    """Textual hands a covered screen's dirty regions to the screen on top, for a dialog that
    shows it through; one opaque all over shows none of it, and was repainted whole for
    nothing (push_screen refreshes the screen it covers: the explain view, ~7 ms of CPU at
    1,000 nodes while its worker waited; the app's default screen under the board, laid out
    again for the start's resize, made a whole second frame of the board ~0.08 s after the
    first). Kept for later, as Textual keeps them: the whole screen is repainted when it is on
    top again (ScreenResume). True when the regions were kept (nothing to draw now)."""
    try:
        top = screen.app.screen
    except Exception:  # noqa: BLE001 - no screen (closing): let Textual decide
        return False
    # The screen on top is opaque (every screen fills the terminal): nothing of this one
    # shows through it.
    if top is screen or not screen._compositor._dirty_regions or top.styles.background.a != 1:
        return False
    screen._set_dirty(*screen._compositor._dirty_regions)
    screen._repaint_required = True
    screen._compositor._dirty_regions.clear()
    screen._dirty_widgets.clear()
    return True


class DefaultScreen(Guarded, DismissOnce, FocusPaintsWidgets, LayoutOnce, Screen):
    """The app's base screen (Textual's ``_default``), under the board all the time: an
    empty screen that is not laid out again at its own size while covered (LayoutOnce) and
    keeps its dirty regions while covered (:func:`keep_regions_while_covered`)."""

    def _compositor_refresh(self) -> None:
        if not keep_regions_while_covered(self):
            super()._compositor_refresh()


class KsScreen(Guarded, DismissOnce, FocusPaintsWidgets, LayoutOnce, Screen):
    """Base of the main board, the list views, the explain and text views."""

    BINDINGS = VIEW_BINDINGS
    view_name = "view"
    """Shown in the help screen and the crumbs."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.generation = 0
        self.row_filter: RowFilter = parse_filter("")

    # -- the App's objects ----------------------------------------------------------------
    @property
    def session(self) -> Session:
        return self.app.session  # type: ignore[attr-defined,no-any-return]

    @property
    def model(self) -> Any:
        return self.app.model

    # -- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield ClusterHeader()
        yield from self.compose_body()
        # One bottom dock holding the bar above the footer: two widgets docked at the bottom
        # overlap, and the footer hid the bar.
        with Vertical(id="bottom"):
            if getattr(self.app, "player", None) is not None:
                # The playback bar and caption pane (tui/player.py), while a recording plays.
                yield PlayerPane()
            yield CommandBar(self.vocabulary(), self.app.command_history)
            yield self.footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def footer(self) -> Widget:
        """The key line at the bottom: Textual's compact Footer drawn by one widget, so a
        focus change repaints one line instead of remounting twenty keys (widgets/key_footer)."""
        return KeyFooter()

    def vocabulary(self) -> Vocabulary:
        store = self.app.session.store
        return Vocabulary(
            nodes=lambda: [n.name for n in store.nodes()],
            pods=lambda: [p.metadata.name for p in store.list("Pod")],
            workloads=lambda: [f"deployment/{d.metadata.name}" for d in store.list("Deployment")]
            + [f"replicaset/{r.metadata.name}" for r in store.list("ReplicaSet")])

    def on_mount(self) -> None:
        self.generation = self.model.generation
        self.show_crumbs()
        self.query_one(ClusterHeader).state = self.app.header_state()
        for pane in self.query(PlayerPane):
            pane.state = self.app.player_controls.state()

    _bindings_shown: Any = None

    def refresh_bindings(self) -> None:
        """Tell the footer only when what it shows changed. Textual asks on every focus
        change and each time a dialog covers or uncovers the screen. Textual's own Footer
        answered by rebuilding its twenty keys (a layout and repaint of the whole screen, ~90 ms
        at 1,000 nodes); KeyFooter reads the bindings and repaints its line, which is cheap but
        still not free. A covered screen's footer is not on show: it is brought up to date
        when the screen is on top again."""
        if self.is_mounted and self.app.screen is not self:
            return
        try:
            shown = tuple((key, id(a.node), a.binding, a.enabled, a.tooltip)
                          for key, a in self.active_bindings.items())
        except Exception:  # noqa: BLE001 - mid-teardown: let Textual decide
            shown = None
        if shown is not None and shown == self._bindings_shown:
            return
        self._bindings_shown = shown
        super().refresh_bindings()

    def _compositor_refresh(self) -> None:
        """Textual renders the screen when its refresh comes round even while the app is
        batching updates, and the app then drops the frame (``App._display`` writes nothing
        during a batch): at start-up the whole board was rendered inside the app's mount
        batch and thrown away (~0.04 CPU s of the first frame), then rendered again. While a
        batch is open the frame is left for later — marked for repaint, as Textual's own
        update timer leaves it — and drawn when the batch ends."""
        app = self.app
        if app._batch_count and self is app.screen and not app.is_inline:
            self._repaint_required = True
            # The app wakes this screen when the batch ends (KsandboxApp._end_batch).
            app._frame_after_batch = self
            return
        if keep_regions_while_covered(self):
            return
        if self._repaint_required and self is app.screen and not app.is_inline:
            # The whole-screen repaint still asked for (the frame left for after the batch)
            # is made in this frame, as Textual's update timer would make it: the first
            # frame's layout drew the screen, and the timer then drew it all again.
            self._repaint_required = False
            self._compositor.update_widgets({self})
        super()._compositor_refresh()

    def _on_timer_update(self) -> None:
        """Under a dialog, what changed here is handed to the dialog as the regions that
        changed, not as the whole screen. Textual marks a covered screen for a whole repaint
        each time it hands its changed regions over (for when it is on top again, which
        repaints it whole anyway: ScreenResume), and its next update then handed the whole
        screen over: the dialog drew its tinted copy of the board again from top to bottom
        for the clock's one row (show_clock). The mark is kept for then."""
        app = self.app
        if self._repaint_required and app.screen is not self and self.is_current:
            self._repaint_required = False
            try:
                super()._on_timer_update()
            finally:
                self._repaint_required = True
            return
        super()._on_timer_update()

    # -- change feed ----------------------------------------------------------------------
    def on_cluster_changed(self, message: ClusterChanged) -> None:
        self.catch_up()

    def on_screen_resume(self) -> None:
        self.show_crumbs()
        self.catch_up()

    # -- crumbs ---------------------------------------------------------------------------
    def crumb(self) -> str:
        """This view's name in the crumbs."""
        return "board" if self.view_name in ("board", "nodes") else self.view_name

    def breadcrumbs(self) -> list[str]:
        """The view stack as k9s shows it: ``board``, ``nodes``, ``pods(node=node-2)``."""
        return [screen.crumb() for screen in self.app.screen_stack[1:]
                if isinstance(screen, KsScreen)]

    def show_crumbs(self) -> None:
        """Put the crumbs in the command bar's row (shown there while the bar is closed)."""
        for bar in self.query(CommandBar):
            bar.show_crumbs(tuple(self.breadcrumbs()))

    def catch_up(self) -> None:
        if not self.is_mounted:
            return
        changes = self.model.changes_since(self.generation)
        self.generation = changes.generation
        try:
            self.query_one(ClusterHeader).state = self.app.header_state()
        except Exception:
            return
        for pane in self.query(PlayerPane):
            pane.state = self.app.player_controls.state()
        self.refresh_view(changes)

    def refresh_view(self, changes: ChangeSet) -> None:
        """Redraw what ``changes`` touched."""

    def show_clock(self, state: Any) -> None:
        """Covered by a dialog (the App's publish tells only the screen on top): the header
        still shows the time (``state``, a HeaderState), whose line is redrawn only when its
        text changes, so a dialog's tinted copy of this screen is redrawn once a shown
        second, not for every tick's changes. The rest catches up when this screen is on
        top again (ScreenResume)."""
        if self.is_mounted:
            for header in self.query(ClusterHeader):
                header.state = state

    # -- targets --------------------------------------------------------------------------
    def target(self) -> Target | None:
        return None

    def node_target(self) -> str | None:
        t = self.target()
        return t.name if t is not None and t.kind == "Node" else None

    def pod_target(self) -> Target | None:
        t = self.target()
        return t if t is not None and t.kind == "Pod" else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("command", "filter"):
            # Typed into an input (the bar itself, a dialog's field): a character, not a key.
            if isinstance(self.focused, Input) or not self.is_mounted:
                return False
            return bool(self.query(CommandBar))
        # The footer shows only what applies; a key that does not apply still says why
        # (answer_unbound_key), since a key that silently does nothing is a key the user
        # thinks is broken.
        return self.available(action, parameters)

    def answer_unbound_key(self, event: events.Key) -> None:
        """A key the bindings declined, asked by the App (KsandboxApp._on_key) when this
        screen is on top: a key bound to an action with nothing to act on runs the action
        anyway (it says why in a notification), and a printable key nothing is bound to says
        so, instead of doing nothing silently.

        Asked there, not as the key passes through this screen: Textual forwards each key to
        the focused widget as it arrives and runs the non-priority bindings when the key has
        bubbled back up to the App, against the screen on top by then. In a burst (`Escape
        Down e` in the explain view) the three keys pass through the explain view before its
        Escape binding has closed it; the `e` is then the board's (it explains the selected
        pod), and the explain view said "'e' does nothing in the explain view" about it."""
        key = event.key
        found = [(ns, b) for ns, bindings in self._binding_chain
                 for b in bindings.key_to_bindings.get(key, ()) if not b.priority]
        if not found:
            if event.is_printable and event.character and not event.character.isspace():
                self.app.notify(f"{event.character!r} does nothing in the {self.view_name} view"
                                " — ? lists its keys", timeout=2, markup=False)
            return
        if any(ns is not self or self.available(b.action) for ns, b in found):
            return
        method = getattr(self, f"action_{found[0][1].action}", None)
        if callable(method):
            event.stop()
            method()

    def available(self, action: str, parameters: tuple[object, ...] = ()) -> bool:
        """Whether ``action`` has something to act on now (the palette lists only these)."""
        if action in NODE_ACTIONS:
            return self.node_target() is not None
        if action == "scale":
            t = self.target()
            return t is not None and t.kind in ("Deployment", "ReplicaSet")
        if action == "explain":
            # What e would explain (a list: the pod selected; the board: also the pending
            # pod highlighted in the queue): a Deployment list showed "e Explain" while any
            # pod in the cluster was pending, and e there said "Select a pod to explain".
            return self.explain_target() is not None
        if action in ("describe", "yaml", "delete"):
            return self.target() is not None
        return True

    # -- node actions ---------------------------------------------------------------------
    def _node(self) -> str | None:
        name = self.node_target()
        if name is None:
            here = getattr(self, "kind", "") or ""
            where = f"this view lists {here.lower()}s" if here and here != "Node" \
                else "no node is selected"
            self.app.notify(f"That key acts on a node, and {where}: pick one on the board "
                            "or in :no", severity="warning", markup=False)
        return name

    def action_taint(self) -> None:
        from ..dialogs import TaintDialog

        if (node := self._node()) is None:
            return
        app = self.app
        dialog = app.reusable_dialog(TaintDialog)  # type: ignore[attr-defined]
        if dialog in app.screen_stack:
            return
        dialog.prepare(node)
        app.push_screen(dialog, app.submit_from_dialog)  # type: ignore[attr-defined]

    def action_untaint(self) -> None:
        from ..dialogs import UntaintDialog

        if (node := self._node()) is None:
            return
        obj = self.session.store.get("Node", node)
        taints = [(t.to_string(), t.key, t.effect) for t in obj.spec.taints] if obj else []
        if not taints:
            self.app.notify(f"node/{node} has no taints", severity="warning")
            return
        self.app.push_screen(UntaintDialog(node, taints), self.app.submit_from_dialog)

    def action_cordon(self) -> None:
        if (node := self._node()) is not None:
            self.app.submit(f"kubectl cordon {node}")

    def action_uncordon(self) -> None:
        if (node := self._node()) is not None:
            self.app.submit(f"kubectl uncordon {node}")

    def action_drain(self) -> None:
        from ..dialogs import DrainDialog

        if (node := self._node()) is not None:
            self.app.push_screen(DrainDialog(node), self.app.submit_from_dialog)

    def action_fail(self) -> None:
        if (node := self._node()) is not None:
            self.app.submit(f"ksandbox fail node {node}")

    def action_recover(self) -> None:
        if (node := self._node()) is not None:
            self.app.submit(f"ksandbox recover node {node}")

    def action_pressure(self) -> None:
        from ..dialogs import PressureDialog

        if (node := self._node()) is None:
            return
        obj = self.session.store.get("Node", node)
        active = ()
        if obj is not None:
            names = {"MemoryPressure": "memory", "DiskPressure": "disk", "PIDPressure": "pid"}
            active = tuple(v for k, v in names.items()
                           if (c := obj.status.condition(k)) is not None and c.status == "True")
        self.app.push_screen(PressureDialog(node, active), self.app.submit_from_dialog)

    def action_label(self) -> None:
        from ..dialogs import LabelDialog

        if (node := self._node()) is not None:
            self.app.push_screen(LabelDialog(node), self.app.submit_from_dialog)

    # -- object actions -------------------------------------------------------------------
    def _target(self) -> Target | None:
        t = self.target()
        if t is None:
            self.app.notify("Nothing selected", severity="warning")
        return t

    def action_describe(self) -> None:
        if (t := self._target()) is not None:
            self.app.show_output(f"kubectl describe {t.resource} {t.name}{t.ns_flag}",
                                 title=f"describe {t.resource}/{t.name}")

    def action_yaml(self) -> None:
        if (t := self._target()) is not None:
            self.app.show_output(f"kubectl get {t.resource} {t.name}{t.ns_flag} -o yaml",
                                 title=f"{t.resource}/{t.name}", language="yaml")

    def action_delete(self) -> None:
        from ..dialogs import ConfirmDialog

        if (t := self._target()) is None:
            return
        command = f"kubectl delete {t.resource} {t.name}{t.ns_flag}"
        self.app.push_screen(ConfirmDialog("<Delete>", f"Delete {t.resource}/{t.name}?",
                                           command, ok_label="Delete"),
                             self.app.submit_from_dialog)

    def action_scale(self) -> None:
        from ..dialogs import ScaleDialog

        t = self.target()
        if t is None or t.kind not in ("Deployment", "ReplicaSet"):
            self.app.notify("Scale works on a deployment or a replicaset", severity="warning")
            return
        obj = self.session.store.get(t.kind, t.name, t.namespace)
        replicas = obj.spec.replicas if obj is not None and obj.spec.replicas is not None else 1
        self.app.push_screen(ScaleDialog(t.resource, t.namespace, t.name, replicas),
                             self.app.submit_from_dialog)

    def explain_target(self) -> Target | None:
        return self.pod_target()

    def action_explain(self) -> None:
        t = self.explain_target()
        if t is None:
            self.app.notify("Select a pod to explain (enter on a node lists its pods)",
                            severity="warning")
            return
        self.app.open_explain(t.namespace, t.name)

    # -- the command bar ------------------------------------------------------------------
    def action_command(self) -> None:
        self.query_one(CommandBar).open("command")

    def action_filter(self) -> None:
        self.query_one(CommandBar).open("filter", self.row_filter.text)

    def action_help(self) -> None:
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self))

    def action_aliases(self) -> None:
        """ctrl+a: every list view and its aliases (``RESOURCE SHORTNAMES KIND``)."""
        show = getattr(self.app, "show_aliases", None)
        if show is not None:
            show()

    def action_back(self) -> None:
        if self.row_filter.active:
            self.apply_filter("")
            return
        # Pop this screen only, and only while it is on top (a late Escape must not pop the
        # screen or dialog above or below it).
        if len(self.app.screen_stack) > 2 and self.app.screen is self:
            self.app.pop_screen()

    def on_command_bar_submitted(self, message: CommandBar.Submitted) -> None:
        if message.mode == "command":
            if message.value:
                self.app.run_command_line(message.value)
        elif message.value != self.row_filter.text:
            self.apply_filter(message.value)
        # Else Enter keeps the filter typed, in force since its last keystroke (filter as you
        # type): applied again, the pod list drew every row on show again for it (37 lines,
        # 6-12 ms at 1,000 nodes, in the frame that closes the bar).

    def on_command_bar_filter_changed(self, message: CommandBar.FilterChanged) -> None:
        # `/` opens the bar on the filter in force: the same text again changes nothing (the
        # board re-sorted and repainted all its cards for it).
        if message.value != self.row_filter.text:
            self.apply_filter(message.value)

    def on_command_bar_closed(self, message: CommandBar.Closed) -> None:
        self.focus_body()
        for bar in self.query(CommandBar):
            bar.focus_back()

    def focus_body(self) -> None:
        """Give the focus back to the main widget after the bar closes: ``self.set_focus``,
        not ``widget.focus()``, which also repaints the widget whole (the board: 15–30 ms at
        1,000 nodes, for a pane that looks as it did)."""

    def apply_filter(self, text: str) -> None:
        self.row_filter = parse_filter(text)
        if self.row_filter.error:
            self.app.notify(self.row_filter.error, severity="error", timeout=3)
        self.filter_changed()

    def filter_changed(self) -> None:
        """Re-filter the body (subclasses)."""
