"""KeyFooter: Textual's compact Footer line, drawn by one widget.

Textual's ``Footer`` is a container of one ``FooterKey`` widget per binding, and it answers
every change of the active bindings by recomposing: it removes and mounts about twenty widgets
and lays out the whole screen. The bindings change on every focus move — opening the ``:`` or
``/`` bar moves the focus into it, tab moves it between panes — and at 1,000 nodes that cost
30–60 ms, up to 116 ms on a busy machine, inside the key that opened the bar.

KeyFooter draws the same line itself: a change of bindings recomputes a list of key spans and
repaints one line of the screen. Nothing is mounted and nothing is laid out.

What stays the same as Textual's compact footer (``textual/widgets/_footer.py``):
- the keys in the order of the screen's active bindings, one per action, those with
  ``show`` only; a key the screen reports as disabled (``check_action`` → None) is dim;
- the command palette's key docked at the right edge, behind a ``vkey`` border, over the keys
  when the line is too narrow — as Textual draws it;
- the colours, from the same theme variables (``$footer-*``, ``$block-hover-background``
  under the mouse), mixed the way Textual mixes a widget's background with its parents';
- the line is cut into segments where Textual's compositor cuts it (at each key's edges), so
  an SVG export and the terminal output are the same as before, byte for byte;
- a click on a key presses it (a disabled key rings the bell); the key under the mouse is
  highlighted and shows its tooltip.

Binding groups (``Binding.group``) are drawn as single keys: no binding of ksandbox has one.
tests/tui/test_key_footer.py holds the line against Textual's Footer, segment by segment.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.color import Color
from textual.strip import Strip
from textual.widget import Widget


class FooterItem(NamedTuple):
    key: str
    key_display: str
    description: str
    disabled: bool
    tooltip: str
    palette: bool


class KeyFooter(Widget, can_focus=False):
    ALLOW_SELECT = False
    # Footer's own rules (compact; not docked, as ``#bottom > Footer`` in ksandbox.tcss), and
    # FooterKey's as components.
    DEFAULT_CSS = """
    KeyFooter {
        color: $footer-foreground;
        background: $footer-background;
        height: 1;
    }
    KeyFooter > .key-footer--item { background: $footer-item-background; }
    KeyFooter > .key-footer--hover {
        color: $footer-key-foreground;
        background: $block-hover-background;
    }
    KeyFooter > .key-footer--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyFooter > .key-footer--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    KeyFooter > .key-footer--disabled { text-style: dim; }
    KeyFooter > .key-footer--palette-border { color: $foreground 20%; }
    """
    COMPONENT_CLASSES = {
        "key-footer--item", "key-footer--hover", "key-footer--key",
        "key-footer--description", "key-footer--disabled", "key-footer--palette-border",
    }

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.items: list[FooterItem] = []
        """What the line shows, in order (the palette's key last)."""
        self.ready = False
        """True once the screen's bindings were read (Textual's Footer is empty before)."""
        self._hover: int | None = None
        self._spans: list[tuple[int, int, int]] = []
        self._strip: tuple[Any, Strip] | None = None

    # -- the bindings -------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Any) -> None:
        self.ready = True
        # As Textual's Footer: not while the app has lost the terminal's focus, and after the
        # refresh (the focus change that caused this may still be under way).
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.update_keys)

    def update_keys(self) -> None:
        """Read the screen's active bindings; repaint the line if what it shows changed."""
        if not self.is_attached:
            return
        items = self._read_bindings()
        if items != self.items:
            self.items = items
            self._hover = None
            self.refresh()

    def _read_bindings(self) -> list[FooterItem]:
        app = self.app
        active = self.screen.active_bindings
        first: dict[str, FooterItem] = {}
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in first:
                first[binding.action] = FooterItem(
                    binding.key, app.get_key_display(binding), binding.description,
                    not enabled, tooltip, False)
        items = list(first.values())
        if app.ENABLE_COMMAND_PALETTE:
            palette = active.get(app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, _tooltip = palette
                items.append(FooterItem(
                    binding.key, app.get_key_display(binding), binding.description,
                    not enabled, binding.tooltip or binding.description, True))
        return items

    # -- drawing ----------------------------------------------------------------------------
    def _styles(self, hover: bool, disabled: bool) -> tuple[Style, Style, Color]:
        """(key style, description style, the item's background) of one key: Textual's
        ``DOMNode.rich_style`` walk, for the FooterKey beneath this widget and its two
        component styles beneath that."""
        base = self.rich_style
        background = Color.from_rich_color(base.bgcolor) if base.bgcolor else Color(0, 0, 0, 0)
        item = self.get_component_styles("key-footer--hover" if hover else "key-footer--item")
        background = background + item.background
        # The text attributes of every ancestor, then the FooterKey's own (dim if disabled);
        # its colour is always covered by the component's.
        text_style = base.without_color
        if disabled:
            text_style += self.get_component_styles("key-footer--disabled").text_style
        out = []
        for name in ("key-footer--key", "key-footer--description"):
            part = self.get_component_styles(name)
            bg = background + part.background
            fg = part.color
            out.append(text_style + part.text_style + Style.from_color(
                (bg + fg).rich_color, bg.rich_color))
        return out[0], out[1], background

    def _layout(self, width: int) -> tuple[list[tuple[int, int, int]], list[list[Segment]]]:
        """Each item's (start, end, index), and its segments, in drawing order."""
        spans: list[tuple[int, int, int]] = []
        drawn: list[list[Segment]] = []
        x = 0
        bgcolor = self.rich_style.bgcolor
        beneath = Color.from_rich_color(bgcolor) if bgcolor else Color(0, 0, 0, 0)
        styles: dict[tuple[bool, bool], tuple[Style, Style, Color]] = {}
        for index, item in enumerate(self.items):
            look = (index == self._hover, item.disabled)
            if look not in styles:
                styles[look] = self._styles(*look)
            key_style, description_style, background = styles[look]
            # Textual's text carries each character's offset in its widget (for selection),
            # and the SVG export's id is a hash of the styles, meta included.
            segments = [Segment(item.key_display, key_style + Style.from_meta(
                {"offset": (0, 0)}))]
            if item.description:
                segments.append(Segment(" " + item.description, description_style + (
                    Style.from_meta({"offset": (cell_len(item.key_display), 0)}))))
            size = sum(cell_len(s.text) for s in segments)
            if item.palette:
                # A border's colour is mixed with the background beneath the widget
                # (textual/_styles_cache.py), not the key's own (hovered) one.
                border = self.get_component_styles("key-footer--palette-border").color
                segments.insert(0, Segment("▏", Style.from_color(
                    (beneath + border).rich_color, background.rich_color)))
                size += 1
                # Docked right, with the compact footer's one-cell margin after it.
                start = width - 1 - size
            else:
                start = x
                x += size + 1
            spans.append((start, start + size, index))
            drawn.append(segments)
        return spans, drawn

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        key = (width, self.items, self._hover, base, self.app.theme)
        if self._strip is not None and self._strip[0] == key:
            return self._strip[1]
        spans, drawn = self._layout(width)
        self._spans = spans
        blank = Style.from_color(None, base.bgcolor)
        # One cell per column: (character, style, who drew it); later items draw over earlier
        # ones, as the docked palette is drawn over the keys.
        cells: list[tuple[str, Style, int]] = [(" ", blank, -1)] * width
        for (start, _end, index), segments in zip(spans, drawn):
            x = start
            for segment in segments:
                for ch in segment.text:
                    size = cell_len(ch)
                    if 0 <= x < width:
                        cells[x] = (ch, segment.style or blank, index)
                    for extra in range(1, size):
                        if 0 <= x + extra < width:
                            cells[x + extra] = ("", segment.style or blank, index)
                    x += size
        # Textual's compositor cuts the line at every widget's edges; a run of cells is one
        # segment within a cut, of one style, drawn by one widget.
        cuts = {0, width}
        for start, end, _index in spans:
            cuts.update((start, end))
        out: list[Segment] = []
        run_text = ""
        run_style: Style | None = None
        run_owner = None
        for x, (ch, style, owner) in enumerate(cells):
            if x in cuts or style != run_style or owner != run_owner:
                if run_text:
                    out.append(Segment(run_text, run_style))
                run_text, run_style, run_owner = "", style, owner
            run_text += ch
        if run_text:
            out.append(Segment(run_text, run_style))
        strip = Strip(out, width)
        self._strip = (key, strip)
        return strip

    # -- the mouse ----------------------------------------------------------------------------
    def _item_at(self, x: int) -> int | None:
        # The palette is drawn last, over the keys: it wins.
        for start, end, index in reversed(self._spans):
            if start <= x < end:
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._item_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, index: int | None) -> None:
        if index == self._hover:
            return
        self._hover = index
        item = self.items[index] if index is not None else None
        self.tooltip = (item.tooltip or None) if item is not None else None
        self.styles.pointer = "pointer" if item is not None else "default"
        self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._item_at(event.x)
        if index is None:
            return
        item = self.items[index]
        if item.disabled:
            self.app.bell()
        else:
            self.app.simulate_key(item.key)
