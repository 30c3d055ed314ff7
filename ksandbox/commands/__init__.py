"""The command language: one line of kubectl (or a sandbox verb) in, kubectl's output out.

``parse(text)`` turns a line — ``kubectl taint nodes node-1 k=v:NoSchedule``, with or without
the leading ``kubectl`` (or ``k``), or ``ksandbox fail node node-2`` — into a frozen command
object, or raises :class:`CommandError` with kubectl's words (scripts are checked with it
before they run). ``execute(session, text, stdin)`` parses and runs it against the session's
store and returns a :class:`~ksandbox.commands.result.CommandResult`:

* ``output`` — what kubectl writes to stdout, lines ending in ``\\n``; also kubectl's stderr
  notices that do not mean failure (``No resources found in default namespace.``, deprecation
  and force-deletion warnings), so that ``error`` is empty exactly when the command worked;
* ``error`` — what kubectl writes to stderr on failure: ``error: <message>`` (plus hint lines
  such as ``See 'kubectl taint -h' for help and examples``) for client-side errors, or the API
  server's own ``Error from server (NotFound): ...`` / ``The Pod "x" is invalid: ...``.

``execute`` never raises: an unexpected exception is reported as ``error: internal: ...``.
A command refused before it starts changes nothing. ``taint`` and ``label`` over several
objects go on past a failing object as kubectl's ContinueOnError builder does (the successes
are in ``output``, the failures in ``error``), and ``drain`` goes on with the next node;
``apply -f`` / ``create -f`` are all or nothing (a deliberate difference from kubectl).

One module per verb group: ``apply`` (apply, create), ``delete``, ``run``, ``label``,
``taint``, ``cordon`` (cordon, uncordon), ``drain`` (flags only; the run is ``drain_run``),
``scale`` (scale, autoscale), ``get``, ``describe``, ``sandbox`` (the ``ksandbox`` verbs).
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any, Callable

import attrs

from ..api.errors import ApiError, CommandError, KsandboxError, ValidationError, error_line
from .parse import tokenize
from .result import CommandResult

if TYPE_CHECKING:
    from ..session import Session

__all__ = ["execute", "parse", "files_read", "CommandError", "VERBS"]


def _verb_module(name: str) -> Any:
    """A verb's module, imported on first use: the control plane imports this package (for
    ``drain_run``) and starting ``ksandbox`` runs no command, so no verb is loaded until a
    line is parsed (tests/test_startup_imports.py holds this)."""
    return importlib.import_module(f"{__name__}.{name}")


def _verb(module: str, function: str, **kwargs: Any) -> Callable[[list[str]], Any]:
    def parse_verb(tokens: list[str]) -> Any:
        return getattr(_verb_module(module), function)(tokens, **kwargs)
    return parse_verb


def _parse_create(tokens: list[str]) -> Any:
    create = _verb_module("create")
    if tokens and tokens[0] in create.GENERATORS:
        return create.parse(tokens)
    return _verb_module("apply").parse(tokens, create=True)


def _parse_apply(tokens: list[str]) -> Any:
    if tokens and tokens[0] == "view-last-applied":
        return _verb_module("view_last_applied").parse(tokens[1:])
    if tokens and tokens[0] in ("set-last-applied", "edit-last-applied"):
        raise CommandError(f'"kubectl apply {tokens[0]}" is not supported by ksandbox (kubectl '
                           'apply -f writes the annotation; view-last-applied shows it)')
    return _verb_module("apply").parse(tokens)


# verb -> parse(tokens) -> command; the command's type picks its runner (_runners).
VERBS: dict[str, Callable[[list[str]], Any]] = {
    "apply": _parse_apply,
    "create": _parse_create,
    "delete": _verb("delete", "parse"),
    "run": _verb("run", "parse"),
    "label": _verb("label", "parse"),
    "taint": _verb("taint", "parse"),
    "cordon": _verb("cordon", "parse"),
    "uncordon": _verb("cordon", "parse", cordon=False),
    "drain": _verb("drain", "parse"),
    "scale": _verb("scale", "parse_scale"),
    "autoscale": _verb("scale", "parse_autoscale"),
    "get": _verb("get", "parse_get"),
    "rollout": _verb("rollout", "parse_rollout"),
    "top": _verb("top", "parse"),
    "patch": _verb("patch", "parse"),
    "edit": _verb("edit", "parse"),
    "set": _verb("rollout", "parse_set"),
    "describe": _verb("describe", "parse"),
}


@cache
def _runners() -> dict[type, Callable[..., Any]]:
    """command type -> run(session, command, stdin) -> output (every verb module imported)."""
    from . import (
        apply,
        cordon,
        create,
        delete,
        describe,
        drain,
        edit,
        get,
        label,
        patch,
        rollout,
        run,
        sandbox,
        scale,
        taint,
        top,
        view_last_applied,
    )

    return {
        apply.ApplyCommand: apply.run, delete.DeleteCommand: delete.run, run.RunCommand: run.run,
        label.LabelCommand: label.run, taint.TaintCommand: taint.run,
        cordon.CordonCommand: cordon.run, drain.DrainCommand: drain.run,
        scale.ScaleCommand: scale.run_scale, scale.AutoscaleCommand: scale.run_autoscale,
        get.GetCommand: get.run_get, describe.DescribeCommand: describe.run,
        sandbox.NodeFault: sandbox.run, sandbox.NodePressure: sandbox.run,
        sandbox.AddNode: sandbox.run, sandbox.SetLoad: sandbox.run,
        sandbox.AddScheduler: sandbox.run, sandbox.PutStaticPod: sandbox.run,
        sandbox.RemoveStaticPod: sandbox.run,
        create.CreateGenerated: create.run,
        top.TopCommand: top.run,
        patch.PatchCommand: patch.run,
        edit.EditCommand: edit.run,
        view_last_applied.ViewLastApplied: view_last_applied.run,
        rollout.RolloutCommand: rollout.run_rollout,
        rollout.SetImageCommand: rollout.run_set_image,
    }


# kubectl verbs the sandbox does not model: a clearer answer than "unknown command".
UNSUPPORTED = ("annotate", "api-resources", "api-versions", "attach", "auth", "certificate",
               "cluster-info", "completion", "config", "cp", "debug", "diff", "events",
               "exec", "explain", "expose", "kustomize", "logs", "plugin",
               "port-forward", "proxy", "replace", "version", "wait")


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _unknown(verb: str) -> CommandError:
    """cobra's unknown-command error, with its "Did you mean this?" suggestions (distance 2,
    or a prefix; ``rm`` suggests ``delete`` as kubectl's SuggestFor does)."""
    names = sorted(VERBS)
    hits = [n for n in names if _levenshtein(verb.lower(), n) <= 2
            or n.startswith(verb.lower())]
    if verb == "rm":
        hits = ["delete"]
    text = f'unknown command "{verb}" for "kubectl"'
    if hits:
        text += "\n\nDid you mean this?" + "".join(f"\n\t{h}" for h in hits)
    return CommandError(text)


def _hoist_global_flags(tokens: list[str]) -> list[str]:
    """``kubectl -n ns get pods``: kubectl's persistent ``-n`` may come before the verb."""
    moved: list[str] = []
    while tokens and tokens[0].startswith("-") and tokens[0] != "-":
        tok = tokens.pop(0)
        if tok in ("-n", "--namespace"):
            if not tokens:
                raise CommandError("flag needs an argument: " +
                                   ("'n' in -n" if tok == "-n" else tok))
            moved += [tok, tokens.pop(0)]
        elif tok.startswith(("--namespace=", "-n")):
            moved.append(tok)
        elif tok.startswith("--"):
            raise CommandError(f"unknown flag: {tok.split('=')[0]}")
        else:
            raise CommandError(f"unknown shorthand flag: '{tok[1]}' in {tok}")
    return tokens[:1] + moved + tokens[1:] if tokens else moved


def parse(text: str) -> Any:
    """A frozen command object for one line, or :class:`CommandError`."""
    tokens = tokenize(text)
    if tokens and tokens[0] == "ksandbox":
        return _verb_module("sandbox").parse(tokens[1:])
    if tokens and tokens[0] in ("kubectl", "k"):
        tokens = tokens[1:]
    tokens = _hoist_global_flags(tokens)
    if not tokens or tokens[0].startswith("-"):
        raise CommandError("a command is required, e.g. \"kubectl get pods\"; verbs: "
                           + ", ".join(sorted(VERBS)))
    verb = tokens[0]
    if verb in VERBS:
        return VERBS[verb](tokens[1:])
    if verb in UNSUPPORTED:
        raise CommandError(f'"kubectl {verb}" is not supported by ksandbox; the verbs are: '
                           + ", ".join(sorted(VERBS)))
    raise _unknown(verb)


def files_read(cmd: Any) -> tuple[str, ...]:
    """The files (not ``-``, standard input) a parsed command would read when it runs:
    ``apply``/``create``/``delete -f`` and ``ksandbox add scheduler -f``. A recording's loader
    uses it to refuse steps that would read the player's files."""
    names = list(getattr(cmd, "filenames", ()) or ())
    one = getattr(cmd, "filename", "")
    if isinstance(one, str) and one:
        names.append(one)
    return tuple(n for n in names if n != "-")


def format_error(exc: BaseException) -> str:
    """The stderr text kubectl would print for ``exc``, after what kubectl had written to
    stderr before it failed (its ``preamble``: an edit's reopened header, apply's warnings)."""
    preamble = getattr(exc, "preamble", "") if isinstance(exc, KsandboxError) else ""
    if isinstance(exc, CommandError):
        text = error_line(exc) + "\n"
        if exc.hint:
            text += exc.hint.rstrip("\n") + "\n"
        return preamble + text
    if isinstance(exc, ValidationError):
        return preamble + exc.kubectl_text()
    if isinstance(exc, ApiError):
        return f"{preamble}{exc}\n"
    if isinstance(exc, KsandboxError):
        return f"{preamble}{error_line(exc)}\n"
    return f"error: internal: {type(exc).__name__}: {exc}\n"


def execute(session: Session, text: str, stdin: str | None = None) -> Any:
    """Run one command line now; never raises (see the module docstring)."""
    try:
        cmd = parse(text)
        result = _runners()[type(cmd)](session, cmd, stdin)
    except Exception as exc:  # noqa: BLE001 - every failure becomes kubectl-style text
        return CommandResult(text, "", format_error(exc))
    if isinstance(result, str):
        return CommandResult(text, result, "")
    if isinstance(result, tuple):
        return CommandResult(text, result[0], result[1])
    return attrs.evolve(result, command=text)
