"""``kubectl taint``: add, replace and remove node taints.

Parsing follows ``kubernetes/kubectl`` ``pkg/cmd/taint/taint.go`` (Complete, Validate,
validateFlags): resources come first, then taint changes (a word is a taint change if it holds
``=`` or ``:`` or ends in ``-``); only nodes may be tainted; ``--all`` and ``-l`` select nodes.
The taint grammar and the merge with a node's current taints are
``ksandbox.api.taints.parse_taint_args`` / ``apply_taint_changes``.

Several nodes (names, ``--all``, ``-l``) are visited one by one as kubectl's builder does with
``ContinueOnError`` (RunTaint): a node that is missing, or whose change fails (``taint "x" not
found``, ``node x already has ...``, validation), is reported and the other nodes are still
changed; each node's own change is atomic and validated. So ``kubectl taint nodes --all
node-role.kubernetes.io/control-plane-`` untaints the control plane and reports the workers.

Output: ``node/foo tainted``, ``untainted`` or ``modified`` (name printer), with ``(dry run)``;
errors as kubectl's CheckErr prints the visitor's aggregate (``common.format_errors``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from ..api.errors import CommandError
from ..api.kinds import BY_KIND
from ..api.taints import Taint, apply_taint_changes, parse_taint_args
from .common import (
    check_output,
    list_kind,
    printed,
    select_each,
    selector_of,
    visit_each,
)
from .parse import (
    ALL,
    DRY_RUN,
    NAMESPACE,
    OUTPUT,
    OVERWRITE,
    SELECTOR,
    Args,
    Target,
    dry_run_strategy,
    parse_flags,
    resolve_kind,
)

if TYPE_CHECKING:
    from ..api.core import Node
    from ..session import Session

FLAGS = (NAMESPACE, SELECTOR, ALL, OVERWRITE, OUTPUT, DRY_RUN)


@attrs.frozen
class TaintCommand:
    names: tuple[str, ...]
    to_add: tuple[Taint, ...]
    to_remove: tuple[Taint, ...]
    overwrite: bool = False
    selector: str = ""
    all: bool = False
    dry_run: str = "none"
    output: str = ""


def parse(tokens: list[str]) -> TaintCommand:
    a: Args = parse_flags("taint", tokens, FLAGS)
    check_output("taint", a["output"], ("", "name", "yaml", "json"))
    resources: list[str] = []
    changes: list[str] = []
    for s in a.positionals:
        is_taint = "=" in s or ":" in s or s.endswith("-")
        if is_taint:
            changes.append(s)
        elif changes:
            raise CommandError(f"all resources must be specified before taint changes: {s}")
        else:
            resources.append(s)
    if not resources:
        raise CommandError("one or more resources must be specified as <resource> <name>")
    if not changes:
        raise CommandError("at least one taint update is required")
    to_add, to_remove = parse_taint_args(changes)
    dry_run = dry_run_strategy(a)
    # Validate: the resource type must be nodes. `node/foo` is accepted as well.
    kind_word, _, slash_name = resources[0].partition("/")
    info = resolve_kind(kind_word) if kind_word else None
    if info is None or info.kind != "Node":
        raise CommandError(f"invalid resource type {resources[0]}, only node types are "
                           "supported")
    names = [slash_name] if slash_name else []
    for r in resources[1:]:
        k, sep, n = r.partition("/")
        if sep:
            if resolve_kind(k).kind != "Node":
                raise CommandError(f"invalid resource type {r}, only node types are supported")
            names.append(n)
        else:
            names.append(r)
    if a["all"] and a["selector"]:
        raise CommandError("setting 'all' parameter with a non empty selector is prohibited")
    if not a["all"] and not a["selector"] and not names:
        raise CommandError("at least one resource name must be specified since 'all' "
                           "parameter is not set")
    selector_of(a["selector"])  # a bad selector fails now
    return TaintCommand(tuple(names), tuple(to_add), tuple(to_remove), a["overwrite"],
                        a["selector"], a["all"], dry_run, a["output"])


def run(session: Session, cmd: TaintCommand, stdin: str | None) -> tuple[str, str]:
    store = session.store
    info = BY_KIND["Node"]
    if cmd.names:
        nodes = select_each(store, (Target(info, cmd.names),), "")
    else:
        nodes = list_kind(store, info, None, selector_of(cmd.selector))

    def taint(node: Node) -> str:
        taints, word = apply_taint_changes(node.spec.taints, cmd.to_add, cmd.to_remove,
                                           cmd.overwrite, node.name, session.now)
        update = attrs.evolve(node, spec=attrs.evolve(node.spec, taints=taints))
        [written] = store.update_all([update], dry_run=cmd.dry_run != "none")
        return printed(written, word, cmd.output, cmd.dry_run)

    return visit_each(nodes, taint)
