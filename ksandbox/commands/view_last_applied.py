"""``kubectl apply view-last-applied TYPE NAME | TYPE/NAME [-o yaml|json]``.

kubectl ``pkg/cmd/apply/apply_view_last_applied.go``: the object's
``kubectl.kubernetes.io/last-applied-configuration`` annotation — what the last ``kubectl
apply`` sent (commands/last_applied.py) — as YAML (the default, keys sorted) or as the
annotation's JSON indented by two spaces (json.Indent: its escapes and key order kept). An
object without it: ``error: no last-applied-configuration annotation found on resource:
NAME``. Not here: ``-f``, ``-l``, ``--all``; ``set-last-applied`` and ``edit-last-applied``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import attrs

from ..api.errors import CommandError
from ..views.serialize import dump_yaml
from .common import get_object
from .last_applied import LAST_APPLIED, go_indent
from .parse import NAMESPACE, OUTPUT, Target, namespace_of, parse_flags, parse_targets

if TYPE_CHECKING:
    from ..session import Session

NAME = "view-last-applied"


@attrs.frozen
class ViewLastApplied:
    targets: tuple[Target, ...]
    namespace: str = "default"
    output: str = "yaml"


def parse(tokens: list[str]) -> ViewLastApplied:
    a = parse_flags(f"apply {NAME}", tokens, (NAMESPACE, OUTPUT))
    output = a["output"] or "yaml"
    if output not in ("yaml", "json"):
        raise CommandError(f"Unexpected -o output mode: {output}, the flag 'output' must be "
                           "one of yaml|json", hint=f"See '{NAME} -h' for help and examples")
    targets = parse_targets(f"apply {NAME}", a.positionals)
    if not targets or any(not t.names for t in targets):
        raise CommandError("Required resource not specified." if not targets else
                           f"kubectl apply {NAME} of every object of a type (--all, -l) is "
                           "not supported by ksandbox: name the objects",
                           hint=f"See 'kubectl apply {NAME} -h' for help and examples")
    return ViewLastApplied(targets, namespace_of(a), output)


def run(session: Session, cmd: ViewLastApplied, stdin: str | None) -> str:
    out = []
    for target in cmd.targets:
        for name in target.names:
            obj = get_object(session.store, target.info, name, cmd.namespace)
            text = obj.metadata.annotations.get(LAST_APPLIED)
            if not text:
                raise CommandError("no last-applied-configuration annotation found on "
                                   f"resource: {name}")
            if cmd.output == "json":
                out.append(go_indent(text))
            else:
                out.append(dump_yaml(json.loads(text)))
    return "".join(out)
