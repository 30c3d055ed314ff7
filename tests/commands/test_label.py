"""kubectl label: outputs and the errors of conventions.md §2.2.

Ported cases of kubectl/pkg/cmd/label/label_test.go (TestParseLabels, TestLabelFunc,
TestLabelErrors) in command-line form.
"""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401

VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
             "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
             "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
             "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def labels(session, name, ns="default", kind="Pod"):
    return dict(session.store.get(kind, name, ns).metadata.labels)


@pytest.mark.parametrize("line,out", [
    ("kubectl label pods web-2 unhealthy=true", "pod/web-2 labeled\n"),
    ("label pod/web-2 a=1 b=2", "pod/web-2 labeled\n"),
    ("label pods web-2 app-", "pod/web-2 unlabeled\n"),
    ("label pods web-2 app=web", "pod/web-2 not labeled\n"),
    ("label pods web-2 app- x=y", "pod/web-2 modified\n"),
    ("label pods web-2 --overwrite app=api", "pod/web-2 labeled\n"),
    ("label pods web-2 a=1 --dry-run=client", "pod/web-2 labeled (dry run)\n"),
    ("label pods web-2 a=1 --dry-run=server", "pod/web-2 labeled (server dry run)\n"),
    ("label pods web-2 a=1 -o name", "pod/web-2\n"),
    ("label nodes node-3 gpu=true", "node/node-3 labeled\n"),
    ("label deploy web team=blue", "deployment.apps/web labeled\n"),
    ("label pods -n team-a batch-1 q=1", "pod/batch-1 labeled\n"),
    ("label pods -l app=web tier=x --overwrite", "pod/web-1 labeled\npod/web-2 labeled\n"),
    ("label pods --all env=dev", "pod/web-1 labeled\npod/web-2 labeled\n"),
    ("label pods -A --all env=dev", "pod/web-1 labeled\npod/web-2 labeled\npod/batch-1 "
                                    "labeled\n"),
], ids=lambda v: v if v.startswith(("label", "kubectl")) else "")
def test_outputs(session, line, out):
    result = run(session, line)
    assert (result.output, result.error) == (out, "")


def test_changes_land_in_the_store(session):
    run(session, "label pods web-2 a=1")
    run(session, "label pods web-2 app-")
    assert labels(session, "web-2") == {"a": "1"}
    run(session, "label pods web-2 a=2 --overwrite")
    assert labels(session, "web-2") == {"a": "2"}


def test_dry_run_changes_nothing(session):
    before = session.store.resource_version
    run(session, "label pods web-2 a=1 --dry-run=client")
    assert session.store.resource_version == before
    assert "a" not in labels(session, "web-2")


def test_removing_an_absent_label_says_so(session):
    assert run(session, "label pods web-2 nope-").output == \
        'label "nope" not found.\npod/web-2 not labeled\n'


def test_list_prints_the_labels(session):
    assert run(session, "label pods web-1 --list").output == "app=web\ntier=frontend\n"
    out = run(session, "label pods -l app=web --list").output
    assert out == ("Listing labels for Pod./web-1:\n app=web\n tier=frontend\n"
                   "Listing labels for Pod./web-2:\n app=web\n")


@pytest.mark.parametrize("line,error", [
    ("label pods web-1 tier=backend",
     "error: 'tier' already has a value (frontend), and --overwrite is false\n"),
    ("label pods web-1 a=b=c", "error: invalid label spec: a=b=c\n"),
    ("label pods web-1 a=b foo", "error: all resources must be specified before label "
                                 "changes: foo\n"),
    ("label pods web-1 'k=bad value'", f'error: invalid label value: "k=bad value": '
                                        f"{VALUE_MSG}\n"),
    ("label pods web-1 a=1 a-", "error: can not both modify and remove a label in the same "
                                "command\n"),
    ("label pods web-1", "error: at least one label update is required\n"),
    ("label a=b", "error: one or more resources must be specified as <resource> <name> or "
                  "<resource>/<name>\n"),
    ("label pods a=b", "error: resource(s) were provided, but no name, label selector, or "
                       "--all flag specified\n"),
    ("label pods --all -l app=web a=b",
     "error: cannot set --all and --selector at the same time\n"),
    ("label pods nope a=b", 'Error from server (NotFound): pods "nope" not found\n'),
    ("label widgets x a=b", 'error: the server doesn\'t have a resource type "widgets"\n'),
    ("label pods web-1 --list -o name",
     "error: --list and --output may not be specified together\n"),
    ("label pods web-1 bad/key/x=1",
     'The Pod "web-1" is invalid: metadata.labels: Invalid value: "bad/key/x": a valid label '
     "key must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
     "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
     "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
     "subdomain prefix and '/' (e.g. 'example.com/MyName')\n"),
], ids=lambda v: v if v.startswith("label") else "")
def test_errors_are_kubectls_and_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error


def test_one_refused_object_of_several_does_not_stop_the_others(session):
    # web-1 has tier=frontend, web-2 has no tier: RunLabel's builder uses ContinueOnError, so
    # web-2 is labeled and web-1 is reported.
    r = run(session, "label pods web-2 web-1 tier=backend")
    assert (r.output, r.error) == (
        "pod/web-2 labeled\n",
        "error: 'tier' already has a value (frontend), and --overwrite is false\n")
    assert labels(session, "web-2")["tier"] == "backend"
    assert labels(session, "web-1")["tier"] == "frontend"


def test_several_failures_are_printed_one_a_line_without_the_error_prefix(session):
    r = run(session, "label pods web-1 nope web-2 tier=backend")
    assert (r.output, r.error) == (
        "pod/web-2 labeled\n",
        "'tier' already has a value (frontend), and --overwrite is false\n"
        'Error from server (NotFound): pods "nope" not found\n')


def test_an_invalid_key_among_several_objects_is_the_servers_invalid_error(session):
    r = run(session, "label pods -l app=web --overwrite bad_key/x=y")
    assert r.output == ""
    assert r.error.splitlines() == [
        f'Error from server (Invalid): Pod "{name}" is invalid: metadata.labels: Invalid '
        f'value: "bad_key/x": prefix part a lowercase RFC 1123 subdomain must consist of '
        "lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        for name in ("web-1", "web-2")]


def test_absent_labels_are_noted_even_for_an_object_that_then_fails(session):
    r = run(session, "label pods web-1 web-2 nothere- tier=x")
    assert r.output == ('label "nothere" not found.\n'
                        'label "nothere" not found.\npod/web-2 labeled\n')
    assert r.error == "error: 'tier' already has a value (frontend), and --overwrite is false\n"


@pytest.mark.parametrize("specs,message", [
    (["foo"], "unknown label spec: foo"),
    (["a=b=c"], "invalid label spec: a=b=c"),
    (["a=1", "a-"], "can not both modify and remove a label in the same command"),
])
def test_parse_labels_errors(specs, message):
    # "unknown label spec" cannot be reached from a command line (such a word is a resource
    # there), so kubectl's parseLabels is checked directly.
    from ksandbox.api.errors import CommandError
    from ksandbox.commands.label import parse_labels

    with pytest.raises(CommandError) as exc:
        parse_labels(specs)
    assert str(exc.value) == message
