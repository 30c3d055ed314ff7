"""ResourceTable: a k9s list view — kubectl's columns over one kind, sorted and filtered.

Rows are the stored objects themselves; cells are formatted only for the lines on screen
(:mod:`ksandbox.tui.rows`). The order is a sorted list of precomputed keys, kept up to date
incrementally: a change set that touches 40 of 30,000 pods moves 40 entries by bisection
instead of re-sorting everything. Column widths grow to fit what has been seen and never
shrink while the view is open, so rows do not jiggle as you scroll.

Sorting: ``shift+n`` name, ``shift+a`` age, ``shift+s`` status (k9s keys); again to reverse.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import Any, Callable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.strip import Strip

from ..filtering import NO_FILTER, RowFilter
from ..model import ChangeSet
from ..rows import RowSpec
from .line_list import LineList

Key = tuple[str, str]
# Past this many changed keys a full rebuild is cheaper than moving rows one by one.
INCREMENTAL_LIMIT = 2000
_PAD = 3  # kubectl's tabwriter padding


class ResourceTable(LineList):
    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {
        "resource-table--ok", "resource-table--pending", "resource-table--failed",
        "resource-table--warning", "resource-table--dim", "resource-table--cordoned",
        "resource-table--sorted"}

    BINDINGS = [
        Binding("N", "sort('NAME')", "Sort name", show=False, id="table.sort-name"),
        Binding("A", "sort('AGE')", "Sort age", show=False, id="table.sort-age"),
        Binding("S", "sort('STATUS')", "Sort status", show=False, id="table.sort-status"),
    ]

    header = True

    def __init__(self, session: Any, spec: RowSpec, *, namespace: str | None = None,
                 node: str | None = None, where: Callable[[Any], bool] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.spec = spec
        self.namespace = namespace
        self.node = node
        """Only pods bound to this node (k9s's ``enter`` on a node)."""
        self.where = where
        self.row_filter: RowFilter = NO_FILTER
        self.sort_column = "NAMESPACE" if "NAMESPACE" in spec.sort_keys else "NAME"
        if spec.kind == "Event":
            self.sort_column = "LAST SEEN"
        self.reverse = spec.kind == "Event"
        self._order: list[tuple[Any, Key]] = []
        self._sk: dict[Key, tuple[Any, Key]] = {}
        self._objs: dict[Key, Any] = {}
        """Objects by key as of the last reload (kinds other than Pod, which read live)."""
        self._widths: list[int] = [len(c) for c in spec.columns]

    # -- data -----------------------------------------------------------------------------
    def _objects(self) -> list[Any]:
        store = self.session.store
        if self.node is not None and self.spec.kind == "Pod":
            objs = store.pods_on_node(self.node)
        else:
            objs = store.list(self.spec.kind, self.namespace)
        return objs

    def _wanted(self, obj: Any) -> bool:
        if self.namespace is not None and self.spec.namespaced \
                and obj.metadata.namespace != self.namespace:
            return False
        if self.node is not None and getattr(obj.spec, "node_name", None) != self.node:
            return False
        if self.where is not None and not self.where(obj):
            return False
        f = self.row_filter
        if f.active and not f.matches(self.spec.search(obj), obj.metadata.labels):
            return False
        return True

    def _sort_value(self, obj: Any, key: Key) -> tuple[Any, Key]:
        if self.sort_column == "NAMESPACE" or self.sort_column not in self.spec.sort_keys:
            return (key[0] + "\0" + key[1], key)
        return (self.spec.sort_keys[self.sort_column](obj), key)

    def reload(self) -> None:
        """Rebuild the rows from the store (view opened, filter or sort changed)."""
        selected = self.selected_key
        key_of = self.spec.key
        order = []
        sk = {}
        objs = {}
        keep = self.spec.kind != "Pod"
        for obj in self._objects():
            if self._wanted(obj):
                k = key_of(obj)
                v = self._sort_value(obj, k)
                sk[k] = v
                order.append(v)
                if keep:
                    objs[k] = obj
        try:
            order.sort()
        except TypeError:  # mixed key types; fall back to names
            order = sorted(order, key=lambda v: v[1])
        self._order, self._sk, self._objs = order, sk, objs
        self._restore(selected)
        self.rows_changed()

    def apply_changes(self, changes: ChangeSet) -> None:
        kind = self.spec.kind
        if changes.everything:
            self.reload()
            return
        if kind != "Pod":
            if kind in changes.kinds:
                self.reload()
            else:
                self.refresh()  # ages move on
            return
        keys = changes.pods
        if len(keys) > INCREMENTAL_LIMIT:
            self.reload()
            return
        if not keys:
            self.refresh()
            return
        selected = self.selected_key
        store = self.session.store
        order, sk = self._order, self._sk
        for k in keys:
            old = sk.pop(k, None)
            if old is not None:
                i = bisect_left(order, old)
                if i < len(order) and order[i] == old:
                    del order[i]
            obj = store.get("Pod", k[1], k[0])
            if obj is not None and self._wanted(obj):
                v = self._sort_value(obj, k)
                sk[k] = v
                try:
                    insort(order, v)
                except TypeError:
                    order.append(v)
        self._restore(selected)
        self.rows_changed()

    def set_filter(self, row_filter: RowFilter) -> None:
        self.row_filter = row_filter
        self.reload()

    def action_sort(self, column: str) -> None:
        if column == "NAME" and "NAME" not in self.spec.sort_keys:
            return
        if column not in self.spec.sort_keys and column != "NAME":
            return
        if self.sort_column == column:
            self.reverse = not self.reverse
        else:
            self.sort_column, self.reverse = column, False
        self.reload()

    # -- rows -----------------------------------------------------------------------------
    def row_count(self) -> int:
        return len(self._order)

    def row_key(self, index: int) -> Key:
        n = len(self._order)
        return self._order[n - 1 - index if self.reverse else index][1]

    def object_at(self, index: int) -> Any | None:
        if not 0 <= index < len(self._order):
            return None
        key = self.row_key(index)
        if self.spec.kind != "Pod":
            return self._objs.get(key)
        return self.session.store.get("Pod", key[1], key[0])

    @property
    def selected_key(self) -> Key | None:
        if 0 <= self.cursor < len(self._order):
            return self.row_key(self.cursor)
        return None

    @property
    def selected_object(self) -> Any | None:
        return self.object_at(self.cursor)

    def _restore(self, key: Key | None) -> None:
        if key is None or key not in self._sk:
            return
        i = bisect_left(self._order, self._sk[key])
        if self.reverse:
            i = len(self._order) - 1 - i
        if i != self.cursor:
            self.set_reactive(ResourceTable.cursor, i)
            self.scroll_to_cursor()

    # -- drawing --------------------------------------------------------------------------
    def _columns(self) -> tuple[str, ...]:
        cols = self.spec.columns
        if self.namespace is not None and cols and cols[0] == "NAMESPACE":
            return cols[1:]
        return cols

    def _cells(self, obj: Any) -> tuple[str, ...]:
        cells = self.spec.cells(obj, self.session.now, self.session)
        if self.namespace is not None and self.spec.columns[0] == "NAMESPACE":
            cells = cells[1:]
        return cells

    def content_width(self) -> int:
        return sum(self._widths[: len(self._columns())]) + _PAD * len(self._columns())

    def _grow(self, cells: tuple[str, ...]) -> None:
        widths = self._widths
        for i, c in enumerate(cells):
            w = cell_len(c)
            if i < len(widths) and w > widths[i]:
                widths[i] = min(w, 80)
                self.update_virtual_size()

    def _line(self, cells: tuple[str, ...], styles: list[Style], width: int) -> list[Segment]:
        segs = []
        last = len(cells) - 1
        for i, (c, st) in enumerate(zip(cells, styles)):
            w = self._widths[i]
            text = c if cell_len(c) <= w or i == last else c[: max(0, w - 1)] + "…"
            segs.append(Segment(text.ljust(w + _PAD) if i < last else text, st))
        return segs

    def render_header(self, width: int) -> Strip:
        cols = list(self._columns())
        base = self.get_component_rich_style("line-list--header")
        sorted_style = base + self.get_component_rich_style("resource-table--sorted")
        labels = []
        for c in cols:
            if c == self.sort_column or (self.sort_column == "NAMESPACE" and c == "NAME"
                                         and "NAMESPACE" not in cols):
                labels.append(c + ("↓" if self.reverse else "↑"))
            else:
                labels.append(c)
        self._grow(tuple(labels))
        styles = [sorted_style if lab != c else base for lab, c in zip(labels, cols)]
        return Strip(self._line(tuple(labels), styles, width)).crop_extend(0, width, base)

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        obj = self.object_at(index)
        base = self.rich_style
        if obj is None:
            return Strip.blank(width, base)
        cells = self._cells(obj)
        self._grow(cells)
        state = self.spec.state(obj)
        style = base + self.get_component_rich_style(f"resource-table--{state}")
        segs = self._line(cells, [style] * len(cells), width)
        strip = Strip(segs).crop_extend(0, width, style)
        if selected:
            strip = strip.apply_style(self.cursor_style())
        return strip
