"""Node keys on the board: each becomes command text, through session.submit, and the sandbox
and the screen show the result."""

from __future__ import annotations

from helpers import node, settle, shows, type_text
from screen_text import screen_text

SIZE = (140, 40)


async def select(pilot, app, name):
    board = app.screen.board
    board.selected = name
    await settle(pilot)


async def test_t_taints_the_selected_node_through_a_prefilled_dialog(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-2")
        await pilot.press("t")
        await settle(pilot)
        assert shows(app, "Taint node node-2")
        field = app.screen.query_one("#spec")
        assert field.value == "key=value:NoSchedule"
        field.value = "hw-type=gpu:NoSchedule"
        await pilot.press("enter")
        await settle(pilot)
        taints = node(app, "node-2").spec.taints
        assert [t.to_string() for t in taints] == ["hw-type=gpu:NoSchedule"]
        assert app.session.history[-1].command == "kubectl taint nodes node-2 hw-type=gpu:NoSchedule"
        assert shows(app, "hw-type=gpu:NoSchedule")


async def test_the_taint_effect_is_chosen_from_the_three(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-1")
        await pilot.press("t")
        await settle(pilot)
        from textual.widgets import RadioButton

        noexecute = [b for b in app.screen.query(RadioButton) if b.name == "NoExecute"][0]
        noexecute.value = True
        await settle(pilot)
        assert app.screen.query_one("#spec").value == "key=value:NoExecute"
        app.screen.query_one("#ok").press()
        await settle(pilot)
        assert [t.effect for t in node(app, "node-1").spec.taints] == ["NoExecute"]


async def test_escape_cancels_a_dialog_and_changes_nothing(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert all(not n.spec.taints or n.name == "control-plane"
                   for n in app.session.store.nodes())
        assert app.session.history == []


async def test_shift_t_removes_the_picked_taint(session, make):
    session.submit("kubectl taint nodes node-2 hw-type=gpu:NoSchedule")
    session.submit("kubectl taint nodes node-2 dedicated=ml:NoExecute")
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-2")
        await pilot.press("T")
        await settle(pilot)
        options = app.screen.query_one("#taints")
        target = [i for i, t in enumerate(app.screen.taints) if t[1] == "dedicated"][0]
        options.highlighted = target
        await pilot.press("enter")
        await settle(pilot)
        assert [t.key for t in node(app, "node-2").spec.taints] == ["hw-type"]
        assert app.session.history[-1].command == "kubectl taint nodes node-2 dedicated:NoExecute-"


async def test_c_and_u_cordon_and_uncordon(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-3")
        await pilot.press("c")
        await settle(pilot)
        assert node(app, "node-3").spec.unschedulable
        assert shows(app, "cordoned")
        await pilot.press("u")
        await settle(pilot)
        assert not node(app, "node-3").spec.unschedulable
        assert [s.command for s in app.session.history] == ["kubectl cordon node-3",
                                                            "kubectl uncordon node-3"]


async def test_r_opens_drain_with_kubectls_flags(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-1")
        await pilot.press("r")
        await settle(pilot)
        text = screen_text(app)
        for label in ("Drain node-1?", "GracePeriod", "Ignore DaemonSets", "Delete EmptyDir Data",
                      "Force"):
            assert label in text
        assert app.screen.command() == "kubectl drain node-1 --ignore-daemonsets"
        app.screen.query_one("#force").value = True
        app.screen.query_one("#grace").value = "10"
        assert app.screen.command() == ("kubectl drain node-1 --ignore-daemonsets --force "
                                        "--grace-period=10")
        app.screen.query_one("#ok").press()
        await settle(pilot)
        assert node(app, "node-1").spec.unschedulable
        assert app.session.history[-1].command.startswith("kubectl drain node-1")


async def test_x_fails_a_node_and_shift_x_recovers_it(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(20)
        await select(pilot, app, "node-3")
        await pilot.press("x")
        await settle(pilot)
        assert app.session.history[-1].command == "ksandbox fail node node-3"
        app.advance(60)
        await settle(pilot)
        assert node(app, "node-3").ready == "Unknown"
        await pilot.press("X")
        app.advance(20)
        await settle(pilot)
        assert app.session.history[-1].command == "ksandbox recover node node-3"
        assert node(app, "node-3").ready == "True"


async def test_p_turns_on_a_pressure_condition(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(20)
        await select(pilot, app, "node-1")
        await pilot.press("p")
        await settle(pilot)
        assert app.screen.command() == "ksandbox pressure node node-1 memory on"
        app.screen.query_one("#ok").press()
        await settle(pilot)
        app.advance(20)
        await settle(pilot)
        cond = node(app, "node-1").status.condition("MemoryPressure")
        assert cond is not None and cond.status == "True"
        assert shows(app, "MemoryPressure")


async def test_l_labels_the_node(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-2")
        await pilot.press("l")
        await settle(pilot)
        assert app.screen.query_one("#spec").value == "hw-type=gpu"
        await pilot.press("enter")
        await settle(pilot)
        assert node(app, "node-2").metadata.labels["hw-type"] == "gpu"
        assert shows(app, "hw-type=gpu")


async def test_an_error_is_a_notification_in_kubectls_words(session, make):
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await select(pilot, app, "node-2")
        await pilot.press("t")
        await settle(pilot)
        app.screen.query_one("#spec").value = "bad!key=v:NoSchedule"
        await pilot.press("enter")
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert any(m.startswith("error: invalid taint spec: bad!key=v:NoSchedule") for m in notes)
        assert not node(app, "node-2").spec.taints


async def test_enter_in_the_effect_picker_submits_the_taint(session, make):
    """Issue 9 item 5: arrows pick the effect, Enter submits (it used to only toggle)."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-1")
        await pilot.press("t")
        await settle(pilot)
        app.screen.query_one("#effect").focus()
        await settle(pilot)
        await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot, 4)
        taints = node(app, "node-1").spec.taints
        assert len(taints) == 1 and taints[0].effect != "", [t.to_string() for t in taints]
        assert app.session.history[-1].command.startswith("kubectl taint nodes node-1 key=value:")


async def test_an_unticked_overwrite_box_looks_empty(session, make):
    """Issue 9 item 5: --overwrite unticked draws no mark (its X is the box's own colour);
    ticked draws a visible one."""
    from textual.widgets import Checkbox

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "node-1")
        await pilot.press("t")
        await settle(pilot)
        box = app.screen.query_one("#overwrite", Checkbox)
        off = box.get_component_rich_style("toggle--button")
        assert off.color == off.bgcolor
        box.value = True
        await settle(pilot)
        on = box.get_component_rich_style("toggle--button")
        assert on.color != on.bgcolor


async def test_the_taint_dialog_is_built_once_and_opens_fresh_each_time(session, make):
    """The app keeps one taint dialog (App.reusable_dialog; built ahead in idle time when the
    real clock runs): each `t` shows it as a new one would be — the node's title, the default
    spec, NoSchedule picked, --overwrite unticked, the focus on the spec — whatever the last
    use left in it, and it taints the node it was opened on."""
    from textual.widgets import Checkbox, Input, RadioButton

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app._prebuild_dialog()                      # what the idle warm-up does
        await settle(pilot)
        from ksandbox.tui.dialogs import TaintDialog

        built = app.reusable_dialog(TaintDialog)
        assert built.is_running and built not in app.screen_stack
        await select(pilot, app, "node-1")
        await pilot.press("t")
        await settle(pilot)
        assert app.screen is built and shows(app, "Taint node node-1")
        noexecute = [b for b in built.query(RadioButton) if b.name == "NoExecute"][0]
        noexecute.value = True
        built.query_one("#overwrite", Checkbox).value = True
        await settle(pilot)
        assert built.query_one("#spec", Input).value == "key=value:NoExecute"
        await pilot.press("escape")
        await settle(pilot)
        await select(pilot, app, "node-2")
        await pilot.press("t")
        await settle(pilot)
        assert app.screen is built
        assert shows(app, "Taint node node-2") and not shows(app, "Taint node node-1")
        assert built.query_one("#spec", Input).value == "key=value:NoSchedule"
        assert not built.query_one("#overwrite", Checkbox).value
        assert [b.name for b in built.query(RadioButton) if b.value] == ["NoSchedule"]
        assert built.focused is built.query_one("#spec", Input)
        assert shows(app, "$ kubectl taint nodes node-2 key=value:NoSchedule")
        await pilot.press("enter")
        await settle(pilot)
        assert [t.to_string() for t in node(app, "node-2").spec.taints] == ["key=value:NoSchedule"]
        assert not node(app, "node-1").spec.taints
        assert app.session.history[-1].command == "kubectl taint nodes node-2 key=value:NoSchedule"


async def test_the_taint_dialog_lays_out_only_when_a_line_changes_height(session, make):
    """Label.update asked for a layout of the dialog on every `t` (its title names the node)
    and every keystroke (the preview line): a layout of a dialog also lays out its tinted
    background (~20 ms at 1,000 nodes). A line that keeps its height is only repainted now;
    one that wraps onto a second row is laid out. The terminal shows every change."""
    from screen_text import TerminalMirror, screen_lines

    app = make(session)
    async with app.run_test(size=(100, 30)) as pilot:
        app._prebuild_dialog()
        await settle(pilot)
        await select(pilot, app, "node-1")
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        from ksandbox.tui.dialogs import TaintDialog

        dialog = app.reusable_dialog(TaintDialog)
        mirror = TerminalMirror(app)
        layouts = []
        real = type(dialog)._refresh_layout

        def counted(self, size=None, scroll=False):
            layouts.append(scroll)
            return real(self, size, scroll)

        dialog._refresh_layout = counted.__get__(dialog)
        await select(pilot, app, "node-2")
        await pilot.press("t")
        await settle(pilot)
        assert app.screen is dialog
        text = "\n".join(mirror.lines())
        assert "Taint node node-2" in text and "Taint node node-1" not in text
        assert "$ kubectl taint nodes node-2 key=value:NoSchedule" in text
        assert mirror.lines() == screen_lines(app)
        await pilot.press("ctrl+u")
        await type_text(pilot, "gpu=yes:NoSchedule")
        await settle(pilot)
        assert "$ kubectl taint nodes node-2 gpu=yes:NoSchedule" in "\n".join(mirror.lines())
        assert mirror.lines() == screen_lines(app)
        # Textual's own push layout only (none from the title, nor from 18 keystrokes).
        assert len(layouts) <= 1, layouts
        # A spec long enough to wrap the preview onto two rows: laid out, shown whole.
        before = len(layouts)
        await type_text(pilot, "x" * 40)
        await settle(pilot)
        assert len(layouts) > before
        preview = dialog.query_one("#preview")
        assert preview.size.height == 2
        assert mirror.lines() == screen_lines(app)
        assert "x" * 10 in "\n".join(mirror.lines())
        # Longer than the field: it scrolls to keep the cursor in view, as Textual's does.
        field = dialog.query_one("#spec")
        await type_text(pilot, "y" * 30)
        await settle(pilot)
        assert field.scroll_x > 0 and field.scroll_x == field.max_scroll_x
        row = mirror.lines()[field.region.y + 1]
        assert "y" * 20 in row and "gpu=" not in row
        assert mirror.lines() == screen_lines(app)
