"""What the `:` command bar understands, and how it completes words.

k9s habits first: ``:no``, ``:po``, ``:deploy``, ``:ds``, ``:rs``, ``:ev``, ``:hpa`` (any
singular, plural or short name) switch the view, optionally with a namespace, a ``/filter`` or a
label selector (``:po kube-system``, ``:po /web``, ``:po app=web``); ``:q`` quits; ``:board``
returns to the node board; ``:explain NS/POD`` opens the explain view. Anything else is a
command for ``session.submit``: kubectl's syntax with or without the word ``kubectl``, and the
sandbox's own verbs with or without the word ``ksandbox`` (``fail node node-2``).

:func:`complete` proposes the rest of the word being typed — a verb, a resource, a node or pod
name — from a :class:`Vocabulary` the UI fills from the store.

No Textual here.
"""

from __future__ import annotations

import shlex
from typing import Callable, Iterable

import attrs

from ..api.kinds import lookup_resource
from ..views.printers import TABLES

# The kinds that have a list view, by kind name: every kind `kubectl get` can print.
VIEW_KINDS = tuple(TABLES)
KUBECTL_VERBS = ("apply", "autoscale", "cordon", "create", "delete", "describe", "drain", "edit",
                 "get", "label", "patch", "rollout", "run", "scale", "set", "taint", "top",
                 "uncordon")
SANDBOX_VERBS = ("fail", "recover", "pressure", "add", "remove", "load")
UI_WORDS = ("board", "explain", "help", "quit", "q")
QUIT_WORDS = ("q", "q!", "qa", "quit", "Q")
BOARD_WORDS = ("board", "main", "home", "cluster")
RESOURCE_WORDS = ("nodes", "pods", "deployments", "daemonsets", "replicasets", "events",
                  "hpa", "namespaces", "no", "po", "deploy", "ds", "rs", "ev", "ns")


class CommandLineError(ValueError):
    """A line the bar cannot run; the message is kubectl's words (shown as ``error: …``)."""


def _is_verb(word: str) -> bool:
    from ..commands import UNSUPPORTED, VERBS

    return word in VERBS or word in UNSUPPORTED or word in SANDBOX_VERBS or word in (
        "kubectl", "k", "ksandbox", "explain") or word.startswith("-")


@attrs.frozen
class ViewCommand:
    kind: str
    namespace: str | None = None
    filter: str = ""


@attrs.frozen
class QuitCommand:
    pass


@attrs.frozen
class BoardCommand:
    pass


@attrs.frozen
class ExplainCommand:
    namespace: str
    name: str


@attrs.frozen
class HelpCommand:
    pass


@attrs.frozen
class SubmitCommand:
    """Text for ``session.submit``, normalised to start with ``kubectl`` or ``ksandbox``."""

    text: str


Parsed = ViewCommand | QuitCommand | BoardCommand | ExplainCommand | HelpCommand | SubmitCommand


def view_kind(word: str) -> str | None:
    info = lookup_resource(word)
    if info is not None and info.kind in VIEW_KINDS:
        return info.kind
    return None


def parse_command_line(text: str) -> Parsed | None:
    """What a line typed after ``:`` asks for; None for an empty line."""
    text = text.strip().lstrip(":").strip()
    if not text:
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    head, rest = words[0], words[1:]
    if head in QUIT_WORDS and not rest:
        return QuitCommand()
    if head in BOARD_WORDS and not rest:
        return BoardCommand()
    if head in ("help", "h", "?") and not rest:
        return HelpCommand()
    if head == "explain" and len(rest) == 1:
        ref = rest[0].removeprefix("pod/").removeprefix("pods/")
        ns, _, name = ref.rpartition("/")
        return ExplainCommand(ns or "default", name)
    kind = view_kind(head)
    if kind is None and len(rest) <= 1 and not _is_verb(head):
        # k9s's `:svc`: a resource word. A kind without a list view prints as `kubectl get`
        # does; a word that names no kind gets kubectl's answer for it, not a guess.
        info = lookup_resource(head)
        if info is None:
            raise CommandLineError(f'the server doesn\'t have a resource type "{head}"')
        return SubmitCommand(f"kubectl get {text}")
    if kind is not None and len(rest) <= 1:
        arg = rest[0] if rest else ""
        if arg.startswith("/"):
            return ViewCommand(kind, filter=arg[1:])
        if "=" in arg:
            return ViewCommand(kind, filter=f"-l {arg}")
        return ViewCommand(kind, namespace=arg or None)
    if head in ("kubectl", "ksandbox"):
        return SubmitCommand(text)
    if head in SANDBOX_VERBS:
        return SubmitCommand(f"ksandbox {text}")
    return SubmitCommand(f"kubectl {text}")


@attrs.frozen
class Vocabulary:
    """Names to complete from, fetched when asked (so they are always current)."""

    nodes: Callable[[], Iterable[str]] = lambda: ()
    pods: Callable[[], Iterable[str]] = lambda: ()
    workloads: Callable[[], Iterable[str]] = lambda: ()


def _candidates(words: list[str], vocab: Vocabulary) -> Iterable[str]:
    """What may come in the position after ``words``."""
    if words and words[0] in ("kubectl", "ksandbox"):
        words = words[1:]
    n = len(words)
    if n == 0:
        return (*KUBECTL_VERBS, *SANDBOX_VERBS, *UI_WORDS, *RESOURCE_WORDS, "kubectl", "ksandbox")
    verb = words[0]
    if verb in ("taint", "cordon", "uncordon", "drain", "label"):
        if n == 1 and verb in ("taint", "label"):
            return ("nodes", "node", "pods", "deployment")
        if verb in ("taint", "label") and words[1] in ("pods", "pod", "po"):
            return vocab.pods()
        if verb in ("taint", "label") and words[1].startswith("deploy"):
            return vocab.workloads()
        return vocab.nodes()
    if verb in SANDBOX_VERBS:
        if n == 1:
            return ("node", "deployment/") if verb == "load" else ("node",)
        if n == 2:
            return vocab.nodes()
        if verb == "pressure" and n == 3:
            return ("memory", "disk", "pid")
        if verb == "pressure" and n == 4:
            return ("on", "off")
        return ()
    if verb in ("get", "describe", "delete", "edit"):
        if n == 1:
            return RESOURCE_WORDS
        kind = view_kind(words[1])
        if kind == "Node":
            return vocab.nodes()
        if kind == "Pod":
            return vocab.pods()
        return vocab.workloads()
    if verb in ("scale", "autoscale"):
        return vocab.workloads()
    if verb == "explain":
        return vocab.pods()
    return ()


def complete(text: str, vocab: Vocabulary) -> str | None:
    """The whole line with its last word completed, or None when nothing fits.

    The first candidate in sorted order that extends the word wins, as a shell's first
    suggestion does; typing more narrows it.
    """
    if not text or text.endswith(" "):
        words, prefix = text.split(), ""
    else:
        *words, prefix = text.split()
    if not prefix:
        return None
    for cand in sorted(set(_candidates(words, vocab))):
        if cand.startswith(prefix) and cand != prefix:
            return text[: len(text) - len(prefix)] + cand
    return None
