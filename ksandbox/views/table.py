"""Column alignment as Go's text/tabwriter does it, with kubectl's settings.

Text goes in with cells ended by tabs, one row per line; it comes out with every column padded
to its widest cell plus the padding. Like upstream, a column's width is computed per *block*
of consecutive lines that have that column: a line with fewer cells ends the block, which is
why ``describe``'s ``Name:``/``Labels:`` lines align among themselves but not with a table
further down. The last cell of a line is never padded (no trailing spaces from us).

Settings (kubectl): ``get`` uses cli-runtime pkg/printers/tabwriter.go — minwidth 6, padding 3;
``describe`` uses pkg/describe/describe.go tabbedString — minwidth 0, padding 2.

Ported behaviour of go/src/text/tabwriter/tabwriter.go (format, writeLines) with padchar ' '
and no flags; not here: AlignRight, DiscardEmptyColumns, Debug, '\\v' soft cells and ANSI
escapes (cell width is the character count).
"""

from __future__ import annotations

from typing import Sequence

# cli-runtime/pkg/printers/tabwriter.go
GET_MINWIDTH = 6
GET_PADDING = 3
# kubectl/pkg/describe/describe.go: tabwriter.Init(out, 0, 8, 2, ' ', 0)
DESCRIBE_MINWIDTH = 0
DESCRIBE_PADDING = 2


def _write_lines(lines: list[list[str]], widths: list[int], start: int, end: int,
                 out: list[str]) -> None:
    for i in range(start, end):
        cells = lines[i]
        parts = []
        for j, cell in enumerate(cells):
            if j < len(widths):
                parts.append(cell + " " * (widths[j] - len(cell)))
            else:
                parts.append(cell)
        out.append("".join(parts))


def _format(lines: list[list[str]], widths: list[int], line0: int, line1: int,
            out: list[str], minwidth: int, padding: int) -> None:
    column = len(widths)
    this = line0
    while this < line1:
        # The last cell of a line is the text after its last tab: it belongs to no column.
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        _write_lines(lines, widths, line0, this, out)
        line0 = this
        width = minwidth
        while this < line1 and column < len(lines[this]) - 1:
            w = len(lines[this][column]) + padding
            if w > width:
                width = w
            this += 1
        widths.append(width)
        _format(lines, widths, line0, this, out, minwidth, padding)
        widths.pop()
        line0 = this
    _write_lines(lines, widths, line0, line1, out)


def tabwrite(text: str, *, minwidth: int = DESCRIBE_MINWIDTH,
             padding: int = DESCRIBE_PADDING) -> str:
    """Align tab-separated ``text``; a trailing newline is kept if present."""
    if not text:
        return ""
    ends_with_newline = text.endswith("\n")
    raw = text[:-1] if ends_with_newline else text
    lines = [line.split("\t") for line in raw.split("\n")]
    out: list[str] = []
    _format(lines, [], 0, len(lines), out, minwidth, padding)
    return "\n".join(out) + ("\n" if ends_with_newline else "")


def format_table(rows: Sequence[Sequence[str]], *, minwidth: int = GET_MINWIDTH,
                 padding: int = GET_PADDING) -> str:
    """Rows of cells (a header first, if any) as ``kubectl get`` lays them out."""
    if not rows:
        return ""
    text = "".join("\t".join(str(c) for c in row) + "\n" for row in rows)
    return tabwrite(text, minwidth=minwidth, padding=padding)
