"""``ksandbox sim`` runs without the cycle collector (gcpolicy.headless_run) and the command's
process leaves its heap to the exit (gcpolicy.exiting, cli.run): the young collections of a
run and the interpreter's last collection walked every pod version, event record and view row
for nothing. What makes that safe is that a run makes next to no cyclic garbage: held here
for every sample and script. Only the collector's work changes, never a result."""

from __future__ import annotations

import contextlib
import gc
import io

import pytest

from ksandbox import cli
from ksandbox.resources import sample_cluster_path
from ksandbox.session import Session

RUNS = [("default", None), ("spread", None), ("taints", None), ("export", None),
        ("node-failure", "node-failure.script"), ("node-failure", "node-failure.keeper.script"),
        ("autoscaling", "autoscaling.script")]


def _sim(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["sim", "-f", str(sample_cluster_path("default")), "-o", "json",
                         *args]) == 0
    return out.getvalue()


def test_sim_runs_no_collection_and_gives_the_collector_back_with_nothing_young(
        collections, monkeypatch):
    """From the load to the printed state no collection runs (with thresholds that collect
    at every allocation otherwise); after, the collector is on with no young objects."""
    marks: dict[str, list[int]] = {}
    real_load, real_print = cli._load_session, cli._print_state

    def load_session(*args, **kwargs):
        marks["load starts"] = list(collections)
        return real_load(*args, **kwargs)

    def print_state(*args, **kwargs):
        real_print(*args, **kwargs)
        marks["printed"] = list(collections)

    monkeypatch.setattr(cli, "_load_session", load_session)
    monkeypatch.setattr(cli, "_print_state", print_state)
    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)   # a collection at every allocation, wherever one may run
    try:
        out = _sim()
        assert gc.isenabled()
        assert gc.get_count()[0] < 5   # the run's objects are in the oldest generation
    finally:
        gc.set_threshold(*old)
    assert sum(marks["load starts"]) > 0   # (the thresholds do collect outside the run)
    assert marks["printed"] == marks["load starts"]
    gc.disable()
    try:
        assert _sim() == out   # a collector off already stays off, and the output is one
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_sim_leaves_what_a_caller_froze_frozen(collections):
    gc.freeze()
    frozen = gc.get_freeze_count()
    _sim()
    # (frozen objects freed since count out: unfrozen, the count would be the run's own)
    assert frozen - 100 < gc.get_freeze_count() <= frozen and gc.isenabled()


def test_the_process_entry_leaves_its_heap_to_the_exit(collections, monkeypatch):
    monkeypatch.setattr("sys.argv", ["ksandbox", "sim", "-f",
                                     str(sample_cluster_path("taints")), "-o", "json"])
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.run() == 0
    assert gc.get_freeze_count() > 0


@pytest.mark.parametrize("sample,script", RUNS)
def test_a_headless_run_makes_next_to_no_cyclic_garbage(sample, script, monkeypatch):
    """Every clock slice of a headless run, with the session alive: what a full collection
    finds afterwards is garbage the run made in cycles, which headless_run leaves to the
    process's end. Fails when a component starts making cycles of its own per tick."""
    from ksandbox.recording.script import load_script, run_script

    found: list[int] = []
    real = Session._run_clock

    def run_clock(self, t):
        gc.collect()
        gc.disable()
        try:
            real(self, t)
        finally:
            found.append(gc.collect())
            gc.enable()

    monkeypatch.setattr(Session, "_run_clock", run_clock)
    # The heap from before the test (late in the suite, the runner's few million objects) goes
    # to the permanent generation: the two full collections of each slice then walk what the
    # run made, not the suite's heap too (autoscaling's 221 slices: 2.4 s instead of 98 s of CPU
    # beside a 2M-object heap). A cycle the run makes is of new objects, so it is found as
    # before: the counts are the same.
    gc.collect()
    gc.freeze()
    try:
        session = Session.from_files([sample_cluster_path(sample)])
        if script is not None:
            run_script(session,
                       load_script(sample_cluster_path(sample).parent / f"{script}.yaml"))
        session.settle()
    finally:
        gc.unfreeze()
    assert found and sum(found) <= 100, found
