"""Read what an app under test shows, as plain text lines (for assertions and debugging)."""

from __future__ import annotations


def screen_lines(app) -> list[str]:
    """The visible screen, one string per terminal row."""
    strips = app.screen._compositor.render_strips()
    return [strip.text for strip in strips]


def screen_text(app) -> str:
    return "\n".join(screen_lines(app))


class TerminalMirror:
    """What the terminal shows: every update the app writes (``App._display``) applied to a
    grid of cells, as a terminal applies the cursor moves and text it receives. A widget that
    marks too little for repaint leaves stale cells here, where ``screen_lines`` (which renders
    the widgets' lines afresh from their caches) would not show them."""

    def __init__(self, app) -> None:
        self.app = app
        from rich.cells import cell_len

        width, height = app.size
        self.clear(width, height)
        # The terminal at install: the screen as drawn so far (run_test has started the app
        # and written its first frame, which test_screen_layout holds to the widgets'
        # render; no whole frame follows it while nothing changes). What the app writes from
        # here is applied on top.
        for y, strip in enumerate(app.screen._compositor.render_strips()[:height]):
            x = 0
            for ch in strip.text:
                if x < width:
                    self.cells[y][x] = ch
                x += max(1, cell_len(ch))
        original = app._display

        def display(screen, renderable):
            if renderable is not None:
                self._apply(renderable)
            return original(screen, renderable)

        app._display = display

    def clear(self, width: int, height: int) -> None:
        """A blank terminal of ``width`` × ``height``."""
        self.cells = [[" "] * width for _ in range(height)]
        self.styles: list[list] = [[None] * width for _ in range(height)]
        """Each cell's rich Style as last written (None: not written since cleared)."""

    def _apply(self, renderable) -> None:
        from rich.cells import cell_len
        from rich.segment import ControlType

        console = self.app.console
        x = y = 0
        for segment in renderable.__rich_console__(console, console.options):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            for ch in segment.text:
                if ch == "\n":
                    x, y = 0, y + 1
                    continue
                if 0 <= y < len(self.cells) and 0 <= x < len(self.cells[y]):
                    self.cells[y][x] = ch
                    self.styles[y][x] = segment.style
                x += max(1, cell_len(ch))

    def lines(self) -> list[str]:
        return ["".join(row) for row in self.cells]

    def look(self, x: int, y: int) -> tuple:
        """What the cell at ``x, y`` looks like: its character, colours and attributes (a
        style's meta, which only says where the mouse is, left out)."""
        style = self.styles[y][x]
        if style is None:
            return (self.cells[y][x], None)
        return (self.cells[y][x], style.color, style.bgcolor, style.bold, style.dim,
                style.italic, style.underline, style.reverse, style.strike)

    def looks(self) -> list[list[tuple]]:
        return [[self.look(x, y) for x in range(len(row))] for y, row in enumerate(self.cells)]
