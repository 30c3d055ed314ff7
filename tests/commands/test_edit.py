"""kubectl edit, headless: the saved file is the command's stdin. Outcomes and words as
kubectl's pkg/cmd/util/editor/editoptions.go (and its testdata cases under
pkg/cmd/edit/testdata: no-op edit, edit that fails validation and is reopened, syntax error,
changed name): unchanged → "Edit cancelled, no changes made."; emptied → "Edit cancelled,
saved file was empty."; changed → "deployment.apps/web edited"; refused → the header the file
would be reopened with, then "error: Edit cancelled, no valid changes were saved.", nothing
written."""

from __future__ import annotations

import re

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401
from ksandbox.commands.edit import HEADER, EditCommand, editor_text, merge_diff, rebase


def _text(session, output=""):
    return editor_text(session, EditCommand("Deployment", "web", output=output))


def test_the_file_is_get_o_yaml_under_kubectls_header(session):
    text = _text(session)
    assert text.startswith(HEADER)
    assert text[len(HEADER):] == run(session, "kubectl get deploy web -o yaml").output


def test_unchanged_and_emptied_files_cancel_without_writing(session):
    text = _text(session)
    before = session.store.resource_version
    for stdin, said in [(text, "Edit cancelled, no changes made.\n"),
                        (text.replace("# Please", "#  Please"), "Edit cancelled, no changes made.\n"),
                        (HEADER, "Edit cancelled, saved file was empty.\n")]:
        result = run(session, "kubectl edit deployment web", stdin)
        assert (result.output, result.error) == (said, "")
    assert session.store.resource_version == before


def test_a_changed_file_is_patched_in(session):
    text = _text(session)
    edited = text.replace("image: nginx:1.27", "image: nginx:1.28").replace(
        "    app: web\n  name: web", "    app: web\n    team: a\n  name: web")
    assert run(session, "kubectl edit deploy/web", edited).output == "deployment.apps/web edited\n"
    d = session.store.get("Deployment", "web", "default")
    assert d.spec.template.spec.containers[0].image == "nginx:1.28"
    assert d.metadata.labels["team"] == "a"
    # JSON editing (-o json) goes the same way.
    text = _text(session, "json")
    assert run(session, "kubectl edit deploy web -o json",
               text.replace('"nginx:1.28"', '"nginx:1.29"')).output == "deployment.apps/web edited\n"
    assert session.store.get("Deployment", "web", "default").spec.template.spec.containers[0].image \
        == "nginx:1.29"


def test_only_layout_changed_is_skipped(session):
    assert run(session, "kubectl edit deploy web", _text(session) + "\n\n").output == \
        "deployment.apps/web skipped\n"


def _replicas(text, value):
    return re.sub(r"(?m)^  replicas: .*$", f"  replicas: {value}", text) \
        if re.search(r"(?m)^  replicas:", text) else text.replace("\nspec:\n", f"\nspec:\n  replicas: {value}\n", 1)


@pytest.mark.parametrize("change,header", [
    (lambda t: _replicas(t, -1),
     '# deployments.apps "web" was not valid:\n'
     "# * spec.replicas: Invalid value: -1: must be greater than or equal to 0\n#\n"),
    (lambda t: t.replace("  name: web\n", "  name: web2\n", 1),
     "# At least one of apiVersion, kind and name was changed\n#\n"),
    (lambda t: t.replace("kind: Deployment", "kind: StatefulSet"),
     "# At least one of apiVersion, kind and name was changed\n#\n"),
    (lambda t: t + "  oops: [\n",
     None),
])
def test_refused_edits_print_the_reopened_header_and_change_nothing(session, change, header):
    error = fails_without_change(session, "kubectl edit deploy web", change(_text(session)))
    assert error.endswith("error: Edit cancelled, no valid changes were saved.\n")
    if header is None:
        assert error.startswith("# The edited file had a syntax error: ")
    else:
        assert error == header + "error: Edit cancelled, no valid changes were saved.\n"


def test_a_stale_file_conflicts(session):
    stale = _text(session)
    run(session, "kubectl label deploy web team=a")
    error = fails_without_change(session, "kubectl edit deploy web",
                                 stale.replace("image: nginx:1.27", "image: nginx:1.28"))
    assert error == ('error: deployments.apps "web" could not be patched: Operation cannot be '
                     'fulfilled on deployments.apps "web": the object has been modified; please '
                     'apply your changes to the latest version and try again\n')


@pytest.mark.parametrize("line,stdin,error", [
    ("kubectl edit deploy nope", "x", 'Error from server (NotFound): deployments.apps "nope" not found\n'),
    ("kubectl edit deploy web", None, "error: ksandbox has no editor to open: give the edited "
     "object as the command's standard input (a script step's stdin:), or use \":edit\" in the TUI\n"),
    ("kubectl edit", "x", "error: You must provide one or more resources by argument or "
     "filename.\nSee 'kubectl edit -h' for help and examples\n"),
    ("kubectl edit deploy web -o wide", "x", 'error: unable to match a printer suitable for the '
     'output format "wide", allowed formats are: json,yaml\n'),
])
def test_bad_edits(session, line, stdin, error):
    assert fails_without_change(session, line, stdin) == error


def test_rebase_lays_the_users_change_on_the_live_object(session):
    """What the TUI submits: the editor's change onto the object as it is at save time (the
    object moved on while the editor was open), so the write does not conflict."""
    cmd = EditCommand("Deployment", "web")
    started = editor_text(session, cmd)
    run(session, "kubectl label deploy web team=a")
    edited = started.replace("image: nginx:1.27", "image: nginx:1.28")
    stdin = rebase(session, cmd, started, edited)
    assert run(session, "kubectl edit deploy web", stdin).output == "deployment.apps/web edited\n"
    d = session.store.get("Deployment", "web", "default")
    assert d.metadata.labels["team"] == "a" and d.spec.template.spec.containers[0].image == "nginx:1.28"
    assert rebase(session, cmd, started, started) == editor_text(session, cmd)[len(HEADER):]


def test_merge_diff():
    assert merge_diff({"a": 1, "b": {"c": 1, "d": 2}, "e": [1]},
                      {"a": 1, "b": {"c": 2}, "e": [1, 2], "f": 3}) == \
        {"b": {"c": 2, "d": None}, "e": [1, 2], "f": 3}


def test_a_script_step_may_carry_a_hand_written_object(session):
    """Headless, a file without resourceVersion/uid/status (what a script author writes)
    updates without a precondition; the server keeps the system fields and the status."""
    stdin = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx:1.28, resources: {requests: {cpu: 100m}}}]
"""
    uid = session.store.get("Deployment", "web", "default").metadata.uid
    assert run(session, "kubectl edit deploy web", stdin).output == "deployment.apps/web edited\n"
    d = session.store.get("Deployment", "web", "default")
    assert (d.spec.replicas, d.metadata.uid) == (1, uid)
    assert d.spec.template.spec.containers[0].image == "nginx:1.28"
    assert session.history[-1].stdin == stdin     # recorded with its stdin: a replay repeats it


def test_a_script_step_edits_headless(tmp_path, capsys):
    """`ksandbox sim --script`: a step `kubectl edit deploy web` with `stdin:` (the saved file)
    changes the deployment (0 → 1 replica); the run's JSON shows the controller scaling it."""
    import json
    import textwrap

    from command_helpers import CLUSTER

    from ksandbox.cli import main

    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "s.script.yaml").write_text(textwrap.dedent("""\
        steps:
          - at: 1
            command: kubectl edit deploy web
            stdin: |
              apiVersion: apps/v1
              kind: Deployment
              metadata: {name: web, namespace: default, labels: {app: web}}
              spec:
                replicas: 1
                selector: {matchLabels: {app: web}}
                template:
                  metadata: {labels: {app: web}}
                  spec:
                    containers: [{name: nginx, image: nginx:1.28}]
        """))
    code = main(["sim", "-f", str(tmp_path / "c.yaml"), "--script", str(tmp_path / "s.script.yaml"),
                 "--until", "2", "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    scaled = [e for e in json.loads(out)["events"] if e["reason"] == "ScalingReplicaSet"
              and e["object"] == "Deployment/default/web"]
    assert scaled and "to 1" in scaled[-1]["message"], scaled


def test_save_config_keeps_the_edited_object_in_the_annotation(session):
    """editoptions.go visitAnnotation: the edited object as kubectl holds it (unstructured:
    keys sorted, annotations {} when it has none, status and all) in the last-applied
    annotation; an unchanged file is still cancelled; without the flag nothing is saved."""
    import json

    LAST = "kubectl.kubernetes.io/last-applied-configuration"
    original = run(session, "get pod web-2 -o yaml").output
    assert run(session, "edit pod web-2 --save-config", original).output == \
        "Edit cancelled, no changes made.\n"
    edited = original.replace("app: web", "app: web\n    tier: t")
    assert run(session, "edit pod web-2 --save-config", edited).output == "pod/web-2 edited\n"
    text = session.store.get("Pod", "web-2", "default").metadata.annotations[LAST]
    want = json.loads(run(session, "get pod web-2 -o json").output)
    want["metadata"]["annotations"] = {}
    want["metadata"]["resourceVersion"] = json.loads(text)["metadata"]["resourceVersion"]
    assert text.endswith("}\n") and json.loads(text) == want
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) + "\n"
    run(session, "edit pod web-1", run(session, "get pod web-1 -o yaml").output.replace(
        "tier: frontend", "tier: back"))
    assert LAST not in session.store.get("Pod", "web-1", "default").metadata.annotations
