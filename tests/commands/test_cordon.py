"""kubectl cordon / uncordon (conftest cluster; conventions.md §2.3)."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401


def unschedulable(session, node):
    return session.store.get("Node", node).spec.unschedulable


def test_cordon_then_again_then_uncordon(session):
    assert run(session, "kubectl cordon node-2").output == "node/node-2 cordoned\n"
    assert unschedulable(session, "node-2")
    assert run(session, "kubectl cordon node-2").output == "node/node-2 already cordoned\n"
    assert run(session, "kubectl uncordon node-2").output == "node/node-2 uncordoned\n"
    assert not unschedulable(session, "node-2")
    assert run(session, "uncordon node-2").output == "node/node-2 already uncordoned\n"


def test_already_cordoned_writes_nothing(session):
    run(session, "cordon node-2")
    before = session.store.resource_version
    run(session, "cordon node-2")
    assert session.store.resource_version == before


def test_cordoned_node_shows_scheduling_disabled(session):
    run(session, "cordon node-2")
    out = run(session, "get nodes node-2").output
    assert "Ready,SchedulingDisabled" in out


def test_several_nodes_and_selectors(session):
    assert run(session, "cordon node-2 node-3").output == \
        "node/node-2 cordoned\nnode/node-3 cordoned\n"
    assert run(session, "uncordon -l zone=b").output == \
        "node/node-2 uncordoned\nnode/node-3 uncordoned\n"
    assert run(session, "cordon node/node-1").output == "node/node-1 cordoned\n"


def test_dry_run(session):
    assert run(session, "cordon node-2 --dry-run=client").output == \
        "node/node-2 cordoned (dry run)\n"
    assert run(session, "cordon node-2 --dry-run").output == "node/node-2 cordoned (dry run)\n"
    assert not unschedulable(session, "node-2")


@pytest.mark.parametrize("line,error", [
    ("cordon", "error: USAGE: cordon NODE [flags]\nSee 'kubectl cordon -h' for help and "
               "examples\n"),
    ("uncordon", "error: USAGE: uncordon NODE [flags]\nSee 'kubectl uncordon -h' for help and "
                 "examples\n"),
    ("cordon node-2 -l zone=b", "error: cannot specify both a node name and a "
                                "--selector option\nSee 'kubectl cordon -h' for help and "
                                "examples\n"),
    ("cordon nope", 'Error from server (NotFound): nodes "nope" not found\n'),
    ("cordon node-2 nope", 'Error from server (NotFound): nodes "nope" not found\n'),
    ("cordon pod/web-1", "error: invalid resource type pod, only node types are supported\n"),
    ("cordon node-2 --dry-run=maybe",
     'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".\n'),
])
def test_errors_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error
