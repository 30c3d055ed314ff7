"""k9s-style views: `:` aliases, list columns, `/` filters, drill-in, describe, YAML, delete,
scale, help — and the command bar's kubectl commands, history and completion."""

from __future__ import annotations

import re

import pytest
from helpers import command, pod, settle, shows, type_text
from screen_text import screen_text

from ksandbox.tui.screens.resources import ResourceScreen
from ksandbox.tui.screens.text import TextScreen

SIZE = (140, 40)


VIEWS = [
    ("no", "Node", "NAME  STATUS  ROLES  TAINTS  AGE  VERSION"),
    ("po", "Pod", "NAMESPACE  NAME  READY  STATUS  RESTARTS  AGE  IP  NODE"),
    ("deploy", "Deployment", "NAMESPACE  NAME  READY  UP-TO-DATE  AVAILABLE  AGE"),
    ("ds", "DaemonSet", "NAMESPACE  NAME  DESIRED  CURRENT  READY  UP-TO-DATE  AVAILABLE"),
    ("rs", "ReplicaSet", "NAMESPACE  NAME  DESIRED  CURRENT  READY  AGE"),
    ("ev", "Event", "NAMESPACE  LAST SEEN  TYPE  REASON  OBJECT  MESSAGE"),
    ("hpa", "HorizontalPodAutoscaler", "NAMESPACE  NAME  REFERENCE  TARGETS  MINPODS"),
]


async def test_colon_aliases_open_list_views_with_kubectls_columns(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(10)
        for alias, kind, columns in VIEWS:
            await command(pilot, alias)
            assert isinstance(app.screen, ResourceScreen) and app.screen.kind == kind
            header = " ".join(screen_text(app).splitlines()[2].replace("↑", "")
                              .replace("↓", "").strip("│ ").split())
            assert header.startswith(" ".join(columns.split())), alias
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen.view_name == "board"


async def test_the_node_list_shows_status_and_acts_like_the_board(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "no")
        table = app.screen.table
        assert [table.row_key(i)[1] for i in range(table.row_count())] == [
            "control-plane", "node-1", "node-2", "node-3"]
        await pilot.press("down", "down")  # node-2
        await pilot.press("c")
        await settle(pilot)
        assert app.session.store.get("Node", "node-2").spec.unschedulable
        assert "SchedulingDisabled" in screen_text(app)


async def test_filter_regex_inverse_and_label_selector(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(30)
        await command(pilot, "po")
        table = app.screen.table
        total = table.row_count()
        await pilot.press("slash")
        await type_text(pilot, "web")
        await settle(pilot)
        names = [table.row_key(i)[1] for i in range(table.row_count())]
        assert names and all("web" in n for n in names)
        assert "</web>" in screen_text(app)
        await pilot.press("enter")
        await pilot.press("slash")
        app.screen.query_one("#command-input").value = "!web"
        await pilot.press("enter")
        await settle(pilot)
        names = [table.row_key(i)[1] for i in range(table.row_count())]
        assert names and not any("web" in n for n in names)
        await pilot.press("slash")
        app.screen.query_one("#command-input").value = "-l app=web"
        await pilot.press("enter")
        await settle(pilot)
        names = [table.row_key(i)[1] for i in range(table.row_count())]
        assert names and all(n.startswith("web-") for n in names)
        await pilot.press("escape")  # clears the filter first
        await settle(pilot)
        assert table.row_count() == total and isinstance(app.screen, ResourceScreen)


async def test_the_board_filters_nodes_as_you_type(session, make):
    session.submit("kubectl label nodes node-2 hw-type=gpu")
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        await type_text(pilot, "gpu")
        await settle(pilot)
        assert app.screen.board.order == ["node-2"]
        await pilot.press("escape")
        await settle(pilot)
        assert len(app.screen.board.order) == 4


async def test_enter_on_a_node_lists_its_pods(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(30)
        app.screen.board.selected = "node-3"
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ResourceScreen) and app.screen.node == "node-3"
        assert "pods(node=node-3)" in screen_text(app)
        table = app.screen.table
        nodes = {app.screen.table.object_at(i).spec.node_name for i in range(table.row_count())}
        assert nodes == {"node-3"}
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.view_name == "board"


async def test_d_describes_and_y_shows_yaml(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.screen.board.selected = "node-2"
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, TextScreen)
        text = screen_text(app)
        assert "Name:" in text and "node-2" in text and "Taints:" in text
        await pilot.press("escape")
        await pilot.press("y")
        await settle(pilot)
        text = screen_text(app)
        assert "apiVersion: v1" in text and "kind: Node" in text
        assert app.session.history == []  # reads are not recorded


async def test_ctrl_d_asks_first_and_cancel_is_the_default(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "po")
        table = app.screen.table
        target = next(table.row_key(i) for i in range(table.row_count())
                      if table.row_key(i)[1] == "gpu-pod")
        table.cursor = [table.row_key(i) for i in range(table.row_count())].index(target)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert shows(app, "Delete pod/gpu-pod?")
        await pilot.press("enter")  # Cancel has the focus
        await settle(pilot)
        assert pod(app, "gpu-pod") is not None
        await pilot.press("ctrl+d")
        await settle(pilot)
        await pilot.press("tab", "enter")  # move to Delete, confirm
        await settle(pilot)
        assert pod(app, "gpu-pod") is None
        assert app.session.history[-1].command == "kubectl delete pod gpu-pod -n default"


async def test_s_scales_a_deployment_prefilled_with_its_count(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "deploy")
        await pilot.press("s")
        await settle(pilot)
        field = app.screen.query_one("#replicas")
        assert field.value == "3"
        field.value = "5"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.store.get("Deployment", "web", "default").spec.replicas == 5
        assert app.session.history[-1].command == "kubectl scale deployment/web --replicas=5"


async def test_scale_with_no_count_says_kubectls_error_and_stays_open(session, make):
    """Enter with the count erased used to do nothing at all; kubectl's answer to a scale
    without --replicas is said, the dialog stays with the field to fill, nothing changes."""
    app = make(session)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await command(pilot, "deploy")
        await pilot.press("s")
        await settle(pilot)
        dialog = app.screen
        await pilot.press("backspace", "enter")
        await settle(pilot)
        assert app.screen is dialog
        assert shows(app, 'error: required flag(s) "replicas" not set')
        assert shows(app, "$ kubectl scale deployment/web ")
        assert app.session.store.get("Deployment", "web", "default").spec.replicas == 3
        await type_text(pilot, "4")
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.store.get("Deployment", "web", "default").spec.replicas == 4


async def test_question_mark_lists_the_keys_of_the_current_view(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await settle(pilot)
        text = screen_text(app)
        for expected in ("BOARD", "Taint", "Untaint", "Cordon", "Drain", "Fail", "Recover",
                         "Explain", "Describe", "Delete", "GENERAL", "Pause"):
            assert expected in text, expected
        # The help is longer than the screen: G goes to its end, g back to the top.
        await pilot.press("G")
        await settle(pilot)
        assert "NAVIGATION" in screen_text(app) and "BOARD" not in screen_text(app)
        await pilot.press("g")
        await settle(pilot)
        assert "BOARD" in screen_text(app)
        await pilot.press("escape")
        await command(pilot, "deploy")
        await pilot.press("question_mark")
        await settle(pilot)
        text = screen_text(app)
        assert "Scale" in text and "Taint" not in text
        # A list's help names its sort keys.
        assert "SORT" in text and "Sort name" in text and "Sort age" in text


async def test_kubectl_commands_with_or_without_the_word(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "kubectl taint nodes node-1 dedicated=infra:NoSchedule")
        await command(pilot, "label nodes node-3 disk=ssd")
        node1 = app.session.store.get("Node", "node-1")
        assert [t.to_string() for t in node1.spec.taints] == ["dedicated=infra:NoSchedule"]
        assert app.session.store.get("Node", "node-3").metadata.labels["disk"] == "ssd"
        await command(pilot, "get nodes")
        assert isinstance(app.screen, TextScreen) and "NAME" in screen_text(app)


async def test_a_read_that_finds_some_names_shows_them_above_the_error(session, make):
    """kubectl get (or describe) of a name that exists and one that does not prints the
    found one on stdout and the NotFound on stderr: both in the terminal. The view showed
    the error alone."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "get nodes node-1 nope")
        assert isinstance(app.screen, TextScreen)
        text = screen_text(app)
        assert 'Error from server (NotFound): nodes "nope" not found' in text, text
        assert "NAME" in text and "node-1" in text, text
        assert text.index("node-1 ") < text.index("Error from server"), text
        await pilot.press("escape")
        await command(pilot, "describe node node-1 nope")
        assert isinstance(app.screen, TextScreen)
        assert re.search(r"Name:\s+node-1", screen_text(app)), screen_text(app)
        await pilot.press("G")   # the error comes after the description, as in a terminal
        await settle(pilot)
        text = screen_text(app)
        assert 'Error from server (NotFound): nodes "nope" not found' in text, text


async def test_the_command_bar_keeps_history_and_completes_names(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "cordon node-1")
        await pilot.press("colon", "up")
        bar = app.screen.query_one("#command-input")
        assert bar.value == "cordon node-1"
        await pilot.press("ctrl+u")
        await type_text(pilot, "uncordon no")
        bar.value = "uncordon node-"
        await settle(pilot, 4)
        await pilot.press("tab")
        assert bar.value == "uncordon node-1"
        await pilot.press("enter")
        await settle(pilot)
        assert not app.session.store.get("Node", "node-1").spec.unschedulable


GARBAGE = ["", "   ", ":::", "taint", "kubectl", "get pods -o", "po a b c d", "'unclosed",
           "explain", "explain a/b/c", "ksandbox nonsense", "drain", "\\x00", "q!x", "scale -1",
           "/", "-l", "pressure node nope memory on", "po /[", "no -l", "delete", "apply -f -"]


async def test_garbage_in_the_command_bar_never_crashes(session, make):
    app = make(session)
    async with app.run_test(size=(100, 30)) as pilot:
        for garbage in GARBAGE:
            await command(pilot, garbage)
            while len(app.screen_stack) > 2:
                await pilot.press("escape")
            assert app.is_running, garbage
        await pilot.press("slash")
        for text in ("[", "-l app in (", "!", "-l", "(?P<"):
            app.screen.query_one("#command-input").value = text
            await settle(pilot, 1)
        await pilot.press("escape")
        assert app.is_running


async def test_question_mark_lists_the_focused_panes_own_keys(session, make):
    """`?` on the board lists the board's own keys as the footer shows them — d describes the
    node (the board's d hides the screen's), J / K scroll the selected card — and with the
    pending queue or the event log focused, their d. They were left out as "widget keys"
    (the footer behind the modal said "d Describe node", the help did not); Textual's
    scroll keys (ctrl+pageup "Page Left") stay out, as moves are under NAVIGATION."""
    app = make(session)
    async with app.run_test(size=(120, 60)) as pilot:

        async def help_lines():
            await pilot.press("question_mark")
            await settle(pilot, 4)
            # The help box's rows (the board and footer behind it are not read).
            lines = [ln.split("█")[-2] for ln in screen_text(app).splitlines()
                     if ln.count("█") >= 2]
            await pilot.press("escape")
            await settle(pilot)
            return "\n".join(lines)

        text = await help_lines()
        for key, label in (("d", "Describe node"), ("J", "Card down"), ("K", "Card up")):
            assert re.search(rf"^ {key}\s+{label}\s*$", text, re.M), (key, text)
        assert "Page Left" not in text and "Page Right" not in text, text
        await pilot.press("tab")
        await settle(pilot)
        assert re.search(r"^ d\s+Describe pod\s*$", await help_lines(), re.M)
        await pilot.press("tab")
        await settle(pilot)
        assert re.search(r"^ d\s+Describe object\s*$", await help_lines(), re.M)


async def test_e_explain_is_offered_only_where_there_is_a_pod_to_explain(session, make):
    """The footer shows e Explain on the pod list and on the board (a pod is pending), not on
    the Deployment list, where e can only answer "Select a pod to explain"; it was offered
    there whenever some pod in the cluster was pending."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        await settle(pilot)
        assert app.model.pending
        footer = lambda: screen_text(app).splitlines()[-1]  # noqa: E731
        assert "e Explain" in footer(), footer()
        await command(pilot, "po")
        assert "e Explain" in footer(), footer()
        await command(pilot, "deploy")
        assert "s Scale" in footer() and "e Explain" not in footer(), footer()
