"""The TUI's plain-Python parts, without a terminal: command line, filter, pacer, model, cards,
rows and config."""

from __future__ import annotations

import pytest

from ksandbox.tui.cards import card_height, chip_lines, summarize
from ksandbox.tui.commandline import (BoardCommand, ExplainCommand, QuitCommand, SubmitCommand,
                                      ViewCommand, Vocabulary, complete, parse_command_line)
from ksandbox.tui.config import load_config, save_theme
from ksandbox.tui.filtering import parse_filter
from ksandbox.tui.pacer import SPEEDS, Pacer
from ksandbox.tui.rows import spec_for
from ksandbox.views.age import human_duration


@pytest.mark.parametrize("line, want", [
    (":no", ViewCommand("Node")),
    ("po", ViewCommand("Pod")),
    ("pods kube-system", ViewCommand("Pod", namespace="kube-system")),
    ("po /web", ViewCommand("Pod", filter="web")),
    ("po app=web", ViewCommand("Pod", filter="-l app=web")),
    ("deploy", ViewCommand("Deployment")),
    ("ds", ViewCommand("DaemonSet")),
    ("rs", ViewCommand("ReplicaSet")),
    ("ev", ViewCommand("Event")),
    ("hpa", ViewCommand("HorizontalPodAutoscaler")),
    ("q", QuitCommand()),
    ("board", BoardCommand()),
    ("explain default/web-1", ExplainCommand("default", "web-1")),
    ("explain web-1", ExplainCommand("default", "web-1")),
    ("kubectl taint nodes node-2 a=b:NoSchedule",
     SubmitCommand("kubectl taint nodes node-2 a=b:NoSchedule")),
    ("taint nodes node-2 a=b:NoSchedule",
     SubmitCommand("kubectl taint nodes node-2 a=b:NoSchedule")),
    ("fail node node-2", SubmitCommand("ksandbox fail node node-2")),
    ("get pods -o wide", SubmitCommand("kubectl get pods -o wide")),
    ("po a b c", SubmitCommand("kubectl po a b c")),
], ids=lambda v: str(v))
def test_the_command_line_reads_k9s_aliases_and_kubectl(line, want):
    assert parse_command_line(line) == want


def test_an_empty_or_unbalanced_line_never_raises():
    assert parse_command_line("   ") is None
    assert parse_command_line("taint 'unclosed") == SubmitCommand("kubectl taint 'unclosed")


def test_completion_offers_verbs_resources_and_names():
    vocab = Vocabulary(nodes=lambda: ["node-1", "node-2"], pods=lambda: ["web-1"])
    assert complete("tai", vocab) == "taint"
    assert complete("taint no", vocab) == "taint node"
    assert complete("taint nodes node-", vocab) == "taint nodes node-1"
    assert complete("cordon node-2", vocab) is None
    assert complete("describe pod we", vocab) == "describe pod web-1"
    assert complete("pressure node node-1 me", vocab) == "pressure node node-1 memory"
    assert complete("", vocab) is None


@pytest.mark.parametrize("text, row, labels, want", [
    ("web", "default/web-1", {}, True),
    ("WEB", "default/web-1", {}, True),
    ("web|api", "default/api-1", {}, True),
    ("!web", "default/web-1", {}, False),
    ("!web", "default/api-1", {}, True),
    ("-l app=web", "x", {"app": "web"}, True),
    ("-l app=web", "x", {"app": "api"}, False),
    ("-l app in (web,api)", "x", {"app": "api"}, True),
    ("web-[", "default/web-[x", {}, True),  # an unfinished regex is matched literally
], ids=lambda v: str(v))
def test_the_filter_is_regex_inverse_or_label_selector(text, row, labels, want):
    assert parse_filter(text).matches(row, labels) is want


def test_a_bad_label_selector_matches_nothing_and_says_why():
    f = parse_filter("-l app in (")
    assert f.error and not f.matches("x", {"app": "web"})
    assert parse_filter("/").title == "<//>"


@pytest.mark.parametrize("seconds, want", [
    (0, "0s"), (95, "95s"), (330, "5m30s"), (600, "10m"), (2700, "45m"), (11100, "3h5m"),
    (36 * 3600, "36h"), (3 * 86400 + 4 * 3600, "3d4h"), (400 * 86400, "400d")])
def test_ages_print_as_kubectl_does(seconds, want):
    assert human_duration(seconds) == want


def test_the_pacer_walks_the_speed_ladder_and_pauses(session):
    pacer = Pacer(session, speed=1.0)
    assert pacer.label == "1×"
    for _ in range(20):
        pacer.faster()
    assert pacer.speed == SPEEDS[-1] == 1000
    for _ in range(20):
        pacer.slower()
    assert pacer.speed == SPEEDS[0] == 0.25 and pacer.label == "0.25×"
    pacer.toggle()
    assert pacer.label == "⏸"
    assert pacer.tick(1.0) is False and session.now == 0.0


def test_the_pacer_turns_real_seconds_into_simulated_ones(session):
    pacer = Pacer(session, speed=10.0, budget=10.0)
    pacer.tick(0.1)
    assert session.now == pytest.approx(1.0)
    pacer.tick(5.0)  # a long gap is capped, never a jump
    assert session.now == pytest.approx(3.5)


def test_the_pacer_stops_when_its_slice_of_real_time_is_spent(session):
    ticks = iter(range(1000))
    pacer = Pacer(session, speed=1000.0, budget=0.5, perf_counter=lambda: next(ticks))
    session.clock.call_at(session.now + 1, lambda: None)
    session.clock.call_at(session.now + 2, lambda: None)
    pacer.tick(0.25)
    assert session.now < 250 and pacer.lagging


def test_the_pacer_replays_recorded_steps_at_their_times(session):
    from ksandbox.recording.playback import Playback
    from ksandbox.recording.script import ScriptStep

    steps = [ScriptStep(5.0, "kubectl cordon node-1"), ScriptStep(9.0, "kubectl cordon node-2")]
    seen = []
    playback = Playback(session, steps, on_step=lambda step, result: seen.append(result))
    pacer = Pacer(session, speed=1.0, budget=10.0, playback=playback)
    pacer.advance_to(6.0)
    assert [r.ok for r in seen] == [True]
    assert session.store.get("Node", "node-1").spec.unschedulable
    assert pacer.step_next() == 9.0 and session.store.get("Node", "node-2").spec.unschedulable


def test_the_model_counts_and_coalesces_changes(session):
    from ksandbox.tui.model import ClusterModel

    model = ClusterModel(session)
    g0 = model.flush().generation
    session.submit("kubectl cordon node-1")
    session.submit("kubectl label nodes node-2 hw-type=gpu")
    cs = model.flush()
    assert {"node-1", "node-2"} <= cs.nodes and "Node" in cs.kinds
    later = model.changes_since(g0)
    assert {"node-1", "node-2"} <= later.nodes and later.generation == cs.generation
    assert model.changes_since(cs.generation).empty
    assert model.node_total == 4
    assert ("default", "gpu-pod") in model.pending


def test_a_reader_far_behind_is_told_to_redraw_everything(session):
    from ksandbox.tui.model import HISTORY, ClusterModel

    model = ClusterModel(session)
    for _ in range(HISTORY + 5):
        model.flush()
    assert model.changes_since(0).everything


def test_a_card_summary_ignores_heartbeats_and_sizes_itself(session):
    session.submit("kubectl taint nodes node-2 hw-type=gpu:NoSchedule")
    session.submit("kubectl taint nodes node-2 dedicated=ml:NoExecute")
    node = session.store.get("Node", "node-2")
    s1 = summarize(session, node)
    assert {t[0] for t in s1.taints} == {"hw-type=gpu:NoSchedule", "dedicated=ml:NoExecute"}
    assert s1 == summarize(session, node)
    assert chip_lines(s1.taints, 50) == 1 and chip_lines(s1.taints, 24) == 2
    assert card_height(s1, 54, 8) < card_height(s1, 28, 8)


def test_node_rows_show_kubectl_status(session):
    session.submit("kubectl cordon node-1")
    spec = spec_for("Node")
    cells = spec.cells(session.store.get("Node", "node-1"), session.now, session)
    assert spec.columns()[:3] == ("NAME", "STATUS", "ROLES")
    assert cells[1].endswith(",SchedulingDisabled")


def test_the_theme_choice_is_saved_and_other_settings_kept(user_config):
    user_config.parent.mkdir(parents=True)
    user_config.write_text("keymap:\n  node.taint: ctrl+t\n")
    assert save_theme("ksandbox-light")
    cfg = load_config()
    assert cfg.theme == "ksandbox-light" and cfg.keymap == {"node.taint": "ctrl+t"}


def test_a_broken_config_is_reported_not_fatal(user_config):
    user_config.parent.mkdir(parents=True)
    user_config.write_text("theme: [\n")
    cfg = load_config()
    assert cfg.problem and cfg.theme == "ksandbox-dark"
    assert save_theme("ksandbox-light") is False
    user_config.write_text("keymap: {node.taint: 3}\n")
    assert "keymap.node.taint" in load_config().problem


def test_changes_since_is_the_union_of_every_later_change_set(session):
    """A reader several generations behind gets exactly the union of the change sets after
    its generation (gathered at once, not merged pairwise: tui/model.py changes_since)."""
    from ksandbox.tui.model import ClusterModel

    model = ClusterModel(session)
    start = model.flush().generation
    sealed = []
    for i, command in enumerate(["kubectl cordon node-1", "kubectl scale deployment/web "
                                 "--replicas=5", "kubectl label nodes node-3 a=b",
                                 "kubectl uncordon node-1"]):
        session.submit(command)
        session.run_until(session.now + 2)
        sealed.append(model.flush())
    for behind in range(len(sealed)):
        got = model.changes_since(sealed[behind].generation - 1)
        later = sealed[behind:]
        assert got.generation == model.generation
        assert got.nodes == frozenset().union(*(c.nodes for c in later))
        assert got.pods == frozenset().union(*(c.pods for c in later))
        assert got.kinds == frozenset().union(*(c.kinds for c in later))
        assert got.structure == any(c.structure for c in later) and not got.everything
    assert model.changes_since(start).pods >= sealed[1].pods and sealed[1].pods
    assert model.changes_since(model.generation).empty
