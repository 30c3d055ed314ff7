"""What a person sees: the real ``ksandbox`` in tmux at 80×24 and 160×48, read off the screen.

The Pilot tests drive the app's API; these drive the terminal — keys as bytes, several in one
burst as a paste or SSH delivers them — and assert on ``tmux capture-pane``. They skip (with a
reason) where tmux is missing.
"""

from __future__ import annotations

import re

import pytest
from terminal import terminal  # noqa: F401  (fixture)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]
FAILURE = "sample_clusters/node-failure.yaml"


def _open(terminal, size, *extra):  # noqa: F811
    term = terminal([FAILURE, "--paused", *extra], *size)
    term.wait_for(r"nodes\[4\]")
    return term


@pytest.mark.parametrize("size", SIZES)
def test_the_prompt_shows_what_is_typed(terminal, size):  # noqa: F811
    term = _open(terminal, size)
    term.keys(":")
    term.wait_for(r"view \(no po deploy")          # the prompt's hint, above the footer
    term.type("cordon no")
    term.wait_for(r": cordon no")
    # The greyed completion follows the cursor (capture-pane drops the colour, not the text).
    screen = term.wait_for(r": cordon node-1")
    # The footer is still there, under the bar, and says what the bar's keys do.
    last = screen.rstrip("\n").splitlines()[-1]
    assert "Complete" in last and "Close" in last
    term.keys("Escape")
    term.wait_until(lambda s: ": cordon" not in s)


@pytest.mark.parametrize("size", SIZES)
def test_a_burst_cordons_the_named_node_and_nothing_else(terminal, size):  # noqa: F811
    term = _open(terminal, size)
    term.keys(":cordon node-3", "Enter")              # one send-keys: one burst
    term.wait_for(r"node/node-3 cordoned")
    term.keys(":no", "Enter")
    screen = term.wait_for(r"nodes\[4\]|nodes\(?.*\)?\[4\]|NAME\s+STATUS")
    screen = term.wait_for(r"node-3\s+Ready,SchedulingDisabled")
    rows = [line for line in screen.splitlines() if re.search(r"(control-plane|node-\d)\s+\S", line)]
    disabled = [r for r in rows if "SchedulingDisabled" in r]
    assert len(disabled) == 1 and "node-3" in disabled[0], screen
    assert "GracePeriod" not in screen       # no drain dialog opened on the way


def test_a_burst_view_switch_opens_the_view(terminal):  # noqa: F811
    term = _open(terminal, (80, 24))
    term.keys(":po", "Enter")
    term.wait_for(r"pods\(all\)\[\d+\]")
    assert "Pressure on" not in term.screen()


def test_an_unknown_alias_gets_kubectls_words(terminal):  # noqa: F811
    term = _open(terminal, (160, 48))
    term.keys(":svcs", "Enter")
    term.wait_for(r"doesn't have a resource type \"svcs\"")
    # Every kind kubectl prints has a list view (with kubectl's columns and empty words).
    term.keys(":svc", "Enter")
    term.wait_for(r"services\(all\)\[0\][\s\S]*CLUSTER-IP[\s\S]*No resources found")


def test_an_empty_list_says_no_resources_found(terminal):  # noqa: F811
    term = _open(terminal, (80, 24))
    term.keys(":deploy kube-system", "Enter")
    term.wait_for(r"No resources found in kube-system namespace\.")


def _clock(screen: str) -> str:
    m = re.search(r"T\+(\d\d:\d\d:\d\d)", screen)
    return m.group(1) if m else ""


@pytest.mark.parametrize("size", SIZES)
def test_dot_reaches_the_300s_eviction_in_six_presses(terminal, size):  # noqa: F811
    term = terminal(["play", "sample_clusters/node-failure.recording.yaml"], *size)
    screen = term.wait_for(r"nodes\[4\]")
    for press in range(1, 7):  # noqa: B007 (read after the loop)
        before = _clock(screen)
        term.keys(".")
        screen = term.wait_until(lambda s, b=before: _clock(s) not in ("", b))
        # The press says what it was (dated by the change, in kubectl's words); the clock
        # stands at most two seconds past it. An event dated 00:06:15 cannot be on the screen
        # before the clock reaches it: only then is it waited for (each earlier press waited
        # two seconds for nothing).
        if _clock(screen) < "00:06:15":
            continue
        screen = term.wait_for(r"00:06:15 TaintManagerEviction")
        break
    else:
        raise AssertionError(f"six presses of . did not reach the 300 s eviction:\n{screen}")
    assert "00:06:1" in _clock(screen) and press <= 6


def test_pause_says_what_is_next(terminal):  # noqa: F811
    term = _open(terminal, (160, 48))
    term.keys(":fail node node-2", "Enter")
    term.wait_until(lambda s: "view (no po" not in s and "failed" in s)
    for _ in range(4):
        before = _clock(term.screen())
        term.keys(".")
        screen = term.wait_until(lambda s, b=before: _clock(s) != b)
        if "next: evict" in screen:
            break
    # The header names the next eviction and when it is due.
    term.wait_for(r"next: evict \S+ in \d+:\d\d")


def test_explain_shows_the_spread_domain_counts(terminal):  # noqa: F811
    """Issue 9 item 3: beside the matrix, PodTopologySpread's own numbers — matching pods per
    zone, the minimum, and the skew each node would produce against maxSkew."""
    term = terminal(["sample_clusters/spread.yaml", "--paused"], 160, 48)
    term.wait_for(r"nodes\[6\]")
    term.keys(".")       # the Deployments' pods are bound (two per zone for spread-hard)
    term.wait_for(r"pods 10 running")
    term.keys(":kubectl apply -f tests/tui/spread_probe.yaml", "Enter")
    term.wait_for(r"pod/spread-probe created")
    term.keys(":explain default/spread-probe", "Enter")
    screen = term.wait_for(r"matching pods per domain:.*\n.*zone-a: 2 .*\n.*zone-b: 2 .*\n"
                           r".*zone-c: 2 ")
    assert "THE POD ASKS FOR" in screen
    assert re.search(r"✓ node-1 \(zone-a\): skew 1 <= maxSkew 1", screen), screen
    # The matrix's verdicts are computed in a worker thread and come after the first frame
    # (on a loaded machine, seconds after it): the chosen node, and "computing" gone.
    screen = term.wait_until(lambda s: re.search(r"★ node-\d", s) and "computing" not in s)
    assert re.search(r"matching pods per domain:.*\n.*zone-a: 2 ", screen), screen
    # d describes the explained pod (not the node under the cursor).
    term.keys("d")
    term.wait_for(r"Name:\s+spread-probe")


@pytest.mark.parametrize("size", SIZES)
def test_enter_in_the_pressure_dialog_applies_the_highlighted_choice(terminal, size):  # noqa: F811
    """p opens the pressure dialog focused on its kinds, memory picked: Enter applies it, as
    Enter does in the taint, label and untaint dialogs (it did nothing: the dialog stayed
    open); an arrow then Enter applies the kind moved to."""
    term = _open(terminal, size)
    term.keys("Right", "p")
    term.wait_for(r"Pressure on node-1")
    term.keys("Enter")
    screen = term.wait_for(r"node/node-1 memory pressure on")
    assert "Pressure on node-1" not in screen, screen
    term.keys("p")
    term.wait_for(r"Pressure on node-1")
    term.keys("Right", "Enter")
    screen = term.wait_for(r"node/node-1 disk pressure on")
    assert "Pressure on node-1" not in screen, screen


@pytest.mark.parametrize("size", SIZES)
def test_ctrl_a_lists_the_aliases_from_the_board_too(terminal, size):  # noqa: F811
    """k9s's ctrl+a answers in every view: on the board it opens the aliases (it was bound on
    the list views only and did nothing on the board, with no word); again does not stack a
    second copy, esc goes back to the board."""
    term = _open(terminal, size)
    term.keys("C-a")
    screen = term.wait_for(r"aliases \(:NAME opens the view\)")
    assert re.search(r"RESOURCE\s+SHORTNAMES\s+KIND", screen), screen
    assert re.search(r"configmaps\s+cm\s+ConfigMap", screen), screen
    term.keys("C-a", "Escape")
    term.wait_until(lambda s: "aliases (:NAME" not in s and re.search(r"nodes\[4\]", s))


@pytest.mark.parametrize("size", SIZES)
def test_enter_on_an_event_in_the_log_describes_its_object(terminal, size):  # noqa: F811
    """tab tab focuses the event log; enter on an event describes the object it is about (as
    d there does, and enter in :ev). It opened the pods of the node selected on the board."""
    term = _open(terminal, size)
    term.keys(".")          # pods scheduled and admitted: the log's last events are about pods
    term.wait_for(r"(Scheduled|Pulling) pod/")
    term.keys("Tab", "Tab")
    term.wait_for(r"d Describe object")
    term.keys("Enter")
    screen = term.wait_for(r"Name:\s+\S+")
    assert "pods(node=" not in screen and "describe" in screen, screen


def test_the_explain_asks_pane_moves_with_k9s_keys(terminal):  # noqa: F811
    """At 80×24 the explain view's "the pod asks for" pane shows a few lines under the matrix;
    tab focuses it and k9s's keys move it as they move every other pane: G to its end (the
    node's answers), g back to the top, j/k a line — none of them "does nothing"."""
    term = terminal(["sample_clusters/spread.yaml", "--paused"], 80, 24)
    term.wait_for(r"nodes\[6\]")
    term.keys(".")
    term.wait_for(r"pods 10 running")
    term.keys(":kubectl apply -f tests/tui/spread_probe.yaml", "Enter")
    term.wait_for(r"pod/spread-probe created")
    term.keys(":explain default/spread-probe", "Enter")
    term.wait_until(lambda s: re.search(r"★ node-\d", s) and "THE POD ASKS FOR" in s)
    # the step's and the apply's toasts cover the pane's lower right until they go
    screen = term.wait_toasts_gone()
    assert "THE POD ASKS FOR" in screen, screen
    assert not re.search(r"NODE-\d ANSWERS", screen), screen   # below the pane's fold
    term.keys("Tab", "G")
    screen = term.wait_for(r"NODE-\d ANSWERS")
    assert "THE POD ASKS FOR" not in screen, screen
    term.keys("g")
    term.wait_until(lambda s: "THE POD ASKS FOR" in s and not re.search(r"NODE-\d ANSWERS", s))
    # (the pane at its top and the screen settled before the burst: under load the top could
    # show a frame before the scroll to it had finished, and the burst then raced it)
    term.wait_steady()
    term.keys("j", "j", "k")
    screen = term.wait_until(lambda s: "THE POD ASKS FOR" not in s)
    assert "does nothing" not in screen, screen


@pytest.mark.parametrize("size", SIZES)
def test_the_footer_follows_the_focused_pane(terminal, size):  # noqa: F811
    """Issue 9 item 5: tab moves the focus, and the footer's first keys are that pane's."""
    term = _open(terminal, size)

    def last_line(s: str) -> str:
        return s.rstrip("\n").splitlines()[-1].strip()

    term.wait_until(lambda s: last_line(s).startswith("⏎ Pods d Describe node"))
    term.keys("Tab")
    term.wait_until(lambda s: last_line(s).startswith("⏎ Explain pod"))
    term.keys("Tab")
    screen = term.wait_until(lambda s: last_line(s).startswith("d Describe object"))
    assert "Describe node" not in last_line(screen)


def test_a_dialog_shows_over_the_dimmed_board_and_escape_brings_it_back(terminal):  # noqa: F811
    """The taint dialog (`t`) is drawn over the board, which shows through around it, dimmed
    (tui/tint.py draws that background from the board's own lines); Escape closes it and
    the board is drawn in its own colours again."""
    term = _open(terminal, (120, 36))

    def coloured() -> str:
        return term._tmux("capture-pane", "-p", "-e", "-t", term.name)

    def title_line(screen: str) -> str:
        return next(line for line in screen.splitlines() if "nodes[4]" in line)

    plain_title = title_line(coloured())
    term.keys("t")
    # The preview is filled in once the dialog's fields have mounted, a frame after its title
    # may show (a dialog composed by the key, not yet the app's prebuilt one): wait for both.
    screen = term.wait_for(r"\$ kubectl taint nodes control-plane ")
    assert "Taint node control-plane" in screen, screen
    assert "nodes[4]" in screen                 # the board around the dialog
    term.wait_until(lambda s: title_line(coloured()) != plain_title)   # other colours,
    assert re.sub(r"\x1b\[[0-9;]*m", "", title_line(coloured())) == \
        re.sub(r"\x1b\[[0-9;]*m", "", plain_title)                     # the same text
    term.keys("Escape")
    term.wait_until(lambda s: "Taint node" not in s)
    term.wait_until(lambda s: title_line(coloured()) == plain_title)


def test_the_footer_follows_the_bar_in_one_burst_and_comes_back_in_its_colours(
        terminal):  # noqa: F811
    """The footer is one widget drawing Textual's key line (tui/widgets/key_footer.py): a tab
    and `:` sent in one burst show the bar's keys on it; Escape brings back the board's keys,
    in the same colours as before (read with ``capture-pane -e``)."""
    term = _open(terminal, (120, 36))

    def coloured_footer() -> str:
        return term._tmux("capture-pane", "-p", "-e", "-t", term.name).rstrip("\n") \
            .splitlines()[-1]

    def last_line(s: str) -> str:
        return s.rstrip("\n").splitlines()[-1].strip()

    term.wait_until(lambda s: last_line(s).startswith("⏎ Pods d Describe node"))
    before = coloured_footer()
    assert "\x1b[" in before and "palette" in before
    term.keys("Tab")
    term.wait_until(lambda s: last_line(s).startswith("⏎ Explain pod"))
    term.keys("Tab", "Tab", "Tab", ":")         # one burst: round the panes to the queue, bar
    screen = term.wait_until(lambda s: "Complete" in last_line(s))
    assert "Close" in last_line(screen) and "Explain pod" not in last_line(screen)
    term.keys("Escape")                         # the focus goes back to the board
    term.wait_until(lambda s: last_line(s).startswith("⏎ Pods d Describe node"))
    term.wait_until(lambda s: coloured_footer() == before)


@pytest.mark.parametrize("size", SIZES)
def test_the_bar_takes_the_crumbs_row_and_the_body_keeps_its_height(terminal, size):  # noqa: F811
    """The command bar's row is always on screen (tui/widgets/command_bar.py): closed, it
    shows the crumbs of the view stack (k9s's crumbs: internal/ui/crumbs.go); `:` puts the
    prompt in their place and takes a burst of keys; Enter runs the line and the crumbs come
    back. The body never changes height, so the panes' bottom frame stays on the same row."""
    term = _open(terminal, size)

    def lines(s: str) -> list[str]:
        return s.rstrip("\n").split("\n")

    def crumbs_row(s: str) -> str:
        return lines(s)[-2].strip()

    def frame_bottom(s: str) -> int:
        return max(i for i, line in enumerate(lines(s)) if line.startswith("╰"))

    screen = term.wait_until(lambda s: crumbs_row(s) == "board")
    bottom = frame_bottom(screen)
    assert bottom == len(lines(screen)) - 3, screen      # frame, crumbs, footer
    term.keys(":", "cordon node-3")                      # one burst: the bar, then the line
    screen = term.wait_until(lambda s: crumbs_row(s).startswith(": cordon node-3")
                             and "Complete" in lines(s)[-1])   # the footer under the bar
    assert frame_bottom(screen) == bottom, screen
    term.keys("Enter")
    term.wait_for(r"node/node-3 cordoned")
    screen = term.wait_until(lambda s: crumbs_row(s) == "board")
    assert frame_bottom(screen) == bottom, screen
    term.keys(":po", "Enter")
    screen = term.wait_until(lambda s: crumbs_row(s) == "board > pods(all)")
    assert frame_bottom(screen) == bottom, screen
    term.keys("/", "kube")                               # the filter takes the same row
    screen = term.wait_until(lambda s: crumbs_row(s).startswith("/ kube"))
    assert frame_bottom(screen) == bottom, screen
    term.keys("Enter")
    screen = term.wait_until(lambda s: crumbs_row(s) == "board > pods(all)")
    assert re.search(r"pods\(all\)\[\d+\] </kube>", screen), screen   # the filter holds
    term.keys("Escape", "Escape")                        # clear the filter, back to the board
    term.wait_until(lambda s: crumbs_row(s) == "board")


def test_the_taint_dialog_opens_fresh_for_each_node(terminal):  # noqa: F811
    """The app keeps one taint dialog, built while it is idle after its first frame
    (App.reusable_dialog): what one use typed into it is gone the next time, which shows
    the node it was opened on, and Enter taints that node."""
    term = _open(terminal, (120, 36))
    term.keys("t")
    term.wait_for(r"\$ kubectl taint nodes control-plane ")
    term.wait_for(r"key=value:NoSchedule")               # the empty field's placeholder
    term.keys("team=a:NoExecute")
    term.wait_for(r"\$ kubectl taint nodes control-plane team=a:NoExecute")
    term.keys("Escape")
    term.wait_until(lambda s: "Taint node" not in s)
    term.keys("Right", "t")
    screen = term.wait_for(r"\$ kubectl taint nodes node-1 ")
    assert "Taint node node-1" in screen and "team=a" not in screen, screen
    assert "key=value:NoSchedule" in screen, screen      # NoSchedule picked again
    term.keys("gpu=true", "Enter")
    term.wait_for(r"node/node-1 tainted")


@pytest.mark.parametrize("size", SIZES)
def test_a_taint_typed_into_the_taint_dialog_is_the_taint(terminal, size):  # noqa: F811
    """`t`, then the taint typed and Enter in one burst: the field opened empty (its example
    is a placeholder), so the node gets exactly what was typed; typed without an effect, the
    taint takes the one picked (NoSchedule). Enter with nothing typed says kubectl's error
    and the dialog stays."""
    term = _open(terminal, size)
    term.keys("t")
    term.wait_for(r"\$ kubectl taint nodes control-plane ")
    term.keys("Enter")
    screen = term.wait_for(r"at least one taint update is")   # wraps at 80 columns
    assert "Taint node control-plane" in screen, screen
    assert "PreferNoSchedule " in screen, screen       # the three effects drawn whole
    term.keys("gpu=true:NoExecute", "Enter")              # one burst
    term.wait_for(r"node/control-plane tainted")
    term.keys("Right", "t")
    term.wait_for(r"\$ kubectl taint nodes node-1 ")
    term.keys("team=a", "Enter")
    term.wait_for(r"node/node-1 tainted")
    term.keys(":describe node control-plane node-1", "Enter")
    screen = term.wait_for(r"team=a:NoSchedule")
    assert "gpu=true:NoExecute" in screen and "NoSchedulegpu" not in screen, screen


def _explains(term, pod: str, node: str, other: str) -> str:
    """Explain ``pod`` (bound through spec.nodeName to ``node``) and read its answer: the
    title names it, the verdict line says what its kubelet did, nothing names ``other``."""
    term.keys(f":explain {pod}", "Enter")
    screen = term.wait_until(lambda s: f"explain pod/{pod}" in s
                             and f"names {node} in spec.nodeName" in s.replace("\n", " "))
    assert other not in screen, screen
    return screen


def test_explain_first_thing_after_start_up_shows_the_pod_asked_for(terminal):  # noqa: F811
    """The app builds its explain view while idle after its first frame, before any pod is
    asked for (screens/explain.prebuild_explain), and keeps it between uses. Explain asked
    for at once after start-up, then for another pod, shows each time the pod asked for."""
    term = _open(terminal, (120, 36))
    _explains(term, "default/report", "node-2", "etcd")
    term.keys("Escape")
    term.wait_until(lambda s: "explain pod/" not in s)
    _explains(term, "kube-system/etcd-control-plane", "control-plane", "report")


def test_explain_after_the_idle_warm_up_shows_the_pod_asked_for(terminal):  # noqa: F811
    """Explain asked for once the app has had time to build its view ahead (the clock at 1×
    has run three seconds; the warm-up ends ~1.3 s after the first frame) opens that view for
    the pod asked for, and again for another one."""
    term = terminal([FAILURE], 120, 36)
    term.wait_for(r"T\+00:00:0[3-9]")
    _explains(term, "kube-system/etcd-control-plane", "control-plane", "report")
    term.keys("Escape")
    term.wait_until(lambda s: "explain pod/" not in s)
    _explains(term, "default/report", "node-2", "etcd")


def test_the_pod_list_reopens_as_new_after_a_filter_a_sort_and_a_namespace(terminal):  # noqa: F811
    """The app keeps its pod list (built while idle after the first frame) and `:po` shows it
    again (tests/tui/test_kept_pod_list.py checks every frame): after a filter, a reversed
    sort and another view, `:po` shows every pod in the default order; `:po kube-system`
    only that namespace's; and a burst `:po⏎/web` opens the list with its filter typed in
    (the keys behind Enter used to be lost in the closed bar)."""
    term = _open(terminal, (160, 48))

    def title(screen: str) -> str:
        return next((line for line in screen.splitlines() if "pods(" in line), "")

    term.keys(":po", "Enter")
    screen = term.wait_for(r"pods\(all\)\[\d+\]")
    total = re.search(r"pods\(all\)\[(\d+)\]", screen).group(1)
    assert "checkout-" in screen and "web-" in screen, screen
    term.keys("/web", "Enter")
    term.wait_for(r"pods\(all\)\[3\] </web>")
    term.keys("A")
    term.keys("A")
    screen = term.wait_for(r"AGE↓")
    assert "checkout-" not in screen, screen
    term.keys(":deploy", "Enter")
    term.wait_for(r"deployments\(all\)\[\d+\]")
    term.keys(":po", "Enter")
    screen = term.wait_for(rf"pods\(all\)\[{total}\]")
    assert "</web>" not in title(screen) and "AGE↓" not in screen, screen
    assert "NAMESPACE↑" in screen and "checkout-" in screen and "etcd-" in screen, screen
    term.keys(":po kube-system", "Enter")
    screen = term.wait_for(r"pods\(kube-system\)\[\d+\]")
    assert "etcd-" in screen and "web-" not in screen and "checkout-" not in screen, screen
    term.keys("Escape")                                   # back to the board
    term.wait_until(lambda s: "pods(" not in title(s))
    term.keys(":po", "Enter")
    screen = term.wait_for(rf"pods\(all\)\[{total}\]")
    assert "NAMESPACE↑" in screen and "web-" in screen and "etcd-" in screen, screen
    term.keys("Escape")
    term.wait_until(lambda s: "pods(" not in title(s))
    term.keys(":po", "Enter", "/web")                     # one burst, from the board
    screen = term.wait_for(r"pods\(all\)\[3\]")
    assert "checkout-" not in screen and "etcd-" not in screen, screen
    term.keys("Enter")
    screen = term.wait_for(r"pods\(all\)\[3\] </web>")
    assert "NAMESPACE↑" in screen and "AGE↓" not in screen, screen
