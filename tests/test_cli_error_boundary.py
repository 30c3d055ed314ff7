"""cli.main is the one error boundary (DESIGN.md §3: one ``error:`` line, exit 1, no traceback).

Bad input is a KsandboxError and prints its own message; anything else is a bug, reported in one
line that says so and how to see the traceback (``--debug``). Messages that span lines — cobra's
"Did you mean this?" block (kubectl's unknown-command error) — are joined into the one line.
"""

from __future__ import annotations

import pytest

from ksandbox import cli
from ksandbox.cli import main, one_line

NODE = ('apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n'
        'status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}\n')


def _boom(argv):
    raise KeyError(0)


@pytest.mark.parametrize("argv", [["sim", "-f", "x.yaml"], ["explain", "-f", "x", "a/b"],
                                  ["play", "r.yaml"], []])
def test_an_unexpected_exception_is_one_error_line(monkeypatch, capsys, argv):
    for name in ("cmd_sim", "cmd_explain", "cmd_play", "cmd_tui"):
        monkeypatch.setattr(cli, name, _boom)
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: internal error (KeyError: 0)")
    assert "please report" in err and "--debug" in err
    assert "Traceback" not in err


def test_debug_shows_the_traceback_then_the_error_line(monkeypatch, capsys):
    monkeypatch.setattr(cli, "cmd_sim", _boom)
    assert main(["sim", "--debug", "-f", "x.yaml"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert "_boom" in err
    assert err.splitlines()[-1].startswith("error: internal error (KeyError: 0)")


@pytest.mark.parametrize("where", [0, -1])
def test_the_debug_flag_is_taken_anywhere_and_not_passed_on(tmp_path, capsys, where):
    (tmp_path / "n.yaml").write_text(NODE)
    argv = ["sim", "-f", str(tmp_path / "n.yaml"), "--until", "1"]
    argv.insert(len(argv) if where == -1 else 0, "--debug")
    assert main(argv) == 0
    assert '"time": 1.0' in capsys.readouterr().out


def test_did_you_mean_is_collapsed_to_one_line(tmp_path, capsys):
    (tmp_path / "n.yaml").write_text(NODE)
    (tmp_path / "s.yaml").write_text("steps:\n- at: 1\n  command: kubectl dleete pod x\n")
    code = main(["sim", "-f", str(tmp_path / "n.yaml"), "--script", str(tmp_path / "s.yaml")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert 'unknown command "dleete" for "kubectl" Did you mean this? delete' in err


def test_one_line_joins_lines_and_drops_blank_ones():
    assert one_line("a\n\n  b\n\tc\n") == "a b c"
    assert one_line('while parsing\n  in "<f>", line 3, column 1') == \
        'while parsing in "<f>", line 3, column 1'
