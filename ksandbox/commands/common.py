"""What the verbs share: finding the objects a command names and printing what it did.

``select_objects`` plays cli-runtime's resource.Builder: names are looked up one by one
(``Error from server (NotFound): pods "x" not found``), ``-l`` and ``--all`` list the type in
the namespace (or every namespace with ``-A``). Commands write through the store's own
operations, as controllers do: ``store.update_all(objs, dry_run=...)`` admits and validates
every changed object before writing any, so a command that fails on its third object changes
nothing (used where kubectl has one object, or where the sandbox wants all or nothing).
Verbs whose kubectl builder uses ``ContinueOnError`` (``taint``, ``label``) instead go object
by object with ``select_each`` and ``visit_each``: each object's change is atomic and
validated, a failing object is reported and the others are still written, and the collected
errors are printed the way kubectl's CheckErr prints the visitor's aggregate
(``format_errors``). ``printed`` is the name printer with kubectl's dry-run suffixes.

Not here: parsing (``parse.py``) and the verbs themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..api.errors import ApiError, CommandError, KsandboxError, ValidationError, error_line
from ..api.kinds import BY_KIND, KindInfo
from ..api.selector_parser import parse_selector
from ..api.selectors import LabelSelector
from ..views import serialize
from .parse import Target, dry_run_suffix

if TYPE_CHECKING:
    from ..apiserver.store import Store


def selector_of(text: str) -> LabelSelector | None:
    return parse_selector(text) if text else None


def _sorted(objs: list[Any]) -> list[Any]:
    return sorted(objs, key=lambda o: (o.metadata.namespace, o.metadata.name))


def list_kind(store: Store, info: KindInfo, namespace: str | None,
              selector: LabelSelector | None) -> list[Any]:
    """Every object of a kind in ``namespace`` (None: all), filtered by ``selector``."""
    objs = store.list(info.kind, namespace if info.namespaced else None)
    if selector is not None:
        objs = [o for o in objs if selector.matches(o.metadata.labels)]
    return objs if info.kind == "Event" else _sorted(objs)


def lookup(store: Store, info: KindInfo, name: str, namespace: str) -> Any | None:
    """One object by name (None if absent). Events live in the store's event log rather
    than its object table, so they are found by listing their namespace."""
    if info.kind == "Event":
        return next((e for e in store.list("Event", namespace) if e.metadata.name == name),
                    None)
    return store.get(info.kind, name, namespace if info.namespaced else "")


def get_object(store: Store, info: KindInfo, name: str, namespace: str) -> Any:
    obj = lookup(store, info, name, namespace)
    if obj is None:
        raise ApiError.not_found(info.display_resource, name)
    return obj


def select_objects(store: Store, targets: Sequence[Target], namespace: str,
                   all_namespaces: bool = False, selector: LabelSelector | None = None,
                   ignore_not_found: bool = False) -> list[Any]:
    """The objects the resource arguments name, in argument order (lists sorted)."""
    out: list[Any] = []
    for t in targets:
        if t.names:
            if selector is not None:
                raise CommandError("name cannot be provided when a selector is specified")
            for name in t.names:
                obj = lookup(store, t.info, name, namespace)
                if obj is None:
                    if ignore_not_found:
                        continue
                    raise ApiError.not_found(t.info.display_resource, name)
                out.append(obj)
        else:
            out.extend(list_kind(store, t.info, None if all_namespaces else namespace, selector))
    return out


def select_each(store: Store, targets: Sequence[Target], namespace: str,
                all_namespaces: bool = False,
                selector: LabelSelector | None = None) -> list[Any]:
    """As :func:`select_objects`, but a name that does not exist is an :class:`ApiError` in
    its place in the list instead of ending the command (the builder's ContinueOnError)."""
    out: list[Any] = []
    for t in targets:
        if t.names:
            if selector is not None:
                raise CommandError("name cannot be provided when a selector is specified")
            for name in t.names:
                obj = lookup(store, t.info, name, namespace)
                out.append(obj if obj is not None
                           else ApiError.not_found(t.info.display_resource, name))
        else:
            out.extend(list_kind(store, t.info, None if all_namespaces else namespace, selector))
    return out


def visit_each(items: Sequence[Any], fn: Callable[[Any], str]) -> tuple[str, str]:
    """cli-runtime's ContinueOnErrorVisitor: ``fn(obj)`` for every object (its printed lines),
    an error (an item that is an exception, or what ``fn`` raises) is kept and the visit goes
    on. A raised error may carry ``printed_before``: what kubectl had already printed for that
    object before it failed (label's ``label "x" not found.``). Returns (output, error)."""
    out: list[str] = []
    errors: list[KsandboxError] = []
    for item in items:
        if isinstance(item, KsandboxError):
            errors.append(item)
            continue
        try:
            out.append(fn(item))
        except KsandboxError as exc:
            note = getattr(exc, "printed_before", "")
            if note:
                out.append(note)
            errors.append(exc)
    return "".join(out), format_errors(errors)


def _message(exc: KsandboxError) -> str:
    """cmdutil messageForError: one error of an aggregate, with no ``error:`` prefix."""
    if isinstance(exc, ValidationError):
        info = BY_KIND.get(exc.kind)
        kind = f"{exc.kind}.{info.group}" if info is not None and info.group else exc.kind
        detail = str(exc).split(" is invalid: ", 1)[1]
        return f'Error from server (Invalid): {kind} "{exc.name}" is invalid: {detail}'
    if isinstance(exc, CommandError):
        return exc.message.rstrip() + ("\n" + exc.hint.rstrip("\n") if exc.hint else "")
    return str(exc)


def format_errors(errors: Sequence[KsandboxError]) -> str:
    """What kubectl's CheckErr prints for the visitor's result: one error as usual
    (``error: ...``, ``Error from server ...``, ``The Node "x" is invalid: ...``); several
    (an aggregate) one a line, each without the ``error:`` prefix."""
    if not errors:
        return ""
    if len(errors) == 1:
        exc = errors[0]
        if isinstance(exc, CommandError):
            text = error_line(exc) + "\n"
            return text + (exc.hint.rstrip("\n") + "\n" if exc.hint else "")
        if isinstance(exc, ValidationError):
            return exc.kubectl_text()
        if isinstance(exc, ApiError):
            return f"{exc}\n"
        return error_line(exc) + "\n"
    return "".join(_message(e) + "\n" for e in errors)


def printed(obj: Any, operation: str, output: str = "", dry_run: str = "none") -> str:
    """cli-runtime's name printer: ``deployment.apps/web scaled (dry run)``; ``-o name``
    drops the operation; ``-o yaml|json`` prints the object."""
    if output == "name":
        return serialize.name_of(obj) + "\n"
    if output in ("yaml", "json"):
        return serialize.render([obj], output, single=True)
    return f"{serialize.name_of(obj)} {operation}{dry_run_suffix(dry_run)}\n"


def check_output(verb: str, output: str, allowed: Sequence[str] = ("", "name", "yaml",
                                                                    "json")) -> None:
    if output not in allowed:
        formats = ",".join(sorted(a for a in allowed if a))
        raise CommandError(f'unable to match a printer suitable for the output format '
                           f'"{output}", allowed formats are: {formats}')


def no_resources(namespace: str | None, namespaced: bool) -> str:
    """``kubectl get``'s empty answer (printed on stderr by kubectl, exit status 0; here it is
    output, so that ``CommandResult.error`` stays empty for every success)."""
    if namespace is None or not namespaced:
        return "No resources found\n"
    return f"No resources found in {namespace} namespace.\n"
