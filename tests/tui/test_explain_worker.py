"""The explain view computes in a worker thread (issue 11 item 3): the screen says
"computing…" at once, the clock waits while the worker reads the sandbox, and an answer that
is no longer wanted (a newer one was asked for, or the view closed) is never shown."""

from __future__ import annotations

import threading

from helpers import explained, settle
from screen_text import screen_text

from ksandbox.tui.screens import explain as explain_module
from ksandbox.tui.screens.explain import Explained, ExplainScreen

SIZE = (160, 48)


async def _until(pilot, condition, seconds: float = 10.0) -> None:
    """Let the app run (a thread worker starts from the event loop) until ``condition``."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("timed out")


def _hold_first_answer(monkeypatch):
    """The first computation waits for ``release`` and answers with a marker text."""
    real = explain_module.compute_explanation
    release, started = threading.Event(), threading.Event()
    calls = []

    def compute(session, namespace, name):
        calls.append(name)
        if len(calls) == 1:
            started.set()
            release.wait(10)
            return Explained(error="STALE ANSWER")
        return real(session, namespace, name)

    monkeypatch.setattr(explain_module, "compute_explanation", compute)
    return release, started, calls


async def test_explain_says_computing_then_shows_the_answer_and_the_clock_waits(
        session, make, monkeypatch):
    release, started, _calls = _hold_first_answer(monkeypatch)
    app = make(session, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        app.open_explain("default", "gpu-pod")
        await _until(pilot, started.is_set)
        assert isinstance(app.screen, ExplainScreen) and app.screen.computing
        assert "computing…" in screen_text(app)
        # The UI thread is free: keys are handled while the worker runs.
        await pilot.press("down")
        # The clock does not move while a worker reads the sandbox.
        before = app.session.now
        app._last_tick -= 0.2
        app._tick()
        assert app.session.now == before
        release.set()
        await settle(pilot)
        # The first (held) answer was the one asked for: it is shown.
        assert "STALE ANSWER" in screen_text(app)
        app.screen.recompute()
        await settle(pilot)
        text = screen_text(app)
        assert "computing…" not in text and "0/4 nodes are available" in text
        app._last_tick -= 0.2
        app._tick()
        assert app.session.now > before


async def test_an_answer_overtaken_by_a_newer_request_is_dropped(session, make, monkeypatch):
    real = explain_module.compute_explanation
    gates = [threading.Event(), threading.Event()]
    started = [threading.Event(), threading.Event()]
    calls = []

    def compute(session, namespace, name):
        n = len(calls)
        calls.append(name)
        started[n].set()
        gates[n].wait(10)
        return Explained(error="STALE ANSWER") if n == 0 else real(session, namespace, name)

    monkeypatch.setattr(explain_module, "compute_explanation", compute)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        app.open_explain("default", "gpu-pod")
        await _until(pilot, started[0].is_set)
        # The cluster changes while the first answer is being computed: the view asks again.
        app.screen.recompute()
        gates[0].set()  # the first answer arrives while the second is still computing
        await _until(pilot, started[1].is_set)
        for _ in range(5):
            await pilot.pause()
        text = screen_text(app)
        assert "STALE ANSWER" not in text and "computing…" in text
        gates[1].set()
        await settle(pilot)
        text = screen_text(app)
        assert "STALE ANSWER" not in text and "computing…" not in text
        assert "0/4 nodes are available" in text


async def test_an_answer_for_a_closed_view_is_dropped(session, make, monkeypatch):
    release, started, _calls = _hold_first_answer(monkeypatch)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.open_explain("default", "gpu-pod")
        await _until(pilot, started.is_set)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ExplainScreen)
        release.set()
        await settle(pilot)
        assert app.screen.view_name == "board"
        assert "STALE ANSWER" not in screen_text(app)


class Gate:
    """Wrap ``session.explain`` so a computation waits until the test lets it go."""

    def __init__(self, session) -> None:
        self.real = session.explain
        self.open = threading.Event()
        self.entered = threading.Event()
        self.calls: list[str] = []
        session.explain = self

    def __call__(self, namespace: str, name: str):
        self.calls.append(name)
        self.entered.set()
        assert self.open.wait(10), "the test never opened the gate"
        return self.real(namespace, name)


def _frames_of(app, screen):
    """The text of every frame of ``screen`` from now on, as the app displays it."""
    frames = []
    real_display = app._display

    def display(shown, renderable):
        if shown is screen:
            frames.append(screen_text(app))
        return real_display(shown, renderable)

    app._display = display
    return frames


def _layouts_of(screen):
    """One entry (its ``scroll`` flag) per layout of ``screen`` from now on."""
    layouts = []
    real = type(screen)._refresh_layout

    def counted(self, size=None, scroll=False):
        layouts.append(scroll)
        return real(self, size, scroll)

    screen._refresh_layout = counted.__get__(screen)
    return layouts


def _a_bound_default_pod(app):
    return next(p for p in app.session.store.list("Pod")
                if p.spec.node_name and p.metadata.namespace == "default")


async def test_a_result_for_a_pod_no_longer_on_show_is_dropped(session, make):
    """Explain is asked for gpu-pod, then — before its worker is done — for another pod:
    gpu-pod's verdicts never reach the screen; the other pod's do."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        other = _a_bound_default_pod(app)
        gate = Gate(app.session)
        app.open_explain("default", "gpu-pod")
        await pilot.pause()
        assert gate.entered.wait(10)
        screen = app.screen
        shown = []
        real_show = screen._show
        screen._show = lambda result: (shown.append(result.name), real_show(result))
        screen.retarget("default", other.metadata.name)
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        assert shown == [other.metadata.name], shown
        text = screen_text(app)
        assert f"pod/default/{other.metadata.name}" in text
        assert "0/4 nodes are available" not in text
        assert gate.calls == ["gpu-pod", other.metadata.name]



async def test_an_error_in_the_worker_is_a_line_on_the_screen(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        def broken(namespace, name):
            raise RuntimeError("scheduler bug")

        app.session.explain = broken
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert isinstance(app.screen, ExplainScreen)
        assert "explain failed: scheduler bug" in screen_text(app)



async def test_reopening_an_unchanged_cluster_shows_the_cached_result(session, make):
    """Cached per (pod, store version): explaining the same pod again with nothing changed
    computes nothing; after a change it computes again."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        real = app.session.explain
        calls = []
        app.session.explain = lambda ns, n: (calls.append(n), real(ns, n))[1]
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        await pilot.press("escape")
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert calls == ["gpu-pod"]
        assert "0/4 nodes are available" in screen_text(app)
        app.submit("kubectl label nodes node-1 hw-type=gpu")
        await settle(pilot)
        app.screen.recompute()
        await settle(pilot)
        assert calls == ["gpu-pod", "gpu-pod"]
        assert "would place it on node-1" in screen_text(app)


def test_a_fork_waits_for_a_reader_and_never_copies_explains_shadow_cache(session):
    """Session.lock: a what-if fork asked for while a worker explains a bound pod (explain
    swaps the scheduler's cache for a shadow one meanwhile) waits for it, and the fork's
    scheduler reads the real cache."""
    session.run_until(5)
    bound = next(p for p in session.store.list("Pod") if p.spec.node_name)
    held, go, done = threading.Event(), threading.Event(), threading.Event()

    def read():
        with session.lock:
            held.set()
            assert go.wait(10)
            session.explain(bound.metadata.namespace, bound.metadata.name)
        done.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert held.wait(10)
    forks = []
    forker = threading.Thread(target=lambda: forks.append(session.fork()))
    forker.start()
    forker.join(0.2)
    assert forker.is_alive() and not forks   # waiting for the reader
    go.set()
    forker.join(10)
    reader.join(10)
    assert done.is_set() and len(forks) == 1
    fork = forks[0]
    for fwk in fork.cp.scheduler.profiles.values():
        assert fwk.handle.cache is fork.cp.scheduler.cache
    assert fork.lock is not session.lock


async def test_a_covered_explain_view_does_not_recompute_until_it_is_on_show(session, make):
    """While `d`'s describe covers the view, cluster changes do not start workers (each one
    would stop the clock); back on show, it catches up."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        view = app.screen
        asked = view.request
        await pilot.press("d")
        await settle(pilot)
        assert app.screen is not view
        app.submit("kubectl label nodes node-1 hw-type=gpu")
        view._stale, view._last = True, 0.0
        view._maybe_recompute()
        await settle(pilot)
        assert view.request == asked
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is view and view.request > asked
        assert "would place it on node-1" in screen_text(app)


async def test_the_worker_starts_as_the_view_mounts(session, make, monkeypatch):
    """The first computation starts in on_mount, not after the first frame: the worker and
    the first frame's layout share the interpreter, and the answer comes ~100 ms sooner at
    1,000 nodes (bench/tui.py's "explain view: result shown")."""
    seen = []
    mount = ExplainScreen.on_mount

    def on_mount(self):
        mount(self)
        seen.append((self.request, self.computing))

    monkeypatch.setattr(ExplainScreen, "on_mount", on_mount)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert seen == [(1, True)]
        assert "would place it on" in screen_text(app) or "nodes are available" in \
            screen_text(app)


async def test_an_answer_of_the_same_shape_is_shown_without_a_layout(session, make):
    """Showing a fresh answer whose lines keep their heights (the title, the verdict line, the
    legend, the learner's panel, the matrix's row count) repaints them without a layout of the
    whole screen (Static.update asks for one every time; explain.put only when a height
    changes). A verdict line that grows still gets its layout."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        screen = app.screen
        assert "0/4 nodes are available" in screen_text(app)
        layouts = _layouts_of(screen)
        screen.recompute()  # the cached answer, shown again
        await settle(pilot)
        assert layouts == []
        assert "0/4 nodes are available" in screen_text(app)
        message = screen.query_one("#explain-message")
        rows = message.size.height
        explain_module.put(message, "\n".join(["a verdict line"] * rows + ["one row more"]))
        await settle(pilot)
        assert layouts and message.size.height == rows + 1
        assert "one row more" in screen_text(app)


async def test_the_kept_view_reopened_for_another_pod_never_shows_the_last_ones(session, make):
    """Explain's view is kept when it closes and pushed again for the next pod (a new one
    costs ~60 ms of UI thread at 1,000 nodes). Reopened for another pod while that pod's
    answer is still being computed, no frame shows anything of the last pod: its name, its
    verdict line, its legend, its matrix or its panel. The cursor is back on the first node.
    An answer for the last pod that arrives after the view closed is dropped."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        other = _a_bound_default_pod(app)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        kept = app.screen
        first = screen_text(app)
        assert "0/4 nodes are available" in first and "THE POD ASKS FOR" in first
        legend = str(kept.query_one("#explain-legend").render())
        assert "NodeResourcesFit" in legend
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.view_name == "board"

        frames = _frames_of(app, kept)
        gate = Gate(app.session)
        app.open_explain("default", other.metadata.name)
        assert app.screen is kept  # the same view, not a new one
        await _until(pilot, gate.entered.is_set)
        for _ in range(5):
            await pilot.pause(0.02)
        assert frames, "the reopened view was never drawn"
        for text in frames:
            assert "gpu-pod" not in text
            assert "0/4 nodes are available" not in text
            assert "THE POD ASKS FOR" not in text and "NodeResourcesFit" not in text
        assert "computing…" in frames[-1]
        assert all(text == frames[-1] for text in frames)  # laid out before its first frame
        assert kept.matrix.row_count() == 0
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        text = screen_text(app)
        assert f"pod/default/{other.metadata.name}" in text and "THE POD ASKS FOR" in text
        assert "gpu-pod" not in text

        # Closed while computing: the late answer is not put on the kept view.
        gate.open.clear()
        gate.entered.clear()
        app.submit("kubectl label nodes node-1 hw-type=gpu")  # a new version: not cached
        await pilot.pause()
        kept.recompute()
        await _until(pilot, gate.entered.is_set)
        await pilot.press("escape")
        await pilot.pause(0.05)
        shown, calls = kept.shown, len(gate.calls)
        gate.open.set()
        await settle(pilot)
        await pilot.pause(0.2)
        assert kept.shown is shown
        assert len(gate.calls) == calls  # and it does not ask again

        # Reopened, the cursor is on the first node again.
        app.open_explain("default", other.metadata.name)
        await settle(pilot)
        await pilot.press("down", "down")
        assert kept.matrix.cursor == 2
        await pilot.press("escape")
        app.open_explain("default", other.metadata.name)
        await settle(pilot)
        assert app.screen is kept and kept.matrix.cursor == 0


async def test_the_view_built_ahead_opens_for_its_first_pod_as_a_kept_one_would(session, make):
    """With the real clock the app builds its explain view in idle time after the first
    frame (prebuild_explain), and the view takes the shape of one answer off screen: the
    first pod's (here gpu-pod's), computed in a worker. Nothing of it is shown until `e`.
    Opened for another pod, it is the view pushed (no new one), and every frame of it until
    the answer names the pod asked for and says "computing…" (no verdicts, legend, matrix or
    panel: the first pod's answer is emptied as a kept view's is). The answer is that pod's.
    Then it is kept as any view is: reopened for another pod, it shows that pod only."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        other = _a_bound_default_pod(app)
        gate = Gate(app.session)
        explain_module.prebuild_explain(app)
        await _until(pilot, gate.entered.is_set)
        built = explain_module._KEPT[app]
        assert built.is_running and built not in app.screen_stack
        assert gate.calls == ["gpu-pod"] and built.request == 0  # the first pod's, ahead
        gate.open.set()
        await _until(pilot, lambda: built.shown is not None)
        await settle(pilot)
        gate.open.clear()
        gate.entered.clear()
        explain_module.prebuild_explain(app)  # a second call keeps it
        assert explain_module._KEPT[app] is built and gate.calls == ["gpu-pod"]
        assert app.screen is not built

        frames = _frames_of(app, built)
        layouts = _layouts_of(built)
        app.open_explain("default", other.metadata.name)
        assert app.screen is built  # reopened, not a new one
        await _until(pilot, gate.entered.is_set)
        for _ in range(5):
            await pilot.pause(0.02)
        # Laid out off screen ahead: the layout before its first frame is the only one (its
        # widgets keep the sizes they had; nothing asked before it is laid out again after).
        assert layouts == [False]
        assert frames, "the view was never drawn"
        for text in frames:
            assert f"pod/default/{other.metadata.name}" in text and "computing…" in text
            assert "gpu-pod" not in text and "nodes are available" not in text
            assert "spec.nodeName" not in text and "node-3" not in text
            assert "THE POD ASKS FOR" not in text and "NodeResourcesFit" not in text
        assert all(text == frames[-1] for text in frames)
        assert built.matrix.row_count() == 0
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        text = screen_text(app)
        assert f"pod/default/{other.metadata.name}" in text and "node-3" in text
        assert "THE POD ASKS FOR" in text and "gpu-pod" not in text
        assert gate.calls == ["gpu-pod", other.metadata.name]
        await pilot.press("escape")
        await settle(pilot)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert app.screen is built
        text = screen_text(app)
        assert "pod/default/gpu-pod" in text and "0/4 nodes are available" in text
        assert other.metadata.name not in text


async def test_the_first_answer_in_the_view_built_ahead_is_written_without_a_layout(
        session, make):
    """The view built ahead has an answer's shape (prebuild_explain's first pod): the first
    `e`, for a pod of that shape, empties it to blank rows as tall as that answer's before its
    first frame, and its answer takes their places without a layout of the screen. Built
    empty, that answer changed the legend's, the matrix's and the panel's heights."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        built = await _built_ahead(app, pilot, 5)
        heights = {name: built.query_one(name).size.height for name in (
            "#explain-message", "#explain-legend", "#explain-asks-text")}
        assert heights["#explain-legend"] > 0 and heights["#explain-asks-text"] > 1
        explain_module._CACHE.clear()  # computed afresh, as after the clock moved
        gate = Gate(app.session)
        app.open_explain("default", "gpu-pod")
        layouts = _layouts_of(built)
        await _until(pilot, gate.entered.is_set)
        await pilot.pause(0.02)
        assert app.screen is built and "computing…" in screen_text(app)
        assert "0/4 nodes are available" not in screen_text(app)
        assert {name: built.query_one(name).size.height for name in heights} == heights
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        assert "0/4 nodes are available" in screen_text(app)
        assert layouts == [], "the answer laid the screen out"



async def _built_ahead(app, pilot, at: float):
    """The clock run to ``at``, then the view built ahead (prebuild_explain) once it shows
    the answer it takes its shape from."""
    app.advance(at)
    await settle(pilot)
    explain_module.prebuild_explain(app)
    built = explain_module._KEPT[app]
    await _until(pilot, lambda: built.shown is not None)
    await settle(pilot)
    return built


def _many_nodes(count: int) -> str:
    """A cluster of ``count`` nodes and a Deployment: explain's matrix (a row a node) is
    taller than its box at the tests' size, so it shows a scrollbar."""
    nodes = "".join(
        f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n-{i:02d}\n"
        f"status:\n  capacity: {{cpu: '4', memory: 16Gi, pods: '110'}}\n---\n"
        for i in range(count))
    return nodes + """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


async def test_a_view_built_ahead_whose_matrix_scrolls_is_laid_out_once_when_opened(make):
    """The answer computed ahead makes the matrix taller than its box: a layout turns its
    scrollbar on, the next places it, and placing it asks for one more. The view built ahead
    takes all of them off screen, so the first `e` is one layout (before its first frame) and
    its answer none; left to the opening, a second layout of the whole view came after its
    first frame, or in the answer's frame."""
    from ksandbox.session import Session

    app = make(Session.from_text(_many_nodes(40), seed=7))
    async with app.run_test(size=SIZE) as pilot:
        built = await _built_ahead(app, pilot, 10)
        assert built.matrix.show_vertical_scrollbar  # the case this test is about
        explain_module._CACHE.clear()  # computed afresh, as after the clock moved
        (namespace, name), _pod = next(iter(app.session.store.items("Pod")))
        gate = Gate(app.session)
        layouts = _layouts_of(built)
        app.open_explain(namespace, name)
        await _until(pilot, gate.entered.is_set)
        for _ in range(5):
            await pilot.pause(0.02)
        assert layouts == [False], "a layout after the opening's"
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        assert f"pod/{namespace}/{name}" in screen_text(app) and "n-00" in screen_text(app)
        assert layouts == [False], "the answer laid the view out"


async def test_the_view_built_ahead_names_its_pod_in_the_verdict_as_its_opening_will(make):
    """A pod bound by its spec.nodeName (the scheduler bypassed): the verdict line names the
    pod, and a long name wraps it. The view built ahead has no pod of its own, but the answer
    it takes its shape from names the first pod, as the first `e` on that pod will: the
    verdict is as tall then as when opened, and the answer writes it without a layout. (It
    named no pod: "/ names node-1 ...", a row shorter than the opening's answer here.)"""
    from ksandbox.session import Session

    name = "a-pod-whose-name-is-long-enough-to-wrap-the-verdict-line-of-explain-at-160"
    text = _many_nodes(3) + f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  nodeName: n-01
  containers: [{{name: c, image: nginx}}]
"""
    app = make(Session.from_text(text, seed=7))
    async with app.run_test(size=SIZE) as pilot:
        built = await _built_ahead(app, pilot, 10)
        assert built.shown.name == name  # the first pod's answer, ahead
        message = built.query_one("#explain-message")
        assert f"default/{name} names n-01 in spec.nodeName" in str(message.render())
        rows = message.size.height
        explain_module._CACHE.clear()
        gate = Gate(app.session)
        layouts = _layouts_of(built)
        app.open_explain("default", name)
        await _until(pilot, gate.entered.is_set)
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        assert f"default/{name} names n-01" in screen_text(app).replace("\n", "")
        assert message.size.height == rows == 3
        assert layouts == [False], "the answer laid the view out"


async def test_a_view_opened_while_its_shape_is_computed_ahead_shows_only_its_pod(
        session, make):
    """`e` pressed while the view built ahead still computes the first pod's answer for its
    shape: that answer is dropped (never on screen); the pod asked for is explained."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        other = _a_bound_default_pod(app)
        gate = Gate(app.session)
        explain_module.prebuild_explain(app)
        await _until(pilot, gate.entered.is_set)
        built = explain_module._KEPT[app]
        frames = _frames_of(app, built)
        app.open_explain("default", other.metadata.name)
        assert app.screen is built
        for _ in range(5):
            await pilot.pause(0.02)
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        assert gate.calls == ["gpu-pod", other.metadata.name]
        assert frames and all("gpu-pod" not in text and "nodes are available" not in text
                              for text in frames)
        text = screen_text(app)
        assert f"pod/default/{other.metadata.name}" in text and "THE POD ASKS FOR" in text


async def test_a_view_built_ahead_at_another_size_is_not_used(session, make):
    """Built ahead at one terminal size, the view is dropped when `e` comes at another: a new
    one, laid out at the size now, is built and kept instead."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        explain_module.prebuild_explain(app)
        await settle(pilot)
        built = explain_module._KEPT[app]
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await settle(pilot)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert app.screen is not built and explain_module._KEPT[app] is app.screen
        assert not app.is_screen_installed(built)
        assert "0/4 nodes are available" in screen_text(app)


async def test_the_clock_gives_way_to_the_views_first_answer(session, make):
    """A tick of the clock (10-15 ms at 1,000 nodes / 30,000 pods) falling after `e` and
    before the worker takes the session's lock, or between the worker's end and the frame
    that shows its answer, was paid by `e`. The clock gives way then, as it does for a
    screen's first frame (a few ticks at most); while the worker reads, the lock holds it
    anyway; once the answer is drawn it runs again."""
    app = make(session, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        gate = Gate(app.session)

        def tick() -> float:
            before = app.session.now
            app._last_tick -= 0.2
            app._tick()
            return app.session.now - before

        with app.session.lock:  # the worker cannot start reading yet
            app.open_explain("default", "gpu-pod")
            view = app.screen
            for _ in range(5):
                await pilot.pause(0.01)
            assert app._painted is view  # its first frame is out: not why the clock waits
            assert view.frame_owed
            assert tick() == 0
            app._yielded = app.YIELD_TICKS  # a few ticks at most: then the clock runs
            assert tick() > 0
        await _until(pilot, gate.entered.is_set)
        assert not view.frame_owed  # reading: the lock holds the clock
        gate.open.set()
        await settle(pilot)
        assert "0/4 nodes are available" in screen_text(app)
        assert not view.frame_owed
        assert tick() > 0


def _looks(view) -> dict:
    """The computed colours of the view's parts (what a theme changes)."""
    parts = ("#explain-title", "#explain-message", "#explain-legend", "#matrix",
             "#explain-asks", "ClusterHeader", "KeyFooter")
    return {part: (str(view.query_one(part).styles.color),
                   str(view.query_one(part).styles.background)) for part in parts}


async def test_the_kept_view_is_restyled_on_reopening_only_when_its_styles_may_have_changed(
        session, make):
    """Textual restyles every widget of a screen each time it is pushed (~7-13 ms at 1,000
    nodes, between the first frame and the worker's start), because a theme chosen while a
    screen is off the stack does not reach it. The kept explain view skips that when nothing
    its styles follow from has changed since it was last styled; after a theme change while
    it was closed it is restyled, and looks as a view built under the new theme does."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        kept = app.screen
        restyles = []
        real = type(kept).update_node_styles

        def counted(self, animate=True):
            restyles.append(animate)
            return real(self, animate)

        kept.update_node_styles = counted.__get__(kept)
        await pilot.press("escape")
        await settle(pilot)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert app.screen is kept and restyles == []  # nothing changed: not restyled
        before = _looks(kept)
        await pilot.press("escape")
        await settle(pilot)
        app.theme = "ksandbox-light" if "ksandbox-light" in app.available_themes \
            else next(t for t in app.available_themes if t != app.theme)
        await settle(pilot)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert app.screen is kept and restyles  # the theme changed while it was closed
        after = _looks(kept)
        assert after != before
        # A view built under the new theme looks the same.
        await pilot.press("escape")
        await settle(pilot)
        explain_module._forget(app, kept)
        explain_module._KEPT.pop(app)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        assert app.screen is not kept and _looks(app.screen) == after


async def test_the_kept_view_reopened_for_a_pod_of_the_same_shape_lays_out_once(
        session, make):
    """Reopened for another pod, the kept view empties its legend and learner's panel to blank
    rows as many as they had, and its matrix keeps room (and its scrollbar) for one row per
    node. The answer for a pod of the same shape (another replica of the Deployment) then
    takes their places without a layout of the screen: the one before the first frame is
    the only one. Before, the matrix's scrollbar appearing laid the screen out three times."""
    app = make(session)
    async with app.run_test(size=(100, 30)) as pilot:  # the matrix needs its scrollbar
        app.advance(5)
        await settle(pilot)
        web = sorted(p.metadata.name for p in app.session.store.list("Pod")
                     if p.metadata.name.startswith("web-") and p.spec.node_name)
        assert len(web) >= 2
        app.open_explain("default", web[0])
        await settle(pilot)
        kept = app.screen
        assert kept.matrix.row_count() == 4
        await pilot.press("escape")
        await settle(pilot)
        layouts = _layouts_of(kept)
        gate = Gate(app.session)
        app.open_explain("default", web[1])
        await _until(pilot, gate.entered.is_set)
        assert kept.matrix.row_count() == 0 and kept.matrix.virtual_size.height == 5
        text = screen_text(app)
        assert web[0] not in text and "NodeResourcesFit" not in text
        gate.open.set()
        await explained(pilot)
        await settle(pilot)
        text = screen_text(app)
        assert f"pod/default/{web[1]}" in text and "NodeResourcesFit" in text
        assert layouts == [False], layouts


async def test_a_closed_kept_view_asks_nothing_while_the_app_closes(session, make):
    """The kept view's recompute timer runs while it is closed. With changes still owed to it
    and the app closing (no screen on the stack: Textual's app.screen raises), it asks
    nothing and raises nothing (it ended the app's test run with ScreenStackError)."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        view = app.screen
        await pilot.press("escape")
        await settle(pilot)
        view._stale, view._last = True, 0.0
        asked = view.request
        stacks = app._screen_stacks
        app._screen_stacks = {mode: [] for mode in stacks}  # as while the app closes
        try:
            view._maybe_recompute()
        finally:
            app._screen_stacks = stacks
        assert view.request == asked


async def test_the_kept_view_reopened_is_drawn_once_until_its_answer(session, make):
    """open_explain lays the kept view out and draws its whole first frame as it pushes it.
    Textual's ScreenResume then asked for a whole repaint of the same screen: a second full
    frame (~7 ms at 1,000 nodes) while the worker waited for the interpreter. It is drawn
    once now, and the terminal shows what the widgets show ("computing…", nothing of the
    last pod); after a theme change while it was closed, the restyle's repaint stays."""
    from screen_text import TerminalMirror, screen_lines
    from textual._compositor import Compositor

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        pods = sorted(p.metadata.name for p in app.session.store.list("Pod")
                      if p.metadata.name.startswith("web-") and p.spec.node_name)
        app.open_explain("default", pods[0])
        await settle(pilot)
        kept = app.screen
        await pilot.press("escape")
        await settle(pilot)
        mirror = TerminalMirror(app)
        frames = _frames_of(app, kept)
        full: list[int] = []
        real_full = Compositor.render_full_update

        def counted(self, *args, **kwargs):
            if self is kept._compositor:
                full.append(len(frames) + 1)  # the frame it is
            return real_full(self, *args, **kwargs)

        Compositor.render_full_update = counted
        try:
            for theme_change in (False, True):
                if theme_change:
                    await pilot.press("escape")
                    await settle(pilot)
                    app.theme = "ksandbox-light" if "ksandbox-light" in app.available_themes \
                        else next(t for t in app.available_themes if t != app.theme)
                    await settle(pilot)
                    explain_module._CACHE.clear()  # computed again, not shown from the cache
                frames[:] = []
                full.clear()
                gate = Gate(app.session)
                app.open_explain("default", pods[1])
                await _until(pilot, gate.entered.is_set)
                for _ in range(3):
                    await pilot.pause()  # not settle: it waits for the held worker
                assert app.screen is kept
                # The first frame is whole (it replaces the board on the terminal), and the
                # only whole one unless a restyle calls for another.
                assert full and full[0] == 1 and frames
                assert "computing" in frames[0] and pods[0] not in frames[0]
                assert len(full) == (2 if theme_change else 1), (theme_change, full)
                assert "computing" in frames[-1] and pods[0] not in frames[-1]
                assert mirror.lines() == screen_lines(app)
                gate.open.set()
                await explained(pilot)
                await settle(pilot)
                app.session.explain = gate.real
                assert f"pod/default/{pods[1]}" in screen_text(app)
                assert mirror.lines() == screen_lines(app)
        finally:
            Compositor.render_full_update = real_full


async def frames_when_answered(pilot, kept, gate, written: list) -> list[int]:
    """Opens the gate held in front of the explain worker and waits for the answer: returns,
    for each answer shown, how many frames had been written by the end of the handler that
    showed it."""
    delivered: list[int] = []
    real_deliver = kept._deliver

    def deliver(*args):
        real_deliver(*args)
        kept.call_next(lambda: delivered.append(len(written)))

    kept._deliver = deliver
    gate.open.set()
    await _until(pilot, lambda: not kept.computing)
    await settle(pilot)
    del kept._deliver
    return delivered


async def test_a_reopened_views_answer_is_written_in_one_frame_without_a_layout(
        session, make):
    """Reopened, the kept view keeps its verdict line's rows too ("computing…" and blank
    rows, as the legend and the learner's panel keep theirs): an answer of the same shape —
    the unschedulable pod's verdict, wrapped onto two rows at this width — takes its place
    without a layout (one after the first frame, and a second one that the resized widgets
    asked for, before). And the answer is written as it is shown, in one frame: the verdict,
    the matrix and the learner's panel together. Each widget's repaint used to come through
    the message queue and Textual's update timer drew whatever had come by then (at 1,000
    nodes the verdict line in one frame, the matrix and the panel a frame later)."""
    from screen_text import TerminalMirror, screen_lines

    app = make(session)
    async with app.run_test(size=(100, 30)) as pilot:
        app.advance(5)
        await settle(pilot)
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        kept = app.screen
        message = kept.query_one("#explain-message")
        rows = message.size.height
        assert rows >= 2 and "0/4 nodes are available" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        explain_module._CACHE.clear()  # computed again, not shown from the cache
        mirror = TerminalMirror(app)
        written: list[list[str]] = []
        real_display = app._display

        def display(screen, renderable):
            real_display(screen, renderable)
            if screen is kept and renderable is not None:
                written.append(mirror.lines())

        app._display = display
        layouts = _layouts_of(kept)
        gate = Gate(app.session)
        app.open_explain("default", "gpu-pod")
        await _until(pilot, gate.entered.is_set)
        for _ in range(3):
            await pilot.pause()  # not settle: it waits for the held worker
        waiting = "\n".join(written[-1])
        assert "computing" in waiting and "0/4 nodes" not in waiting and "node-1" not in waiting
        assert message.size.height == rows
        before = len(written)
        delivered = await frames_when_answered(pilot, kept, gate, written)
        # The answer's frame is out as it is shown: written by the same handler.
        assert delivered == [before + 1], (delivered, before)
        answer = "\n".join(written[before])
        for shown in ("0/4 nodes are available", "node-1", "node-3", "THE POD ASKS FOR"):
            assert shown in answer, shown
        app.session.explain = gate.real
        assert layouts == [False], layouts
        assert message.size.height == rows
        assert mirror.lines() == screen_lines(app)


async def test_an_answer_that_changes_a_height_is_laid_out_and_written_by_its_handler(
        session, make):
    """An answer whose verdict takes more rows than the last one (a placed pod's one row, then
    the unschedulable pod's wrapped verdict) needs a layout: it is made by the handler that
    shows the answer, as Textual's timer would make it, and its frame is written there with
    the verdict, the matrix and the panel; the terminal then equals the widgets."""
    from screen_text import TerminalMirror, screen_lines

    app = make(session)
    async with app.run_test(size=(100, 30)) as pilot:
        app.advance(5)
        await settle(pilot)
        web = sorted(p.metadata.name for p in app.session.store.list("Pod")
                     if p.metadata.name.startswith("web-") and p.spec.node_name)
        app.open_explain("default", web[0])
        await settle(pilot)
        kept = app.screen
        message = kept.query_one("#explain-message")
        assert message.size.height == 1
        await pilot.press("escape")
        await settle(pilot)
        mirror = TerminalMirror(app)
        written: list[list[str]] = []
        real_display = app._display

        def display(screen, renderable):
            real_display(screen, renderable)
            if screen is kept and renderable is not None:
                written.append(mirror.lines())

        app._display = display
        gate = Gate(app.session)
        app.open_explain("default", "gpu-pod")
        await _until(pilot, gate.entered.is_set)
        for _ in range(3):
            await pilot.pause()
        before = len(written)
        delivered = await frames_when_answered(pilot, kept, gate, written)
        app.session.explain = gate.real
        assert delivered == [before + 1], (delivered, before)
        answer = "\n".join(written[before])
        for shown in ("0/4 nodes are available", "node-1", "node-3", "THE POD ASKS FOR"):
            assert shown in answer, shown
        assert message.size.height >= 2
        assert mirror.lines() == screen_lines(app)
