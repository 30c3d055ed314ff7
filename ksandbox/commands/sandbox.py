"""The sandbox's own verbs: ``ksandbox fail|recover|pressure|add node ...``, ``ksandbox load``
and ``ksandbox add|remove static-pod``.

These are what a real cluster does to you rather than what you type into kubectl, so they have
no upstream syntax; they follow kubectl's manners instead: strict arguments, the API's
``Error from server (NotFound): nodes "x" not found``, one short line per change
(``node/node-2 failed (kubelet stopped posting status)``). ``fail node NAME --not-ready`` keeps
the kubelet alive with its container runtime down: it posts Ready=False (``KubeletNotReady``);
``fail node NAME --network`` leaves the kubelet alone and takes the node's network down
(NetworkUnavailable=True, whence the ``network-unavailable`` taint); ``recover node NAME``
undoes either. ``add static-pod NODE -f MANIFEST`` writes a Pod manifest into the node's
staticPodPath (its kubelet runs it and publishes the mirror pod ``NAME-NODE``; writing a
changed manifest replaces the pod) and ``remove static-pod NODE NAME`` deletes it again.

The work is done by control-plane components the control plane holds: ``cp.kubelets``
(``fail_node``, ``recover_node``, ``set_pressure``, ``add_node``), ``cp.metrics``
(``set_load``) and ``cp.scheduler`` (``add_profiles``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import ApiError, CommandError, FieldError, ValidationError
from ..api.kinds import BY_KIND
from ..api.validation import is_dns1123_subdomain
from .common import get_object
from .parse import BOOL, NAMESPACE, STR, Flag, namespace_of, parse_flags, resolve_kind

if TYPE_CHECKING:
    from ..session import Session

PRESSURE_KINDS = {"memory": "MemoryPressure", "disk": "DiskPressure", "pid": "PIDPressure"}
LOAD_KINDS = ("Deployment", "ReplicaSet", "ReplicationController")
USAGE = {
    "fail": "ksandbox fail node NAME [--not-ready | --network]",
    "recover": "ksandbox recover node NAME",
    "pressure": "ksandbox pressure node NAME memory|disk|pid on|off",
    "add": "ksandbox add node NAME [--like NODE] | ksandbox add scheduler NAME [-f CONFIG] | "
           "ksandbox add static-pod NODE -f MANIFEST",
    "remove": "ksandbox remove static-pod NODE NAME",
    "load": "ksandbox load deployment/NAME CPU_PERCENT",
}


@attrs.frozen
class NodeFault:
    """``ksandbox fail node`` / ``ksandbox recover node``."""

    action: str            # "fail" | "recover"
    node: str
    not_ready: bool = False  # fail: the runtime is down (Ready=False), not the kubelet silent
    network: bool = False    # fail: the node's network is down (NetworkUnavailable=True)


@attrs.frozen
class NodePressure:
    node: str
    kind: str              # memory | disk | pid
    on: bool


@attrs.frozen
class AddNode:
    node: str
    like: str | None = None


@attrs.frozen
class AddScheduler:
    """``ksandbox add scheduler NAME [-f CONFIG|-]``: start a second scheduler (a profile)."""

    name: str
    filename: str = ""


@attrs.frozen
class PutStaticPod:
    """``ksandbox add static-pod NODE -f MANIFEST|-``."""

    node: str
    filename: str


@attrs.frozen
class RemoveStaticPod:
    """``ksandbox remove static-pod NODE NAME``."""

    node: str
    name: str


STATIC_POD_WORDS = ("static-pod", "static-pods", "staticpod")


@attrs.frozen
class SetLoad:
    namespace: str
    kind: str              # Deployment | ReplicaSet | ReplicationController
    name: str
    percent: int


def _usage(verb: str) -> CommandError:
    return CommandError(f"usage: {USAGE[verb]}")


def _node_arg(verb: str, args: tuple[str, ...], count: int) -> tuple[str, ...]:
    """``node NAME ...`` or ``node/NAME ...``: the words after the type."""
    if not args:
        raise _usage(verb)
    first = args[0]
    kind, sep, name = first.partition("/")
    rest = ((name,) if sep else ()) + args[1:]
    try:
        info = resolve_kind(kind)
    except CommandError:
        info = None
    if info is None or info.kind != "Node":
        raise CommandError(f'"ksandbox {verb}" works on nodes: {USAGE[verb]}')
    if len(rest) != count or not rest[0]:
        raise _usage(verb)
    return rest


def parse(tokens: list[str]) -> Any:
    if not tokens:
        raise CommandError('a sandbox verb is required: fail, recover, pressure, add, remove or '
                           'load')
    verb, words = tokens[0], tokens[1:]
    if verb not in USAGE:
        raise CommandError(f'unknown command "{verb}" for "ksandbox"')
    flags = [NAMESPACE]
    if verb == "add":
        flags.append(Flag("like", STR, "", ""))
        flags.append(Flag("filename", STR, "f", ""))
    if verb == "fail":
        flags.append(Flag("not-ready", BOOL, "", False))
        flags.append(Flag("network", BOOL, "", False))
    a = parse_flags(f"ksandbox {verb}", words, flags, hint=f"usage: {USAGE[verb]}")
    if verb == "remove":
        return _parse_static(verb, a)
    if verb in ("fail", "recover"):
        (node,) = _node_arg(verb, a.positionals, 1)
        if verb == "fail" and a["not-ready"] and a["network"]:
            raise CommandError("--not-ready and --network cannot be used together: "
                               f"{USAGE['fail']}")
        return NodeFault(verb, node, bool(a["not-ready"]) if verb == "fail" else False,
                         bool(a["network"]) if verb == "fail" else False)
    if verb == "pressure":
        node, kind, state = _node_arg(verb, a.positionals, 3)
        if kind not in PRESSURE_KINDS:
            raise CommandError(f'invalid pressure kind "{kind}": must be one of memory, disk, '
                               'pid')
        if state not in ("on", "off"):
            raise CommandError(f'invalid pressure state "{state}": must be on or off')
        return NodePressure(node, kind, state == "on")
    if verb == "add" and a.positionals and a.positionals[0].partition("/")[0] in (
            "scheduler", "schedulers"):
        kind, sep, name = a.positionals[0].partition("/")
        rest = ((name,) if sep else ()) + tuple(a.positionals[1:])
        if len(rest) != 1 or not rest[0] or a["like"]:
            raise CommandError("usage: ksandbox add scheduler NAME [-f CONFIG]")
        return AddScheduler(rest[0], a["filename"])
    if verb == "add" and a.positionals and a.positionals[0].partition("/")[0] in \
            STATIC_POD_WORDS:
        return _parse_static(verb, a)
    if verb == "add":
        if a["filename"]:
            raise CommandError("unknown flag: -f (only `ksandbox add scheduler` takes a file)")
        (node,) = _node_arg(verb, a.positionals, 1)
        return AddNode(node, a["like"] or None)
    return _parse_load(a)


def _parse_static(verb: str, a: Any) -> PutStaticPod | RemoveStaticPod:
    words = list(a.positionals)
    kind, sep, rest = (words[0] if words else "").partition("/")
    if kind not in STATIC_POD_WORDS:
        raise CommandError(f'"ksandbox {verb}" works on static pods: {USAGE["remove"]}')
    words = ([rest] if sep else []) + words[1:]
    if verb == "add":
        if a["like"] or len(words) != 1 or not words[0] or not a["filename"]:
            raise CommandError("usage: ksandbox add static-pod NODE -f MANIFEST")
        return PutStaticPod(words[0], a["filename"])
    if len(words) != 2 or not all(words):
        raise _usage("remove")
    return RemoveStaticPod(words[0], words[1])


def _parse_load(a: Any) -> SetLoad:
    args = a.positionals
    if len(args) == 3 and "/" not in args[0]:
        args = (f"{args[0]}/{args[1]}", args[2])
    if len(args) != 2 or "/" not in args[0]:
        raise _usage("load")
    kind, _, name = args[0].partition("/")
    info = resolve_kind(kind)
    if info.kind not in LOAD_KINDS or not name:
        raise CommandError(f'"ksandbox load" works on deployments, replica sets and '
                           f'replication controllers: {USAGE["load"]}')
    m = re.fullmatch(r"([0-9]{1,9})%?", args[1])   # a percent, not a 5,000-digit number
    if m is None:
        raise CommandError(f'invalid CPU percent "{args[1]}": must be a whole number, 0 or '
                           'more (e.g. 80 or 80%)')
    return SetLoad(namespace_of(a), info.kind, name, int(m.group(1)))


def run(session: Session, cmd: Any, stdin: str | None) -> str:
    store = session.store
    node_info = BY_KIND["Node"]
    if isinstance(cmd, NodeFault):
        get_object(store, node_info, cmd.node, "")
        kubelets = session.cp.kubelets
        if cmd.action == "fail" and cmd.network:
            kubelets.set_network(cmd.node, available=False)
            return f"node/{cmd.node} network failed (NetworkUnavailable=True)\n"
        if cmd.action == "fail" and cmd.not_ready:
            kubelets.fail_node(cmd.node, True)
            return f"node/{cmd.node} failed (kubelet reports NotReady: container runtime is down)\n"
        if cmd.action == "fail":
            kubelets.fail_node(cmd.node)
            return f"node/{cmd.node} failed (kubelet stopped posting status)\n"
        if kubelets.recover_node(cmd.node) == "network":
            return f"node/{cmd.node} network recovered (NetworkUnavailable=False)\n"
        return f"node/{cmd.node} recovered\n"
    if isinstance(cmd, NodePressure):
        get_object(store, node_info, cmd.node, "")
        kubelets = session.cp.kubelets
        kubelets.set_pressure(cmd.node, cmd.kind, cmd.on)
        state = "on" if cmd.on else "off"
        return (f"node/{cmd.node} {cmd.kind} pressure {state} "
                f"({PRESSURE_KINDS[cmd.kind]}={'True' if cmd.on else 'False'})\n")
    if isinstance(cmd, AddNode):
        errs = is_dns1123_subdomain(cmd.node)
        if errs:
            raise ValidationError("Node", cmd.node,
                                  [FieldError("metadata.name", cmd.node, m) for m in errs])
        if store.get("Node", cmd.node) is not None:
            raise ApiError.already_exists("nodes", cmd.node)
        if cmd.like is not None:
            get_object(store, node_info, cmd.like, "")
        kubelets = session.cp.kubelets
        kubelets.add_node(cmd.node, cmd.like)
        like = f" (like {cmd.like})" if cmd.like else ""
        return f"node/{cmd.node} created{like}\n"
    if isinstance(cmd, AddScheduler):
        return _add_scheduler(session, cmd, stdin)
    if isinstance(cmd, PutStaticPod):
        return _put_static_pod(session, cmd, stdin)
    if isinstance(cmd, RemoveStaticPod):
        get_object(store, node_info, cmd.node, "")
        ns, name = session.cp.kubelets.remove_static_pod(cmd.node, cmd.name)
        return f"pod/{name} static pod manifest removed from node/{cmd.node}\n"
    info = BY_KIND[cmd.kind]
    get_object(store, info, cmd.name, cmd.namespace)
    metrics = session.cp.metrics
    metrics.set_load(cmd.namespace, cmd.kind, cmd.name, cmd.percent)
    return f"{info.qualified}/{cmd.name} load set to {cmd.percent}% CPU\n"


def _put_static_pod(session: Session, cmd: PutStaticPod, stdin: str | None) -> str:
    """The manifest must be one valid Pod (the kubelet's file source refuses anything else);
    it is checked as its mirror pod will be before the kubelet sees it."""
    from ..api.core import Pod
    from ..api.manifest import load_manifests, read_text
    from ..kubelet.static import build_static_pod

    store = session.store
    source = "<stdin>" if cmd.filename == "-" else cmd.filename
    text = (stdin or "") if cmd.filename == "-" else read_text(cmd.filename)
    docs = load_manifests(text, source)
    if len(docs) != 1 or not isinstance(docs[0], Pod):
        raise CommandError(f"{source}: a static pod manifest is one Pod document")
    manifest = docs[0]
    if manifest.spec.node_name:
        raise CommandError(f"{source}: a static pod manifest has no spec.nodeName (the kubelet "
                           "sets it to its node)")
    node = get_object(store, BY_KIND["Node"], cmd.node, "")
    store.admit(build_static_pod(manifest, cmd.node, node.metadata.uid, source))
    (ns, name), change = session.cp.kubelets.put_static_pod(cmd.node, manifest)
    path = session.cp.kubelets.kubelet(cmd.node).static_pods.path()
    return (f"pod/{name} static pod manifest {change} on node/{cmd.node} "
            f"({path}/{manifest.metadata.name}.yaml)\n")


def _add_scheduler(session: Session, cmd: AddScheduler, stdin: str | None) -> str:
    from ..api.manifest import ConfigDocument, load_manifests, read_text

    errs = is_dns1123_subdomain(cmd.name)
    if errs:
        raise CommandError(f'invalid scheduler name "{cmd.name}": {errs[0]}')
    doc = None
    if cmd.filename:
        source = "<stdin>" if cmd.filename == "-" else cmd.filename
        text = (stdin or "") if cmd.filename == "-" else read_text(cmd.filename)
        docs = [d for d in load_manifests(text, source)]
        configs = [d for d in docs if isinstance(d, ConfigDocument)
                   and d.kind == "KubeSchedulerConfiguration"]
        if len(configs) != 1 or len(docs) != 1:
            raise CommandError(f"{source}: expected one KubeSchedulerConfiguration document")
        doc = configs[0]
    names = session.cp.scheduler.add_profiles(doc, cmd.name)
    return "".join(f"scheduler/{n} started\n" for n in names)
