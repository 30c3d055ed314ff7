"""What the verbs share: finding the objects a command names, printing what it did, and
writing several objects all or nothing.

``select_objects`` plays cli-runtime's resource.Builder: names are looked up one by one
(``Error from server (NotFound): pods "x" not found``), ``-l`` and ``--all`` list the type in
the namespace (or every namespace with ``-A``). ``commit_updates`` admits and validates every
changed object before writing any, so a command that fails on its third object changes
nothing — a deliberate strengthening of kubectl, which stops halfway. ``printed`` is the name
printer with kubectl's dry-run suffixes.

Not here: parsing (``parse.py``) and the verbs themselves.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..api.errors import ApiError, CommandError
from ..api.kinds import BY_KIND, KindInfo
from ..api.selector_parser import parse_selector
from ..api.selectors import LabelSelector
from ..apiserver import admission, validation
from ..views import serialize
from .parse import Target, dry_run_suffix


def selector_of(text: str) -> LabelSelector | None:
    return parse_selector(text) if text else None


def _sorted(objs: list[Any]) -> list[Any]:
    return sorted(objs, key=lambda o: (o.metadata.namespace, o.metadata.name))


def list_kind(store: Any, info: KindInfo, namespace: str | None,
              selector: LabelSelector | None) -> list[Any]:
    """Every object of a kind in ``namespace`` (None: all), filtered by ``selector``."""
    objs = store.list(info.kind, namespace if info.namespaced else None)
    if selector is not None:
        objs = [o for o in objs if selector.matches(o.metadata.labels)]
    return objs if info.kind == "Event" else _sorted(objs)


def get_object(store: Any, info: KindInfo, name: str, namespace: str) -> Any:
    obj = store.get(info.kind, name, namespace if info.namespaced else "")
    if obj is None:
        raise ApiError.not_found(info.display_resource, name)
    return obj


def select_objects(store: Any, targets: Sequence[Target], namespace: str,
                   all_namespaces: bool = False, selector: LabelSelector | None = None,
                   ignore_not_found: bool = False) -> list[Any]:
    """The objects the resource arguments name, in argument order (lists sorted)."""
    out: list[Any] = []
    for t in targets:
        if t.names:
            if selector is not None:
                raise CommandError("name cannot be provided when a selector is specified")
            for name in t.names:
                obj = store.get(t.info.kind, name, namespace if t.info.namespaced else "")
                if obj is None:
                    if ignore_not_found:
                        continue
                    raise ApiError.not_found(t.info.display_resource, name)
                out.append(obj)
        else:
            out.extend(list_kind(store, t.info, None if all_namespaces else namespace, selector))
    return out


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


def commit_updates(store: Any, objs: Sequence[Any], dry_run: str = "none") -> list[Any]:
    """Admit and validate every object against its stored version, then (unless a dry run)
    write them all. Either every write happens or none does."""
    checked = []
    for obj in objs:
        old = store.get(obj.kind, obj.metadata.name, obj.metadata.namespace)
        if old is None:
            raise ApiError.not_found(BY_KIND[obj.kind].display_resource, obj.metadata.name)
        merged = admission.admit_update(store, old, obj)
        validation.validate(store, merged, old)
        checked.append(merged)
    if dry_run != "none":
        return checked
    return [store.update(o, validate=False) for o in checked]


def component(session: Any, name: str, what: str, missing: str) -> Any:
    """A control-plane component, or kubectl-style word that it is not built yet."""
    comp = session.cp.component(name)
    if comp is None:
        raise CommandError(f'"{what}" is not available yet: {missing}')
    return comp


def no_resources(namespace: str | None, namespaced: bool) -> str:
    """``kubectl get``'s empty answer (printed on stderr by kubectl, exit status 0; here it is
    output, so that ``CommandResult.error`` stays empty for every success)."""
    if namespace is None or not namespaced:
        return "No resources found\n"
    return f"No resources found in {namespace} namespace.\n"
