"""Hostile files through the command line (issue 13): one `error:` line, exit 1, no traceback."""

from __future__ import annotations

import io
import json
import sys

import pytest

from ksandbox.cli import main
from tests.api.test_safeload import laughs

NODE = ("apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"
        "status: {capacity: {cpu: '2', memory: 4Gi, pods: '110'}}\n")


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_dev_zero_is_refused(capsys):
    assert main(["sim", "-f", "/dev/zero", "-o", "json"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith("error: /dev/zero: not a regular file")


def test_dash_reads_manifests_from_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(NODE.encode())))
    assert main(["sim", "-f", "-", "--until", "1", "-o", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert [n["name"] for n in state["nodes"]] == ["node-1"]


def test_bad_standard_input_is_named_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"kind: a\nkind: b\n")))
    assert main(["sim", "-f", "-", "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err).startswith(
        'error: STDIN (document 1): error converting YAML to JSON: yaml: line 2: '
        'mapping key "kind" already defined at line 1')


@pytest.mark.parametrize("body, ending", [
    (laughs(8), "document contains excessive aliasing"),
    ("x: " + "[" * 600 + "]" * 600, "exceeded max depth of 100"),
    (NODE + "kind: Pod\n", 'mapping key "kind" already defined at line 2'),
], ids=["alias bomb", "deep nesting", "duplicate kind"])
def test_hostile_manifests_are_one_line(tmp_path, capsys, body, ending):
    p = tmp_path / "m.yaml"
    p.write_text(body)
    assert main(["sim", "-f", str(p), "-o", "json"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f"error: {p} (document 1): ") and line.endswith(ending)


def test_a_recording_whose_title_is_an_alias_bomb_is_refused(tmp_path, capsys):
    bomb = laughs(8).replace("a0:", "t:", 1)
    rec = tmp_path / "r.yaml"
    rec.write_text("apiVersion: ksandbox/v1alpha1\nkind: Recording\n" + bomb +
                   "title: *a8\ncluster: default\nsteps: []\n")
    assert main(["play", str(rec), "--headless", "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err).endswith("document contains excessive aliasing")


def test_a_script_with_a_duplicate_key_is_refused(tmp_path, capsys):
    m = tmp_path / "m.yaml"
    m.write_text(NODE)
    s = tmp_path / "s.yaml"
    s.write_text("steps:\n  - at: 1\n    at: 2\n    command: kubectl cordon node-1\n")
    assert main(["sim", "-f", str(m), "--script", str(s), "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err).endswith(
        'mapping key "at" already defined at line 2')


def test_apply_of_a_device_in_a_script_is_reported_and_changes_nothing(tmp_path, capsys):
    m = tmp_path / "m.yaml"
    m.write_text(NODE)
    s = tmp_path / "s.yaml"
    s.write_text("steps:\n  - at: 1\n    command: kubectl apply -f /dev/zero\n")
    assert main(["sim", "-f", str(m), "--script", str(s), "--until", "5", "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert "error: /dev/zero: not a regular file" in err
    assert [n["name"] for n in json.loads(out)["nodes"]] == ["node-1"]
