"""ResourceScreen: a k9s list view of one kind (``:no``, ``:po``, ``:deploy`` …).

The table is :class:`~ksandbox.tui.widgets.resource_table.ResourceTable`; the title follows
k9s (``pods(default)[12] </web>``). ``enter`` drills in: a node lists its pods, a workload its
pods, a namespace its pods, a pod or an event describes it.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding

from ...api.kinds import BY_KIND
from ..filtering import parse_filter
from ..model import ChangeSet
from ..rows import spec_for
from ..widgets.command_bar import CommandBar
from ..widgets.resource_table import ResourceTable
from .base import NODE_BINDINGS, OBJECT_BINDINGS, KsScreen, Target

if TYPE_CHECKING:
    from ...api.core import Pod
    from ...apiserver.store import Store


def owned_by(kind: str, name: str, store: Store):
    """A predicate: pods whose controller is ``kind/name`` (through its ReplicaSets for a
    Deployment)."""
    if kind == "Deployment":
        owners = {("ReplicaSet", rs.metadata.name) for rs in store.list("ReplicaSet")
                  if (ref := rs.metadata.controller_ref()) is not None
                  and ref.kind == "Deployment" and ref.name == name}
    else:
        owners = {(kind, name)}

    def pred(pod: Pod) -> bool:
        ref = pod.metadata.controller_ref()
        return ref is not None and (ref.kind, ref.name) in owners

    return pred


# The app's pod list (`:po`), kept when it closes and pushed again: a new one cost the UI
# thread ~90 ms at 30,000 pods before its first frame (composing and mounting its widgets,
# reading and sorting every pod). With the real clock it is built in idle time after the
# first frame (prebuild_pod_list), and caught up with the cluster while it is closed
# (CATCH_UP_EVERY), so reopening it costs a catch-up, a reset and a frame.
_KEPT: weakref.WeakKeyDictionary[Any, ResourceScreen] = weakref.WeakKeyDictionary()
KEPT_NAME = "ksandbox-pods"
CATCH_UP_EVERY = 2.0
"""Real seconds between two catch-ups of the kept pod list while it is closed (the model
remembers ~25 s of changes; further behind, it would read every pod again)."""


def _usable(app: Any, kept: ResourceScreen) -> bool:
    """The kept list can be shown again: mounted, over the app's session, with the playback
    bar composed in if and only if a recording plays, laid out at the terminal's size (or
    never laid out)."""
    return (kept.is_attached and kept.is_mounted and kept.table_or_none() is not None
            and kept.table.session is app.session
            and bool(kept.query("PlayerPane")) == (getattr(app, "player", None) is not None)
            and (not kept.size or kept.size == app.size))


def pod_list(app: Any, namespace: str | None,
             filter_text: str) -> tuple[ResourceScreen, bool]:
    """The pod list to show for `:po`, and whether it is the kept one, which the caller
    readies (ResourceScreen.reopen) once it is on the stack: the kept one when it is closed,
    or on show, and usable; else a new one, which is kept (installed: Textual removes a popped
    screen unless it is installed) unless the kept one is on a stack."""
    kept = _KEPT.get(app)
    if kept is not None:
        if app.is_on_a_stack(kept) or not kept.is_mounted:  # in use, or still being built
            if app.screen is kept and _usable(app, kept):
                return kept, True
            screen = ResourceScreen("Pod", namespace=namespace, filter_text=filter_text)
            return screen, False
        if _usable(app, kept):
            return kept, True
        _forget(app)  # another session, size or playback bar: a new one instead
    screen = ResourceScreen("Pod", namespace=namespace, filter_text=filter_text)
    app.install_screen(screen, KEPT_NAME)
    _KEPT[app] = screen
    return screen, False


def _forget(app: Any) -> None:
    kept = _KEPT.pop(app, None)
    if kept is not None and app.is_screen_installed(kept):
        app.uninstall_screen(kept)
        if kept.is_attached:
            kept.remove()


def prebuild_pod_list(app: Any) -> None:
    """Compose and mount the pod list while the app is idle, off screen, rows and all (its
    table then prepares its search texts and other orders in the background), so the first
    `:po` costs no more than the next ones. It is shown only by `:po`. Textual starts an
    installed screen the first time it is asked for it."""
    if _KEPT.get(app) is not None or not app.is_running:
        return
    screen = ResourceScreen("Pod")
    screen.built_ahead = True
    app.install_screen(screen, KEPT_NAME)
    _KEPT[app] = screen
    try:
        app._get_screen(screen)
    except Exception:  # noqa: BLE001 - only a head start: `:po` builds one anyway
        _forget(app)
        return
    app.set_interval(CATCH_UP_EVERY, lambda: _catch_up_kept(app), name="kept pod list")


def _catch_up_kept(app: Any) -> None:
    """Bring the closed kept list up to date with the cluster (a few hundred changed pods
    move by bisection), so that reopening it is never a full reload."""
    kept = _KEPT.get(app)
    if app.is_running and kept is not None and not app.is_on_a_stack(kept) \
            and _usable(app, kept):
        kept.catch_up()


class ResourceScreen(KsScreen):
    BINDINGS = [*NODE_BINDINGS, *OBJECT_BINDINGS,
                Binding("enter", "drill", "View", id="view.enter"),
                Binding("ctrl+w", "wide", "Wide", show=False, id="view.wide"),
                Binding("minus", "previous_view", "Previous view", show=False,
                        id="view.previous"),
                # Space pauses the clock, so marking is ctrl+space (terminals send NUL).
                Binding("ctrl+space,ctrl+@,ctrl+at", "mark", "Mark", show=False,
                        id="view.mark")]

    def __init__(self, kind: str, *, namespace: str | None = None, node: str | None = None,
                 owner: tuple[str, str, str] | None = None, filter_text: str = "") -> None:
        super().__init__()
        self.kind = kind
        self.namespace = namespace
        self.node = node
        self.owner = owner
        self.initial_filter = filter_text
        self.view_name = BY_KIND[kind].resource
        self.built_ahead = False
        """Composed off screen in idle time (prebuild_pod_list): its table fills in slices."""

    def compose_body(self) -> ComposeResult:
        where = None
        if self.owner is not None:
            kind, ns, name = self.owner
            where = owned_by(kind, name, self.app.session.store)
        table = ResourceTable(self.app.session, spec_for(self.kind), namespace=self.namespace,
                              node=self.node, where=where, id="table")
        table.in_background = self.built_ahead
        yield table

    @property
    def table(self) -> ResourceTable:
        return self.query_one(ResourceTable)

    def table_or_none(self) -> ResourceTable | None:
        found = self.query(ResourceTable)
        return found.first() if found else None

    def reopen(self, namespace: str | None, filter_text: str = "") -> None:
        """Ready the kept pod list (pod_list) to be shown as a new one would be: no filter but
        ``filter_text``, the default sort, no marks, the cursor on the first row, the bar
        closed, the focus on the table — and the rows of the cluster now, before its first
        frame (the frame must never show a row that is gone, or the last filter or sort)."""
        self._dismissed = False
        self.namespace = namespace
        self.initial_filter = filter_text
        self.row_filter = parse_filter(filter_text)
        if self.row_filter.error:
            self.app.notify(self.row_filter.error, severity="error", timeout=3)
        for bar in self.query(CommandBar):
            bar.close_quietly()
        changes = self.model.changes_since(self.generation)
        self.generation = changes.generation
        table = self.table
        table.reopen(namespace, self.row_filter, changes)
        self._shown_title = ""
        self._title()
        self.set_focus(table)

    def on_mount(self) -> None:
        super().on_mount()
        if self.initial_filter:
            self.apply_filter(self.initial_filter)
        else:
            self.table.reload()
        self._title()
        self.table.focus()

    def _title(self) -> None:
        scope = ""
        if self.node is not None:
            scope = f"(node={self.node})"
        elif self.owner is not None:
            scope = f"({self.owner[0].lower()}={self.owner[2]})"
        elif BY_KIND[self.kind].namespaced:
            scope = f"({self.namespace or 'all'})"
        title = f"{self.view_name}{scope}[{self.table.row_count()}]"
        if self.row_filter.active:
            title += f" {self.row_filter.title}"
        if self.table.wide:
            title += " wide"
        if self.table.marked:
            title += f" marked:{len(self.table.marked)}"
        if getattr(self, "_shown_title", None) != title:
            self._shown_title = title
            self.table.border_title = title
            self.show_crumbs()

    def refresh_view(self, changes: ChangeSet) -> None:
        self.table.apply_changes(changes)
        self._title()

    def on_resource_table_reloaded(self) -> None:
        self._title()

    def filter_changed(self) -> None:
        self.table.set_filter(self.row_filter)
        self._title()

    def focus_body(self) -> None:
        self.set_focus(self.table)

    def target(self) -> Target | None:
        if not self.is_mounted:
            return None  # keys that arrive before the table exists act on nothing
        obj = self.table.selected_object
        if obj is None:
            return None
        if self.kind == "Event":
            o = obj.involved_object
            return Target(o.kind, o.namespace, o.name)
        return Target(self.kind, obj.metadata.namespace or "", obj.metadata.name)

    # -- marks (k9s): ctrl+space marks a row; c / u / ctrl+d act on every marked row ------
    def action_mark(self) -> None:
        key = self.table.selected_key
        if key is None:
            self.app.notify("Nothing to mark in this list", severity="warning", timeout=3)
            return
        marked = self.table.marked
        marked.symmetric_difference_update({key})
        self.table.cursor = min(self.table.cursor + 1, max(0, self.table.row_count() - 1))
        self.table.refresh()
        self._title()

    def _marked_objects(self) -> list[Any]:
        store = self.app.session.store
        out = []
        for ns, name in sorted(self.table.marked):
            obj = store.get(self.kind, name, ns if self.namespaced_kind else "")
            if obj is not None:
                out.append(obj)
        return out

    @property
    def namespaced_kind(self) -> bool:
        return BY_KIND[self.kind].namespaced

    def action_cordon(self) -> None:
        if self.table.marked and self.kind == "Node":
            for n in self._marked_objects():
                self.app.submit(f"kubectl cordon {n.metadata.name}")
            self.table.marked.clear()
            return
        super().action_cordon()

    def action_uncordon(self) -> None:
        if self.table.marked and self.kind == "Node":
            for n in self._marked_objects():
                self.app.submit(f"kubectl uncordon {n.metadata.name}")
            self.table.marked.clear()
            return
        super().action_uncordon()

    def action_delete(self) -> None:
        if not self.table.marked:
            super().action_delete()
            return
        from ..dialogs import ConfirmDialog

        objs = self._marked_objects()
        by_ns: dict[str, list[str]] = {}
        for o in objs:
            by_ns.setdefault(o.metadata.namespace if self.namespaced_kind else "",
                             []).append(o.metadata.name)
        resource = BY_KIND[self.kind].resource
        commands = [f"kubectl delete {resource} {' '.join(names)}" + (f" -n {ns}" if ns else "")
                    for ns, names in sorted(by_ns.items())]

        def run(text: str | None) -> None:
            if text:
                for command in commands:
                    self.app.submit(command)
                self.table.marked.clear()
                self._title()

        self.app.push_screen(ConfirmDialog("<Delete>", f"Delete {len(objs)} marked {resource}?",
                                           "\n".join(commands), ok_label="Delete"), run)

    def action_wide(self) -> None:
        """ctrl+w: kubectl's -o wide columns on or off."""
        wide = self.table.toggle_wide()
        self.app.notify("wide columns (-o wide)" if wide else "default columns", timeout=2)

    def place(self) -> Any:
        """Where this view is, for ``-`` to come back to (habits.ViewPlace)."""
        from ..habits import ViewPlace

        return ViewPlace(self.kind, self.namespace, self.node, self.owner)

    def action_previous_view(self) -> None:
        """-: the list view shown before this one (k9s's last view, as ``cd -``): the view
        this one was drilled from or switched from; ``-`` again comes back here."""
        app = self.app
        place = getattr(app, "previous_view", None)
        here = self.place()
        if place is None or place == here:
            app.notify("No previous view", severity="warning", timeout=3)
            return
        stack = app.screen_stack
        below = stack[-2] if len(stack) > 2 else None
        if isinstance(below, ResourceScreen) and below.place() == place:
            app.previous_view = here   # drilled from there: go back to it as it was
            app.pop_screen()
        elif place.node is not None or place.owner is not None:
            # the view left with `-`: drilled into again, on top of this one (esc returns)
            app.drill_into(ResourceScreen(place.kind, namespace=place.namespace,
                                          node=place.node, owner=place.owner))
        else:
            app.open_view(place.kind, namespace=place.namespace)

    def crumb(self) -> str:
        return getattr(self, "_shown_title", self.view_name).split("[")[0]

    def action_drill(self) -> None:
        if not self.is_mounted:
            return
        obj = self.table.selected_object
        if obj is None:
            return
        app = self.app
        if self.kind == "Node":
            app.open_node_pods(obj.metadata.name)
        elif self.kind in ("Deployment", "ReplicaSet", "DaemonSet"):
            app.drill_into(ResourceScreen("Pod", owner=(self.kind, obj.metadata.namespace,
                                                       obj.metadata.name)))
        elif self.kind == "Namespace":
            app.drill_into(ResourceScreen("Pod", namespace=obj.metadata.name))
        else:
            self.action_describe()
