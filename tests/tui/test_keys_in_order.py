"""A burst of keys into a text field is applied in the order it was typed.

Textual's Input and TextArea insert characters where the key arrives but run their editing
bindings (backspace, arrows, ctrl+u, Home, Tab completion) only after the key has bubbled up to
the App, so a fast burst applied them after the characters behind them
(Textualize/textual#6605). ``tui/widgets/keys_in_order.py`` runs them in turn. These tests
send each burst in one ``tmux send-keys`` to the real binary and read the screen; without the
fix each of them shows the wrong text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from terminal import terminal  # noqa: F401  (fixture)

FAILURE = "sample_clusters/node-failure.yaml"
TUI = Path(__file__).resolve().parents[2] / "ksandbox" / "tui"


def _open(terminal, size=(120, 36)):  # noqa: F811
    term = terminal([FAILURE, "--paused"], *size)
    term.wait_for(r"nodes\[4\]")
    return term


def _bar(screen: str) -> str:
    return screen.rstrip("\n").split("\n")[-2].strip()     # the row above the footer


def test_a_burst_of_editing_keys_in_the_command_bar(terminal):  # noqa: F811
    term = _open(terminal)
    term.keys(":")
    term.wait_until(lambda s: _bar(s).startswith(":") and "Complete" in s.rstrip().split("\n")[-1])
    term.keys("abc", "BSpace", "d")                     # backspace between characters
    term.wait_until(lambda s: _bar(s) == ": abd")
    term.keys("Left", "Left", "X")                      # the cursor moves before the X lands
    term.wait_until(lambda s: _bar(s) == ": aXbd")
    term.keys("C-u", "cordon node-3", "Home", "un")     # clear, type, jump home, type
    screen = term.wait_until(lambda s: _bar(s).startswith(": uncordon node-3"))
    assert _bar(screen) == ": uncordon node-3", screen
    term.keys("Escape")
    term.wait_until(lambda s: _bar(s) == "board")


def test_ctrl_u_and_a_new_spec_in_one_burst_in_the_taint_dialog(terminal):  # noqa: F811
    term = _open(terminal)
    term.keys("t")
    term.wait_for(r"\$ kubectl taint nodes control-plane ")
    term.keys("gpu=yes")
    term.wait_for(r"\$ kubectl taint nodes control-plane gpu=yes:NoSchedule")
    term.keys("C-u", "team=a:NoExecute")                 # one burst: clear, then the new spec
    screen = term.wait_for(r"\$ kubectl taint nodes control-plane team=a:NoExecute")
    assert "gpu=yes" not in screen, screen
    term.keys("Enter")
    term.wait_for(r"node/control-plane tainted")


def test_every_text_field_of_the_tui_takes_keys_in_order():
    """A field built straight from Textual's Input or TextArea would bring the race back."""
    offenders = []
    for path in sorted(TUI.rglob("*.py")):
        if path.name == "keys_in_order.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"(?<![\w.])(Input|TextArea)\(", line) or \
                    re.search(r"class \w+\((Input|TextArea)\)", line):
                offenders.append(f"{path.relative_to(TUI)}:{number}: {line.strip()}")
    assert not offenders, ("use widgets.keys_in_order.OrderedInput or "
                           "widgets.ordered_text_area.OrderedTextArea:\n" + "\n".join(offenders))


@pytest.mark.asyncio
async def test_the_edit_screen_takes_a_burst_in_order():
    """The YAML editor's TextArea: keys posted without waiting between them (as a burst
    arrives) land in order: Backspace and the arrows run in turn with the characters."""
    from textual.app import App, ComposeResult
    from textual.events import Key

    from ksandbox.tui.widgets.keys_in_order import OrderedInput
    from ksandbox.tui.widgets.ordered_text_area import OrderedTextArea

    class Fields(App[None]):
        def compose(self) -> ComposeResult:
            yield OrderedTextArea("", id="area")
            yield OrderedInput("", id="line")

    def burst(app: App[None], keys: list[str]) -> None:
        for key in keys:
            char = key if len(key) == 1 else None
            app.post_message(Key(key, char))

    app = Fields()
    async with app.run_test() as pilot:
        async def typed(field, keys: list[str]) -> None:
            field.focus()
            await pilot.pause()
            burst(app, keys)
            await pilot.pause()
            await pilot.pause()

        area = app.query_one(OrderedTextArea)
        await typed(area, ["b", "a", "backspace", "c", "left", "X"])
        assert area.text == "bXc"
        line = app.query_one(OrderedInput)
        await typed(line, ["b", "a", "backspace", "c", "home", "X"])
        assert line.value == "Xbc"
