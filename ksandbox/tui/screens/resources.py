"""ResourceScreen: a k9s list view of one kind (``:no``, ``:po``, ``:deploy`` …).

The table is :class:`~ksandbox.tui.widgets.resource_table.ResourceTable`; the title follows
k9s (``pods(default)[12] </web>``). ``enter`` drills in: a node lists its pods, a workload its
pods, a namespace its pods, a pod or an event describes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding

from ...api.kinds import BY_KIND
from ..model import ChangeSet
from ..rows import spec_for
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


class ResourceScreen(KsScreen):
    BINDINGS = [*NODE_BINDINGS, *OBJECT_BINDINGS,
                Binding("enter", "drill", "View", id="view.enter"),
                Binding("ctrl+w", "wide", "Wide", show=False, id="view.wide"),
                Binding("minus", "previous_view", "Previous view", show=False,
                        id="view.previous"),
                Binding("ctrl+a", "aliases", "Aliases", show=False, id="view.aliases"),
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

    def compose_body(self) -> ComposeResult:
        where = None
        if self.owner is not None:
            kind, ns, name = self.owner
            where = owned_by(kind, name, self.app.session.store)
        yield ResourceTable(self.app.session, spec_for(self.kind), namespace=self.namespace,
                            node=self.node, where=where, id="table")

    @property
    def table(self) -> ResourceTable:
        return self.query_one(ResourceTable)

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

    def action_previous_view(self) -> None:
        """-: back to the list view shown before this one (k9s), the board if none."""
        place = getattr(self.app, "previous_view", None)
        if place is None or (place.kind, place.namespace) == (self.kind, self.namespace):
            self.app.notify("No previous view", severity="warning", timeout=3)
            return
        self.app.open_view(place.kind, namespace=place.namespace)

    def action_aliases(self) -> None:
        from ..habits import aliases_text
        from .text import TextScreen

        self.app.push_screen(TextScreen("aliases", title="aliases (:NAME opens the view)",
                                        text=aliases_text(), live=False))

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
            app.push_screen(ResourceScreen("Pod", owner=(self.kind, obj.metadata.namespace,
                                                        obj.metadata.name)))
        elif self.kind == "Namespace":
            app.push_screen(ResourceScreen("Pod", namespace=obj.metadata.name))
        else:
            self.action_describe()
