"""Recordings are data, not access (issue 13, item 4): a played recording reads no file from the
player's disk unless the player allows a directory (``play --allow-files DIR``); a script the
user gives on their own command line may read files, as the same commands in a shell would.

The refusal comes at load, naming the file, line and step, before anything runs; playback
holds each step to the same rule at run time (symlinks and directories included), so a file
swapped in later or a link inside an allowed directory is refused too.
"""

from __future__ import annotations

import json
import os

import pytest

from ksandbox.api.errors import ManifestError
from ksandbox.cli import main
from ksandbox.recording.script import parse_script

NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: extra}\n"


def recording(command: str, stdin: str | None = None) -> str:
    text = ("apiVersion: ksandbox/v1alpha2\nkind: Recording\ncluster: default\nsteps:\n"
            f"  - at: 1\n    command: {command}\n")
    if stdin is not None:
        text += "    stdin: |\n" + "".join(f"      {line}\n" for line in stdin.splitlines())
    return text


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.mark.parametrize("command, path", [
    ("kubectl apply -f /etc/hostname", "/etc/hostname"),
    ("kubectl create -f /etc/hostname", "/etc/hostname"),
    ("kubectl delete -f /etc/hosts", "/etc/hosts"),
    ("ksandbox add scheduler s2 -f /etc/passwd", "/etc/passwd"),
    ("kubectl apply -f - -f /etc/hostname", "/etc/hostname"),
])
def test_a_recording_step_that_reads_a_file_is_refused_at_load(tmp_path, capsys, command, path):
    rec = tmp_path / "r.yaml"
    rec.write_text(recording(command))
    assert main(["play", str(rec), "--headless", "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err) == (
        f'error: {rec}: line 6: steps[0].command: a recording may not read files from the '
        f'player\'s disk: "{path}" (carry the manifest inline: -f - with stdin:, or play it '
        f'with --allow-files DIR)')


def test_the_prelude_of_a_recording_is_held_to_the_same_rule():
    text = ("apiVersion: ksandbox/v1alpha2\nkind: Recording\ncluster: default\n"
            "start:\n  at: 5\n  steps:\n  - {at: 1, command: kubectl apply -f /etc/hostname}\n"
            "steps: []\n")
    with pytest.raises(ManifestError, match=r"start\.steps\[0\]\.command: a recording may not "
                                            r"read files"):
        parse_script(text, "r.yaml")


def test_inline_manifests_play(tmp_path, capsys):
    rec = tmp_path / "r.yaml"
    rec.write_text(recording("kubectl apply -f -", NODE))
    assert main(["play", str(rec), "--headless", "-o", "json"]) == 0
    assert "extra" in [n["name"] for n in json.loads(capsys.readouterr().out)["nodes"]]


def test_allow_files_lets_a_recording_read_under_that_directory_only(tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "n.yaml").write_text(NODE)
    (tmp_path / "r.yaml").write_text(recording("kubectl apply -f ok/n.yaml"))
    assert main(["play", "r.yaml", "--headless", "--allow-files", "ok", "-o", "json"]) == 0
    assert "extra" in [n["name"] for n in json.loads(capsys.readouterr().out)["nodes"]]
    (tmp_path / "r.yaml").write_text(recording("kubectl apply -f ok/../../etc/hostname"))
    assert main(["play", "r.yaml", "--headless", "--allow-files", "ok", "-o", "json"]) == 1
    assert f"a recording may not read files outside {os.path.realpath('ok')}" in \
        capsys.readouterr().err
    assert main(["play", "r.yaml", "--headless", "--allow-files", "nowhere"]) == 1
    assert one_error_line(capsys.readouterr().err) == \
        'error: --allow-files "nowhere": not a directory'


def test_a_link_inside_an_allowed_directory_is_refused_when_the_step_runs(tmp_path, capsys,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok").mkdir()
    (tmp_path / "secret.yaml").write_text(NODE)
    os.symlink(tmp_path / "secret.yaml", tmp_path / "ok" / "link.yaml")
    (tmp_path / "r.yaml").write_text(recording("kubectl apply -f ok"))
    assert main(["play", "r.yaml", "--headless", "--allow-files", "ok", "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert "ok/link.yaml: a recording may not read files outside" in err
    assert "extra" not in [n["name"] for n in json.loads(out)["nodes"]]


def test_a_users_own_script_may_read_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "n.yaml").write_text(NODE)
    (tmp_path / "m.yaml").write_text(NODE.replace("extra", "node-1"))
    (tmp_path / "s.yaml").write_text("steps:\n  - at: 1\n    command: kubectl apply -f n.yaml\n")
    assert main(["sim", "-f", "m.yaml", "--script", "s.yaml", "--until", "2", "-o", "json"]) == 0
    assert [n["name"] for n in json.loads(capsys.readouterr().out)["nodes"]] == \
        ["extra", "node-1"]
