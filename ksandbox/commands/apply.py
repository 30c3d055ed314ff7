"""``kubectl apply -f FILE|-`` and ``kubectl create -f FILE|-``.

Manifests are read with ``ksandbox.api.manifest`` (multi-document YAML, ``kind: List``, a
directory's ``.yaml``/``.yml``/``.json`` files, ``-`` for the step's stdin, called ``STDIN`` in
messages as kubectl does) and written all or nothing through
``ksandbox.apiserver.store.apply_all``: one bad document, or one object that already exists
for ``create``, and nothing changes. ``-n`` fills in missing namespaces and refuses objects
that name another (kubectl's "does not match the namespace" error).

apply is client-side apply, as kubectl's default (client_apply.py): a new object is created
with its manifest in the ``kubectl.kubernetes.io/last-applied-configuration`` annotation
(``create --save-config`` too); an existing one takes kubectl's three-way strategic merge patch
of (that annotation, the new manifest, the live object), so fields others set survive and
fields the manifest dropped since the last apply go. A cluster loaded from files (``ksandbox
FILE``, ``sim -f``) is stored as the files give it, as restored from a backup or created with
``kubectl create``: no annotation (an export that carries one keeps it), so the first apply
over such an object warns that it is missing and removes nothing.

Deliberate difference from kubectl: kubectl's apply/create visit the objects with
ContinueOnError — the good objects are written and the bad ones reported. The sandbox keeps
"applying a file is atomic" (a product requirement): one refusal and nothing is written.

Dry runs: ``--dry-run=server`` applies to a throw-away copy of the store, so admission and
validation speak and ``-o yaml`` shows the admitted object. ``--dry-run=client`` sends nothing,
as upstream: ``create`` prints each object as given (``created (dry run)``; no existence
check), ``apply`` prints a new object as given (``created (dry run)``) and, for one that exists,
the live object it fetched (``configured (dry run)``; kubectl's applyOneObject skips the patch).

Output: ``deployment.apps/web created|configured|unchanged`` (apply), ``... created``
(create), in the order of the input, with ``(dry run)`` suffixes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import ApiError, CommandError, KsandboxError, RequestInvalid, ServerDecodeError
from ..api.kinds import BY_KIND
from ..api.manifest import ConfigDocument, load_manifests_with_data, read_text
from ..api.safeload import check_file_allowed
from ..apiserver.store import apply_all
from ..sim.rand import SimRandom
from . import client_apply
from .common import check_output, printed
from .parse import (
    BOOL,
    DRY_RUN,
    FILENAME,
    NAMESPACE,
    OUTPUT,
    Flag,
    dry_run_strategy,
    help_error,
    parse_flags,
)

if TYPE_CHECKING:
    from ..apiserver.store import Store
    from ..session import Session

FLAGS = (NAMESPACE, FILENAME, OUTPUT, DRY_RUN)
# kubectl create --save-config: keep the manifest in the last-applied annotation, as apply does
SAVE_CONFIG = Flag("save-config", BOOL, "", False)
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
# Create order that never trips admission (as the session's loader): namespaces and priority
# classes first, then nodes, workloads, pods.
_RANK = {"Namespace": 0, "PriorityClass": 1, "StorageClass": 1, "Node": 2,
         "PersistentVolume": 2, "PodDisruptionBudget": 3, "Service": 3,
         "PersistentVolumeClaim": 3, "Deployment": 4, "ReplicaSet": 5,
         "ReplicationController": 5, "DaemonSet": 6, "StatefulSet": 6, "CronJob": 6,
         "Job": 6, "HorizontalPodAutoscaler": 7, "Pod": 8}


@attrs.frozen
class ApplyCommand:
    filenames: tuple[str, ...]
    create: bool = False           # kubectl create -f: existing objects are an error
    namespace: str = "default"
    namespace_given: bool = False
    dry_run: str = "none"
    output: str = ""
    save_config: bool = False      # create --save-config (apply always saves it)


def parse(tokens: list[str], create: bool = False) -> ApplyCommand:
    verb = "create" if create else "apply"
    if create and tokens and not tokens[0].startswith("-"):
        # `kubectl create deployment ...` and friends: generators the sandbox does not have.
        raise CommandError(f'"kubectl create {tokens[0]}" is not supported by ksandbox; '
                           'write a manifest and use "kubectl create -f" or "kubectl apply -f"')
    a = parse_flags(verb, tokens, FLAGS + (SAVE_CONFIG,) if create else FLAGS)
    files = tuple(f for f in a["filename"] if f)
    if a.positionals:
        raise help_error(verb, f"Unexpected args: [{' '.join(a.positionals)}]")
    if not files:
        raise CommandError("must specify one of -f and -k")
    check_output(verb, a["output"])
    return ApplyCommand(files, create, a["namespace"] or "default", a.has("namespace"),
                        dry_run_strategy(a), a["output"], bool(create and a["save-config"]))


def _read(name: str, stdin: str | None) -> list[tuple[Any, Any, str]]:
    """(object, the document it came from, its file as kubectl names it) for every object of
    one ``-f``."""
    if name == "-":
        return _sourced(load_manifests_with_data(stdin or "", "STDIN"), "STDIN")
    check_file_allowed(name)   # a played recording may not even look (safeload)
    path = Path(name)
    if not path.exists():
        raise CommandError(f'the path "{name}" does not exist')
    if path.is_dir():
        objs: list[tuple[Any, Any, str]] = []
        for p in sorted(path.iterdir()):
            if p.suffix in MANIFEST_SUFFIXES and p.is_file():
                objs.extend(_sourced(load_manifests_with_data(read_text(p), str(p)), str(p)))
        return objs
    return _sourced(load_manifests_with_data(read_text(path), str(path)), str(path))


def _sourced(loaded: list[tuple[Any, Any]], source: str) -> list[tuple[Any, Any, str]]:
    return [(obj, data, source) for obj, data in loaded]


def load_inputs(filenames: tuple[str, ...], stdin: str | None, verb: str) -> list[Any]:
    """Every object of every ``-f``; component configuration documents are refused."""
    return [obj for obj, _, _ in load_inputs_with_data(filenames, stdin, verb)]


def load_inputs_with_data(filenames: tuple[str, ...], stdin: str | None,
                          verb: str) -> list[tuple[Any, Any, str]]:
    """:func:`load_inputs` with each object's document and file (``STDIN`` for ``-``)."""
    objs: list[tuple[Any, Any, str]] = []
    for name in filenames:
        for obj, data, source in _read(name, stdin):
            if isinstance(obj, ConfigDocument):
                meta = obj.data.get("metadata") if isinstance(obj.data.get("metadata"),
                                                              dict) else {}
                source = "STDIN" if name == "-" else name
                raise CommandError(f'resource mapping not found for name: '
                                   f'"{meta.get("name", "")}" namespace: "" from "{source}": '
                                   f'no matches for kind "{obj.kind}" in version '
                                   f'"{obj.api_version}"\nensure CRDs are installed first')
            objs.append((obj, data, source))
    if not objs:
        raise CommandError(f"no objects passed to {verb}")
    return objs


def namespace_for(obj: Any, namespace: str, given: bool) -> str:
    """The namespace an object from a file lands in (kubectl's enforceNamespace check)."""
    own = obj.metadata.namespace
    if own and given and own != namespace:
        raise CommandError(f'the namespace from the provided object "{own}" does not match the '
                           f'namespace "{namespace}". You must pass \'--namespace={own}\' to '
                           'perform this operation.')
    return own or namespace


def _with_namespace(obj: Any, cmd: ApplyCommand) -> Any:
    if not BY_KIND[obj.kind].namespaced:
        return obj
    ns = namespace_for(obj, cmd.namespace, cmd.namespace_given)
    if ns == obj.metadata.namespace:
        return obj
    return attrs.evolve(obj, metadata=attrs.evolve(obj.metadata, namespace=ns))


def run(session: Session, cmd: ApplyCommand, stdin: str | None) -> str:
    verb = "create" if cmd.create else "apply"
    store = session.store
    try:
        loaded = load_inputs_with_data(cmd.filenames, stdin, verb)
    except ServerDecodeError as exc:
        raise _refused_create(store, exc, cmd) from None
    objs = [_with_namespace(o, cmd) for o, _, _ in loaded]
    if cmd.dry_run == "client":
        return _client_dry_run(store, cmd, objs, [data for _, data, _ in loaded])
    target = store
    if cmd.dry_run != "none":
        # A throw-away copy: admission and validation run, nobody is notified, and the
        # session's own random stream is left untouched.
        target = store.fork(lambda: session.now, SimRandom(0))
    # kubectl warns of a missing last-applied annotation before it computes the patch: said
    # (on stderr) even when an object's patch or write then fails.
    warnings = "" if cmd.create else "".join(
        client_apply.missing_annotation_warning(target, obj) for obj in objs)
    try:
        steps, results, order = _write(target, cmd, objs, loaded)
    except KsandboxError as exc:
        if warnings:
            exc.preamble = warnings   # type: ignore[attr-defined]
        raise
    by_input: list[Any] = [None] * len(objs)
    for i, res in zip(order, results):
        by_input[i] = res
    out = []
    quiet = cmd.output in ("yaml", "json", "name")
    for step, (stored, word) in zip(steps, by_input):
        if step.warning and not quiet:
            out.append(step.warning)
        out.append(printed(stored, "created" if cmd.create else step.word or word,
                           cmd.output, cmd.dry_run))
    from ..api.kinds import stored_only_warning

    notice = stored_only_warning(o.kind for o in objs)
    if notice and not quiet:
        out.append(f"Warning: {notice}\n")
    return "".join(out)


def _write(target: Store, cmd: ApplyCommand, objs: list[Any],
           loaded: list[tuple[Any, Any, str]]) -> tuple[list[Any], list[Any], list[int]]:
    """What kubectl sends for each object, written all or nothing: (the steps, apply_all's
    results, the order they were written in). A refusal names the object's file in
    kubectl's words (client_apply.sourced)."""
    if cmd.create:
        for obj, (_, _, source) in zip(objs, loaded):
            info = BY_KIND[obj.kind]
            if obj.metadata.name and target.get(obj.kind, obj.metadata.name,
                                                obj.metadata.namespace) is not None:
                raise client_apply.sourced(
                    ApiError.already_exists(info.display_resource, obj.metadata.name),
                    client_apply.Step(obj), obj, source)
    # What kubectl sends: the manifest with its last-applied annotation for a new object
    # (apply, create --save-config), and for an existing one (apply) the live object with
    # apply's three-way patch applied (client_apply.py).
    steps = [client_apply.prepare(target, obj, data, source)
             if not cmd.create or cmd.save_config else client_apply.Step(obj)
             for obj, (_, data, source) in zip(objs, loaded)]
    order = sorted(range(len(objs)), key=lambda i: _RANK.get(objs[i].kind, 9))
    try:
        results = apply_all(target, [steps[i].obj for i in order], whole=True)
    except KsandboxError as exc:
        index = getattr(exc, "object_index", None)
        if index is None:
            raise
        i = order[index]
        raise client_apply.sourced(exc, steps[i], objs[i], loaded[i][2]) from None
    return steps, results, order


def _refused_create(store: Store, exc: ServerDecodeError, cmd: ApplyCommand) -> Exception:
    """A document the API server cannot decode, as kubectl says it: for an object to be
    created (always for ``create``), the server's 400 behind "error when creating" and the
    file (create.go / apply.go AddSourceToErr). An apply of an existing object sends the
    patch kubectl computes from the document as read (kubectl does not decode it into the
    type): a value of the wrong kind or type is the server's "The request is invalid: patch:
    ..." (client_apply.prepare). Any other refusal keeps the loader's words."""
    info = BY_KIND.get(exc.kind)
    namespace = (exc.namespace or cmd.namespace) if info is not None and info.namespaced else ""
    live = store.get(exc.kind, exc.name, namespace) if exc.name else None
    if cmd.create or live is None:
        return ApiError("BadRequest", f'error when creating "{exc.source}": {exc.answer}')
    if isinstance(exc.data, dict):
        try:
            client_apply.prepare(store, live, exc.data, exc.source)
        except RequestInvalid as refused:
            return refused
        except KsandboxError:
            pass
    return exc


def _client_dry_run(store: Store, cmd: ApplyCommand, objs: list[Any], data: list[Any]) -> str:
    """create.go / apply.go with DryRunClient: nothing is sent. create prints the objects as
    read; apply prints a new object as read and an existing one as fetched (info.Get). The
    last-applied annotation is set before the dry run is looked at (apply's
    CreateApplyAnnotation, create --save-config), so a new object shows it."""
    out = []
    for obj, doc in zip(objs, data):
        live = None if cmd.create else store.get(obj.kind, obj.metadata.name,
                                                  obj.metadata.namespace)
        if live is None:
            if not cmd.create or cmd.save_config:
                obj = client_apply.annotated(obj, doc)
            out.append(printed(obj, "created", cmd.output, cmd.dry_run))
        else:
            out.append(printed(live, "configured", cmd.output, cmd.dry_run))
    return "".join(out)
