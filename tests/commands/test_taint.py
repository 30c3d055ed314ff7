"""kubectl taint: the verb's outputs and every error of conventions.md §2.1 and §6.3.

The grammar itself is tested in tests/api/test_taints.py; here the command line, the node
selection and the store writes (ported cases of kubectl/pkg/cmd/taint/taint_test.go TestTaint).
"""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401

VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
             "'-', '_' or '.', and must start and end with an alphanumeric character")
HINT = "See 'kubectl taint -h' for help and examples\n"


def taints(session, node):
    return [t.to_string() for t in session.store.get("Node", node).spec.taints]


@pytest.mark.parametrize("line,out,want", [
    ("kubectl taint nodes node-2 dedicated=gpu:NoSchedule", "node/node-2 tainted\n",
     ["dedicated=gpu:NoSchedule"]),
    ("kubectl taint node node-2 bar:NoSchedule", "node/node-2 tainted\n", ["bar:NoSchedule"]),
    ("kubectl taint no node-2 a=1:NoSchedule b=2:NoExecute", "node/node-2 tainted\n",
     ["a=1:NoSchedule", "b=2:NoExecute"]),
    ("taint nodes/node-2 k=v:PreferNoSchedule", "node/node-2 tainted\n",
     ["k=v:PreferNoSchedule"]),
    ("k taint nodes node-2 k=v:NoSchedule --dry-run=client",
     "node/node-2 tainted (dry run)\n", []),
    ("kubectl taint nodes node-2 k=v:NoSchedule -o name", "node/node-2\n",
     ["k=v:NoSchedule"]),
], ids=["key=value:effect", "key:effect", "two taints at once", "node/name form",
        "client dry run changes nothing", "-o name"])
def test_adding_taints(session, line, out, want):
    result = run(session, line)
    assert (result.output, result.error) == (out, "")
    assert taints(session, "node-2") == want


def test_removing_by_key_and_effect_and_by_key(session):
    run(session, "taint nodes node-2 a=1:NoSchedule a=1:NoExecute b:NoSchedule")
    assert run(session, "taint nodes node-2 a:NoSchedule-").output == "node/node-2 untainted\n"
    assert taints(session, "node-2") == ["a=1:NoExecute", "b:NoSchedule"]
    assert run(session, "taint nodes node-2 a-").output == "node/node-2 untainted\n"
    assert taints(session, "node-2") == ["b:NoSchedule"]


def test_overwrite_replaces_the_value_and_says_modified(session):
    run(session, "taint nodes node-2 dedicated=gpu:NoSchedule")
    result = run(session, "taint nodes node-2 dedicated=infra:NoSchedule --overwrite")
    assert result.output == "node/node-2 modified\n"
    assert taints(session, "node-2") == ["dedicated=infra:NoSchedule"]


def test_adding_and_removing_in_one_command_is_modified(session):
    run(session, "taint nodes node-2 a=1:NoSchedule")
    assert run(session, "taint nodes node-2 b=2:NoSchedule a-").output == \
        "node/node-2 modified\n"


def test_no_execute_taints_get_time_added(session):
    session.run_until(42)
    run(session, "taint nodes node-2 k=v:NoExecute")
    (t,) = session.store.get("Node", "node-2").spec.taints
    assert t.time_added == 42.0


def test_selector_and_all_pick_nodes(session):
    result = run(session, "taint nodes -l zone=b spot=true:PreferNoSchedule")
    assert result.output == "node/node-2 tainted\nnode/node-3 tainted\n"
    result = run(session, "taint nodes --all maint:NoSchedule")
    assert result.output == ("node/node-1 tainted\nnode/node-2 tainted\n"
                             "node/node-3 tainted\n")


@pytest.mark.parametrize("line,error", [
    ("taint nodes node-2 a=b=c:NoSchedule",
     f"error: invalid taint spec: a=b=c:NoSchedule\n{HINT}"),
    ("taint nodes node-2 a:b:c", f"error: invalid taint spec: a:b:c\n{HINT}"),
    ("taint nodes node-2 dedicated=special",
     "error: invalid taint spec: dedicated=special, name part must consist of alphanumeric "
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
     "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     f"'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n{HINT}"),
    ("taint nodes node-2 dedicated=special:NoSchedul",
     f"error: invalid taint effect: NoSchedul, unsupported taint effect\n{HINT}"),
    ("taint nodes node-2 'k=bad value:NoSchedule'",
     f"error: invalid taint spec: k=bad value:NoSchedule, {VALUE_MSG} (e.g. 'MyValue',  or "
     "'my_value',  or '12345', regex used for validation is "
     f"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\n{HINT}"),
    ("taint nodes node-2 k=v:NoSchedule k=w:NoSchedule",
     f"error: duplicated taints with the same key and effect: {{k w NoSchedule <nil>}}\n{HINT}"),
    ("taint nodes node-2 dedicated=x:NoSchedule dedicated:NoSchedule-",
     "error: can not both modify and remove the following taint(s) in the same command: "
     '{"dedicated":"NoSchedule"}\n'),
    ("taint nodes node-2 dedicated:NoSchedule-",
     'error: taint "dedicated:NoSchedule" not found\n'),
    ("taint nodes node-2 dedicated", "error: at least one taint update is required\n"),
    ("taint k=v:NoSchedule",
     "error: one or more resources must be specified as <resource> <name>\n"),
    ("taint nodes k=v:NoSchedule node-2",
     "error: all resources must be specified before taint changes: node-2\n"),
    ("taint pods web-1 k=v:NoSchedule",
     "error: invalid resource type pods, only node types are supported\n"),
    ("taint nodes k=v:NoSchedule",
     "error: at least one resource name must be specified since 'all' parameter is not set\n"),
    ("taint nodes --all -l zone=b k=v:NoSchedule",
     "error: setting 'all' parameter with a non empty selector is prohibited\n"),
    ("taint nodes nope k=v:NoSchedule", 'Error from server (NotFound): nodes "nope" not found\n'),
    ("taint nodes node-2 k=v:NoSchedule --bogus",
     "error: unknown flag: --bogus\nSee 'kubectl taint --help' for usage.\n"),
], ids=lambda v: v if len(v) < 60 else None)
def test_errors_are_kubectls_and_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error


def test_an_existing_key_and_effect_without_overwrite_is_refused(session):
    run(session, "taint nodes node-2 dedicated=gpu:NoSchedule")
    error = fails_without_change(session, "taint nodes node-2 dedicated=infra:NoSchedule")
    assert error == ("error: node node-2 already has dedicated taint(s) with same effect(s) "
                     "and --overwrite is false\n")


def test_one_bad_node_of_several_does_not_stop_the_others(session):
    # RunTaint's builder uses ContinueOnError: node-3 is reported, node-2 is still tainted.
    run(session, "taint nodes node-3 k=v:NoSchedule")
    r = run(session, "taint nodes node-2 node-3 k=w:NoSchedule")
    assert (r.output, r.error) == (
        "node/node-2 tainted\n",
        "error: node node-3 already has k taint(s) with same effect(s) and --overwrite is "
        "false\n")
    assert taints(session, "node-2") == ["k=w:NoSchedule"]
    assert taints(session, "node-3") == ["k=v:NoSchedule"]


def test_removing_the_control_plane_taint_from_all_nodes_reports_the_others(session):
    key = "node-role.kubernetes.io/control-plane"
    r = run(session, f"kubectl taint nodes --all {key}-")
    # Two failures are an aggregate: CheckErr prints them one a line without "error: ".
    assert (r.output, r.error) == ("node/node-1 untainted\n",
                                   f'taint "{key}" not found\ntaint "{key}" not found\n')
    assert taints(session, "node-1") == []
    # The change is kept (and recorded, so a fork replays it).
    assert taints(session.fork(), "node-1") == []


def test_one_missing_node_is_reported_and_the_named_ones_are_changed(session):
    r = run(session, "taint nodes node-2 nope k=v:NoSchedule")
    assert (r.output, r.error) == ("node/node-2 tainted\n",
                                   'Error from server (NotFound): nodes "nope" not found\n')
    assert taints(session, "node-2") == ["k=v:NoSchedule"]


def test_several_errors_of_different_kinds_are_listed_in_visit_order(session):
    r = run(session, "taint nodes nope node-3 node-2 gone- ")
    assert (r.output, r.error) == ("", 'Error from server (NotFound): nodes "nope" not found\n'
                                       'taint "gone" not found\ntaint "gone" not found\n')


def test_a_failing_node_is_left_unchanged_when_every_node_fails(session):
    fails_without_change(session, "taint nodes -l zone=b gone-")
