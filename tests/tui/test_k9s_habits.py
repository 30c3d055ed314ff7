"""Issue 9 item 6: k9s habits — ctrl+w wide columns, shift+o sort by node, '-' back to the
previous view, ctrl+a aliases, breadcrumbs of the view stack (k9s: internal/ui keys)."""

from __future__ import annotations

from helpers import command, settle
from screen_text import screen_text

from ksandbox.tui.screens.resources import ResourceScreen
from ksandbox.tui.screens.text import TextScreen


async def test_wide_sort_by_node_previous_view_aliases_and_breadcrumbs(session, make):
    app = make(session)
    async with app.run_test(size=(200, 40)) as pilot:
        app.advance(10)
        await command(pilot, "po")
        table = app.screen.table
        assert "NOMINATED NODE" not in screen_text(app)
        await pilot.press("ctrl+w")
        await settle(pilot)
        assert table.wide and "NOMINATED NODE" in screen_text(app)
        assert "pods(all)" in screen_text(app) and "board > pods(all)" in screen_text(app)
        await pilot.press("O")
        await settle(pilot)
        nodes = [table.object_at(i).spec.node_name for i in range(table.row_count())]
        assert table.sort_column == "NODE" and nodes == sorted(nodes)
        await command(pilot, "deploy")
        assert isinstance(app.screen, ResourceScreen) and app.screen.kind == "Deployment"
        await pilot.press("minus")
        await settle(pilot)
        assert app.screen.kind == "Pod"
        await pilot.press("ctrl+a")
        await settle(pilot)
        assert isinstance(app.screen, TextScreen)
        text = screen_text(app)
        assert "RESOURCE" in text and "SHORTNAMES" in text and "po" in text
