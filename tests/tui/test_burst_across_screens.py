"""Keys of one burst that close a screen and act on the one beneath.

Textual forwards each key to the widget focused when it arrives and runs the non-priority
bindings when the key has bubbled back up to the App, against the screen on top by then. So in
the burst `Escape Down e` typed in the explain view all three keys pass through the explain
view before its Escape has closed it; Down and `e` are then the board's. The view used to judge
the `e` as it passed ("'e' does nothing in the explain view") while the board explained the pod
(the App asks the screen on top now: KsandboxApp._on_key, KsScreen.answer_unbound_key).
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import settle
from screen_text import screen_text
from terminal import terminal  # noqa: F401  (fixture)
from textual import events

ROOT = Path(__file__).resolve().parents[2]
# Two pods no node takes: the queue on the board lists both, Down goes from one to the other.
WAITING = """\
apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: default}
spec:
  nodeSelector: {disktype: nvme}
  containers: [{name: c, image: busybox}]
"""


def burst(app, *keys: str) -> None:
    """Keys posted at once, as the terminal driver posts a paste or a fast typist's keys: none
    of them waits for the one before it to be handled."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_escape_down_e_in_one_burst_explains_the_next_pod_without_a_false_message(
        session, make):
    for name in ("wait-a", "wait-b"):
        assert not session.submit("kubectl apply -f -", WAITING % name).error
    app = make(session)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        app.advance(5)
        await settle(pilot)
        queue = app.screen.pending
        queue.focus()
        await settle(pilot)
        waiting = [queue.selected_key]
        await pilot.press("down")
        waiting.append(queue.selected_key)
        await pilot.press("up")
        assert len(set(waiting)) == 2 and queue.selected_key == waiting[0]
        await pilot.press("e")
        await settle(pilot)
        assert f"explain pod/{waiting[0][0]}/{waiting[0][1]}" in screen_text(app)
        burst(app, "escape", "down", "e")
        await settle(pilot, 4)
        text = screen_text(app)
        assert f"explain pod/{waiting[1][0]}/{waiting[1][1]}" in text, text
        assert "does nothing" not in text, text
        assert len(app.screen_stack) == 3
        burst(app, "escape")
        await settle(pilot)
        assert app.screen.pending.selected_key == waiting[1]  # Down moved the board's queue


async def test_a_key_nothing_binds_still_says_so_for_the_screen_on_top(session, make):
    """The answer moved to the App; the screen on top still says it, once."""
    app = make(session)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        burst(app, "b")
        await settle(pilot)
        assert screen_text(app).count("'b' does nothing in the board view") == 1
        app.advance(5)
        await pilot.press("e")
        await settle(pilot)
        burst(app, "escape", "b")          # closed first: the board answers for the 'b'
        await settle(pilot, 3)
        text = screen_text(app)
        assert "'b' does nothing in the explain view" not in text, text
        assert len(app.screen_stack) == 2


def test_escape_down_e_in_one_burst_in_the_terminal(terminal, tmp_path):  # noqa: F811
    cluster = tmp_path / "waiting.yaml"
    cluster.write_text((ROOT / "sample_clusters" / "default.yaml").read_text()
                       + "---\n" + WAITING % "wait-b")
    for size in ((80, 24), (160, 48)):
        term = terminal([str(cluster), "--paused"], *size)
        term.wait_for(r"pending\[2\]")
        term.keys("Tab")                      # the pending queue
        term.keys("e")
        first = re.search(r"explain pod/default/([\w-]+)",
                          term.wait_for(r"explain pod/default/")).group(1)
        second = ({"nvme-cache", "wait-b"} - {first}).pop()
        term.keys("Escape", "Down", "e")      # one burst
        term.wait_for(rf"explain pod/default/{second} +at T\+")
        # A key that does nothing here: its message comes after any the burst raised.
        term.keys("b")
        screen = term.wait_for(r"'b' does nothing in the explain view")
        assert "'e' does nothing" not in screen, screen
        term.close()


def typed(app, text: str) -> None:
    """Characters posted at once, with the key names the terminal driver gives them."""
    from textual.keys import _character_to_key

    for char in text:
        app.post_message(events.Key(_character_to_key(char), char))


async def open_type_enter(pilot, app, name: str, opener: str, text: str) -> str:
    """Node ``name`` selected on the board, then in one burst: the key that opens its dialog,
    ``text`` and Enter. Returns the screen drawn once the burst is handled."""
    await settle(pilot)
    app.screen.board.selected = name
    await settle(pilot)
    typed(app, opener + text)
    burst(app, "enter")
    await settle(pilot, 4)
    return screen_text(app)


async def test_keys_typed_right_after_t_go_to_the_taint_dialog(session, make):
    """The opening side: `t` then the taint and Enter in one burst. Textual hands each key to
    the widget focused when it arrives, and the dialog is pushed only when the `t` has come
    back up to the App's bindings: every key went to the board (`:` opened the command bar,
    which ran `NoExecute`). Now a key waits until the one before it is handled and the dialog
    it opened has focus (key_order)."""
    from helpers import node

    app = make(session)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        text = await open_type_enter(pilot, app, "node-1", "t", "a=b:NoExecute")
        assert [t.to_string() for t in node(app, "node-1").spec.taints] == ["a=b:NoExecute"], text
        assert "does nothing" not in text and "Taint node" not in text, text
        assert len(app.screen_stack) == 2
        # Keys that open nothing keep working in a burst: Right Right then `t` and Escape.
        burst(app, "right", "t", "escape", "right")
        await settle(pilot, 4)
        assert len(app.screen_stack) == 2 and app.screen.board.selected == "node-3"


def test_keys_typed_right_after_t_go_to_the_taint_dialog_in_the_terminal(terminal):  # noqa: F811
    for size in ((80, 24), (160, 48)):
        term = terminal([str(ROOT / "sample_clusters" / "default.yaml"), "--paused"], *size)
        term.wait_for(r"nodes\[\d+\]")
        term.keys("t", "a=b:NoExecute", "Enter")          # one burst
        term.wait_for(r"tainted")
        term.keys(":describe node control-plane", "Enter")
        screen = term.wait_for(r"Taints:")
        assert "a=b:NoExecute" in screen, screen
        term.close()


async def test_keys_typed_right_after_l_replace_the_label_dialogs_example(session, make):
    """The other dialogs open through the same key order: `l` then a label and Enter in one
    burst label the node with what was typed (the example the field opens with is selected,
    so typing replaces it), and nothing reaches the board beneath."""
    from helpers import node

    app = make(session)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        text = await open_type_enter(pilot, app, "node-2", "l", "team=x")
        labels = node(app, "node-2").metadata.labels
        assert labels.get("team") == "x" and "hw-type" not in labels, text
        assert len(app.screen_stack) == 2 and "does nothing" not in text, text


async def test_a_filter_typed_right_after_the_pod_list_opens_filters_it(session, make):
    """`:po` Enter then `/web` in one burst: the pod list opens and the filter typed behind it
    is its filter. (Before key_order the command bar passed such keys on itself.)"""
    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        typed(app, ":po")
        burst(app, "enter")
        typed(app, "/web")
        await settle(pilot, 4)
        text = screen_text(app)
        assert "</web>" in text, text
        rows = [line for line in text.splitlines() if re.search(r"\bdefault\s+\S+-", line)]
        assert rows and all("web-" in row for row in rows), text
