"""``kubectl describe``: the describer text of each object named, from ``ksandbox.views``.

As ``kubernetes/kubectl`` ``pkg/cmd/describe/describe.go``: a type alone describes every
object of it in the namespace (``-A``: everywhere, ``-l``: those matching); a name that is not
found falls back to every object whose name starts with it; texts are separated by a blank
line; ``--show-events=false`` leaves the events out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import ApiError, CommandError
from ..views.describe import describe
from .common import list_kind, lookup, no_resources, selector_of
from .get import SUGGEST_API_RESOURCES, targets_of
from .parse import (
    ALL_NAMESPACES,
    BOOL,
    NAMESPACE,
    SELECTOR,
    Flag,
    Target,
    namespace_of,
    parse_flags,
)

if TYPE_CHECKING:
    from ..session import Session


@attrs.frozen
class DescribeCommand:
    targets: tuple[Target, ...]
    namespace: str = "default"
    all_namespaces: bool = False
    selector: str = ""
    show_events: bool = True


def parse(tokens: list[str]) -> DescribeCommand:
    flags = (NAMESPACE, ALL_NAMESPACES, SELECTOR, Flag("show-events", BOOL, "", True))
    a = parse_flags("describe", tokens, flags)
    if not a.positionals:
        raise CommandError(f"You must specify the type of resource to describe. "
                           f"{SUGGEST_API_RESOURCES}")
    selector_of(a["selector"])
    return DescribeCommand(targets_of("describe", a.positionals), namespace_of(a),
                           a["all-namespaces"], a["selector"], a["show-events"])


def run(session: Session, cmd: DescribeCommand, stdin: str | None) -> str | tuple[str, str]:
    store = session.store
    selector = selector_of(cmd.selector)
    ns = None if cmd.all_namespaces else cmd.namespace
    # describe's fallback to every object whose name starts with what was typed is for one
    # name alone (describe.go: NotFound with two builder args, TYPE NAME); with several, the
    # builder continues on error: the objects found are described, each missing name is a
    # NotFound after them.
    one_name = len(cmd.targets) == 1 and len(cmd.targets[0].names) == 1
    objs: list[Any] = []
    errors: list[str] = []
    for t in cmd.targets:
        if not t.names:
            objs.extend(list_kind(store, t.info, ns, selector))
            continue
        for name in t.names:
            obj = lookup(store, t.info, name, cmd.namespace)
            if obj is not None:
                objs.append(obj)
                continue
            matches = [o for o in list_kind(store, t.info, cmd.namespace, selector)
                       if o.metadata.name.startswith(name)] if one_name else []
            if not matches:
                if one_name:
                    raise ApiError.not_found(t.info.display_resource, name)
                errors.append(str(ApiError.not_found(t.info.display_resource, name)))
            objs.extend(matches)
    err = "".join(e + "\n" for e in errors)
    if not objs:
        if errors:
            return "", err
        namespaced = any(t.info.namespaced for t in cmd.targets)
        return no_resources(ns, namespaced)
    texts = [describe(o, store, session.now, cmd.show_events) for o in objs]
    return ("\n\n".join(texts), err) if errors else "\n\n".join(texts)

