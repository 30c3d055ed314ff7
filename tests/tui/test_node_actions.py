"""Node keys on the board: each becomes command text, through session.submit, and the sandbox
and the screen show the result."""

from __future__ import annotations

import re

import pytest
from helpers import node, settle, shows, type_text, until
from screen_text import screen_lines, screen_text

SIZE = (140, 40)


async def select(pilot, app, name):
    board = app.screen.board
    board.selected = name
    await settle(pilot)


async def press_on(pilot, app, name, key):
    """Select node ``name`` on the board and press ``key`` there (a dialog opens, or the
    node's action runs)."""
    await select(pilot, app, name)
    await pilot.press(key)
    await settle(pilot)


def dialog_text(app) -> str:
    """The drawn rows of the dialog on top (its box: the rows that hold its title)."""
    return "\n".join(line for line in screen_lines(app) if "█" in line)


async def test_t_opens_an_empty_field_and_the_taint_typed_is_the_one_applied(session, make):
    """The field opens empty, the example as its placeholder: what is typed is the taint
    (it used to be appended to a prefilled ``key=value:NoSchedule``)."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await press_on(pilot, app, "node-2", "t")
        assert shows(app, "Taint node node-2")
        assert app.screen.query_one("#spec").value == ""
        drawn = dialog_text(app)
        assert "key=value:NoSchedule" in drawn                # the placeholder
        assert "PreferNoSchedule " in drawn, drawn             # each effect whole
        assert re.search(r"\$ kubectl taint nodes node-2 *█", drawn), drawn
        await type_text(pilot, "hw-type=gpu:NoSchedule")
        await settle(pilot)
        drawn = dialog_text(app)
        assert "hw-type=gpu:NoSchedule" in drawn and "key=value" not in drawn, drawn
        assert "$ kubectl taint nodes node-2 hw-type=gpu:NoSchedule " in drawn, drawn
        await pilot.press("enter")
        await settle(pilot)
        taints = node(app, "node-2").spec.taints
        assert [t.to_string() for t in taints] == ["hw-type=gpu:NoSchedule"]
        assert app.session.history[-1].command == "kubectl taint nodes node-2 hw-type=gpu:NoSchedule"
        assert shows(app, "hw-type=gpu:NoSchedule")


@pytest.mark.parametrize("spec", ["", "a=b:NoExecute"])
@pytest.mark.parametrize("reused", [False, True], ids=["new", "reused"])
async def test_a_new_and_a_reused_taint_dialog_take_what_is_typed_alike(session, make, reused,
                                                                       spec):
    """App.reusable_dialog's prepare readies the kept dialog as a new one opens: a spec
    given is selected (Input.select_on_focus), so typing replaces it in both. The kept one
    used to put the cursor after its prefilled example, and typing was appended to it."""
    from ksandbox.tui.dialogs import TaintDialog

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if reused:
            dialog = app.reusable_dialog(TaintDialog)
            dialog.prepare("node-1")
            app.push_screen(dialog)
            await settle(pilot)
            await type_text(pilot, "x=y")
            await pilot.press("escape")
            await settle(pilot)
            dialog.prepare("node-2", spec)
        else:
            dialog = TaintDialog("node-2", spec)
        app.push_screen(dialog, app.submit_from_dialog)
        await settle(pilot)
        effect = "NoExecute" if spec else "NoSchedule"      # the one the spec names is picked
        assert f"key=value:{effect}" in dialog_text(app) or spec
        await type_text(pilot, "gpu=true")
        await settle(pilot)
        drawn = dialog_text(app)
        assert f"$ kubectl taint nodes node-2 gpu=true:{effect} " in drawn, drawn
        await pilot.press("enter")
        await settle(pilot)
        assert [t.to_string() for t in node(app, "node-2").spec.taints] == [f"gpu=true:{effect}"]


async def test_a_taint_typed_without_an_effect_takes_the_picked_one(session, make):
    from textual.widgets import RadioButton

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await press_on(pilot, app, "node-1", "t")
        await type_text(pilot, "gpu=true")
        await settle(pilot)
        assert "$ kubectl taint nodes node-1 gpu=true:NoSchedule " in dialog_text(app)
        noexecute = [b for b in app.screen.query(RadioButton) if b.name == "NoExecute"][0]
        noexecute.value = True
        await settle(pilot)
        drawn = dialog_text(app)
        assert app.screen.query_one("#spec").value == "gpu=true"      # left as typed
        assert "$ kubectl taint nodes node-1 gpu=true:NoExecute " in drawn, drawn
        await pilot.press("ctrl+u")
        await settle(pilot)
        assert "key=value:NoExecute" in dialog_text(app)             # the placeholder follows
        await type_text(pilot, "gpu=true")
        await pilot.press("enter")
        await settle(pilot)
        assert [t.to_string() for t in node(app, "node-1").spec.taints] == ["gpu=true:NoExecute"]


async def test_the_taint_effect_is_chosen_from_the_three(session, make):
    """Picking an effect rewrites the effect typed in the field; typing one picks it."""
    from textual.widgets import RadioButton

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await press_on(pilot, app, "node-1", "t")
        await type_text(pilot, "gpu=true:NoSchedule")
        await settle(pilot)
        noexecute = [b for b in app.screen.query(RadioButton) if b.name == "NoExecute"][0]
        noexecute.value = True
        await settle(pilot)
        assert app.screen.query_one("#spec").value == "gpu=true:NoExecute"
        assert "$ kubectl taint nodes node-1 gpu=true:NoExecute " in dialog_text(app)
        await pilot.press("ctrl+u")
        await type_text(pilot, "a=b:PreferNoSchedule")
        await settle(pilot)
        assert [b.name for b in app.screen.query(RadioButton) if b.value] == ["PreferNoSchedule"]
        await pilot.press("backspace")          # a key typed after the effect picked it stays
        await type_text(pilot, "e")
        await settle(pilot)
        assert app.screen.query_one("#spec").value == "a=b:PreferNoSchedule"
        app.screen.query_one("#ok").press()
        await settle(pilot)
        assert [t.to_string() for t in node(app, "node-1").spec.taints] == ["a=b:PreferNoSchedule"]


async def test_enter_with_no_taint_or_a_bad_one_says_kubectls_error_and_stays_open(session,
                                                                                   make):
    """What kubectl refuses before sending anything is said in its words; the dialog stays
    open with what was typed, and nothing changes."""
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await press_on(pilot, app, "node-2", "t")
        dialog = app.screen
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog
        assert shows(app, "error: at least one taint update is required")
        await type_text(pilot, "gpu=true:NoSchedul")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog and shows(app, "error: invalid taint effect: NoSchedul")
        assert dialog.query_one("#spec").value == "gpu=true:NoSchedul"
        assert not node(app, "node-2").spec.taints and app.session.history == []
        await type_text(pilot, "e")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is not dialog
        assert [t.to_string() for t in node(app, "node-2").spec.taints] == ["gpu=true:NoSchedule"]


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
        await press_on(pilot, app, "node-2", "T")
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
        await press_on(pilot, app, "node-3", "c")
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
        await press_on(pilot, app, "node-1", "r")
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


async def test_a_drain_that_fails_still_says_the_node_was_cordoned(session, make):
    """kubectl drain cordons first and prints so on stdout, then its error on stderr: a
    terminal shows both. The toast showed the error alone, while the card said cordoned."""
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.advance(20)
        await press_on(pilot, app, "node-1", "r")
        app.screen.query_one("#ignore-daemonsets").value = False
        app.screen.query_one("#ok").press()
        await until(pilot, lambda: "error: unable to drain" in screen_text(app))
        assert node(app, "node-1").spec.unschedulable
        text = screen_text(app)
        assert "node/node-1 cordoned" in text, text
        assert "cannot delete DaemonSet-managed Pods" in text, text
        assert text.index("node/node-1 cordoned") < text.index("error: unable to drain"), text


async def test_x_fails_a_node_and_shift_x_recovers_it(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(20)
        await press_on(pilot, app, "node-3", "x")
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
        await press_on(pilot, app, "node-1", "p")
        assert app.screen.command() == "ksandbox pressure node node-1 memory on"
        app.screen.query_one("#ok").press()
        await settle(pilot)
        app.advance(20)
        await settle(pilot)
        cond = node(app, "node-1").status.condition("MemoryPressure")
        assert cond is not None and cond.status == "True"
        assert shows(app, "MemoryPressure")


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_pressure_dialog_draws_each_choice_whole(session, make, size):
    """The three kinds side by side fit the dialog at every size: "pid pressure" was cut to
    "pid pressu" (the dialog is 62 columns inside at 80 and at 160)."""
    app = make(session)
    async with app.run_test(size=size) as pilot:
        await press_on(pilot, app, "node-1", "p")
        drawn = dialog_text(app)
        assert "Pressure on node-1" in drawn, drawn
        kinds = next(line for line in drawn.splitlines() if "memory" in line)
        labels = [str(b.label) for b in app.screen.query("#kind RadioButton")]
        assert len(labels) == 3 and all(f"{label} " in kinds for label in labels), drawn


async def test_l_labels_the_node(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await press_on(pilot, app, "node-2", "l")
        assert app.screen.query_one("#spec").value == "hw-type=gpu"
        await pilot.press("enter")
        await settle(pilot)
        assert node(app, "node-2").metadata.labels["hw-type"] == "gpu"
        assert shows(app, "hw-type=gpu")


async def test_label_with_nothing_typed_says_kubectls_error_and_stays_open(session, make):
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await press_on(pilot, app, "node-2", "l")
        dialog = app.screen
        await pilot.press("ctrl+u", "enter")
        await settle(pilot)
        assert app.screen is dialog
        assert shows(app, "error: at least one label update is required")
        assert "hw-type" not in node(app, "node-2").metadata.labels
        await type_text(pilot, "team=a")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is not dialog
        assert node(app, "node-2").metadata.labels["team"] == "a"


async def test_an_error_is_a_notification_in_kubectls_words(session, make):
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await press_on(pilot, app, "node-2", "t")
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
        await press_on(pilot, app, "node-1", "t")
        await type_text(pilot, "key=value")
        app.screen.query_one("#effect").focus()
        await settle(pilot)
        await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot, 4)
        taints = node(app, "node-1").spec.taints
        assert len(taints) == 1 and taints[0].effect != "", [t.to_string() for t in taints]
        assert app.session.history[-1].command.startswith("kubectl taint nodes node-1 key=value:")


@pytest.mark.parametrize(("keys", "effect"), [(["right", "right"], "NoExecute"),
                                               (["down"], "PreferNoSchedule"),
                                               (["left"], "NoExecute")])
async def test_enter_on_a_highlighted_effect_taints_with_that_effect(session, make, keys,
                                                                    effect):
    """Tab from the field to the effects, arrows to one, Enter: the taint has that effect.
    Enter picks the highlighted one and submits at once; the dialog heard of the pick
    (RadioSet.Changed) only after it had sent the command with the effect picked before,
    NoSchedule."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await press_on(pilot, app, "node-1", "t")
        await type_text(pilot, "gpu=true")
        await pilot.press("tab")
        await settle(pilot)
        assert app.screen.focused is app.screen.query_one("#effect")
        await pilot.press(*keys)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot, 4)
        assert [t.to_string() for t in node(app, "node-1").spec.taints] == [f"gpu=true:{effect}"]
        assert app.session.history[-1].command == f"kubectl taint nodes node-1 gpu=true:{effect}"


async def test_an_unticked_overwrite_box_looks_empty(session, make):
    """Issue 9 item 5: --overwrite unticked draws no mark (its X is the box's own colour);
    ticked draws a visible one."""
    from textual.widgets import Checkbox

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await press_on(pilot, app, "node-1", "t")
        box = app.screen.query_one("#overwrite", Checkbox)
        off = box.get_component_rich_style("toggle--button")
        assert off.color == off.bgcolor
        box.value = True
        await settle(pilot)
        on = box.get_component_rich_style("toggle--button")
        assert on.color != on.bgcolor


async def test_the_taint_dialog_is_built_once_and_opens_fresh_each_time(session, make):
    """The app keeps one taint dialog (App.reusable_dialog; built ahead in idle time when the
    real clock runs): each `t` shows it as a new one would be — the node's title, the field
    empty with its example, NoSchedule picked, --overwrite unticked, the focus on the spec —
    whatever the last use left in it, and it taints the node it was opened on."""
    from textual.widgets import Checkbox, Input, RadioButton

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app._prebuild_dialog()                      # what the idle warm-up does
        await settle(pilot)
        from ksandbox.tui.dialogs import TaintDialog

        built = app.reusable_dialog(TaintDialog)
        assert built.is_running and built not in app.screen_stack
        await press_on(pilot, app, "node-1", "t")
        assert app.screen is built and shows(app, "Taint node node-1")
        await type_text(pilot, "gpu=true:NoSchedule")
        noexecute = [b for b in built.query(RadioButton) if b.name == "NoExecute"][0]
        noexecute.value = True
        built.query_one("#overwrite", Checkbox).value = True
        await settle(pilot)
        assert built.query_one("#spec", Input).value == "gpu=true:NoExecute"
        await pilot.press("escape")
        await settle(pilot)
        await press_on(pilot, app, "node-2", "t")
        assert app.screen is built
        assert shows(app, "Taint node node-2") and not shows(app, "Taint node node-1")
        assert built.query_one("#spec", Input).value == ""
        assert not built.query_one("#overwrite", Checkbox).value
        assert [b.name for b in built.query(RadioButton) if b.value] == ["NoSchedule"]
        assert built.focused is built.query_one("#spec", Input)
        drawn = dialog_text(app)
        assert "key=value:NoSchedule" in drawn and "gpu=true" not in drawn, drawn
        assert re.search(r"\$ kubectl taint nodes node-2 *█", drawn), drawn
        await type_text(pilot, "gpu=true")
        await pilot.press("enter")
        await settle(pilot)
        assert [t.to_string() for t in node(app, "node-2").spec.taints] == ["gpu=true:NoSchedule"]
        assert not node(app, "node-1").spec.taints
        assert app.session.history[-1].command == "kubectl taint nodes node-2 gpu=true:NoSchedule"


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
        await press_on(pilot, app, "node-1", "t")
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
        await press_on(pilot, app, "node-2", "t")
        assert app.screen is dialog
        text = "\n".join(mirror.lines())
        assert "Taint node node-2" in text and "Taint node node-1" not in text
        assert re.search(r"\$ kubectl taint nodes node-2 *█", text), text
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


@pytest.mark.parametrize("typed, sent", [
    ("", ""),
    ("gpu=true", "gpu=true:NoSchedule"),
    ("gpu", "gpu:NoSchedule"),                          # key:Effect, an empty value
    ("gpu=true:NoExecute", "gpu=true:NoExecute"),
    ("gpu-", "gpu-"),                                   # removals are left as typed
    ("gpu:NoExecute-", "gpu:NoExecute-"),
    ("a=b  c=d:NoExecute", "a=b:NoSchedule c=d:NoExecute"),
    ("gpu=true:", "gpu=true:"),                         # kubectl's to refuse
])
def test_a_taint_typed_without_an_effect_gets_the_picked_one(typed, sent):
    from ksandbox.tui.dialogs.taint import with_effect

    assert with_effect(typed, "NoSchedule") == sent


async def test_the_pressure_dialog_offers_the_state_that_changes_the_kind_picked(session, make):
    """On a node under memory pressure p offers "memory off"; moving to disk (off on this
    node) offers "disk on", and Enter turns disk pressure on. The state stayed the first
    kind's: "disk off", a command that changes nothing. Space picks without submitting: the
    preview then says "disk on"."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.session.submit("ksandbox pressure node node-1 memory on")
        app.advance(20)
        await press_on(pilot, app, "node-1", "p")
        assert "$ ksandbox pressure node node-1 memory off" in dialog_text(app)
        await pilot.press("right", "enter")
        await settle(pilot, 4)
        app.advance(20)
        await settle(pilot)
        cond = node(app, "node-1").status.condition("DiskPressure")
        assert cond is not None and cond.status == "True"
        assert app.session.history[-1].command == "ksandbox pressure node node-1 disk on"
        await press_on(pilot, app, "node-1", "p")
        await pilot.press("right", "right", "space")     # pid, not on here
        await settle(pilot)
        assert "$ ksandbox pressure node node-1 pid on" in dialog_text(app), dialog_text(app)
        await pilot.press("left", "space")                # disk, on now
        await settle(pilot)
        assert "$ ksandbox pressure node node-1 disk off" in dialog_text(app), dialog_text(app)
