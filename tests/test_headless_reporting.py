"""Headless runs hide nothing (issue 14 item 4).

- ``play --headless`` reports every step that failed at its time on stderr, in the words
  ``sim --script`` uses (one function, cli.report_failed_step): ``at 151s: <command>`` then
  kubectl's error.
- The sim JSON's event list is complete, or ``eventsDropped`` says how many (the oldest) were
  left out; TaintManagerEviction, Scheduled, FailedScheduling and Preempted are never dropped.
- ``sim``, ``explain`` and ``diff`` with ``--until`` name on stderr the script steps due after
  it, which they did not run (the first five, then a count).
- A long run shows its progress on stderr (tui/progress.py), never on stdout, and the run is
  the same with or without the display.
"""

from __future__ import annotations

import io
import json

import pytest

from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver import store as store_mod
from ksandbox.apiserver.store import KEPT_REASONS, Store, apply_all
from ksandbox.cli import main
from ksandbox.session import Session
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom
from ksandbox.tui.progress import RunProgress

NODE = ('apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n'
        'status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}\n')
STEPS = ("- at: 151\n  command: kubectl cordon node-99\n"
         "- at: 160\n  command: kubectl label nodes node-1 a=b\n"
         "- at: 170\n  command: kubectl scale deployment nope --replicas=2\n")
EXPECTED = ('at 151s: kubectl cordon node-99\n'
            'Error from server (NotFound): nodes "node-99" not found\n'
            'at 170s: kubectl scale deployment nope --replicas=2\n'
            'Error from server (NotFound): deployments.apps "nope" not found\n')


def test_play_headless_reports_failed_steps_as_sim_does(tmp_path, capsys):
    (tmp_path / "n.yaml").write_text(NODE)
    (tmp_path / "s.yaml").write_text("steps:\n" + STEPS)
    (tmp_path / "r.yaml").write_text(
        "apiVersion: ksandbox/v1alpha2\nkind: Recording\ntitle: t\nseed: 0\ncluster:\n"
        + "".join("- " + line + "\n" if i == 0 else "  " + line + "\n"
                  for i, line in enumerate(NODE.splitlines()))
        + "steps:\n" + STEPS)
    assert main(["sim", "-f", str(tmp_path / "n.yaml"), "--script", str(tmp_path / "s.yaml")]) == 0
    sim_err = capsys.readouterr().err
    assert main(["play", str(tmp_path / "r.yaml"), "--headless"]) == 0
    play_err = capsys.readouterr().err
    assert sim_err == EXPECTED
    assert play_err == EXPECTED


def _store() -> Store:
    clock = Clock()
    store = Store(lambda: clock.now, SimRandom(1))
    apply_all(store, load_manifests(NODE))
    return store


def test_the_event_log_keeps_the_reasons_a_run_is_read_for(monkeypatch):
    monkeypatch.setattr(store_mod, "MAX_EVENTS", 50)
    store = _store()
    node = store.get("Node", "node-1")
    kept_reasons = sorted(KEPT_REASONS)
    for i in range(1000):
        reason = kept_reasons[i % 4] if i % 7 == 0 else "NodeHasSufficientMemory"
        store.record_event(node, "Normal", reason, f"message {i}")
    occ = store.occurrences
    kept = [e for e in occ if e.reason in KEPT_REASONS]
    assert [e.message for e in kept] == [f"message {i}" for i in range(0, 1000, 7)]
    others = [e for e in occ if e.reason not in KEPT_REASONS]
    assert len(others) <= 50
    # What is left of the others is the newest, in order, and the count adds up.
    assert others[-1].message == "message 999"
    total_others = sum(1 for i in range(1000) if i % 7)
    assert store.occurrences_dropped == total_others - len(others)
    assert [int(e.message.split()[1]) for e in occ] == \
        sorted(int(e.message.split()[1]) for e in occ)
    forked = store.fork(lambda: 0.0, SimRandom(2))
    assert forked.occurrences == occ and forked.occurrences_dropped == store.occurrences_dropped


def test_sim_json_says_how_many_events_were_dropped(tmp_path, capsys, monkeypatch):
    (tmp_path / "n.yaml").write_text(NODE)
    assert main(["sim", "-f", str(tmp_path / "n.yaml"), "--until", "30"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert "eventsDropped" not in full          # complete: the key is absent
    monkeypatch.setattr(store_mod, "MAX_EVENTS", 2)
    pods = "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\n"
                   f"spec: {{containers: [{{name: a, image: nginx}}]}}\n" for i in range(5))
    (tmp_path / "p.yaml").write_text(NODE + pods)
    assert main(["sim", "-f", str(tmp_path / "p.yaml"), "--until", "30"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["eventsDropped"] > 0
    scheduled = [e["object"] for e in state["events"] if e["reason"] == "Scheduled"]
    assert scheduled == [f"Pod/default/p{i}" for i in range(5)]
    assert len([e for e in state["events"] if e["reason"] not in KEPT_REASONS]) <= 2


def test_progress_is_drawn_on_its_stream_only_when_asked():
    quiet = io.StringIO()
    p = RunProgress("simulating", until=100.0, stream=quiet, after=0.0)
    p(50.0)
    p.close()
    assert quiet.getvalue() == "" and not p.shown   # not a terminal: nothing
    shown = io.StringIO()
    p = RunProgress("simulating", until=100.0, stream=shown, after=0.0, enabled=True,
                    detail=lambda: "7 pods in the scheduling queue")
    p(50.0)
    p.close()
    assert p.shown and "simulating" in shown.getvalue()
    assert "50/100 s simulated" in shown.getvalue()
    assert "7 pods in the scheduling queue" in shown.getvalue()


def test_a_run_is_the_same_with_a_progress_hook():
    text = NODE + "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\n"
        f"spec: {{containers: [{{name: a, image: nginx}}]}}\n" for i in range(30))
    plain = Session.from_text(text)
    plain.run_until(400)
    seen: list[float] = []
    hooked = Session.from_documents(load_manifests(text), progress=seen.append)
    hooked.run_until(400)
    assert json.dumps(hooked.view()) == json.dumps(plain.view())
    assert seen and seen == sorted(seen) and seen[-1] == 400


@pytest.mark.parametrize("until", [None, "50"])
def test_sim_keeps_stdout_clean_of_progress(tmp_path, capsys, until):
    (tmp_path / "n.yaml").write_text(NODE)
    extra = ["--until", until] if until else []
    assert main(["sim", "-f", str(tmp_path / "n.yaml"), *extra]) == 0
    out, err = capsys.readouterr()
    json.loads(out)
    assert err == ""


# -- steps left out by --until (issue 14: nothing dropped silently) ---------------------------

def test_sim_until_names_the_script_steps_it_did_not_run(tmp_path, capsys):
    (tmp_path / "n.yaml").write_text(NODE)
    (tmp_path / "s.yaml").write_text(
        "steps:\n" + STEPS + "- at: 400\n  caption: not a command\n")
    args = ["sim", "-f", str(tmp_path / "n.yaml"), "--script", str(tmp_path / "s.yaml")]
    assert main(args + ["--until", "155"]) == 0
    err = capsys.readouterr().err
    # The step at 151 ran (and failed, reported as such); 160 and 170 were cut off.
    assert err == (EXPECTED.split("at 170s")[0]
                   + "warning: 2 script steps were not run: due after --until 155s\n"
                     "at 160s: kubectl label nodes node-1 a=b\n"
                     "at 170s: kubectl scale deployment nope --replicas=2\n")
    # A step exactly at --until runs; nothing is left out, nothing is said.
    assert main(args + ["--until", "170"]) == 0
    assert "not run" not in capsys.readouterr().err
    assert main(args + ["--until", "169.5"]) == 0
    assert capsys.readouterr().err.endswith(
        "warning: 1 script step was not run: due after --until 169.5s\n"
        "at 170s: kubectl scale deployment nope --replicas=2\n")


def test_many_steps_left_out_are_counted_after_the_first_few(tmp_path, capsys):
    (tmp_path / "n.yaml").write_text(NODE)
    (tmp_path / "s.yaml").write_text("steps:\n" + "".join(
        f"- at: {10 * i}\n  command: kubectl label nodes node-1 n{i}=x\n" for i in range(1, 13)))
    assert main(["sim", "-f", str(tmp_path / "n.yaml"), "--script", str(tmp_path / "s.yaml"),
                 "--until", "35", "-o", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "warning: 9 script steps were not run: due after --until 35s",
        "at 40s: kubectl label nodes node-1 n4=x",
        "at 50s: kubectl label nodes node-1 n5=x",
        "at 60s: kubectl label nodes node-1 n6=x",
        "at 70s: kubectl label nodes node-1 n7=x",
        "at 80s: kubectl label nodes node-1 n8=x",
        "... and 4 more, the last at 120s"]
    labels = json.loads(captured.out)["nodes"][0]["labels"]
    assert "n3" in labels and "n4" not in labels


def test_explain_and_diff_say_which_steps_until_left_out(tmp_path, capsys):
    (tmp_path / "n.yaml").write_text(NODE)
    (tmp_path / "s.yaml").write_text("steps:\n- at: 10\n  command: kubectl cordon node-1\n"
                                     "- at: 90\n  command: kubectl uncordon node-1\n")
    files = ["-f", str(tmp_path / "n.yaml")]
    script = ["--script", str(tmp_path / "s.yaml")]
    main(["explain", *files, *script, "--until", "50", "default/none", "-o", "json"])
    assert capsys.readouterr().err.startswith(
        "warning: 1 script step was not run: due after --until 50s\n"
        "at 90s: kubectl uncordon node-1\n")
    assert main(["diff", *files, *script, "--until", "50"]) == 0
    assert capsys.readouterr().err == (
        "warning: s.yaml: 1 script step was not run: due after --until 50s\n"
        "s.yaml: at 90s: kubectl uncordon node-1\n")


# -- the progress of a long load (issue 11) ----------------------------------------------------

def _pods(n: int) -> str:
    return "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\n"
                   f"spec: {{nodeName: node-1, containers: [{{name: a, image: nginx}}]}}\n"
                   for i in range(n))


def test_a_load_reports_every_stage_to_its_hook(monkeypatch):
    """api/loadprogress.py: parsing (characters), decoding and storing (objects), in order and
    never past the total. A JSON List export is parsed and decoded in one pass, item by item
    (safeload.JsonList): it reports parsing by characters, then storing. A session's load
    checks and stores each object in one pass (apply_all atomic=False: "storing"); a kubectl
    apply to a running session checks every object before it stores any ("checking", then
    "storing")."""
    from ksandbox.api import loadprogress
    from ksandbox.api.manifest import load_manifests_with_origins

    monkeypatch.setattr(loadprogress, "STEP", 4)
    yaml_text = NODE + _pods(20)
    items = [o for o in __import__("yaml").safe_load_all(yaml_text) if o]
    json_text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)
    for text in (yaml_text, json_text):
        seen: list[tuple[str, int, int]] = []
        with loadprogress.reporting(lambda *a, seen=seen: seen.append(a)):
            loaded = load_manifests_with_origins(text, "x")
            Session.from_documents([o for o, _ in loaded])
        stages = [s for s, _, _ in seen]
        assert stages[0] == "parsing" and seen[0][2] == len(text)
        order = ["parsing", "decoding", "storing"] if text is yaml_text \
            else ["parsing", "storing"]
        assert stages == sorted(stages, key=order.index)
        assert set(stages) == set(order)
        for stage in order[1:]:
            counts = [(d, t) for s, d, t in seen if s == stage]
            assert counts == [(d, 21) for d in range(4, 21, 4)], stage
        parsed = [d for s, d, t in seen if s == "parsing" and t == len(text)]
        assert parsed == sorted(parsed) and parsed[-1] <= len(text)
        if text is json_text:   # every 4 items: the offset past the 4th, 8th, ... item
            assert len(parsed) == 1 + 20 // 4 and 0 < parsed[1] < parsed[-1] < len(text)
    session = Session.from_documents([o for o, _ in load_manifests_with_origins(NODE, "x")])
    more = [o for o, _ in load_manifests_with_origins(_pods(9), "y")]
    seen = []
    with loadprogress.reporting(lambda *a: seen.append(a)):
        session.apply_objects(more)
    assert seen == [("checking", 4, 9), ("checking", 8, 9), ("storing", 4, 9),
                    ("storing", 8, 9)]
    with loadprogress.reporting(None):
        assert loadprogress.current() is None


def test_a_long_load_shows_a_bar_on_stderr_and_the_run_is_the_same(tmp_path, monkeypatch,
                                                                     capsys):
    """`ksandbox sim` of a file whose load takes over a second (here: at once) draws the
    loading stages on stderr when it is a terminal; stdout is the same JSON as without."""
    from ksandbox.api import loadprogress
    from ksandbox.tui import progress

    (tmp_path / "c.yaml").write_text(NODE + _pods(12))
    assert main(["sim", "-f", str(tmp_path / "c.yaml"), "--until", "20"]) == 0
    plain = capsys.readouterr().out

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(progress, "REFRESH", 0.0)
    monkeypatch.setattr(loadprogress, "STEP", 2)
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "300")  # rich's width: the stage text is not cut short
    assert main(["sim", "-f", str(tmp_path / "c.yaml"), "--until", "20"]) == 0
    shown = err.getvalue()
    assert f"loading {tmp_path / 'c.yaml'}" in shown
    for what in ("parsing 0.0/0.0 MiB", "decoding 12/13 objects", "storing 12/13 objects",
                 "starting the control plane"):
        assert what in shown, what
    assert capsys.readouterr().out == plain


def test_load_progress_draws_only_on_a_terminal_and_can_stop_the_load():
    from ksandbox.tui.progress import LoadProgress

    quiet = io.StringIO()
    p = LoadProgress("big.json", stream=quiet, after=0.0)
    p.report("decoding", 2048, 155_000)
    p.close()
    assert quiet.getvalue() == "" and not p.shown
    shown = io.StringIO()
    p = LoadProgress("big.json", stream=shown, after=0.0, enabled=True)
    p._began -= 5.0          # the load began 5 s ago: the bar's clock counts from there
    p.report("decoding", 2048, 155_000)
    p.close()
    assert p.shown and "loading big.json" in shown.getvalue() and "0:00:05" in shown.getvalue()

    class Stop(Exception):
        pass

    def interrupted() -> None:
        raise Stop

    p = LoadProgress("big.json", stream=io.StringIO(), after=0.0, enabled=True,
                     interrupted=interrupted)
    with pytest.raises(Stop):
        p.report("decoding", 2048, 155_000)
