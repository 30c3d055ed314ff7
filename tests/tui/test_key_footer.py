"""The footer drawn by one widget (tui/widgets/key_footer.py) looks exactly like Textual's.

Textual's compact ``Footer`` (textual/widgets/_footer.py: one ``FooterKey`` per binding, the
command palette's key docked right behind a ``vkey`` border, ``:hover`` and ``.-disabled``
rules) is the reference: the same app is driven through the same keys twice, once with
Textual's Footer and once with KeyFooter, and the bottom line must be the same segment for
segment (text and style), the whole screen's SVG export byte for byte — on the board with each
pane focused, the bar open, the pod list and its filter, a key under the mouse, the palette's
key under the mouse, a disabled key; in a dark and a light theme, at 80×24 (the keys overflow
under the palette) and 120×36.
"""

from __future__ import annotations

import pytest
from helpers import settle
from textual.widgets import Footer

from conftest import CLUSTER

from ksandbox.session import Session
from ksandbox.tui.screens.base import KsScreen
from ksandbox.tui.widgets.key_footer import KeyFooter


def bottom_line(app):
    strip = app.screen._compositor.render_strips()[-1]
    return [(seg.text, seg.style)
            for seg in strip._segments]


async def walk(app, pilot, width, height):
    """Every state the test compares: (name, bottom line's segments, SVG export)."""
    seen = []

    async def look(name):
        await settle(pilot, 3)
        footers = {type(w).__name__ for w in app.screen.query("Footer, KeyFooter")}
        seen.append((name, footers, bottom_line(app), app.export_screenshot(title=name)))

    await look("board")
    await pilot.press("tab")
    await look("pending queue")
    await pilot.press("tab")
    await look("event log")
    await pilot.press("shift+tab", "shift+tab")
    await pilot.hover(None, offset=(9, height - 1))     # on "d Describe node"
    await look("hover a key")
    await pilot.hover(None, offset=(width - 4, height - 1))   # on the palette's key
    await look("hover the palette key")
    await pilot.hover(None, offset=(width // 2, 2))
    await pilot.press("colon")
    await look("bar open")
    await pilot.press("p", "o", "enter")
    await look("pod list")
    await pilot.press("slash")
    await look("filter open")
    await pilot.press("escape", "escape")
    # A key the screen reports as disabled (check_action → None) is shown dim.
    screen = app.screen
    plain = type(screen).check_action

    def dim_help(self, action, parameters):
        return None if action == "help" else plain(self, action, parameters)

    type(screen).check_action = dim_help
    try:
        screen.refresh_bindings()
        await look("a disabled key")
        await pilot.hover(None, offset=(30, height - 1))     # on "? Help", disabled
        await look("hover a disabled key")
    finally:
        type(screen).check_action = plain
    return seen


@pytest.mark.parametrize("theme", ["ksandbox-dark", "textual-light"])
@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_footer_line_is_textuals_segment_for_segment(make, monkeypatch, theme, size):
    runs = {}
    for name, footer in (("textual", lambda self: Footer(compact=True)),
                         ("ours", lambda self: KeyFooter())):
        monkeypatch.setattr(KsScreen, "footer", footer)
        app = make(Session.from_files([CLUSTER], seed=7))
        async with app.run_test(size=size) as pilot:
            app.theme = theme
            runs[name] = await walk(app, pilot, *size)
    assert [n for n, *_ in runs["ours"]] == [n for n, *_ in runs["textual"]]
    for (name, their_footer, theirs, their_svg), (_, our_footer, ours, our_svg) in zip(
            runs["textual"], runs["ours"]):
        assert (their_footer, our_footer) == ({"Footer"}, {"KeyFooter"})
        assert "".join(t for t, _ in ours).strip(), name
        assert ours == theirs, name
        assert our_svg == their_svg, name
    # The states are what they say (else the comparison proves little).
    line = {name: "".join(t for t, _ in segs) for name, _f, segs, _s in runs["ours"]}
    styles = {name: {t: st for t, st in segs} for name, _f, segs, _s in runs["ours"]}
    assert line["board"].startswith("⏎ Pods d Describe node")
    assert line["pending queue"].startswith("⏎ Explain pod")
    assert "Complete" in line["bar open"] and "Describe node" not in line["bar open"]
    # The filter prompt offers its own keys, not the command line's.
    assert line["filter open"].startswith("⏎ Keep "), line["filter open"]
    assert "esc Clear" in line["filter open"] and "^u Erase" in line["filter open"]
    assert not {"Run", "Complete", "History"} & set(line["filter open"].split())
    assert {"⏎ Run", "tab Complete", "↑ History", "esc Close", "^u Clear"} <= {
        " ".join(pair) for pair in zip(*[iter(line["bar open"].split("▏")[0].split())] * 2)}
    assert not {"Keep", "Erase"} & set(line["bar open"].split())
    assert line["pod list"] != line["board"] and line["filter open"] != line["pod list"]
    assert "palette" in line["board"]
    assert styles["hover a key"]["d"] != styles["board"]["d"]
    assert styles["hover the palette key"]["^p"] != styles["board"]["^p"]
    assert styles["a disabled key"]["?"].color != styles["board"]["?"].color  # dimmed
    assert styles["hover a disabled key"]["?"] != styles["a disabled key"]["?"]


async def test_a_click_on_a_key_presses_it_and_a_disabled_key_rings(session, make, monkeypatch):
    """As FooterKey.on_mouse_down: a click simulates the key; a disabled key rings the bell."""
    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot, 3)
        footer = app.screen.query_one(KeyFooter)
        spans = {footer.items[i].key: (start, end) for start, end, i in footer._spans}
        rings = []
        monkeypatch.setattr(type(app), "bell", lambda self: rings.append(1))
        await pilot.click(None, offset=(spans["question_mark"][0] + 1, 35))
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "MainScreen"
        # Between two keys (the margin) nothing happens.
        await pilot.click(None, offset=(spans["question_mark"][0] - 1, 35))
        await settle(pilot)
        assert type(app.screen).__name__ == "MainScreen" and not rings
        screen = app.screen
        plain = type(screen).check_action
        monkeypatch.setattr(type(screen), "check_action", lambda self, action, parameters: (
            None if action == "help" else plain(self, action, parameters)))
        screen.refresh_bindings()
        await settle(pilot, 3)
        assert [i.disabled for i in footer.items if i.key == "question_mark"] == [True]
        await pilot.click(None, offset=(spans["question_mark"][0] + 1, 35))
        await settle(pilot)
        assert type(app.screen).__name__ == "MainScreen" and rings == [1]
        # The palette's key, docked right.
        await pilot.click(None, offset=(116, 35))
        await settle(pilot)
        assert "CommandPalette" in type(app.screen).__name__
