"""FramedLines (tui/widgets/framed_lines.py) draws every line as Textual's StylesCache does:
the same strips for any frame, colours, padding, tint, opacity, hatch, outline, content size
and content lines (its short way covers plain frames; everything else is Textual's way)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual._styles_cache import StylesCache
from textual.color import Color
from textual.content import Content
from textual.css.styles import Styles
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style

from ksandbox.tui.widgets.framed_lines import FramedLines

EDGES = ["", "", "round", "solid", "heavy", "tall", "wide", "ascii", "blank"]
colours = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255),
                    st.sampled_from([1.0, 1.0, 0.5, 0.0])).map(lambda rgba: Color(*rgba))
texts = st.text(alphabet="ab ✓│★", min_size=1, max_size=12)
segment_styles = st.sampled_from([RichStyle(), RichStyle(bold=True), RichStyle(color="red"),
                                  RichStyle(color="#102030", bgcolor="#405060")])


@st.composite
def frames(draw):
    styles = Styles()
    for side in ("top", "right", "bottom", "left"):
        edge = draw(st.sampled_from(EDGES))
        if edge:
            setattr(styles, f"border_{side}", (edge, draw(colours)))
    plain = draw(st.booleans())
    if not plain:
        kind = draw(st.sampled_from(["padding", "tint", "text_opacity", "hatch", "outline"]))
        if kind == "padding":
            styles.padding = tuple(draw(st.integers(0, 2)) for _ in range(4))
        elif kind == "tint":
            styles.tint = draw(colours)
        elif kind == "text_opacity":
            styles.text_opacity = draw(st.sampled_from([0.5, 0.0]))
        elif kind == "hatch":
            styles.hatch = ("/", draw(colours))
        else:
            styles.outline_left = ("solid", draw(colours))
    width, height = draw(st.integers(1, 30)), draw(st.integers(1, 12))
    gutter = styles.gutter
    content_width = max(0, width - gutter.width - draw(st.integers(0, 1)))  # a scrollbar
    content_height = max(0, height - gutter.height - draw(st.integers(0, 2)))
    lines = [Strip([Segment(draw(texts), draw(segment_styles))
                    for _ in range(draw(st.integers(0, 3)))])
             for _ in range(content_height)]
    opacity = 1.0 if plain else draw(st.sampled_from([1.0, 0.5]))
    title = draw(st.sampled_from([None, "pods"]))
    return (styles, Size(width, height), Size(content_width, content_height), lines, opacity,
            draw(colours), draw(colours), title)


def _render(cache, styles, size, content_size, lines, opacity, base, background, title):
    label = None if title is None else (Content(title), Color(255, 255, 255),
                                        Color(0, 0, 0, 0), Style())
    return cache.render(styles, size, base, background, lines.__getitem__, [], label, None,
                        content_size=content_size, opacity=opacity)


@settings(max_examples=400, deadline=None)
@given(frames())
def test_every_line_is_the_one_textual_draws(frame):
    ours = _render(FramedLines(), *frame)
    textual = _render(StylesCache(), *frame)
    assert [list(strip) for strip in ours] == [list(strip) for strip in textual]
    assert [strip.cell_length for strip in ours] == [strip.cell_length for strip in textual]
