"""kubectl describe: which objects, separators and errors (the texts: tests/views)."""

from __future__ import annotations

import pytest

from command_helpers import run, session  # noqa: F401


def test_describe_one_pod(session):
    out = run(session, "kubectl describe pod web-1").output
    # The ServiceAccount admission gave the pod "default": describe shows it after Priority.
    assert out.startswith("Name:             web-1\nNamespace:        default\n"
                          "Priority:         0\nService Account:  default\nNode:  ")
    assert "\nTolerations:      " in out


def test_describe_by_prefix_as_kubectl_does(session):
    # No pod is called "web": kubectl then describes every pod whose name starts with it,
    # separated by two blank lines.
    first, second = run(session, "describe pods web").output.split("\n\n\nName:")
    assert first.startswith("Name:             web-1\n")
    assert second.startswith("             web-2\n")


def test_describe_every_node(session):
    out = run(session, "describe nodes").output
    assert out.count("\nRoles:") == 3
    assert out.count("\n\n\nName:") == 2


@pytest.mark.parametrize("line", ["describe deploy web", "describe rs cache", "describe ns team-a",
                                  "describe node node-1", "describe pods -A",
                                  "describe pods -l app=web", "describe pod web-1 "
                                                              "--show-events=false"])
def test_describe_kinds_without_errors(session, line):
    result = run(session, line)
    assert result.output.startswith("Name:") and result.error == ""


def test_show_events_false_leaves_events_out(session):
    assert "Events:" not in run(session, "describe pod web-1 --show-events=false").output


@pytest.mark.parametrize("line,output,error", [
    ("describe pod nope", "", 'Error from server (NotFound): pods "nope" not found\n'),
    ("describe", "", 'error: You must specify the type of resource to describe. Use "kubectl '
                     'api-resources" for a complete list of supported resources.\n'),
    ("describe pods -n kube-public", "No resources found in kube-public namespace.\n", ""),
    ("describe gadgets", "", "error: the server doesn't have a resource type \"gadgets\"\n"),
])
def test_empty_and_errors(session, line, output, error):
    result = run(session, line)
    assert (result.output, result.error) == (output, error)


def test_several_names_describe_those_found_then_say_which_are_missing(session):
    """describe.go's builder continues on error: with several names, each object found is
    described and each missing name is a NotFound after them (the prefix fallback is for a
    single name only). Before, one missing name hid every description."""
    result = run(session, "describe node node-1 nope")
    assert result.output.startswith("Name:               node-1\n")
    assert result.error == 'Error from server (NotFound): nodes "nope" not found\n'
    result = run(session, "describe pods web-1 web")   # "web" names no pod: no prefix match
    assert result.output.startswith("Name:             web-1\n") and "web-2" not in result.output
    assert result.error == 'Error from server (NotFound): pods "web" not found\n'
    result = run(session, "describe node nope-1 nope-2")
    assert result.output == ""
    assert result.error.splitlines() == ['Error from server (NotFound): nodes "nope-1" not found',
                                         'Error from server (NotFound): nodes "nope-2" not found']
