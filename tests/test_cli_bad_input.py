"""Bad input through `ksandbox sim`: exit 1, one `error:` line naming what is wrong, no traceback."""

from __future__ import annotations

import json
import textwrap

import pytest

from ksandbox.api.errors import (ApiError, CommandError, FieldError, ManifestError, ValidationError,
                                 error_line)
from ksandbox.cli import main

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
"""


def pod(extra_spec: str = "", name: str = "web", meta: str = "") -> str:
    spec = textwrap.indent(textwrap.dedent(extra_spec), "  ")
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n{meta}spec:\n{spec}"
            f"  containers:\n    - name: app\n      image: nginx\n")


def run(tmp_path, capsys, files: dict[str, str], *extra: str) -> tuple[int, str, str]:
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.write_text(text)
        paths.append(str(p))
    args = ["sim"]
    for p in paths:
        if not p.endswith(".script.yaml"):
            args += ["-f", p]
    args += list(extra)
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


BAD_MANIFESTS = [
    pytest.param("kind: Pod\nmetadata: {name: a\n", ["error converting YAML to JSON", "line"],
                 id="a YAML syntax error names the line"),
    pytest.param("- just\n- a list\n", ["document 1", "expected a mapping"],
                 id="a document that is not a mapping"),
    pytest.param(NODE + "---\nplain string\n", ["document 2", "expected a mapping"],
                 id="the second document names itself"),
    pytest.param("apiVersion: v1\nkind: Widget\nmetadata: {name: w}\n",
                 ['no matches for kind "Widget" in version "v1"'], id="an unknown kind"),
    pytest.param("apiVersion: apps/v9\nkind: Deployment\nmetadata: {name: w}\n",
                 ['no matches for kind "Deployment" in version "apps/v9"'],
                 id="an unknown apiVersion"),
    pytest.param("kind: Pod\nmetadata: {name: w}\n", ["apiVersion not set"],
                 id="a missing apiVersion"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: [{name: a, image: b}]}\n",
                 ["metadata.name: Required value"], id="a missing metadata.name"),
    pytest.param(pod(name="Web_1"), ['metadata.name: Invalid value: "Web_1"', "RFC 1123"],
                 id="an invalid object name"),
    pytest.param(pod(meta="  labels: {\"bad key!\": x}\n"),
                 ['metadata.labels: Invalid value: "bad key!"', "name part must consist"],
                 id="an invalid label key"),
    pytest.param(pod("""\
        overhead: {cpu: lots}
        """), ['spec.overhead.cpu: Invalid value: "lots"', "quantities must match"],
                 id="a bad quantity names its field path"),
    pytest.param(NODE.replace("status:", "spec: {taints: [{key: k, value: v, effect: NoSchedul}]}\nstatus:"),
                 ['spec.taints[0].effect: Unsupported value: "NoSchedul"', '"NoExecute"'],
                 id="a taint effect that does not exist"),
    pytest.param(pod("""\
        tolerations: [{key: k, operator: Exists, value: v}]
        """), ["spec.tolerations[0].operator", "value must be empty"],
                 id="a toleration with operator Exists and a value"),
    pytest.param(pod("""\
        tolerations: [{key: k, operator: Equal, value: v, effect: NoSchedule, tolerationSeconds: 30}]
        """), ["spec.tolerations[0].effect", "NoExecute"],
                 id="tolerationSeconds on a NoSchedule toleration"),
    pytest.param(NODE + "---\n" + NODE, ["document 2", 'nodes "node-1" is defined twice'],
                 id="duplicate objects"),
    pytest.param(pod("""\
        containers: []
        """).replace("  containers:\n    - name: app\n      image: nginx\n", ""),
                 ["spec.containers: Required value"], id="a pod without containers"),
    pytest.param(pod(meta="  namespace: nowhere\n"), ['namespaces "nowhere" not found'],
                 id="a namespace that does not exist"),
]


@pytest.mark.parametrize("text,needles", BAD_MANIFESTS)
def test_bad_manifest_is_one_error_line(tmp_path, capsys, text, needles):
    code, out, err = run(tmp_path, capsys, {"bad.yaml": text})
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "bad.yaml" in lines[0]
    for needle in needles:
        assert needle in lines[0]
    assert "Traceback" not in err


def test_a_missing_file_is_named(tmp_path, capsys):
    code = main(["sim", "-f", str(tmp_path / "nope.yaml")])
    _, err = capsys.readouterr()
    assert code == 1
    assert err == f'error: the path "{tmp_path / "nope.yaml"}" does not exist\n'


def test_a_pod_naming_a_missing_node_is_allowed_and_stays_pending(tmp_path, capsys):
    code, out, err = run(tmp_path, capsys, {"ok.yaml": NODE + "---\n" + pod("nodeName: ghost\n")},
                         "--until", "30")
    assert code == 0, err
    state = json.loads(out)
    (p,) = state["pods"]
    assert p["node"] == "ghost"
    assert p["phase"] == "Pending"


BAD_SCRIPTS = [
    pytest.param("steps:\n  - at: -5\n    command: kubectl get nodes\n", ["steps[0].at", "-5"],
                 id="a negative step time"),
    pytest.param("steps:\n  - at: soon\n    command: kubectl get nodes\n", ["steps[0].at", "soon"],
                 id="a step time that is not a number"),
    pytest.param("steps:\n  - at: 10\n    command: kubectl get nodes\n  - at: 5\n    command: kubectl get pods\n",
                 ["steps[1].at", "time order"], id="a step going back in time"),
    pytest.param("steps:\n  - at: 0\n    command: kubectl frobnicate nodes\n",
                 ["steps[0].command", "frobnicate"], id="an unknown verb"),
    pytest.param("steps:\n  - at: 0\n    command: ksandbox explode node node-1\n",
                 ["steps[0].command", "explode"], id="an unknown sandbox verb"),
    pytest.param("steps: {at: 0}\n", ["steps: expected a list"], id="steps that are not a list"),
    pytest.param("steps:\n  - at: 0\n", ["steps[0]", "Required value"], id="a step with nothing to do"),
    pytest.param("steps:\n  - at: [0\n", ["error converting YAML to JSON"], id="script YAML syntax"),
]


@pytest.mark.parametrize("script,needles", BAD_SCRIPTS)
def test_bad_script_is_one_error_line(tmp_path, capsys, script, needles):
    (tmp_path / "c.yaml").write_text(NODE)
    (tmp_path / "s.script.yaml").write_text(script)
    code = main(["sim", "-f", str(tmp_path / "c.yaml"), "--script", str(tmp_path / "s.script.yaml")])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "s.script.yaml" in lines[0]
    for needle in needles:
        assert needle in lines[0]


@pytest.mark.parametrize("args,needle", [
    (["sim"], "the following arguments are required: -f/--filename"),
    (["sim", "-f", "x.yaml", "-o", "xml"], "invalid choice: 'xml'"),
    (["sim", "-f", "x.yaml", "--until", "later"], "invalid value \"later\" for --until"),
    (["explain", "-f", "x.yaml", "justapod"], "NAMESPACE/POD"),
])
def test_usage_mistakes_exit_1_with_one_line(tmp_path, capsys, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.yaml").write_text(NODE)
    code = main(args)
    _, err = capsys.readouterr()
    assert code == 1
    assert err.startswith("error: ") and needle in err and err.count("\n") == 1


def test_explain_can_run_a_script_first(tmp_path, capsys):
    import json as _json

    (tmp_path / "c.yaml").write_text(NODE + "---\n" + pod())
    (tmp_path / "s.yaml").write_text("steps:\n  - at: 5\n    command: kubectl taint nodes "
                                     "node-1 k=v:NoExecute\n")
    assert main(["explain", "-f", str(tmp_path / "c.yaml"), "default/web"]) == 0
    before = _json.loads(capsys.readouterr().out)
    assert before["selected"] == "node-1"
    code = main(["explain", "-f", str(tmp_path / "c.yaml"), "--script", str(tmp_path / "s.yaml"),
                 "--until", "4", "default/web"])
    assert code == 0 and _json.loads(capsys.readouterr().out)["selected"] == "node-1"
    (tmp_path / "s.yaml").write_text("steps:\n  - at: 5\n    command: kubectl taint nodes "
                                     "node-1 k=v:NoSchedule\n")
    code = main(["explain", "-f", str(tmp_path / "c.yaml"), "--script", str(tmp_path / "s.yaml"),
                 "default/web"])
    after = _json.loads(capsys.readouterr().out)
    assert code == 0 and after["selected"] is None
    assert "untolerated taint" in after["message"]


def test_explain_of_a_missing_pod_is_the_servers_answer_unprefixed(tmp_path, capsys):
    # kubectl's checkErr prints an API status error as StandardErrorMessage words it, with no
    # "error: " in front (it was doubled: "error: Error from server (NotFound): ...").
    (tmp_path / "c.yaml").write_text(NODE)
    code = main(["explain", "-f", str(tmp_path / "c.yaml"), "default/nope"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == 'Error from server (NotFound): pods "nope" not found\n'


@pytest.mark.parametrize("exc,line", [
    (ApiError.not_found("pods", "x"), 'Error from server (NotFound): pods "x" not found'),
    (CommandError("error: cannot specify both"), "error: cannot specify both"),
    (CommandError("no objects passed"), "error: no objects passed"),
    (ValidationError("Pod", "x", [FieldError.required("spec.containers")]),
     'The Pod "x" is invalid: spec.containers: Required value'),
    (ManifestError("f.yaml", 1, "bad"), "error: f.yaml (document 1): bad"),
])
def test_error_line_prefixes_error_once_and_never_the_servers_answers(exc, line):
    assert error_line(exc) == line
