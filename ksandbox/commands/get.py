"""``kubectl get``: tables and whole objects, read from the store.

get (``kubernetes/kubectl`` ``pkg/cmd/get/get.go``): tables (``ksandbox.views.printers``),
``-o wide|name|yaml|json``, ``-A``, ``-l``, ``--show-labels``, ``--no-headers``,
``--ignore-not-found``, several types at once (``pods,deployments``, or ``all``) with
``kind/name`` names; names that are not found are reported after the rest is printed, as
kubectl does. An empty answer is kubectl's ``No resources found in default namespace.`` — on
stderr for kubectl, in ``output`` here so that a success never carries an error.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Callable

import attrs

from ..api.errors import ApiError, CommandError
from ..api.kinds import BY_KIND
from ..api.quantity import Quantity, QuantityError
from ..views import jsonpath, serialize
from ..views.printers import PrintOptions, render_table
from ..views.table import format_table
from . import fieldselector
from .common import list_kind, lookup, no_resources, selector_of
from .parse import (
    ALL_NAMESPACES,
    BOOL,
    LIST,
    NAMESPACE,
    OUTPUT,
    SELECTOR,
    STR,
    Flag,
    Target,
    namespace_of,
    parse_flags,
    parse_targets,
)

if TYPE_CHECKING:
    from ..session import Session

# `kubectl get all`: the "all" category (the resources whose discovery lists "all"), in the
# order kubectl prints them.
ALL_CATEGORY = ("Pod", "ReplicationController", "Service", "DaemonSet", "Deployment",
                "ReplicaSet", "StatefulSet", "HorizontalPodAutoscaler", "CronJob", "Job")
PRINTER_FORMATS = ("custom-columns", "custom-columns-file", "go-template", "go-template-file",
                   "json", "jsonpath", "jsonpath-as-json", "jsonpath-file", "name", "template",
                   "templatefile", "wide", "yaml")
SUGGEST_API_RESOURCES = 'Use "kubectl api-resources" for a complete list of supported resources.'


class MissingResourceType(CommandError):
    """get's long-winded "You must specify the type of resource" error (with a preamble)."""

    preamble = f"You must specify the type of resource to get. {SUGGEST_API_RESOURCES}\n\n"


@attrs.frozen
class GetCommand:
    targets: tuple[Target, ...]
    namespace: str = "default"
    all_namespaces: bool = False
    selector: str = ""
    output: str = ""
    show_labels: bool = False
    no_headers: bool = False
    ignore_not_found: bool = False
    field_selector: str = ""
    label_columns: tuple[str, ...] = ()
    sort_by: str = ""


def targets_of(verb: str, positionals: tuple[str, ...]) -> tuple[Target, ...]:
    if positionals and positionals[0].lower() == "all":
        return tuple(Target(BY_KIND[k], tuple(positionals[1:])) for k in ALL_CATEGORY)
    if positionals and "," in positionals[0] and \
            "all" in (w.lower() for w in positionals[0].split(",")):
        # `get all,cm,sa`: the category expands in place, each type listed once.
        words: list[str] = []
        for w in positionals[0].split(","):
            for x in ([BY_KIND[k].resource for k in ALL_CATEGORY] if w.lower() == "all"
                      else [w]):
                if x not in words:
                    words.append(x)
        positionals = (",".join(words),) + tuple(positionals[1:])
    return parse_targets(verb, positionals)


_NO_WATCH = "a command never moves the simulated clock; the TUI's views are live"


def parse_get(tokens: list[str]) -> GetCommand:
    flags = (NAMESPACE, ALL_NAMESPACES, SELECTOR, OUTPUT, Flag("show-labels", BOOL, "", False),
             Flag("no-headers", BOOL, "", False), Flag("ignore-not-found", BOOL, "", False),
             Flag("field-selector", STR, "", ""), Flag("label-columns", LIST, "L", ()),
             Flag("sort-by", STR, "", ""),
             Flag("watch", BOOL, "w", False, unsupported=_NO_WATCH),
             Flag("watch-only", BOOL, "", False, unsupported=_NO_WATCH))
    a = parse_flags("get", tokens, flags)
    if not a.positionals:
        raise MissingResourceType(
            "Required resource not specified.\nUse \"kubectl explain <resource>\" for a "
            "detailed description of that resource (e.g. kubectl explain pods).",
            hint="See 'kubectl get -h' for help and examples")
    output = a["output"]
    fmt = output.split("=", 1)[0]
    if output and fmt not in PRINTER_FORMATS:
        raise CommandError(f'unable to match a printer suitable for the output format "{output}"'
                           f', allowed formats are: {",".join(PRINTER_FORMATS)}')
    if fmt in ("jsonpath", "custom-columns"):
        _check_template(fmt, output.partition("=")[2])
    elif output not in ("", "wide", "name", "yaml", "json"):
        raise CommandError(f'output format "{output}" is not supported by ksandbox (use wide, '
                           'name, yaml, json, jsonpath or custom-columns)')
    selector_of(a["selector"])
    fieldselector.parse(a["field-selector"])
    if a["sort-by"]:
        _check_template("jsonpath", jsonpath.relaxed(a["sort-by"]))
    return GetCommand(targets_of("get", a.positionals), namespace_of(a), a["all-namespaces"],
                      a["selector"], output, a["show-labels"], a["no-headers"],
                      a["ignore-not-found"], a["field-selector"],
                      tuple(c for c in a["label-columns"] if c), a["sort-by"])


def _natural(text: str) -> tuple[tuple[int, str, int], ...]:
    """sortorder.NaturalLess as a key: a run of digits compares by its value with a run of
    digits, and as its first character (a digit) with anything else."""
    return tuple((1, "", int(run)) if run[0].isdigit() else (0 if run < "0" else 2, run, 0)
                 for run in re.findall(r"\d+|\D+", text))


def sorted_by(objs: list[Any], field: str) -> list[Any]:
    """--sort-by (kubectl get/sorter.go SortObjects, RuntimeSort): each object's first value at
    the relaxed JSONPath; numbers by value, strings in natural order, or by amount when they
    are quantities (isLess parses two strings as quantities before it compares them as text:
    512Mi before 1Gi); an object without the field first; equal values keep the list's order.
    A field no object has is an error."""
    relaxed = jsonpath.relaxed(field)
    path = relaxed[1:-1]

    def first(obj: Any) -> Any:
        data = serialize.to_manifest(obj)
        values = jsonpath.evaluate(path, data, data)
        return values[0] if values else None

    values = [first(o) for o in objs]
    if objs and all(v is None for v in values):
        raise CommandError(f'couldn\'t find any field with path "{relaxed}" in the list of '
                           "objects")
    # Upstream compares pair by pair: here the strings are quantities when every one parses
    # (the same order; a list that mixes the two has no consistent order upstream either).
    amounts = _amounts([v for v in values if isinstance(v, str)])

    def key(v: Any) -> tuple[Any, ...]:
        if v is None:
            return (0,)
        if isinstance(v, str):
            return (2, 0, amounts[v]) if amounts is not None else (2, 1, _natural(v))
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return (2, 1, _natural(json.dumps(v, sort_keys=True)))
        return (1, v)

    keys = [key(v) for v in values]
    order = sorted(range(len(objs)), key=keys.__getitem__)
    return [objs[i] for i in order]


def _amounts(texts: list[str]) -> dict[str, Quantity] | None:
    """Each text as a quantity (resource.ParseQuantity), or None if one is not."""
    try:
        return {t: Quantity.parse(t) for t in texts}
    except QuantityError:
        return None


def _check_template(fmt: str, spec: str) -> None:
    """Parse a jsonpath template or custom-columns spec now, so a bad one is kubectl's error
    before anything is listed."""
    if not spec:
        raise CommandError(f"{'template' if fmt == 'jsonpath' else 'custom-columns format'} "
                           f"format specified but no {'template' if fmt == 'jsonpath' else 'custom-columns'} given")
    try:
        if fmt == "jsonpath":
            jsonpath.render(spec, {})
        else:
            _columns(spec)
    except jsonpath.JSONPathError as err:
        raise CommandError(f"error parsing jsonpath {spec}, {err}") from None


def _columns(spec: str) -> list[tuple[str, str]]:
    """custom-columns: ``HEADER:.path`` pairs (printers/customcolumn.go NewCustomColumnsPrinterFromSpec)."""
    out = []
    for part in spec.split(","):
        header, sep, path = part.partition(":")
        if not sep or not header:
            raise CommandError(f'unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>')
        template = jsonpath.relaxed(path)
        jsonpath.render(template, {})
        out.append((header, template))
    return out


def go_value(value: Any, float_text: Callable[[float], str] = str) -> str:
    """fmt's %v of a decoded JSON value: ``map[k:v ...]`` (keys sorted), ``[a b]``,
    ``<nil>``; what customcolumn.go prints a column's value with. ``float_text`` writes a float
    (commands/patch passes Go's shortest 'g' form for its error values)."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_value(value[k], float_text)}"
                                 for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_value(v, float_text) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return float_text(value)
    return str(value)


def _cell(template: str, data: Any) -> str:
    """customcolumn.go: every value the column's path reaches, each as %v, joined with
    commas; none is <none>."""
    values = jsonpath.evaluate(template[1:-1], data, data)
    return ",".join(go_value(v) for v in values) if values else "<none>"


def _templated(objs: list[Any], output: str, single: bool) -> str:
    fmt, _, spec = output.partition("=")
    if fmt == "jsonpath":
        data = serialize.to_manifest(objs[0]) if single else serialize.list_of(objs)
        return jsonpath.render(spec, data)
    cols = _columns(spec)
    rows = [[h for h, _ in cols]]
    for o in objs:
        data = serialize.to_manifest(o)
        cells = []
        for _, template in cols:
            cells.append(_cell(template, data))
        rows.append(cells)
    return format_table(rows)


def run_get(session: Session, cmd: GetCommand, stdin: str | None) -> tuple[str, str]:
    store = session.store
    selector = selector_of(cmd.selector)
    ns = None if cmd.all_namespaces else cmd.namespace
    terms = fieldselector.parse(cmd.field_selector)
    found: list[tuple[Any, list[Any]]] = []
    errors: list[str] = []
    for t in cmd.targets:
        if t.names:
            objs = []
            for name in t.names:
                obj = lookup(store, t.info, name, cmd.namespace)
                if obj is None:
                    if not cmd.ignore_not_found:
                        errors.append(str(ApiError.not_found(t.info.display_resource, name)))
                    continue
                objs.append(obj)
        else:
            objs = fieldselector.filter_objects(list_kind(store, t.info, ns, selector), t.info,
                                                terms, cmd.field_selector)
        if cmd.sort_by:
            objs = sorted_by(objs, cmd.sort_by)
        found.append((t.info, objs))
    err = "".join(e + "\n" for e in errors)
    everything = [o for _, objs in found for o in objs]
    if cmd.output.startswith(("jsonpath=", "custom-columns=")) and (everything or not errors):
        single = len(cmd.targets) == 1 and len(cmd.targets[0].names) == 1
        if not everything and cmd.output.startswith("custom-columns="):
            return no_resources(ns, any(info.namespaced for info, _ in found)), err
        try:
            return _templated(everything, cmd.output, single and len(everything) == 1), err
        except jsonpath.JSONPathError as exc:
            raise CommandError(f"error executing jsonpath {cmd.output.partition('=')[2]!r}: "
                               f"{exc}") from None
    if everything and cmd.output in ("yaml", "json", "name") or \
            cmd.output in ("yaml", "json") and not errors:
        single = len(cmd.targets) == 1 and len(cmd.targets[0].names) == 1
        return serialize.render(everything, cmd.output, single), err
    if not everything:
        if errors or cmd.ignore_not_found:
            return "", err
        namespaced = any(info.namespaced for info, _ in found)
        return no_resources(ns, namespaced), err
    kinds = {info.kind for info, _ in found}
    options = PrintOptions(wide=cmd.output == "wide", with_namespace=cmd.all_namespaces,
                           show_labels=cmd.show_labels, no_headers=cmd.no_headers,
                           kind_prefix=len(kinds) > 1, label_columns=cmd.label_columns)
    tables = [render_table(info.kind, objs, session.now, options)
              for info, objs in found if objs]
    return "\n".join(tables), err
