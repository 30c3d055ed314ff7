"""execute(): errors become kubectl's stderr text, never exceptions; no verb hits an internal
error on a broad sweep of command lines (success and failure alike)."""

from __future__ import annotations

import pytest

from ksandbox.commands import execute

from command_helpers import run, session  # noqa: F401

SWEEP = [
    "get nodes", "get pods -A -o wide", "get all", "get deploy,rs,ds,hpa,pdb,pc,ns,ev",
    "get events -A -o wide", "get nodes -o yaml", "get pods -o json", "get rc",
    "describe nodes", "describe pods -A", "describe deploy", "describe rs", "describe ns",
    "describe ev -A",
    "label nodes --all a=b", "label pods -A --all a- ", "taint nodes --all k=v:NoExecute",
    "taint nodes --all k-", "cordon -l zone=b", "uncordon -l zone=b",
    "scale deploy web --replicas=1", "autoscale deploy web --max=2", "describe hpa web",
    "run x --image=nginx", "delete pod x --now", "delete hpa web", "create -f -",
    "apply -f -", "delete pods -l nothing=here", "drain node-3 --ignore-daemonsets --force",
    "ksandbox fail node node-3", "ksandbox recover node node-3",
    "ksandbox pressure node node-2 disk on", "ksandbox pressure node node-2 disk off",
    "ksandbox add node node-9 --like node-2", "ksandbox load deployment/web 90",
    "get nodes", "describe node node-9",
]
STDIN = ("apiVersion: v1\nkind: Pod\nmetadata: {name: from-stdin}\n"
         "spec: {containers: [{name: c, image: busybox}]}\n")


def test_a_sweep_of_commands_never_reports_an_internal_error(session):
    for line in SWEEP:
        run(session, line, STDIN)
        session.run_for(7)


@pytest.mark.parametrize("line", SWEEP)
def test_each_command_alone_never_reports_an_internal_error(session, line):
    run(session, line, STDIN)


def test_unexpected_exceptions_are_reported_not_raised(session, monkeypatch):
    from ksandbox.commands import get

    def boom(*args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(get, "render_table", boom)
    result = execute(session, "get nodes", None)
    assert result.error == "error: internal: RuntimeError: kaboom\n"
    assert result.output == ""


def test_result_carries_the_command_text(session):
    result = execute(session, "kubectl get pods", None)
    assert result.command == "kubectl get pods" and result.ok


def test_failed_commands_are_not_recorded_in_history(session):
    session.submit("kubectl get pods nope")
    session.submit("kubectl label pods web-1 a=b")
    assert [s.command for s in session.history] == ["kubectl label pods web-1 a=b"]
