"""A list row drawn from (text, style) pieces as segments (LineList.pieces_strip) is the row
rich's Text gave (LineList.text_strip): the event log and the pending queue draw their rows
without building and rendering a Text per row (issue 11), and what a person sees must not
change — every segment, its text and its style, for any text (wide characters, control codes,
empty pieces), any width (cut with an ellipsis or padded), selected or not.
"""

from __future__ import annotations

from helpers import settle
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from ksandbox.tui.widgets.event_log import EventLog
from ksandbox.tui.widgets.pending_queue import PendingQueue

# ASCII, wide (two cells) and zero-width characters, and the control codes Text.append drops.
CHARACTERS = st.sampled_from(list("ab z-/:.0") + ["中", "文", "é", "\u0301", "\x07", "\r",
                                                  "\x08", "…"])
TEXTS = st.lists(CHARACTERS, max_size=30).map("".join)


async def test_a_row_of_pieces_is_the_row_rich_text_gave(session, make):
    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        log = app.screen.query_one(EventLog)
        queue = app.screen.query_one(PendingQueue)
        names = ["event-log--time", "event-log--warning", "event-log--reason",
                 "event-log--object"]
        styles = st.sampled_from([None] + [log.component_style(n) for n in names]
                                 + [queue.component_style("pending-queue--name")])

        @settings(max_examples=600, deadline=None, derandomize=True)
        @given(pieces=st.lists(st.tuples(TEXTS, styles), max_size=6),
               width=st.integers(min_value=1, max_value=70), selected=st.booleans(),
               widget=st.sampled_from([log, queue]))
        def same_row(pieces, width, selected, widget):
            text = Text(no_wrap=True)
            for part, style in pieces:
                text.append(part, style)
            plain = widget.text_strip(text, width, selected)
            fast = widget.pieces_strip(pieces, width, selected)
            assert list(fast) == list(plain)
            assert fast.cell_length == plain.cell_length == width

        same_row()


async def test_the_event_log_redraws_its_rows_in_a_new_theme(session, make):
    """The event log reads its rows' styles once and keeps them until Textual says its styles
    changed: after a theme change (and a focus change) its rows are those drawn afresh."""
    app = make(session)
    async with app.run_test(size=(120, 40)) as pilot:
        app.advance(30)
        await settle(pilot)
        log = app.screen.query_one(EventLog)
        assert log.row_count() > 10

        async def drawn_afresh() -> bool:
            shown = [list(line) for line in app.screen._compositor.render_strips()]
            log._cache.clear()
            log._row_styles = None
            log.refresh()
            await settle(pilot)
            return shown == [list(line) for line in app.screen._compositor.render_strips()]

        for theme in ["textual-light", "ksandbox-dark", "nord"]:
            app.theme = theme
            await settle(pilot)
            assert await drawn_afresh(), theme
        log.focus()
        await settle(pilot)
        assert await drawn_afresh(), "focused"
