"""``ksandbox``: the command line (DESIGN.md §3; that contract is fixed).

    ksandbox [FILE...]                     open the TUI (the built-in sample cluster by default)
    ksandbox sim -f FILE [...] [--script S] [--until SECONDS] [--seed N] -o json|yaml|wide
    ksandbox explain -f FILE [...] NAMESPACE/POD -o json|wide
    ksandbox play RECORDING [--headless [--check] -o json] [--speed X] [--cast OUT.cast]
    ksandbox record [FILE...] -o OUT.yaml  open the TUI already recording (R stops and saves)
    ksandbox export RECORDING --kubectl    the story as manifests and kubectl commands
    ksandbox diff -f FILE [...] --script A.yaml [--script B.yaml] [--until SECONDS] -o json|wide
    ksandbox diff A.recording.yaml B.recording.yaml [--until SECONDS] -o json|wide

Bad input exits 1 with one ``error: ...`` line on stderr and no traceback; so does any other
failure (a bug), whose traceback ``--debug`` (anywhere on the line) prints. The TUI is imported
only when it is needed, so the headless commands never load textual.
"""

from __future__ import annotations

from . import code_cache, gcpolicy, regex_cache

# First of all: the regular expressions the imports below compile (argparse's gettext, attrs'
# platform, json, Textual's CSS tokenizer and key parser...) are taken from the last start's
# (regex_cache.py; the TUI writes the file after its first frame): ~6 % of the TUI's start.
# So is the code typing compiles for forward references and namedtuple for its __new__
# (code_cache.py; dataclasses' too, hooked before the TUI is imported).
regex_cache.install()
code_cache.install()

import argparse  # noqa: E402
import sys  # noqa: E402
from typing import TYPE_CHECKING, Any, Sequence  # noqa: E402

# Before the heavy imports (the control plane, Textual): importing makes tens of thousands of
# long-lived objects (classes, functions), and at CPython's default thresholds the collector
# ran ~90 young collections over them before the TUI's first frame (~0.1 s, a tenth of the
# start). See gcpolicy.py; only what the collector does changes, never a result.
gcpolicy.tune()

from .api.errors import KsandboxError, error_line  # noqa: E402
from .resources import sample_cluster_path  # noqa: E402

if TYPE_CHECKING:
    from .session import Session

SUBCOMMANDS = ("sim", "explain", "play", "diff", "record", "export")
# --debug for this run (main sets it): the TUI then lets Textual print a crash's traceback.
_DEBUG = [False]


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, but usage mistakes are one kubectl-style line and exit status 1."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _horizon_flag(p: _Parser) -> None:
    p.add_argument("--horizon", metavar="SECONDS",
                   help="the latest simulated second a run may reach (default 2592000, "
                        "30 days): --until and every step's at: must be within it")
    p.add_argument("--max-objects", dest="max_objects", metavar="N",
                   help="the most objects the sandbox holds (default 1000000); a create "
                        "past it is refused")


def _allow_files_flag(p: _Parser) -> None:
    p.add_argument("--allow-files", dest="allow_files", action="append", default=[],
                   metavar="DIR", help="let the recording's steps read files under DIR "
                                       "(by default a recording reads no file: it carries "
                                       "its manifests inline)")


def _allowed_dirs(args: argparse.Namespace) -> tuple[str, ...]:
    import os

    for d in args.allow_files:
        if not os.path.isdir(d):
            raise UsageError(f'--allow-files "{d}": not a directory')
    return tuple(args.allow_files)


def _seconds_arg(flag: str, text: str | None) -> float | None:
    """A flag's simulated seconds, refused unless finite, 0 or more and within the horizon
    (``--until nan`` used to run forever)."""
    from .sim.limits import time_problem

    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        raise UsageError(f'invalid value "{text}" for {flag}: must be a number of simulated '
                         f'seconds, 0 or more') from None
    problem = time_problem(value)
    if problem:
        raise UsageError(f'invalid value "{text}" for {flag}: {problem}')
    return value


def _apply_horizon(args: argparse.Namespace) -> None:
    from .sim import limits

    _apply_max_objects(args)
    text = getattr(args, "horizon", None)
    if text is None:
        return
    try:
        value = float(text.strip())
    except ValueError:
        value = float("nan")
    problem = limits.horizon_problem(value)
    if problem:
        raise UsageError(f'invalid value "{text}" for --horizon: {problem}')
    limits.configure(horizon=value)


def _apply_max_objects(args: argparse.Namespace) -> None:
    from .commands.parse import go_parse_int
    from .sim import limits

    text = getattr(args, "max_objects", None)
    if text is None:
        return
    try:
        value = go_parse_int(text.strip())
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f'invalid value "{text}" for --max-objects: must be a whole number, '
                         f'1 or more')
    limits.configure(max_objects=value)


def _sim_parser() -> _Parser:
    p = _Parser(prog="ksandbox sim", description="Run the control plane headless and print "
                                                 "the final state.")
    p.add_argument("-f", "--filename", dest="files", action="append", required=True,
                   metavar="FILE", help="manifests (multi-document YAML or kind: List)")
    p.add_argument("--script", metavar="SCRIPT.yaml", help="timed command steps")
    p.add_argument("--until", metavar="SECONDS",
                   help="simulated seconds to run (default: until nothing is left, ≤ 3600)")
    _horizon_flag(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scheduler-config", metavar="FILE",
                   help="a KubeSchedulerConfiguration (or legacy Policy) document")
    p.add_argument("-o", "--output", choices=("json", "yaml", "wide"), default="json")
    return p


def _explain_parser() -> _Parser:
    p = _Parser(prog="ksandbox explain", description="Explain the scheduling decision for a pod.")
    p.add_argument("-f", "--filename", dest="files", action="append", required=True,
                   metavar="FILE")
    p.add_argument("pod", metavar="NAMESPACE/POD")
    p.add_argument("--script", metavar="SCRIPT.yaml",
                   help="run these timed steps first (explain the pod mid-story)")
    p.add_argument("--until", metavar="SECONDS",
                   help="run the control plane this long first (default: explain right after "
                        "loading, or after the script's last step)")
    _horizon_flag(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scheduler-config", metavar="FILE")
    p.add_argument("-o", "--output", choices=("json", "wide"), default="json")
    return p


def _play_parser() -> _Parser:
    p = _Parser(prog="ksandbox play", description="Play a recording.")
    p.add_argument("recording", metavar="RECORDING")
    p.add_argument("--headless", action="store_true")
    p.add_argument("-o", "--output", choices=("json", "yaml", "wide"), default=None)
    p.add_argument("--speed", type=float, default=1.0)
    p.add_argument("--check", action="store_true",
                   help="check the recording's expect: blocks (exit 1 naming each failure)")
    p.add_argument("--cast", metavar="OUT.cast",
                   help="write the playback as an asciicast v2 file")
    _horizon_flag(p)
    _allow_files_flag(p)
    return p


def _diff_parser() -> _Parser:
    p = _Parser(prog="ksandbox diff", description="Two futures of the same cluster, side by "
                                                  "side: what differs at one simulated time.")
    p.add_argument("recordings", nargs="*", metavar="RECORDING",
                   help="two recordings (instead of -f and --script)")
    p.add_argument("-f", "--filename", dest="files", action="append", metavar="FILE",
                   help="manifests both branches start from")
    p.add_argument("--script", dest="scripts", action="append", metavar="SCRIPT.yaml",
                   help="branch A's steps, then branch B's (one script: A is the cluster "
                        "without it)")
    p.add_argument("--until", metavar="SECONDS",
                   help="compare at this simulated second (default: when both have settled)")
    _horizon_flag(p)
    _allow_files_flag(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scheduler-config", metavar="FILE")
    p.add_argument("-o", "--output", choices=("json", "wide"), default="json")
    return p


def _record_parser() -> _Parser:
    p = _Parser(prog="ksandbox record", description="Open the TUI already recording; R stops "
                                                    "and saves, m adds a caption or marker.")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("-o", "--output", metavar="OUT.yaml", required=True,
                   help="where the recording is written (when R stops it, or at exit)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--speed", type=float, default=1.0)
    p.add_argument("--paused", action="store_true")
    p.add_argument("--scheduler-config", metavar="FILE")
    return p


def _export_parser() -> _Parser:
    p = _Parser(prog="ksandbox export", description="Print a recording as what would replay "
                                                    "its story on a real cluster.")
    p.add_argument("recording", metavar="RECORDING")
    p.add_argument("--kubectl", action="store_true", required=True,
                   help="manifests and kubectl commands (sandbox verbs become comments)")
    return p


def _tui_parser() -> _Parser:
    p = _Parser(prog="ksandbox", description="A Kubernetes cluster in your terminal. "
                                             "Subcommands: sim, explain, play, diff, record, "
                                             "export.")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--speed", type=float, default=1.0)
    p.add_argument("--paused", action="store_true")
    p.add_argument("--scheduler-config", metavar="FILE")
    return p


def _load_session(files: Sequence[str], seed: int, scheduler_config: str | None = None,
                  progress: Any = None, *, keep_start: bool = True):
    """The session of ``files``; ``progress`` is the session's hook for the run that follows.
    A load that takes over a second shows its progress on stderr (tui/progress.py), and
    ctrl+c during it stops it when ``progress`` is a _StopOnCtrlC. ``keep_start=False``: a
    one-shot run that never replays, forks nor records (sim, explain) keeps neither the
    files' texts nor their objects (Session's keep_start)."""
    from .api import loadprogress
    from .api.manifest import ConfigDocument, load_file_with_origins, load_files_with_sources
    from .session import Session
    from .tui.progress import LoadProgress

    names = ",".join(_stem(f) for f in files) or "sandbox"
    label = ", ".join(files) if len(files) <= 2 else f"{len(files)} files"
    check = progress.check if isinstance(progress, _StopOnCtrlC) else None
    with LoadProgress(label, interrupted=check) as shown, \
            loadprogress.reporting(shown.report):
        # the texts are kept (compressed) for replays, not the decoded objects: Session
        loaded, texts = load_files_with_sources(files, keep=keep_start)
        if scheduler_config:
            extra = load_file_with_origins(scheduler_config)
            bad = [d for d, _ in extra if not isinstance(d, ConfigDocument)]
            if bad:
                raise KsandboxError(f"{scheduler_config}: --scheduler-config takes a "
                                    f"KubeSchedulerConfiguration or Policy document, got "
                                    f"{bad[0].kind}")
            loaded.extend(extra)
            del extra
        kinds = [getattr(d, "kind", "") for d, _ in loaded]
        docs, origins = [d for d, _ in loaded], [o for _, o in loaded]
        # handed over: the session empties the lists as it stores the objects, so each
        # decoded object goes as soon as its stored copy is made (Session's take)
        del loaded
        session = Session.from_documents(docs, seed=seed, name=names, origins=origins,
                                         progress=shown.starting, source=texts, take=True,
                                         keep_start=keep_start)
    session.progress = progress
    for warning in session.cp.scheduler.warnings:
        sys.stderr.write(f"Warning: {warning}\n")
    from .api.kinds import stored_only_warning

    stored = stored_only_warning(kinds)
    if stored:
        sys.stderr.write(f"Warning: {stored}\n")
    if session.implied_namespaces:
        many = len(session.implied_namespaces) > 1
        sys.stderr.write(f"Warning: created namespace{'s' if many else ''} "
                         f"{', '.join(session.implied_namespaces)}: the export's objects are in "
                         f"{'them' if many else 'it'} but it does not list "
                         f"{'them' if many else 'it'} (kubectl get all -A leaves Namespaces "
                         "out)\n")
    return session


def _stem(path: str) -> str:
    from pathlib import Path

    return Path(path).name.split(".")[0]


def _print_state(session: Session, output: str) -> None:
    if output == "json":
        from .views.state import state_json  # json.dumps(session.view(), indent=2), faster

        sys.stdout.write(state_json(session) + "\n")
    elif output == "yaml":
        import yaml  # on use: PyYAML is not needed to start (api/safeload_pyyaml.py)

        sys.stdout.write(yaml.safe_dump(session.view(), sort_keys=False))
    else:
        from .views.simwide import render_sim_wide

        sys.stdout.write(render_sim_wide(session))


def _progress(until: float | None) -> Any:
    """The stderr progress display of a long headless run (tui/progress.py), with the
    pending-pod count once the session exists."""
    from .tui.progress import RunProgress

    return RunProgress("simulating", until=until)


class _StopRequested(Exception):
    """ctrl+c during a headless run: stop between two clock slices, keep the state so far."""


class _StopOnCtrlC:
    """SIGINT sets a flag instead of raising wherever Python happens to be: the session's
    progress hook (called between slices of the clock) raises :class:`_StopRequested` there,
    so the run stops cleanly between two callbacks and the state so far can be printed. A
    second ctrl+c interrupts at once."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.requested = False
        self._old: Any = None

    def __call__(self, now: float) -> None:
        self.progress(now)
        self.check()

    def check(self) -> None:
        if self.requested:
            raise _StopRequested

    def _handler(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> "_StopOnCtrlC":
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        import signal

        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def _interrupted(session: Session, output: str) -> int:
    sys.stderr.write(f"interrupted at {session.now:g} s of simulated time: printing the state "
                     f"so far\n")
    _print_state(session, output)
    return 130


def _count_pending(session: Session) -> Any:
    return lambda: f"{len(session.cp.scheduler.queue):,} pods in the scheduling queue"


def cmd_sim(argv: Sequence[str]) -> int:
    from .recording.script import load_script

    args = _sim_parser().parse_args(argv)
    _apply_horizon(args)
    args.until = _seconds_arg("--until", args.until)
    script = load_script(args.script) if args.script else None
    with gcpolicy.headless_run():   # from the load to the printed state
        return _sim(args, script)


def _sim(args: Any, script: Any) -> int:
    from .recording.script import run_script

    with _progress(args.until) as progress, _StopOnCtrlC(progress) as stop:
        try:
            # one run, printed: nothing replays it (a script's commands run on it as typed)
            session = _load_session(args.files, args.seed, args.scheduler_config, stop,
                                    keep_start=False)
        except _StopRequested:
            sys.stderr.write("interrupted while loading: nothing to print\n")
            return 130
        progress.detail = _count_pending(session)
        try:
            if script is not None:
                run_script(session, script, until=args.until, on_result=report_failed_step)
            if args.until is not None:
                session.run_until(args.until)
            else:
                session.settle()
        except _StopRequested:
            session.progress = None
            return _interrupted(session, args.output)
    if script is not None:
        report_steps_not_run(script.steps, args.until)
    _print_state(session, args.output)
    return 0


def cmd_explain(argv: Sequence[str]) -> int:
    args = _explain_parser().parse_args(argv)
    if args.pod.count("/") != 1 or not all(args.pod.split("/")):
        raise UsageError(f'pod must be given as NAMESPACE/POD, got "{args.pod}"')
    namespace, name = args.pod.split("/")
    _apply_horizon(args)
    args.until = _seconds_arg("--until", args.until)
    from .recording.script import load_script, run_script

    script = load_script(args.script) if args.script else None
    session = _load_session(args.files, args.seed, args.scheduler_config, keep_start=False)
    if script is not None:
        run_script(session, script, until=args.until)
        report_steps_not_run(script.steps, args.until)
    if args.until is not None:
        session.run_until(args.until)
    explanation = session.explain(namespace, name)
    if args.output == "json":
        from .views.jsontext import dumps

        sys.stdout.write(dumps(explanation.to_dict()) + "\n")
    else:
        from .views.explain import render_explain_wide

        text = render_explain_wide(explanation)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def report_failed_step(step: Any, result: Any) -> None:
    """A step that failed at its time, on stderr as `sim` and `play --headless` both print it:
    ``at 151s: <command>`` then kubectl's error."""
    if result is not None and result.error:
        sys.stderr.write(f"at {step.at:g}s: {step.command}\n{result.error.rstrip()}\n")


# How many steps left out by --until are named one by one before the rest is counted.
SHOWN_STEPS_NOT_RUN = 5


def report_steps_not_run(steps: Sequence[Any], until: float | None, branch: str = "") -> None:
    """Script steps due after ``--until`` are not run: say so on stderr, in the words of
    :func:`report_failed_step` (``at 250s: <command>``), the first few one per line and the
    rest counted (``branch``: which of diff's futures). Captions and markers do not run."""
    if until is None:
        return
    left = [s for s in steps if s.command is not None and s.at > until]
    if not left:
        return
    n = len(left)
    were = "step was" if n == 1 else "steps were"
    where = f"{branch}: " if branch else ""
    lines = [f"warning: {where}{n} script {were} not run: due after --until {until:g}s"]
    lines += [f"{where}at {s.at:g}s: {s.command}" for s in left[:SHOWN_STEPS_NOT_RUN]]
    if n > SHOWN_STEPS_NOT_RUN:
        lines.append(f"{where}... and {n - SHOWN_STEPS_NOT_RUN} more, the last at "
                     f"{left[-1].at:g}s")
    sys.stderr.write("".join(line + "\n" for line in lines))


def cmd_play(argv: Sequence[str]) -> int:
    from .recording.player import load_recording_session, play_headless

    args = _play_parser().parse_args(argv)
    _apply_horizon(args)
    if args.speed <= 0:
        raise UsageError("--speed must be greater than 0")
    if args.check and not args.headless:
        raise UsageError("--check runs the recording headless: add --headless")
    recording, session = load_recording_session(args.recording, _allowed_dirs(args))
    if args.check and not recording.has_expectations:
        raise KsandboxError(f"{args.recording}: nothing to check: the recording has no "
                            f"expect: blocks")
    if args.cast:
        from pathlib import Path

        from .tui.cast import write_cast

        out = Path(args.cast)
        if out.is_dir() or not out.parent.is_dir():
            raise UsageError(f"--cast {args.cast}: not a file in an existing folder")
        frames = write_cast(recording, session, args.cast, speed=args.speed)
        sys.stderr.write(f"wrote {frames} frames to {args.cast}\n")
        return 0
    if args.headless:
        with _progress(None) as progress, _StopOnCtrlC(progress) as stop:
            progress.detail = _count_pending(session)
            session.progress = stop
            try:
                playback = play_headless(session, recording, on_step=report_failed_step)
            except _StopRequested:
                session.progress = None
                return _interrupted(session, args.output or "json")
        session.progress = None
        if args.check:
            for failure in playback.failures:
                sys.stdout.write(f"FAIL {failure.describe(args.recording)}\n")
            held = playback.checked - len(playback.failures)
            sys.stdout.write(f"{args.recording}: {held} of {playback.checked} expectations "
                             f"held\n")
            if args.output:
                _print_state(session, args.output)
            return 1 if playback.failures else 0
        _print_state(session, args.output or "json")
        return 0
    return _run_tui(session, recording=recording, speed=args.speed, paused=True,
                    debug=_DEBUG[0])


def _branch_name(path: str, other: str) -> str:
    from pathlib import Path

    name = Path(path).name
    return path if name == Path(other).name else name


def cmd_diff(argv: Sequence[str]) -> int:
    from .recording.diff import diff_sessions, run_to_same_time
    from .recording.playback import Playback
    from .recording.player import session_for
    from .recording.script import load_script

    args = _diff_parser().parse_args(argv)
    _apply_horizon(args)
    args.until = _seconds_arg("--until", args.until)
    if args.recordings:
        if args.files or args.scripts:
            raise UsageError("give either two recordings or -f FILE with --script, not both")
        if len(args.recordings) != 2:
            raise UsageError(f"diff takes two recordings, got {len(args.recordings)}")
        # Both loaded and checked before anything plays.
        allowed = _allowed_dirs(args)
        recs = [load_script(r, allowed) for r in args.recordings]
        sessions = [session_for(r) for r in recs]
        steps = [r.steps for r in recs]
        names = (_branch_name(args.recordings[0], args.recordings[1]),
                 _branch_name(args.recordings[1], args.recordings[0]))
    else:
        if not args.files:
            raise UsageError("diff needs -f FILE with --script A.yaml --script B.yaml, "
                             "or two recordings")
        scripts = args.scripts or []
        if not 1 <= len(scripts) <= 2:
            raise UsageError(f"diff takes one or two --script files, got {len(scripts)}")
        loaded = [load_script(s, _allowed_dirs(args)) for s in scripts]
        base = _load_session(args.files, args.seed, args.scheduler_config)
        # Branch B is a fork of the loaded cluster: the same objects, timers and random
        # streams, so the only difference between the two futures is their steps.
        sessions = [base, base.fork()]
        if len(loaded) == 1:
            steps = [(), loaded[0].steps]
            names = ("(no script)", _branch_name(scripts[0], ""))
        else:
            steps = [loaded[0].steps, loaded[1].steps]
            names = (_branch_name(scripts[0], scripts[1]), _branch_name(scripts[1], scripts[0]))
    def reporter(name: str) -> Any:
        def report(step: Any, result: Any) -> None:
            if result is not None and result.error:
                sys.stderr.write(f"{name}: at {step.at:g}s: {step.command}\n"
                                 f"{result.error.rstrip()}\n")
        return report

    playbacks = [Playback(s, st, on_step=reporter(n), check_expectations=False)
                 for s, st, n in zip(sessions, steps, names)]
    try:
        run_to_same_time(playbacks, args.until)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for st, n in zip(steps, names):
        report_steps_not_run(st, args.until, branch=n)
    diff = diff_sessions(sessions[0], sessions[1], names)
    if args.output == "json":
        from .views.jsontext import dumps

        sys.stdout.write(dumps(diff) + "\n")
    else:
        from .views.diffwide import render_diff_wide

        sys.stdout.write(render_diff_wide(diff))
    return 0


def cmd_record(argv: Sequence[str]) -> int:
    from pathlib import Path

    args = _record_parser().parse_args(argv)
    out = Path(args.output)
    if out.is_dir() or not out.parent.is_dir():
        raise UsageError(f"-o {args.output}: not a file in an existing folder")
    files = args.files or [str(sample_cluster_path("default"))]
    session = _load_session(files, args.seed, args.scheduler_config)
    return _run_tui(session, speed=args.speed, paused=args.paused, record=True, record_to=out,
                    debug=_DEBUG[0])


def cmd_export(argv: Sequence[str]) -> int:
    from .recording.export import export_kubectl
    from .recording.script import load_script

    args = _export_parser().parse_args(argv)
    sys.stdout.write(export_kubectl(load_script(args.recording)))
    return 0


def cmd_tui(argv: Sequence[str]) -> int:
    args = _tui_parser().parse_args(argv)
    files = args.files or [str(sample_cluster_path("default"))]
    session = _load_session(files, args.seed, args.scheduler_config)
    return _run_tui(session, speed=args.speed, paused=args.paused, debug=_DEBUG[0])


def _run_tui(session: Session, **opts: Any) -> int:
    """The TUI on ``session`` (tui/app.run_tui), with the cycle collector off from here to
    the board's first frame, where the app collects and freezes the heap and turns it back on
    (tui/app._after_first_frame). Importing Textual and building the first screen make little
    garbage, but their young collections walked what the session had just loaded: ~0.04 CPU s
    of the start on the default sample."""
    import dataclasses
    import gc

    # Textual's dataclasses' methods (~150 exec'd sources) from the last start's code_cache.
    code_cache.hook(dataclasses)
    gc.disable()
    try:
        from .tui.asyncio_import import import_asyncio_without_tls

        import_asyncio_without_tls()    # before Textual imports it: no OpenSSL to load
        from .tui.app import run_tui

        return run_tui(session, **opts)
    finally:
        gc.enable()


def one_line(message: str) -> str:
    """The contract's one ``error:`` line: a message that spans lines (libyaml's position line,
    cobra's "Did you mean this?" block) is joined with single spaces, blank lines dropped."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def _internal_error(exc: BaseException) -> str:
    """An exception that is not a KsandboxError is a bug in ksandbox, not bad input: one line
    naming it, and how to see the traceback."""
    detail = one_line(str(exc))
    kind = type(exc).__name__
    what = f"{kind}: {detail}" if detail else kind
    return (f"error: internal error ({what}); this is a bug in ksandbox, please report it "
            f"(run again with --debug to see the traceback)\n")


def run() -> int:
    """The ``ksandbox`` command as a process (``python -m ksandbox``, the console script):
    :func:`main` on the process's arguments, then the heap left to the exit
    (gcpolicy.exiting). Tests and other callers in a process that goes on call main."""
    code = main()
    gcpolicy.exiting()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """The one error boundary: bad input (KsandboxError, usage) is its own one ``error:`` line;
    anything else is an internal error reported in one line too, with the traceback only under
    ``--debug`` (accepted anywhere on the command line)."""
    from .sim import limits

    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    _DEBUG[0] = debug
    argv = [a for a in argv if a != "--debug"]
    saved = limits.LIMITS   # --horizon holds for this run only (tests call main() in turn)
    try:
        return _main(argv, debug)
    finally:
        limits.LIMITS = saved


def _main(argv: list[str], debug: bool) -> int:
    handlers = {"sim": cmd_sim, "explain": cmd_explain, "play": cmd_play, "diff": cmd_diff,
                "record": cmd_record, "export": cmd_export}
    try:
        if argv and argv[0] in handlers:
            return handlers[argv[0]](argv[1:])
        return cmd_tui(argv)
    except UsageError as exc:
        sys.stderr.write(f"error: {one_line(str(exc))}\n")
        return 1
    except KsandboxError as exc:
        if debug:
            import traceback

            traceback.print_exc(file=sys.stderr)
        sys.stderr.write(one_line(error_line(exc)) + "\n")
        return 1
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the last boundary before the user's terminal
        if debug:
            import traceback

            traceback.print_exc(file=sys.stderr)
        sys.stderr.write(_internal_error(exc))
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
