"""put: a Static's new content, laid out only when its height changes.

``Static.update`` asks for a layout every time, and a layout reflows the whole screen: for a
dialog that includes its tinted background (at 1,000 nodes ~20 ms after every `t`, and after
every keystroke that changes its preview line), for the explain view its 1,000-row matrix.
Text that keeps the Static's height (a fixed width: ``1fr``, a column) needs only a repaint.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Static


def put(static: Static, content: Any) -> None:
    """Show ``content`` in ``static``, asking for a layout only when its height changes (or
    it has no size yet: not mounted, hidden)."""
    static.update(content, layout=False)
    size = static.content_size
    if not static.is_mounted or not static.display or size.width <= 0 \
            or static.get_content_height(size, static.app.size, size.width) != size.height:
        static.refresh(layout=True)
