"""``kubectl delete``: by name, ``-l``, ``--all`` or ``-f``; graceful, ``--now`` or ``--force``.

Flags and checks follow ``kubernetes/kubectl`` ``pkg/cmd/delete/delete.go`` (Complete,
Validate, PrintObj): ``--now`` is a grace period of 1; ``--grace-period=0`` without ``--force``
becomes 1; ``--force`` alone means 0 and prints kubectl's immediate-deletion warning. Output is
``pod "web-1" deleted from default namespace`` (the namespace phrase since kubectl v1.34,
upstream #126619), ``node "n1" deleted``, ``force deleted``, with ``(dry run)`` suffixes, or
``No resources found`` when a selector matches nothing.

The API server part is ``Store.delete``: a bound pod gets a deletion timestamp and its kubelet
removes it when the grace period ends. Cascading deletion (``--cascade=background``, the
default) is done here synchronously — dependents with an owner reference to a deleted object
go too (the sandbox runs no garbage collector). Deleting a namespace deletes what is in
it; the built-in namespaces cannot be deleted. Every name is looked up before anything is
deleted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import ApiError, CommandError, KsandboxError
from ..api.kinds import BY_KIND
from .common import format_errors, select_each, selector_of
from .parse import (
    ALL,
    ALL_NAMESPACES,
    BOOL,
    DRY_RUN,
    FILENAME,
    INT,
    NAMESPACE,
    OUTPUT,
    SELECTOR,
    STR,
    Flag,
    Target,
    dry_run_strategy,
    namespace_of,
    parse_flags,
    parse_targets,
)

if TYPE_CHECKING:
    from ..apiserver.store import Store
    from ..session import Session

FLAGS = (NAMESPACE, ALL_NAMESPACES, SELECTOR, ALL, FILENAME, OUTPUT, DRY_RUN,
         Flag("grace-period", INT, "", -1), Flag("force", BOOL, "", False),
         Flag("now", BOOL, "", False), Flag("ignore-not-found", BOOL, "", False),
         Flag("wait", BOOL, "", True), Flag("cascade", STR, "", "background"),
         Flag("timeout", STR, "", "0s"))

FORCE_WARNING = ("Warning: Immediate deletion does not wait for confirmation that the running "
                 "resource has been terminated. The resource may continue to run on the "
                 "cluster indefinitely.")
# NamespaceLifecycle admission: namespaces that may never be deleted.
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
MISSING_RESOURCES = ("You must provide one or more resources by argument or filename.\n"
                     "Example resource specifications include:\n   '-f rsrc.yaml'\n"
                     "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")


@attrs.frozen
class DeleteCommand:
    targets: tuple[Target, ...] = ()
    filenames: tuple[str, ...] = ()
    namespace: str = "default"
    namespace_given: bool = False
    all_namespaces: bool = False
    selector: str = ""
    all: bool = False
    grace_period: int = -1
    force: bool = False
    ignore_not_found: bool = False
    cascade: str = "background"
    dry_run: str = "none"
    output: str = ""


def parse(tokens: list[str]) -> DeleteCommand:
    a = parse_flags("delete", tokens, FLAGS)
    grace = a["grace-period"]
    if a["now"]:
        if grace != -1:
            raise CommandError("--now and --grace-period cannot be specified together")
        grace = 1
    if grace == 0 and not a["force"]:
        grace = 1  # kubectl's guard against accidental immediate deletion
    if a["force"] and grace < 0:
        grace = 0
    dry_run = dry_run_strategy(a)
    files = tuple(f for f in a["filename"] if f)
    if files and a.positionals:
        raise CommandError("when paths, URLs, or stdin is provided as input, you may not "
                           "specify resource arguments as well")
    targets = parse_targets("delete", a.positionals)
    if not targets and not files:
        raise CommandError(MISSING_RESOURCES)
    if targets and not any(t.names for t in targets) and not a["selector"] and not a["all"]:
        raise CommandError("resource(s) were provided, but no name, label selector, or --all "
                           "flag specified")
    if a["output"] not in ("", "name"):
        raise CommandError(f"unexpected -o output mode: {a['output']}. We only support "
                           "'-o name'")
    if a["all"] and a["selector"]:
        raise CommandError("cannot set --all and --selector at the same time")
    if a["force"] and grace > 0:
        raise CommandError("--force and --grace-period greater than 0 cannot be specified "
                           "together")
    if a["cascade"] not in ("background", "foreground", "orphan", "true", "false"):
        raise CommandError(f'invalid cascade value ({a["cascade"]}). Must be "background", '
                           '"foreground", or "orphan".')
    selector_of(a["selector"])
    ignore = a["ignore-not-found"] or (not a.has("ignore-not-found")
                                       and (a["all"] or bool(a["selector"])))
    return DeleteCommand(targets, files, namespace_of(a), a.has("namespace"),
                         a["all-namespaces"], a["selector"], a["all"], grace, a["force"],
                         ignore, a["cascade"], dry_run, a["output"])


def _from_files(session: Session, cmd: DeleteCommand, stdin: str | None) -> list[Any]:
    from .apply import load_inputs, namespace_for

    found = []
    for obj in load_inputs(cmd.filenames, stdin, "delete"):
        info = BY_KIND[obj.kind]
        ns = namespace_for(obj, cmd.namespace, cmd.namespace_given) if info.namespaced else ""
        current = session.store.get(obj.kind, obj.metadata.name, ns)
        if current is None:
            if cmd.ignore_not_found:
                continue
            raise ApiError.not_found(info.display_resource, obj.metadata.name)
        found.append(current)
    return found


# Kinds whose objects own others through controller references (the garbage collector's
# graph as far as the sandbox models it).
OWNER_KINDS = frozenset({"Deployment", "ReplicaSet", "ReplicationController", "DaemonSet"})
DEPENDENT_KINDS = ("ReplicaSet", "Pod")


def _owner_index(store: Store) -> dict[str, list[Any]]:
    """owner uid -> objects with an owner reference to it (built once per command)."""
    index: dict[str, list[Any]] = {}
    for kind in DEPENDENT_KINDS:
        for obj in store.list(kind):
            for ref in obj.metadata.owner_references:
                index.setdefault(ref.uid, []).append(obj)
    return index


def _dependents(owner: Any, index: dict[str, list[Any]]) -> list[Any]:
    """What the garbage collector would delete after ``owner`` (background propagation)."""
    out = []
    for obj in index.get(owner.metadata.uid, ()):
        out.append(obj)
        out.extend(_dependents(obj, index))
    return out


def _line(obj: Any, cmd: DeleteCommand) -> str:
    info = BY_KIND[obj.kind]
    if cmd.output == "name":
        return f"{info.qualified}/{obj.metadata.name}\n"
    op = "force deleted" if cmd.grace_period == 0 else "deleted"
    where = f" from {obj.metadata.namespace} namespace" if info.namespaced else ""
    suffix = {"client": " (dry run)", "server": " (server dry run)"}.get(cmd.dry_run, "")
    return f'{info.qualified} "{obj.metadata.name}" {op}{where}{suffix}\n'


def run(session: Session, cmd: DeleteCommand, stdin: str | None) -> str | tuple[str, str]:
    store = session.store
    missing: list[KsandboxError] = []
    if cmd.filenames:
        objs = _from_files(session, cmd, stdin)
    else:
        # delete.go's builder continues on error: the objects found are deleted, each name
        # that is not is a NotFound after their lines ('delete pod a nope' deletes a).
        # A name counts as found before its DELETE answers NotFound (DeleteResult's found++):
        # with --ignore-not-found, 'delete pod nope' prints nothing, not "No resources found".
        objs = []
        named = False
        for item in select_each(store, cmd.targets, cmd.namespace, cmd.all_namespaces,
                                selector_of(cmd.selector)):
            if not isinstance(item, KsandboxError):
                objs.append(item)
            elif cmd.ignore_not_found:
                named = True
            else:
                missing.append(item)
    warning = FORCE_WARNING + "\n" if cmd.grace_period == 0 and cmd.force else ""
    if not objs:
        if missing or named:
            return warning, format_errors(missing)
        return warning + "No resources found\n"
    for obj in objs:
        if obj.kind == "Namespace" and obj.metadata.name in IMMORTAL_NAMESPACES:
            raise ApiError("Forbidden", f'namespaces "{obj.metadata.name}" is forbidden: this '
                                        "namespace may not be deleted", 403)
    if cmd.dry_run == "none":
        cascade = cmd.cascade not in ("orphan", "false")
        index = _owner_index(store) if cascade and any(o.kind in OWNER_KINDS for o in objs) \
            else {}
        grace = None if cmd.grace_period < 0 else cmd.grace_period
        for obj in objs:
            _delete(store, obj, grace, index)
    out = warning + "".join(_line(o, cmd) for o in objs)
    return (out, format_errors(missing)) if missing else out


def _delete(store: Store, obj: Any, grace: int | None, index: dict[str, list[Any]]) -> None:
    ns = obj.metadata.namespace
    if store.get(obj.kind, obj.metadata.name, ns) is None:
        return  # already gone with an owner deleted earlier in this command
    dependents = _dependents(obj, index) if obj.kind in OWNER_KINDS else []
    if obj.kind == "Namespace":
        for info in BY_KIND.values():
            if info.namespaced and info.kind != "Event":
                dependents.extend(store.list(info.kind, obj.metadata.name))
    store.delete(obj.kind, obj.metadata.name, ns, grace_period=grace)
    for dep in dependents:
        if store.get(dep.kind, dep.metadata.name, dep.metadata.namespace) is not None:
            store.delete(dep.kind, dep.metadata.name, dep.metadata.namespace,
                         grace_period=grace)

