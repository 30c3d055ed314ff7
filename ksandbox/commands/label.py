"""``kubectl label``: add, change (``--overwrite``), remove (``key-``) and list labels.

A port of ``kubernetes/kubectl`` ``pkg/cmd/label/label.go``: resources first, then label
changes (cmdutil.GetResourcesAndPairs: a word is a change if it holds ``=`` not in first place
or ends in ``-``); values are checked by kubectl (``invalid label value: "k=bad value": ...``),
keys by the API server (``The Pod "x" is invalid: metadata.labels: ...``). Setting a label to
the value it already has is not an overwrite (upstream #105936).

Output words: ``labeled``, ``unlabeled``, ``not labeled``, and ``modified`` when one command
both adds and removes labels (upstream #134849); ``label "x" not found.`` precedes the result
when a removed label was absent.

Several objects are visited one by one as kubectl's builder does with ``ContinueOnError``
(RunLabel): an object that is missing or whose change fails (``'k' already has a value``,
validation) is reported and the others are still labeled; each object's own change is atomic
and validated. Errors are printed as kubectl's CheckErr prints the visitor's aggregate
(``common.format_errors``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs

from ..api.codec import EMPTY, FrozenDict
from ..api.errors import CommandError, KsandboxError
from ..api.validation import is_valid_label_value
from .common import check_output, printed, select_each, selector_of, visit_each
from .parse import (
    ALL,
    ALL_NAMESPACES,
    BOOL,
    DRY_RUN,
    NAMESPACE,
    OUTPUT,
    OVERWRITE,
    SELECTOR,
    Args,
    Flag,
    Target,
    dry_run_strategy,
    namespace_of,
    parse_flags,
    parse_targets,
)

if TYPE_CHECKING:
    from ..session import Session

FLAGS = (NAMESPACE, ALL_NAMESPACES, SELECTOR, ALL, OVERWRITE, OUTPUT, DRY_RUN,
         Flag("list", BOOL, "", False))

LABELED, UNLABELED, NOT_LABELED, MODIFIED = "labeled", "unlabeled", "not labeled", "modified"


@attrs.frozen
class LabelCommand:
    targets: tuple[Target, ...]
    add: tuple[tuple[str, str], ...]
    remove: tuple[str, ...]
    namespace: str = "default"
    all_namespaces: bool = False
    selector: str = ""
    all: bool = False
    overwrite: bool = False
    list: bool = False
    dry_run: str = "none"
    output: str = ""


def split_resources_and_pairs(args: tuple[str, ...], pair_type: str) -> tuple[list, list]:
    """cmdutil.GetResourcesAndPairs."""
    resources, pairs = [], []
    for s in args:
        non_resource = ("=" in s and not s.startswith("=")) or (s.endswith("-") and s != "-")
        if non_resource:
            pairs.append(s)
        elif pairs:
            raise CommandError(f"all resources must be specified before {pair_type} "
                               f"changes: {s}")
        else:
            resources.append(s)
    return resources, pairs


def parse_labels(specs: list[str]) -> tuple[dict[str, str], list[str]]:
    """label.go parseLabels."""
    labels: dict[str, str] = {}
    remove: list[str] = []
    for spec in specs:
        if "=" in spec:
            parts = spec.split("=")
            if len(parts) != 2:
                raise CommandError(f"invalid label spec: {spec}")
            errs = is_valid_label_value(parts[1])
            if errs:
                raise CommandError(f"invalid label value: {json.dumps(spec)}: {';'.join(errs)}")
            labels[parts[0]] = parts[1]
        elif spec.endswith("-"):
            remove.append(spec[:-1])
        else:
            raise CommandError(f"unknown label spec: {spec}")
    if any(r in labels for r in remove):
        raise CommandError("can not both modify and remove a label in the same command")
    return labels, remove


def parse(tokens: list[str]) -> LabelCommand:
    a: Args = parse_flags("label", tokens, FLAGS)
    resources, pairs = split_resources_and_pairs(a.positionals, "label")
    add, remove = parse_labels(pairs)
    if a["list"] and a["output"]:
        raise CommandError("--list and --output may not be specified together")
    check_output("label", a["output"])
    dry_run = dry_run_strategy(a)
    if a["all"] and a["selector"]:
        raise CommandError("cannot set --all and --selector at the same time")
    if not resources:
        raise CommandError("one or more resources must be specified as <resource> <name> or "
                           "<resource>/<name>")
    if not add and not remove and not a["list"]:
        raise CommandError("at least one label update is required")
    targets = parse_targets("label", resources)
    if not any(t.names for t in targets) and not a["selector"] and not a["all"]:
        raise CommandError("resource(s) were provided, but no name, label selector, or --all "
                           "flag specified")
    selector_of(a["selector"])
    return LabelCommand(targets, tuple(add.items()), tuple(remove), namespace_of(a),
                        a["all-namespaces"], a["selector"], a["all"], a["overwrite"],
                        a["list"], dry_run, a["output"])


def _relabel(obj: Any, cmd: LabelCommand) -> tuple[dict[str, str], str]:
    old = dict(obj.metadata.labels)
    if not cmd.overwrite:
        clashes = [f"'{k}' already has a value ({old[k]}), and --overwrite is false"
                   for k, v in cmd.add if k in old and old[k] != v]
        if clashes:
            raise CommandError(clashes[0] if len(clashes) == 1
                               else "[" + ", ".join(clashes) + "]")
    new = dict(old)
    added = False
    for k, v in cmd.add:
        added = added or new.get(k) != v
        new[k] = v
    removed = False
    for k in cmd.remove:
        removed = removed or k in new
        new.pop(k, None)
    if new == old:
        word = NOT_LABELED
    elif added and removed:
        word = MODIFIED
    elif removed:
        word = UNLABELED
    else:
        word = LABELED
    return new, word


def run(session: Session, cmd: LabelCommand, stdin: str | None) -> tuple[str, str]:
    store = session.store
    items = select_each(store, cmd.targets, cmd.namespace, cmd.all_namespaces,
                        selector_of(cmd.selector))
    single = len(items) == 1 and all(t.names for t in cmd.targets)

    def list_labels(obj: Any) -> str:
        new, _ = _relabel(obj, cmd)
        out, indent = [], ""
        if not single:
            indent = " "
            group = obj.api_version.split("/")[0] if "/" in obj.api_version else ""
            out.append(f"Listing labels for {obj.kind}.{group}/{obj.metadata.name}:\n")
        out.extend(f"{indent}{k}={new[k]}\n" for k in sorted(new))
        return "".join(out)

    def label(obj: Any) -> str:
        # RunLabel prints the absent labels before it changes (or fails to change) the object.
        missing = "".join(f"label {json.dumps(k)} not found.\n" for k in cmd.remove
                          if k not in obj.metadata.labels) if cmd.dry_run == "none" else ""
        try:
            new, word = _relabel(obj, cmd)
            meta = attrs.evolve(obj.metadata, labels=FrozenDict(new) if new else EMPTY)
            [written] = store.update_all([attrs.evolve(obj, metadata=meta)],
                                         dry_run=cmd.dry_run != "none")
        except KsandboxError as exc:
            exc.printed_before = missing  # type: ignore[attr-defined]
            raise
        return missing + printed(written, word, cmd.output, cmd.dry_run)

    return visit_each(items, list_labels if cmd.list else label)
