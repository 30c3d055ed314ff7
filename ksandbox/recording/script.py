"""Scripts and recordings: timed command steps, loaded and checked before anything runs.

A script is ``steps: [{at, command, stdin?}]`` (DESIGN.md §3). A recording is the same body
with a header (``apiVersion: ksandbox/v1alpha1``, ``kind: Recording``, title, seed, cluster,
terminal) and may also hold ``caption`` and ``marker`` steps (DESIGN.md §4). Loading validates
every step — a time that is not a non-negative number, a step going back in time, a command
that does not parse — and reports the first problem as ``FILE: steps[2].command: ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from ..api.errors import CommandError, ManifestError
from ..api.safeload import load_yaml, read_source

RECORDING_API_VERSION = "ksandbox/v1alpha1"


@attrs.frozen
class ScriptStep:
    at: float
    command: str | None = None
    stdin: str | None = None
    caption: str | None = None
    marker: str | None = None


@attrs.frozen
class Script:
    steps: tuple[ScriptStep, ...]
    source: str
    title: str = ""
    seed: int | None = None
    cluster: Any = None            # inline manifests (a list of mappings) or a sample's name
    terminal: dict | None = None
    is_recording: bool = False


def _fail(source: str, message: str) -> ManifestError:
    return ManifestError(source, None, message)


def parse_steps(raw: Any, source: str, check_commands: bool = True) -> tuple[ScriptStep, ...]:
    from ..commands import parse as parse_command

    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _fail(source, "steps: expected a list of steps")
    steps = []
    last = 0.0
    for i, item in enumerate(raw):
        path = f"steps[{i}]"
        if not isinstance(item, dict):
            raise _fail(source, f"{path}: expected a mapping with 'at' and 'command'")
        unknown = set(item) - {"at", "command", "stdin", "caption", "marker"}
        if unknown:
            raise _fail(source, f"{path}: unknown field {sorted(unknown)[0]!r} (expected at, "
                                f"command, stdin, caption or marker)")
        at = item.get("at")
        if isinstance(at, bool) or not isinstance(at, (int, float)) or at != at or at < 0:
            raise _fail(source, f"{path}.at: Invalid value: {at!r}: must be a number of "
                                f"simulated seconds, 0 or more")
        if at < last:
            raise _fail(source, f"{path}.at: Invalid value: {at!r}: steps must be in time order "
                                f"(the step before is at {last:g})")
        last = float(at)
        command, stdin = item.get("command"), item.get("stdin")
        caption, marker = item.get("caption"), item.get("marker")
        if command is None and caption is None and marker is None:
            raise _fail(source, f"{path}: Required value: one of command, caption or marker")
        if command is not None:
            if not isinstance(command, str) or not command.strip():
                raise _fail(source, f"{path}.command: Invalid value: {command!r}: "
                                    f"must be a non-empty string")
            if check_commands:
                try:
                    parse_command(command)
                except CommandError as exc:
                    raise _fail(source, f"{path}.command: {exc}") from None
        if stdin is not None and not isinstance(stdin, str):
            raise _fail(source, f"{path}.stdin: Invalid value: must be a string")
        for name, val in (("caption", caption), ("marker", marker)):
            if val is not None and not isinstance(val, str):
                raise _fail(source, f"{path}.{name}: Invalid value: must be a string")
        steps.append(ScriptStep(float(at), command, stdin, caption, marker))
    return tuple(steps)


def load_script(path: str | Path) -> Script:
    source = str(path)
    return parse_script(read_source(source), "STDIN" if source == "-" else source)


def parse_script(text: str, source: str) -> Script:
    data = load_yaml(text, source)
    if not isinstance(data, dict):
        raise _fail(source, "expected a mapping with a 'steps' list")
    is_recording = data.get("kind") == "Recording"
    if is_recording and data.get("apiVersion") != RECORDING_API_VERSION:
        raise _fail(source, f"apiVersion: Unsupported value: {data.get('apiVersion')!r}: "
                            f"supported values: \"{RECORDING_API_VERSION}\"")
    if "steps" not in data:
        raise _fail(source, "steps: Required value")
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise _fail(source, f"seed: Invalid value: {seed!r}: must be an integer")
    terminal = data.get("terminal")
    if terminal is not None and not isinstance(terminal, dict):
        raise _fail(source, "terminal: expected a mapping with cols and rows")
    return Script(steps=parse_steps(data.get("steps"), source), source=source,
                  title=str(data.get("title") or ""), seed=seed, cluster=data.get("cluster"),
                  terminal=terminal, is_recording=is_recording)


def run_script(session: Any, script: Script, until: float | None = None,
               on_result: Any = None) -> None:
    """Run each command step at its simulated time (captions and markers are for players)."""
    for step in script.steps:
        if until is not None and step.at > until:
            break
        session.run_until(step.at)
        if step.command is not None:
            result = session.submit(step.command, step.stdin)
            if on_result is not None:
                on_result(step, result)
