"""Sorting and filtering a list view without sorting again (issue 11 item 3: sort and the first
filter keystroke at 30,000 pods within 50 ms).

The list views keep one order per (column, filter) they have shown, brought up to date row by
row as the cluster changes (ksandbox/tui/row_order.py). What is checked is what a person sees:
after every key and every change of the cluster, the rows are exactly the pods the filter
matches — the set ``kubectl get pods -A`` lists — in exactly the order a fresh sort by
``(column value, namespace/name)`` gives, reversed when the column's key is pressed again.
The property that makes it cheap is pinned too: switching back to a column or a filter shown
before, reversing, and typing a narrower filter rebuild nothing from the store.

k9s sorts its tables the same way (internal/ui/table.go: a column's sort, again to reverse);
the model here is ours.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from helpers import settle, type_text
from screen_text import screen_text

from ksandbox.tui.filtering import parse_filter
from ksandbox.tui.row_order import RowOrder
from ksandbox.tui.rows import spec_for
from ksandbox.tui.widgets import resource_table

SIZE = (160, 40)


# -- the order on its own -------------------------------------------------------------------------

def _fresh(value: dict, keys) -> list:
    def rank(v):  # what RowOrder does with mixed types: None first, then by type
        return (0,) if v is None else (1, type(v).__name__, v)
    mixed = len({type(v) for v in value.values()}) > 1
    return sorted(keys, key=lambda k: ((rank(value[k]) if mixed else value[k]), k))


@pytest.mark.parametrize("seed", range(6))
def test_an_order_kept_row_by_row_equals_a_fresh_sort(seed):
    rnd = random.Random(seed)
    values = ["Running", "Pending", "Failed"] if seed % 2 else [1.0, 2.0, 5.0, 3.5]
    keys = [(rnd.choice("ab"), f"p-{i:03d}") for i in range(200)]
    value = {k: rnd.choice(values) for k in keys}
    rows = RowOrder.by_value("X", None, sorted(keys), dict(value))
    by_key = RowOrder.by_key("K", None, keys)
    assert rows.order == _fresh(value, keys) and by_key.order == sorted(keys)
    for step in range(300):
        k = (rnd.choice("abc"), f"p-{rnd.randrange(260):03d}")
        gone = rnd.random() < 0.3
        # A value of another type now and then (a NODE column's None for a pending pod).
        v = None if seed >= 4 and rnd.random() < 0.05 else rnd.choice(values)

        def current(key, gone=gone, v=v):
            return (not gone, v)

        rows.update([k], current)
        by_key.update([k], current)
        if gone:
            value.pop(k, None)
        else:
            value[k] = v
        assert rows.order == _fresh(value, value), step
        assert by_key.order == sorted(value), step
        for probe in rnd.sample(list(value), min(5, len(value))):
            assert rows.order[rows.index(probe)] == probe
    assert rows.index(("z", "nope")) is None


@pytest.mark.parametrize("seed", range(6))
def test_texts_stay_in_step_and_a_filtered_order_keeps_its_own_values(seed):
    """An order's lower-cased search texts (RowOrder.texts, which the filter reads in a row)
    stay those of its rows, in its order, through inserts and deletes. An order filtered from
    another — its values copied less the dropped rows, or picked one by one — stays its own
    fresh sort as both change (the parent caught up later, as a kept order shown again is)."""
    rnd = random.Random(seed)
    values = ["Running", "Pending", "Failed"] if seed % 2 else [1.0, 2.0, 5.0, 3.5]
    keys = [(rnd.choice("ab"), f"p-{i:03d}") for i in range(120)]
    value = {k: rnd.choice(values) for k in keys}

    def text(k):
        return f"{k[0]}/{k[1]} {value[k]}".lower()

    parent = RowOrder.by_value("X", None, sorted(keys), dict(value))
    parent.texts = [text(k) for k in parent.order]
    # Most rows kept (the copy less the dropped) for even seeds, few for odd ones.
    wanted = {k for k in keys if (k[1][-1] != "7") == (seed % 2 == 0)}
    kept = [k for k in parent.order if k in wanted]
    dropped = [k for k in parent.order if k not in wanted]
    child = parent.filtered("f", kept, [text(k) for k in kept], dropped)
    assert child.value == {k: value[k] for k in kept} and child.value is not parent.value
    behind: set = set()
    for step in range(200):
        k = (rnd.choice("abc"), f"p-{rnd.randrange(150):03d}")
        if rnd.random() < 0.3:
            value.pop(k, None)
        else:
            value[k] = None if seed >= 4 and rnd.random() < 0.05 else rnd.choice(values)

        def current(key, keep=None):
            return key in value and (keep is None or key in keep), value.get(key)

        child.update([k], lambda key: current(key, wanted), text)
        behind.add(k)
        if step % 7 == 0:
            parent.update(behind, current, text)
            behind = set()
            assert parent.order == _fresh(value, value), step
            assert parent.texts == [text(k) for k in parent.order] or (
                seed >= 4 and parent.texts is None), step  # a mixed type re-sorts: dropped
        mine = {k: value[k] for k in value if k in wanted}
        assert child.order == _fresh(mine, mine), step
        assert child.texts == [text(k) for k in child.order] or (
            seed >= 4 and child.texts is None), step


# -- the list view ------------------------------------------------------------------------------

def _expected(app, column: str, text: str, reverse: bool) -> list[tuple[str, str]]:
    """The rows a fresh look at the store gives: the pods the filter matches, sorted by
    (value, key)."""
    spec = spec_for("Pod")
    f = parse_filter(text)
    pods = [p for p in app.session.store.list("Pod")
            if not f.active or f.matches(spec.search(p), p.metadata.labels)]
    key = {"NAMESPACE": lambda p: "", "NAME": lambda p: p.metadata.name}.get(
        column, spec.sort_keys.get(column))
    rows = sorted(pods, key=lambda p: (key(p), (p.metadata.namespace, p.metadata.name)))
    out = [(p.metadata.namespace, p.metadata.name) for p in rows]
    return out[::-1] if reverse else out


def _shown(table) -> list[tuple[str, str]]:
    return [table.row_key(i) for i in range(table.row_count())]


def _kubectl_names(app, text: str) -> set[str]:
    out = app.session.submit("kubectl get pods -A --no-headers", record=False).output
    spec = spec_for("Pod")
    f = parse_filter(text)
    names = set()
    for line in out.splitlines():
        ns, name = line.split()[:2]
        pod = app.session.store.get("Pod", name, ns)
        if not f.active or f.matches(spec.search(pod), pod.metadata.labels):
            names.add((ns, name))
    return names


@pytest.mark.parametrize("mode", ["at-once", "in-slices", "prepared"])
async def test_sorts_and_filters_show_the_rows_a_fresh_sort_shows(session, make, monkeypatch,
                                                                   mode):
    if mode == "in-slices":  # the 30,000-pod path: rebuilds run as a worker in slices
        monkeypatch.setattr(resource_table, "SYNC_ROWS", 10)
        monkeypatch.setattr(resource_table, "SLICE", 7)
    if mode == "prepared":  # long lists: texts and other columns' orders made in the background
        monkeypatch.setattr(resource_table, "WARM_ROWS", 1)
        monkeypatch.setattr(resource_table, "WARM_SLICE", 3)
    else:
        monkeypatch.setattr(resource_table, "WARM_ROWS", 10**9)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(20)
        app.submit("kubectl scale deployment/web --replicas=40", quiet=True)
        app.advance(3)  # some Running, some still Pending or ContainerCreating
        await pilot.press("colon")
        await type_text(pilot, "po")
        await pilot.press("enter")
        await settle(pilot, 4)
        if mode == "prepared":
            # Prepared again, and the cluster changes while the orders are being prepared
            # (between their slices).
            table = app.screen.table
            table._orders = {key: rows for key, rows in table._orders.items()
                             if rows is table._rows}
            table._warm()
            for step in range(30):
                if step % 5 == 0:
                    app.submit(f"kubectl scale deployment/web --replicas={30 + step}",
                               quiet=True)
                app.advance(0.5)
                for _ in range(3):
                    await asyncio.sleep(0)
        await settle(pilot, 4)
        table = app.screen.table
        if mode == "prepared":
            assert {column for column, _ in table._orders} == {
                "NAMESPACE", "NAME", "STATUS", "AGE", "NODE"}, "every column's order is ready"
        rebuilds = [0]
        original = table._rebuild

        def counted():
            rebuilds[0] += 1
            original()

        table._rebuild = counted

        async def check(column: str, text: str = "", reverse: bool = False) -> None:
            await settle(pilot, 4)
            assert (table.sort_column, table.reverse) == (column, reverse)
            want = _expected(app, column, text, reverse)
            assert _shown(table) == want
            assert set(want) == _kubectl_names(app, text)
            # What a person sees: the rows at the top of the list's window, in that order.
            lines = screen_text(app).splitlines()
            top = int(table.scroll_y)
            names = [next((i for i, line in enumerate(lines) if f" {name} " in line), None)
                     for _, name in want[top:top + 5]]
            assert None not in names and names == sorted(names)

        await check("NAMESPACE")
        for key, column in (("S", "STATUS"), ("A", "AGE"), ("N", "NAME"), ("O", "NODE")):
            await pilot.press(key)
            await check(column)
        built = rebuilds[0]
        # The cluster changes: pods come, go and change status while other orders are kept.
        app.submit("kubectl scale deployment/web --replicas=25", quiet=True)
        app.advance(2)
        app.submit("kubectl scale deployment/web --replicas=45", quiet=True)
        app.advance(4)
        await check("NODE")
        for key, column in (("S", "STATUS"), ("A", "AGE"), ("N", "NAME")):
            await pilot.press(key)
            await check(column)
        await pilot.press("N")
        await check("NAME", reverse=True)
        assert rebuilds[0] == built, "kept orders and reversing sort nothing from the store"

        # Filter as you type: each key narrows the rows on show; backspace and escape go back.
        await pilot.press("slash")
        await type_text(pilot, "web")
        await check("NAME", "web", reverse=True)
        app.submit("kubectl scale deployment/web --replicas=30", quiet=True)
        app.advance(3)
        await type_text(pilot, "-")
        await check("NAME", "web-", reverse=True)
        await pilot.press("backspace")
        await check("NAME", "web", reverse=True)
        await pilot.press("enter")
        await pilot.press("S")
        await check("STATUS", "web")
        assert rebuilds[0] == built, "a narrower filter searches the rows on show"
        # A rebuild from the store (too much changed) while pods keep changing under it.
        table.reload()
        assert table._reloading == (mode == "in-slices")
        app.submit("kubectl scale deployment/web --replicas=33", quiet=True)
        app.advance(2)
        await check("STATUS", "web")
        app.submit("kubectl scale deployment/web --replicas=50", quiet=True)
        app.advance(3)
        await pilot.press("escape")  # clears the filter
        await check("STATUS")
        await pilot.press("escape")  # back to the board
        await settle(pilot)


FILTERS = ["web", "WEB-", "web-.*", "Running", "ContainerCreating", "node-1", "default/",
           "b ", "!web", "!Running", "^default", "kube-system$", "web|etcd", "[", "-l app=web",
           "-l app!=web", "-l", "no-such", "!", "e.n", "s Run"]


async def test_filtering_over_the_joined_texts_keeps_what_each_row_matches(session, make,
                                                                          monkeypatch):
    """The plain-text filter runs once over every row's text joined by line breaks; any
    other filter per row. Both keep exactly the rows whose own text the filter matches — and
    the texts, computed in the background as the list opens, follow the pods as they change
    (a pod that became Running is found by /Running)."""
    from ksandbox.tui.rows import pod_status_of
    from ksandbox.views.printers import pod_status

    monkeypatch.setattr(resource_table, "WARM_ROWS", 1)
    monkeypatch.setattr(resource_table, "WARM_SLICE", 3)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(20)
        app.submit("kubectl scale deployment/web --replicas=30", quiet=True)
        app.advance(1)
        await pilot.press("colon")
        await type_text(pilot, "po")
        await pilot.press("enter")
        await settle(pilot, 4)
        table = app.screen.table
        keys = _shown(table)
        assert len(table._search) == len(keys), "the texts were computed as the list opened"
        statuses = {pod_status(app.session.store.get("Pod", k[1], k[0])) for k in keys}
        assert {"Running", "ContainerCreating"} <= statuses or {"Running", "Pending"} <= statuses

        app.advance(30)  # the new pods start: their texts must follow
        await settle(pilot, 4)
        spec = spec_for("Pod")
        for text in FILTERS:
            f = parse_filter(text)
            keys = _shown(table)
            pods = {k: app.session.store.get("Pod", k[1], k[0]) for k in keys}
            want = [k for k in keys if f.matches(spec.search(pods[k]), pods[k].metadata.labels)]
            assert table._matching(keys, f) == want, text
        # Typed over no filter, as the bar does: the rows on show narrowed (their texts read
        # in a row from the order for plain text) are those same rows.
        from ksandbox.tui.filtering import NO_FILTER

        keys = _shown(table)
        texts = table._rows.texts
        assert texts == [spec.search(app.session.store.get("Pod", k[1], k[0])).lower()
                         for k in table._rows.order], "the texts follow the pods"
        for text in FILTERS:
            f = parse_filter(text)
            table.set_filter(NO_FILTER)
            table.set_filter(f)
            await settle(pilot)
            pods = {k: app.session.store.get("Pod", k[1], k[0]) for k in keys}
            want = [k for k in keys if f.matches(spec.search(pods[k]), pods[k].metadata.labels)]
            assert _shown(table) == want, text
        table.set_filter(NO_FILTER)
        for k in keys:
            pod = app.session.store.get("Pod", k[1], k[0])
            assert pod_status_of(pod) == pod_status(pod)

        await pilot.press("slash")
        await type_text(pilot, "Running")
        await pilot.press("enter")
        await settle(pilot, 4)
        want = _expected(app, table.sort_column, "Running", table.reverse)
        assert _shown(table) == want and len(want) >= 30


def test_a_remembered_pod_status_leaves_with_its_status_object(session):
    """rows.pod_status_of remembers a STATUS by the status object, weakly: a status a write
    replaced is not kept alive by the memo, and the answer is printers.pod_status's."""
    import gc

    from ksandbox.tui import rows
    from ksandbox.views.printers import pod_status

    session.run_until(20)
    pods = session.store.list("Pod")
    before = len(rows._STATUS_MEMO)
    assert [rows.pod_status_of(p) for p in pods] == [pod_status(p) for p in pods]
    assert len(rows._STATUS_MEMO) >= before + 1
    import weakref

    olds = [weakref.ref(p.status) for p in pods]
    session.submit("kubectl delete pods --all")
    session.run_until(60)
    del pods
    gc.collect()
    # A replaced status may still be held elsewhere (the shared informer keeps the last event
    # it heard); the memo must hold none alive and keep no entry for one that died.
    dead = [r for r in olds if r() is None]
    assert len(dead) >= len(olds) // 2, "the deleted pods' statuses were kept alive"
    assert all(ref() is not None for ref, _text in rows._STATUS_MEMO.values()), \
        "replaced statuses left the memo"


def test_key_order_is_sorted_order():
    """row_order.in_key_order (two stable string sorts) gives exactly ``sorted(keys)``, the
    tuple order (namespace, name), whatever the names: shared prefixes, empty namespaces
    (cluster-scoped rows), case, digits, non-ASCII."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ksandbox.tui.row_order import in_key_order

    word = st.text(alphabet="ab-.0Zé/", max_size=6)

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(word, word), unique=True, max_size=60))
    def check(keys):
        assert in_key_order(keys) == sorted(keys)
        assert in_key_order(iter(keys)) == sorted(keys)

    check()


async def test_a_filter_every_row_matches_narrows_to_copies_of_the_rows(session, make):
    """Typing a text every row has keeps every row: the narrowed order is made of copies of
    the order on show (its keys, texts and values), and both go their own ways as the cluster
    changes — the wider one shown again with backspace."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.submit("kubectl scale deployment/web --replicas=12", quiet=True)
        app.advance(20)
        await pilot.press("colon")
        await type_text(pilot, "po")
        await pilot.press("enter")
        await settle(pilot, 4)
        table = app.screen.table
        await pilot.press("S")  # an order with values
        await settle(pilot)
        wider = table._rows
        assert wider.value is not None and table._gather_texts(wider) is not None
        await pilot.press("slash")
        await type_text(pilot, "e")  # every row: "default/…" and "kube-system/…"
        await settle(pilot)
        narrow = table._rows
        everything = _expected(app, "STATUS", "", False)
        assert narrow is not wider and narrow.order == wider.order == everything
        assert narrow.order is not wider.order and narrow.texts is not wider.texts
        assert narrow.value is not wider.value and narrow.value == wider.value
        assert narrow.texts == wider.texts
        app.submit("kubectl scale deployment/web --replicas=3", quiet=True)
        app.advance(30)
        await settle(pilot)
        assert _shown(table) == _expected(app, "STATUS", "e", False)
        await pilot.press("backspace")
        await settle(pilot)
        assert table._rows is wider and _shown(table) == _expected(app, "STATUS", "", False)
