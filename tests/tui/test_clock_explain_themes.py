"""The clock keys, the explain view, themes and key maps, and the board at 80×24 and at 300
nodes."""

from __future__ import annotations

from helpers import command, pod, settle, shows
from screen_text import screen_lines, screen_text

from ksandbox.tui.screens.explain import ExplainScreen

SIZE = (140, 40)


async def test_space_pauses_and_resumes_and_the_speed_is_shown(session, make):
    app = make(session, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        assert "▶ 1×" in screen_text(app)
        await pilot.press("greater_than_sign", "greater_than_sign")
        await settle(pilot)
        assert app.pacer.speed == 5.0 and "▶ 5×" in screen_text(app)
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert app.pacer.speed == 2.0
        await pilot.press("space")
        await settle(pilot)
        assert app.pacer.paused and "⏸ paused" in screen_text(app)
        app.pacer.tick(1.0)
        assert app.session.now == 0.0
        await pilot.press("space")
        assert not app.pacer.paused


async def test_full_stop_jumps_to_the_next_visible_change_and_says_what_it_was(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(3)
        app.submit("ksandbox fail node node-2")
        before = app.session.now
        await pilot.press("full_stop")
        await settle(pilot)
        # Not the next heartbeat: node-2 going Unknown, 50 s (the grace period) later.
        assert app.session.now >= before + 40
        assert "T+00:0" in screen_lines(app)[0]
        said = [n.message for n in app._notifications]
        assert any("node/node-2 Ready=Unknown" in m for m in said), said


async def test_the_ticking_clock_paces_simulated_time(session, make):
    app = make(session, paused=False, ticking=False, speed=100.0)
    async with app.run_test(size=SIZE) as pilot:
        # The pacer's per-tick work budget is wall time (12 ms): on a loaded machine it runs out
        # before the target, which is the lagging behaviour, not what this test is about.
        app.pacer.budget = 10.0
        await settle(pilot)  # the board's first frame: the clock gives way until it is out
        app._last_tick -= 0.1  # as if a tenth of a real second had passed
        app._tick()
        await settle(pilot)
        assert 5.0 <= app.session.now <= 25.0


async def test_e_explains_the_pending_pod_and_updates_live(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ExplainScreen) and app.screen.pod_name == "gpu-pod"
        text = screen_text(app)
        assert "0/4 nodes are available" in text
        assert "NodeAffinity: node(s) didn't match Pod's node affinity/selector" in text
        assert "Tnt×3" in text and "TOTAL" in text
        app.submit("kubectl label nodes node-1 hw-type=gpu")
        app.screen.recompute()
        await settle(pilot)
        text = screen_text(app)
        assert "would place it on node-1" in text
        assert "★ node-1" in text


async def test_explain_of_a_missing_pod_reports_kubectls_error(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "explain default/nope")
        assert 'pods "nope" not found' in screen_text(app)


async def test_three_themes_ship_and_the_choice_persists(session, make, user_config):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        names = set(app.available_themes)
        assert {"ksandbox-dark", "ksandbox-light", "ksandbox-high-contrast"} <= names
        assert app.theme == "ksandbox-dark"
        dark = app.screen.board.get_component_rich_style("node-board--noexecute").color
        app.theme = "ksandbox-high-contrast"
        await settle(pilot)
        bright = app.screen.board.get_component_rich_style("node-board--noexecute").color
        assert dark != bright
    assert "ksandbox-high-contrast" in user_config.read_text()
    again = make(session)
    async with again.run_test(size=SIZE):
        assert again.theme == "ksandbox-high-contrast"


async def test_the_palette_offers_the_actions_themes_and_views(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for expected in ("Taint node control-plane", "Cordon node control-plane",
                         "Theme: ksandbox-light", "View: Pods", "Clock: pause / resume"):
            assert expected in titles, expected
        cordon = next(c for c in app.get_system_commands(app.screen)
                      if c.title == "Cordon node control-plane")
        cordon.callback()
        await settle(pilot)
        assert app.session.store.get("Node", "control-plane").spec.unschedulable


async def test_keys_are_remappable_from_the_config_file(session, make, user_config):
    user_config.parent.mkdir(parents=True)
    user_config.write_text("keymap:\n  node.cordon: ctrl+o\n")
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.screen.board.selected = "node-1"
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert not app.session.store.get("Node", "node-1").spec.unschedulable
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.session.store.get("Node", "node-1").spec.unschedulable


async def test_the_board_is_readable_at_80_by_24(session, make):
    app = make(session)
    async with app.run_test(size=(80, 24)) as pilot:
        app.advance(10)
        await settle(pilot)
        lines = screen_lines(app)
        assert len(lines) == 24 and all(len(line) == 80 for line in lines)
        assert "nodes 4/4" in lines[0] and "T+00:00:10" in lines[0]
        assert shows(app, "control-plane") and shows(app, "pending[1]")
        app.screen.board.selected = "node-3"
        await settle(pilot)
        assert shows(app, "node-3")


async def test_three_hundred_nodes_scroll_and_the_selection_stays_visible(make):
    from ksandbox.api.core import Node, NodeSpec, NodeStatus
    from ksandbox.api.meta import ObjectMeta
    from ksandbox.api.quantity import Quantity
    from ksandbox.session import Session

    def node(i):
        cap = {"cpu": Quantity.parse("4"), "memory": Quantity.parse("16Gi"),
               "pods": Quantity.parse("110")}
        return Node(metadata=ObjectMeta(name=f"n-{i:03d}",
                                        labels={"topology.kubernetes.io/zone": f"z{i % 3}"}),
                    spec=NodeSpec(), status=NodeStatus(capacity=cap))

    session = Session([node(i) for i in range(300)])
    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        board = app.screen.board
        assert len(board.order) == 300
        await pilot.press("G")
        await settle(pilot)
        assert board.selected == "n-299" and shows(app, "n-299")
        await pilot.press("g", "down", "down", "down")
        await settle(pilot)
        assert shows(app, board.selected)
        await command(pilot, "po")
        await pilot.press("escape")
        await settle(pilot)
        assert shows(app, board.selected)


async def test_playback_replays_a_recording_through_the_clock(session, make, tmp_path):
    from ksandbox.recording.script import load_script

    path = tmp_path / "rec.yaml"
    path.write_text("apiVersion: ksandbox/v1alpha1\nkind: Recording\ntitle: demo\n"
                    "cluster: default\nsteps:\n"
                    "  - {at: 2, caption: cordoning node-1}\n"
                    "  - {at: 3, command: kubectl cordon node-1}\n")
    app = make(session, recording=load_script(path), paused=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert "▶ demo 0/2" in screen_text(app)
        app.advance(2.5)
        await settle(pilot)
        assert "▶ demo 1/2" in screen_text(app)
        while app.session.now < 3.0:
            await pilot.press("full_stop")
        await settle(pilot)
        # The step ran; the clock stands at most the stepper's gap past the last change.
        assert 3.0 <= app.session.now <= 5.0
        assert app.session.store.get("Node", "node-1").spec.unschedulable
        # The caption stays in the caption pane (not a toast that vanishes).
        assert "“cordoning node-1”" in screen_text(app)
        assert pod(app, "gpu-pod") is not None
