"""Read what an app under test shows, as plain text lines (for assertions and debugging)."""

from __future__ import annotations


def screen_lines(app) -> list[str]:
    """The visible screen, one string per terminal row."""
    strips = app.screen._compositor.render_strips()
    return [strip.text for strip in strips]


def screen_text(app) -> str:
    return "\n".join(screen_lines(app))
