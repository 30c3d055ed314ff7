"""Scripts and recordings: timed steps, loaded and checked before anything runs.

A script is ``steps: [{at, command, stdin?}]`` (DESIGN.md §3). A recording is the same body
with a header (``apiVersion``, ``kind: Recording``, title, seed, cluster, terminal) and may also
hold ``caption``, ``marker`` and ``expect`` steps (DESIGN.md §4, docs/recordings.md).

Versions: ``ksandbox/v1alpha1`` (the first format) is still read as it was. ``ksandbox/v1alpha2``
adds ``expect:`` blocks on steps, ``end:`` (when recording stopped: the timeline runs on past
the last step to there) and ``start:`` — the moment the recording was started in a
session that had run for a while (``start: {at: T, steps: [...]}``: the steps before T, replayed
silently so playback starts from exactly the state the user saw). Writers emit v1alpha2.

Loading validates everything — unknown keys, a time that is not a number of seconds, steps
out of time order, a command that does not parse, a malformed expectation — and reports the
first problem with its file, line and field: ``FILE: line 12: steps[2].at: ...``. Times are
kept to the millisecond.

What it is not: the loop that runs steps (``playback.py``), nor the judge of expectations
(``expect.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import CommandError, ManifestError
from ..api.safeload import load_yaml, read_source
from ..sim.limits import time_problem
from .expect import Expectation, ExpectError, parse_expectations

if TYPE_CHECKING:
    from ..session import Session

RECORDING_API_VERSION = "ksandbox/v1alpha2"
SUPPORTED_VERSIONS = ("ksandbox/v1alpha1", "ksandbox/v1alpha2")
STEP_KEYS = ("at", "command", "stdin", "caption", "marker", "expect")
HEADER_KEYS = ("apiVersion", "kind", "title", "seed", "cluster", "terminal", "steps", "start",
               "end")
# Fields a v1alpha1 file may not carry (they came with v1alpha2).
V2_ONLY = {"expect", "start", "end"}


def round_ms(t: float) -> float:
    """A simulated time kept to the millisecond (what recordings store)."""
    return round(float(t), 3)


@attrs.frozen
class ScriptStep:
    at: float
    command: str | None = None
    stdin: str | None = None
    caption: str | None = None
    marker: str | None = None
    expect: tuple[Expectation, ...] = ()
    index: int = -1
    """Position in the file's ``steps`` (for messages: ``steps[3].expect[0]``)."""
    file_roots: tuple[str, ...] | None = None
    """None: the step may read any file (a user's own script). A recording's steps: only
    files under these directories (``play --allow-files DIR``), none when empty — playback
    runs the step under ``safeload.files_only_under``."""


@attrs.frozen
class Script:
    steps: tuple[ScriptStep, ...]
    source: str
    title: str = ""
    seed: int | None = None
    cluster: Any = None            # inline manifests (a list of mappings) or a sample's name
    terminal: dict | None = None
    is_recording: bool = False
    start: float = 0.0
    """Where playback begins: the moment recording started (v1alpha2 ``start.at``)."""
    prelude: tuple[ScriptStep, ...] = ()
    """What happened before ``start`` (replayed silently)."""
    api_version: str = ""
    end_at: float | None = None
    """When recording stopped (v1alpha2 ``end``), if the file says."""

    @property
    def end(self) -> float:
        """Where the timeline ends: ``end`` if given, else the last step's time."""
        return max([self.start, self.end_at or 0.0] + [s.at for s in self.steps])

    @property
    def has_expectations(self) -> bool:
        return any(s.expect for s in self.steps)


class _Bad(Exception):
    """A problem at a field path (``steps[2].at``); turned into a ManifestError with a line."""

    def __init__(self, path: tuple[Any, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def _shown(value: Any) -> str:
    """A value in a message: a number as written (a 30-digit one shortened), else its repr."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return repr(value)
    text = str(value) if isinstance(value, int) and abs(value) < 10 ** 18 else f"{value:g}" \
        if isinstance(value, float) else f"{float(value):g}" if value.bit_length() < 1000 \
        else "a number of more than 300 digits"
    return text


def _field(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def parse_steps(raw: Any, source: str, check_commands: bool = True,
                allow_v2: bool = True) -> tuple[ScriptStep, ...]:
    """The steps of a script (raises ManifestError naming the field)."""
    try:
        return _steps(raw, ("steps",), check_commands, allow_v2, 0.0, None)
    except _Bad as bad:
        raise ManifestError(source, None, f"{_field(bad.path)}: {bad.message}") from None


def _steps(raw: Any, base: tuple[Any, ...], check_commands: bool, allow_v2: bool,
           not_before: float, file_roots: tuple[str, ...] | None) -> tuple[ScriptStep, ...]:
    from ..commands import files_read
    from ..commands import parse as parse_command

    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _Bad(base, "expected a list of steps")
    steps = []
    last = not_before
    for i, item in enumerate(raw):
        path = base + (i,)
        if not isinstance(item, dict):
            raise _Bad(path, "expected a mapping with 'at' and 'command'")
        for key in item:
            if key not in STEP_KEYS:
                raise _Bad(path + (key,), f"unknown field {key!r} (expected at, command, stdin, "
                                          f"caption, marker or expect)")
            if key in V2_ONLY and not allow_v2:
                raise _Bad(path + (key,), "field not supported by apiVersion ksandbox/v1alpha1 "
                                          "(use ksandbox/v1alpha2)")
        at = item.get("at")
        problem = time_problem(at)
        if problem:
            raise _Bad(path + ("at",), f"Invalid value: {_shown(at)}: {problem}")
        at = round_ms(float(at))  # type: ignore[arg-type]  # a number: time_problem said so
        if at < last:
            raise _Bad(path + ("at",), f"Invalid value: {at:g}: steps must be in time order "
                                       f"(the step before is at {last:g})")
        last = at
        command, stdin = item.get("command"), item.get("stdin")
        caption, marker = item.get("caption"), item.get("marker")
        if command is None and caption is None and marker is None and "expect" not in item:
            raise _Bad(path, "Required value: one of command, caption, marker or expect")
        if command is not None:
            if not isinstance(command, str) or not command.strip():
                raise _Bad(path + ("command",), f"Invalid value: {command!r}: must be a "
                                                f"non-empty string")
            if check_commands or file_roots is not None:
                try:
                    parsed = parse_command(command)
                except CommandError as exc:
                    raise _Bad(path + ("command",), str(exc)) from None
                if file_roots is not None:
                    _check_files(path + ("command",), files_read(parsed), file_roots)
        if stdin is not None and not isinstance(stdin, str):
            raise _Bad(path + ("stdin",), "Invalid value: must be a string")
        if stdin is not None and command is None:
            raise _Bad(path + ("stdin",), "Invalid value: stdin needs a command that reads it")
        for name, val in (("caption", caption), ("marker", marker)):
            if val is not None and not isinstance(val, str):
                raise _Bad(path + (name,), "Invalid value: must be a string")
        expect: tuple[Expectation, ...] = ()
        if "expect" in item:
            try:
                expect = parse_expectations(item["expect"])
            except ExpectError as exc:
                raise _Bad(path + ("expect",) + exc.path, exc.message) from None
        steps.append(ScriptStep(at, command, stdin, caption, marker, expect, i,
                                file_roots=file_roots))
    return tuple(steps)


def _check_files(path: tuple[Any, ...], names: tuple[str, ...],
                 roots: tuple[str, ...]) -> None:
    """A recording's step may read only files under ``roots`` (none when empty)."""
    from ..api.safeload import file_outside

    for name in names:
        if file_outside(name, roots):
            where = f"outside {', '.join(roots)}" if roots else "from the player's disk"
            raise _Bad(path, f'a recording may not read files {where}: "{name}" (carry the '
                             f'manifest inline: -f - with stdin:, or play it with '
                             f'--allow-files DIR)')


def load_script(path: str | Path, allow_files: tuple[str, ...] = ()) -> Script:
    """A script or recording from a file (``-``: standard input); see parse_script."""
    source = str(path)
    return parse_script(read_source(source), "STDIN" if source == "-" else source,
                        allow_files)


def parse_script(text: str, source: str, allow_files: tuple[str, ...] = ()) -> Script:
    """A script or recording from its YAML text (raises ManifestError: file, line, field).

    The text goes through the shared safe loader (size, depth, alias limits; duplicate keys
    refused) before anything here looks at it.

    Files: a script (no ``kind``) is the user's own, given on their command line, and its
    steps may read any file, as the same commands typed in a shell would. A recording
    (``kind: Recording``) is data someone else may have written: its steps may read no file —
    ``apply -f`` carries its manifest inline (``-f -`` with ``stdin:``) — unless the player
    names directories with ``allow_files`` (``play --allow-files DIR``); a step reading
    anything else is refused here, before anything runs, and playback holds the steps to the
    same rule (``ScriptStep.file_roots``).
    """
    data = load_yaml(text, source)
    roots = tuple(os.path.realpath(d) for d in allow_files)
    try:
        return _script(data, source, roots)
    except _Bad as bad:
        line = _line_of(text, bad.path)
        where = f"line {line}: " if line else ""
        field = _field(bad.path)
        raise ManifestError(source, None,
                            f"{where}{field}: {bad.message}" if field else where + bad.message
                            ) from None


def _script(data: Any, source: str, allow_files: tuple[str, ...]) -> Script:
    if not isinstance(data, dict):
        raise _Bad((), "expected a mapping with a 'steps' list")
    is_recording = data.get("kind") == "Recording"
    file_roots = allow_files if is_recording else None
    version = data.get("apiVersion")
    if not is_recording and version is not None and version not in SUPPORTED_VERSIONS:
        # A cluster file (a Kubernetes object or List) handed to play: say what it is.
        raise _Bad(("kind",), f"not a Recording: this is a {data.get('kind') or 'document'} "
                              f"({version}); ksandbox play takes a recording (kind: Recording, "
                              f"apiVersion: {SUPPORTED_VERSIONS[-1]}); open a cluster file with "
                              "'ksandbox FILE'")
    if is_recording or version is not None:
        if version not in SUPPORTED_VERSIONS:
            raise _Bad(("apiVersion",), f"Unsupported value: {version!r}: supported values: "
                                        + ", ".join(f'"{v}"' for v in SUPPORTED_VERSIONS))
        if data.get("kind") not in ("Recording", None):
            raise _Bad(("kind",), f'Unsupported value: {data.get("kind")!r}: supported values: '
                                  f'"Recording"')
    allow_v2 = version != "ksandbox/v1alpha1"
    allowed = HEADER_KEYS if is_recording else ("apiVersion", "kind", "steps")
    for key in data:
        if key not in allowed:
            raise _Bad((key,), f"unknown field {key!r}" + (
                "" if is_recording else " (a script has only steps; a recording needs "
                                        "kind: Recording)"))
        if key in V2_ONLY and not allow_v2:
            raise _Bad((key,), "field not supported by apiVersion ksandbox/v1alpha1 "
                               "(use ksandbox/v1alpha2)")
    if "steps" not in data:
        raise _Bad(("steps",), "Required value")
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise _Bad(("seed",), f"Invalid value: {seed!r}: must be an integer")
    terminal = data.get("terminal")
    if terminal is not None:
        if not isinstance(terminal, dict) or set(terminal) - {"cols", "rows"}:
            raise _Bad(("terminal",), "expected a mapping with cols and rows")
        for k in ("cols", "rows"):
            v = terminal.get(k)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or not 10 <= v <= 1000):
                raise _Bad(("terminal", k), f"Invalid value: {v!r}: must be an integer "
                                            f"from 10 to 1000")
    title = data.get("title")
    if title is not None and not isinstance(title, (str, int, float)):
        raise _Bad(("title",), "Invalid value: must be a string")
    start, prelude = 0.0, ()
    if "start" in data:
        start, prelude = _start(data["start"], file_roots)
    steps = _steps(data.get("steps"), ("steps",), True, allow_v2, start, file_roots)
    end_at = None
    if "end" in data:
        problem = time_problem(data["end"])
        if problem:
            raise _Bad(("end",), f"Invalid value: {_shown(data['end'])}: {problem}")
        end_at = round_ms(float(data["end"]))
        last = max([start] + [s.at for s in steps])
        if end_at < last:
            raise _Bad(("end",), f"Invalid value: {end_at:g}: must not be before the last step "
                                 f"or the start ({last:g})")
    return Script(steps=steps, source=source, title=str(title or ""), seed=seed,
                  cluster=data.get("cluster"), terminal=terminal, is_recording=is_recording,
                  start=start, prelude=prelude, api_version=str(version or ""),
                  end_at=end_at)


def _start(raw: Any, file_roots: tuple[str, ...] | None
           ) -> tuple[float, tuple[ScriptStep, ...]]:
    if not isinstance(raw, dict):
        raise _Bad(("start",), "expected a mapping with 'at' (and the 'steps' before it)")
    for key in raw:
        if key not in ("at", "steps"):
            raise _Bad(("start", key), f"unknown field {key!r} (expected at or steps)")
    at = raw.get("at")
    problem = time_problem(at)
    if problem:
        raise _Bad(("start", "at"), f"Invalid value: {_shown(at)}: {problem}")
    at = round_ms(float(at))  # type: ignore[arg-type]  # a number: time_problem said so
    prelude = _steps(raw.get("steps"), ("start", "steps"), True, True, 0.0, file_roots)
    for s in prelude:
        if s.at > at:
            raise _Bad(("start", "steps", s.index, "at"),
                       f"Invalid value: {s.at:g}: a step before the start must not be after "
                       f"start.at ({at:g})")
        if s.expect or s.caption or s.marker:
            raise _Bad(("start", "steps", s.index), "steps before the start hold commands only")
    return at, prelude


def _line_of(text: str, path: tuple[Any, ...]) -> int | None:
    """The 1-based line of the node at ``path`` (its key's line for a mapping entry)."""
    import yaml  # on use: PyYAML is not needed to start (api/safeload_pyyaml.py)

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = node.start_mark.line + 1 if node is not None else None
    for part in path:
        if node is None:
            break
        nxt = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for k, v in node.value:
                if getattr(k, "value", None) == part:
                    line = k.start_mark.line + 1
                    nxt = v
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and part < len(node.value):
            nxt = node.value[part]
            line = nxt.start_mark.line + 1
        node = nxt
    return line


def run_script(session: Session, script: Script, until: float | None = None,
               on_result: Any = None) -> None:
    """Run each command step at its simulated time (captions and markers are for players).

    Stops after the last step at or before ``until``; the caller runs the clock on.
    """
    from .playback import Playback

    target = until if until is not None else script.end
    pb = Playback(session, script.steps,
                  on_step=(lambda step, result: on_result(step, result)
                           if on_result is not None and step.command is not None else None))
    pb.advance_to(max(target, session.now) if until is None else target)
