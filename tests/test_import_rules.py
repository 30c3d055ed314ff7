"""The UI boundary is a test (harlequin's test_import_hygiene): the core never loads Textual.

Two checks: at run time, a fresh interpreter imports every module outside ``ksandbox.tui`` and
runs the headless CLI paths, then asserts that neither ``textual`` nor ``rich`` was loaded; and
statically, no module outside ``ksandbox/tui`` mentions them in an import statement (which
also catches imports hidden inside functions).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ksandbox"
UI_PACKAGES = ("textual", "rich")


def core_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts
        if parts[:2] == ("ksandbox", "tui"):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts))
    return names


def test_core_modules_never_load_textual_or_rich():
    modules = core_modules()
    code = f"""
import importlib, json, sys
for name in {modules!r}:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {UI_PACKAGES!r})))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_headless_cli_never_loads_textual_or_rich(tmp_path):
    from ksandbox.resources import sample_cluster_path

    sample = str(sample_cluster_path("default"))
    code = f"""
import io, json, sys, contextlib
from ksandbox import cli
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    cli.main(["sim", "-f", {sample!r}, "--until", "5", "-o", "json"])
    cli.main(["explain", "-f", {sample!r}, "default/gpu-pod", "-o", "json"])
    cli.main(["sim", "-f", "/nonexistent.yaml"])
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {UI_PACKAGES!r})))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def _imported(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                found.add(str(node.args[0].value).split(".")[0])
    return found


def test_no_module_outside_tui_imports_textual_or_rich():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[:2] == ("ksandbox", "tui"):
            continue
        bad = _imported(ast.parse(path.read_text(encoding="utf-8"))) & set(UI_PACKAGES)
        if bad:
            offenders.append(f"{rel}: {sorted(bad)}")
    assert offenders == []


def test_the_tui_model_layer_stays_plain_python():
    """The UI's bookkeeping (model, pacer, filters, rows) is testable without a terminal."""
    plain = ("model.py", "pacer.py", "filtering.py", "commandline.py", "rows.py", "cards.py",
             "config.py")
    offenders = []
    for name in plain:
        path = PACKAGE / "tui" / name
        bad = _imported(ast.parse(path.read_text(encoding="utf-8"))) & set(UI_PACKAGES)
        if bad:
            offenders.append(f"{name}: {sorted(bad)}")
    assert offenders == []
