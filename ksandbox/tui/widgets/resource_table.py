"""ResourceTable: a k9s list view — kubectl's columns over one kind, sorted and filtered.

Rows are the stored objects themselves; cells are formatted only for the lines on screen
(:mod:`ksandbox.tui.rows`). The order is a sorted list of precomputed keys, kept up to date
incrementally: a change set that touches 40 of 30,000 pods moves 40 entries by bisection
instead of re-sorting everything. Column widths grow to fit what has been seen and never
shrink while the view is open, so rows do not jiggle as you scroll.

Sorting: ``shift+n`` name, ``shift+a`` age, ``shift+s`` status, ``shift+o`` node (k9s keys);
again to reverse.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left, insort
from typing import TYPE_CHECKING, Any, Callable, Iterable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip

from ...commands.common import no_resources
from ..filtering import NO_FILTER, RowFilter
from ..model import ChangeSet
from ..rows import RowSpec
from .line_list import LineList

if TYPE_CHECKING:
    from ...session import Session

Key = tuple[str, str]
# Past this many changed keys a full rebuild is cheaper than moving rows one by one.
INCREMENTAL_LIMIT = 2000
# A reload of up to SYNC_ROWS objects runs at once; a bigger one in slices of SLICE rows.
SYNC_ROWS = 8000
SLICE = 12000
_PAD = 3  # kubectl's tabwriter padding


_PLAIN = __import__("re").compile(r"[\w\-./:= ]*")


def _narrows(old: RowFilter, new: RowFilter) -> bool:
    """Whether every row ``new`` keeps was kept by ``old`` (plain text typed further)."""
    return (old.active and new.active and not old.inverse and not new.inverse
            and old.selector is None and new.selector is None and not new.error
            and new.text.startswith(old.text) and _PLAIN.fullmatch(new.text) is not None)


class ResourceTable(LineList):
    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {
        "resource-table--ok", "resource-table--pending", "resource-table--failed",
        "resource-table--warning", "resource-table--dim", "resource-table--cordoned",
        "resource-table--sorted", "resource-table--marked"}

    BINDINGS = [
        Binding("N", "sort('NAME')", "Sort name", show=False, id="table.sort-name"),
        Binding("A", "sort('AGE')", "Sort age", show=False, id="table.sort-age"),
        Binding("S", "sort('STATUS')", "Sort status", show=False, id="table.sort-status"),
        Binding("O", "sort('NODE')", "Sort node", show=False, id="table.sort-node"),
    ]

    header = True

    class Reloaded(Message):
        """The rows were rebuilt (a sliced reload finished)."""

        def __init__(self, table: "ResourceTable") -> None:
            super().__init__()
            self.table = table

    def __init__(self, session: Session, spec: RowSpec, *, namespace: str | None = None,
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
            self.sort_column = "LAST SEEN"   # newest first, cause above effect within a second
        self.reverse = False
        self.wide = False
        """kubectl's ``-o wide`` columns (``ctrl+w``)."""
        self.marked: set[Key] = set()
        """Rows marked with ``ctrl+space`` (k9s): c/u/ctrl+d act on all of them."""
        self._order: list[tuple[Any, Key]] = []
        self._sk_cache: dict[Key, tuple[Any, Key]] | None = {}
        self._objs: dict[Key, Any] = {}
        """Objects by key as of the last reload (kinds other than Pod, which read live)."""
        self._search: dict[Key, tuple[Any, str]] = {}
        self._values: dict[str, dict[Key, tuple[Any, tuple[Any, Key]]]] = {}
        self._reloading = False
        self._late_keys: set[Key] = set()
        """The filter's search text by key, with the object it was made from."""
        self._widths: list[int] = [len(c) for c in self._columns()]

    # -- data -----------------------------------------------------------------------------
    def _items(self) -> Iterable[tuple[Key, Any]]:
        """(key, object) for every candidate row."""
        store = self.session.store
        kind = self.spec.kind
        if self.node is not None and kind == "Pod":
            return [((p.metadata.namespace, p.metadata.name), p)
                    for p in store.pods_on_node(self.node)]
        if kind == "Event" or not hasattr(store, "items"):
            key_of = self.spec.key
            return [(key_of(o), o) for o in store.list(kind, self.namespace)]
        return list(store.items(kind))

    def _search_text(self, key: Key, obj: Any) -> str:
        cached = self._search.get(key)
        if cached is not None and cached[0] is obj:
            return cached[1]
        text = self.spec.search(obj)
        self._search[key] = (obj, text)
        return text

    def _wanted(self, obj: Any, key: Key | None = None) -> bool:
        if self.namespace is not None and self.spec.namespaced \
                and obj.metadata.namespace != self.namespace:
            return False
        if self.node is not None and getattr(obj.spec, "node_name", None) != self.node:
            return False
        if self.where is not None and not self.where(obj):
            return False
        f = self.row_filter
        if f.active:
            text = self._search_text(key or self.spec.key(obj), obj)
            if not f.matches(text, obj.metadata.labels):
                return False
        return True

    def _sort_fn(self) -> Callable[[Any, Key], Any]:
        """The sort value of a row (unique: the column's value, then the row's key)."""
        column = self.sort_column
        fn = self.spec.sort_keys.get(column)
        if column == "NAMESPACE" or fn is None:
            return lambda obj, key: (key[0] + "\0" + key[1], key)
        if column == "NAME":
            return lambda obj, key: (key[1], key)
        return lambda obj, key: (fn(obj), key)

    def _sort_values(self, items: list[tuple[Key, Any]]) -> list[tuple[Any, Key]]:
        """Sort values for many rows at once (comprehensions: the 30,000-row fast path).

        Values computed from an object (status, age) are cached by key with the object they
        came from, so sorting again — or after a few pods changed — recomputes only those."""
        column = self.sort_column
        fn = self.spec.sort_keys.get(column)
        if column == "NAMESPACE" or fn is None:
            return [(k[0] + "\0" + k[1], k) for k, _ in items]
        if column == "NAME":
            return [(k[1], k) for k, _ in items]
        cache = self._values.setdefault(column, {})
        out = []
        append = out.append
        for k, o in items:
            hit = cache.get(k)
            if hit is None or hit[0] is not o:
                hit = cache[k] = (o, (fn(o), k))
            append(hit[1])
        return out

    def reload(self) -> None:
        """Rebuild the rows from the store (view opened, filter or sort changed).

        The hot path of the list views, with no per-row formatting (cells are made only for
        the lines on screen). Up to :data:`SYNC_ROWS` objects it runs at once; past that it
        runs as a worker in slices of :data:`SLICE` rows, yielding to the event loop between
        them, so typing a filter over 30,000 pods never stalls the screen; a newer reload
        cancels an older one, and changes that arrive meanwhile are applied after it.
        """
        items = self._items()
        if len(items) <= SYNC_ROWS:
            self._reloading = False
            self._commit(self._build(items))
        else:
            self._reloading = True
            self.run_worker(self._reload_in_slices(items), exclusive=True,
                            group="table-reload", exit_on_error=False)

    def _needs_check(self) -> bool:
        return (self.namespace is not None or self.node is not None or self.where is not None
                or self.row_filter.active)

    def _build(self, items: list[tuple[Key, Any]]) -> list[tuple[Any, Key]]:
        if self._needs_check():
            wanted = self._wanted
            items = [(k, o) for k, o in items if wanted(o, k)]
        if self.spec.kind != "Pod":
            self._objs = dict(items)
        return self._sort_values(items)

    async def _reload_in_slices(self, items: list[tuple[Key, Any]]) -> None:
        order: list[tuple[Any, Key]] = []
        objs: dict[Key, Any] = {}
        check = self._needs_check()
        wanted = self._wanted
        for i in range(0, len(items), SLICE):
            part = items[i:i + SLICE]
            if check:
                part = [(k, o) for k, o in part if wanted(o, k)]
            if self.spec.kind != "Pod":
                objs.update(part)
            order.extend(self._sort_values(part))
            await asyncio.sleep(0)
        self._objs = objs
        self._commit(order)
        self._reloading = False
        if self._late_keys:
            keys, self._late_keys = self._late_keys, set()
            self._apply_keys(keys)

    @property
    def _sk(self) -> dict[Key, tuple[Any, Key]]:
        """Each row's sort value by key (built when first needed after a rebuild: the key
        path of a sort or a filter does not pay for it)."""
        if self._sk_cache is None:
            self._sk_cache = {v[1]: v for v in self._order}
        return self._sk_cache

    def _commit(self, order: list[tuple[Any, Key]]) -> None:
        selected = self.selected_key
        try:
            order.sort()
        except TypeError:  # mixed value types; fall back to keys
            order.sort(key=lambda v: v[1])
        self._order, self._sk_cache = order, None
        if len(self._search) > 2 * len(order) + 1000 or any(
                len(c) > 2 * len(order) + 1000 for c in self._values.values()):
            live = self._sk
            self._search = {k: v for k, v in self._search.items() if k in live}
            for column, cache in self._values.items():
                self._values[column] = {k: v for k, v in cache.items() if k in live}
        self._restore(selected)
        self.rows_changed()
        self.post_message(self.Reloaded(self))

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
        if self._reloading:
            self._late_keys |= keys
            return
        self._apply_keys(keys)

    def _apply_keys(self, keys: set[Key] | frozenset[Key]) -> None:
        selected = self.selected_key
        store = self.session.store
        sort_value = self._sort_fn()
        order, sk = self._order, self._sk
        for k in keys:
            old = sk.pop(k, None)
            if old is not None:
                i = bisect_left(order, old)
                if i < len(order) and order[i] == old:
                    del order[i]
            obj = store.get("Pod", k[1], k[0])
            if obj is not None and self._wanted(obj, k):
                v = sort_value(obj, k)
                sk[k] = v
                try:
                    insort(order, v)
                except TypeError:
                    order.append(v)
        self._restore(selected)
        self.rows_changed()

    def set_filter(self, row_filter: RowFilter) -> None:
        """Filter as you type: a filter that only narrows the last one (``web`` → ``web-1``,
        both plain text) searches the rows already shown instead of every object."""
        previous = self.row_filter
        self.row_filter = row_filter
        if _narrows(previous, row_filter) and self._order and not self._reloading:
            self._narrow()
        else:
            self.reload()

    def _narrow(self) -> None:
        selected = self.selected_key
        store = self.session.store
        kind = self.spec.kind
        get = (lambda k: store.get("Pod", k[1], k[0])) if kind == "Pod" else self._objs.get
        f = self.row_filter
        search = self._search_text
        keep = []
        for v in self._order:
            k = v[1]
            obj = get(k)
            if obj is not None and f.matches(search(k, obj), obj.metadata.labels):
                keep.append(v)
        self._order, self._sk_cache = keep, None
        self._restore(selected)
        self.rows_changed()

    def action_sort(self, column: str) -> None:
        if column not in self.spec.sort_keys:
            self.notify(f"{self.spec.resource} have no {column} column to sort by",
                        severity="warning", timeout=3)
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
        """Keep the cursor on the row it was on (found by its sort value, not a scan)."""
        # The scroll range first: the row may have moved past the old end.
        self.update_virtual_size()
        if key is None or not self._order:
            return
        if self._sk_cache is not None:
            value = self._sk_cache.get(key)
        else:
            obj = (self.session.store.get("Pod", key[1], key[0]) if self.spec.kind == "Pod"
                   else self._objs.get(key))
            value = self._sort_fn()(obj, key) if obj is not None else None
            if self.sort_column in self._values and obj is not None:
                hit = self._values[self.sort_column].get(key)
                value = hit[1] if hit is not None else value
        if value is None:
            return
        i = bisect_left(self._order, value)
        if i >= len(self._order) or self._order[i] != value:
            return
        if self.reverse:
            i = len(self._order) - 1 - i
        if i != self.cursor:
            self.set_reactive(ResourceTable.cursor, i)
            self.scroll_to_cursor()

    def empty_text(self) -> str:
        """kubectl's words for an empty list (``No resources found in default namespace.``)."""
        if self._reloading:
            return ""
        return no_resources(self.namespace, self.spec.namespaced).strip()

    # -- drawing --------------------------------------------------------------------------
    def _columns(self) -> tuple[str, ...]:
        # A namespace chosen: no NAMESPACE column, as kubectl without -A.
        return self.spec.columns(self.wide, with_namespace=self.namespace is None)

    def _cells(self, obj: Any) -> tuple[str, ...]:
        return self.spec.cells(obj, self.session.now, self.session, self.wide,
                               with_namespace=self.namespace is None)

    def toggle_wide(self) -> bool:
        """``ctrl+w``: kubectl's ``-o wide`` columns on or off; returns the new setting."""
        self.wide = not self.wide
        self._widths = [len(c) for c in self._columns()]
        self.update_virtual_size()
        self.refresh()
        return self.wide

    def content_width(self) -> int:
        n = len(self._columns())
        return sum(self._widths[:n]) + _PAD * max(0, n - 1)

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
        base = self.component_style("line-list--header")
        sorted_style = base + self.component_style("resource-table--sorted")
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
        base = self.base_style
        if obj is None:
            return Strip.blank(width, base)
        cells = self._cells(obj)
        self._grow(cells)
        state = self.spec.state(obj)
        style = base + self.component_style(f"resource-table--{state}")
        if self.row_key(index) in self.marked:
            style = style + self.component_style("resource-table--marked")
        segs = self._line(cells, [style] * len(cells), width)
        strip = Strip(segs).crop_extend(0, width, style)
        if selected:
            strip = self.highlight(strip)
        return strip
