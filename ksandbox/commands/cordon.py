"""``kubectl cordon`` and ``kubectl uncordon``: set or clear a node's ``spec.unschedulable``.

As ``kubernetes/kubectl`` ``pkg/cmd/drain/drain.go`` (Complete, RunCordonOrUncordon) and
``pkg/drain/cordon.go``: node names or ``-l``, never both; a node already in the wanted state
is reported ``already cordoned`` / ``already uncordoned`` and not written. The
``node.kubernetes.io/unschedulable:NoSchedule`` taint that mirrors the flag is the node
lifecycle controller's business, not ours.

Output: ``node/foo cordoned``, ``node/foo already cordoned``, ``node/foo uncordoned``,
``node/foo already uncordoned``, with ``(dry run)`` suffixes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import CommandError
from ..api.kinds import BY_KIND
from .common import get_object, list_kind, printed, selector_of
from .parse import (
    DRY_RUN,
    NAMESPACE,
    SELECTOR,
    Args,
    dry_run_strategy,
    help_error,
    parse_flags,
    resolve_kind,
)

if TYPE_CHECKING:
    from ..apiserver.store import Store
    from ..session import Session


@attrs.frozen
class CordonCommand:
    names: tuple[str, ...]
    cordon: bool = True            # False: uncordon
    selector: str = ""
    dry_run: str = "none"


def node_names_or_selector(verb: str, a: Args) -> tuple[tuple[str, ...], str]:
    """drain.go Complete: ``USAGE: <verb> NODE [flags]`` without nodes; names and a selector
    together are refused (kubectl prints that one with a doubled ``error:``)."""
    names = []
    for p in a.positionals:
        kind, sep, name = p.partition("/")
        if sep and resolve_kind(kind).kind != "Node":
            raise CommandError(f"invalid resource type {kind}, only node types are supported")
        names.append(name if sep else p)
    if not names and not a.has("selector"):
        raise help_error(verb, f"USAGE: {verb} NODE [flags]")
    if names and a["selector"]:
        raise help_error(verb, "error: cannot specify both a node name and a --selector option")
    selector_of(a["selector"])
    return tuple(names), a["selector"]


def parse(tokens: list[str], cordon: bool = True) -> CordonCommand:
    verb = "cordon" if cordon else "uncordon"
    a = parse_flags(verb, tokens, (NAMESPACE, SELECTOR, DRY_RUN))
    names, selector = node_names_or_selector(verb, a)
    return CordonCommand(names, cordon, selector, dry_run_strategy(a))


def select_nodes(store: Store, names: tuple[str, ...], selector: str) -> list[Any]:
    info = BY_KIND["Node"]
    if names:
        return [get_object(store, info, n, "") for n in names]
    return list_kind(store, info, None, selector_of(selector))


def run(session: Session, cmd: CordonCommand, stdin: str | None) -> str:
    nodes = select_nodes(session.store, cmd.names, cmd.selector)
    word = "cordoned" if cmd.cordon else "uncordoned"
    changes, lines = [], []
    for node in nodes:
        if bool(node.spec.unschedulable) == cmd.cordon:
            lines.append((node, f"already {word}"))
            continue
        changes.append(attrs.evolve(node, spec=attrs.evolve(node.spec,
                                                              unschedulable=cmd.cordon)))
        lines.append((node, word))
    session.store.update_all(changes, dry_run=cmd.dry_run != "none")
    return "".join(printed(node, w, "", cmd.dry_run) for node, w in lines)
