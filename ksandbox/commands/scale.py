"""``kubectl scale`` and ``kubectl autoscale``.

scale (``kubernetes/kubectl`` ``pkg/cmd/scale/scale.go`` and ``pkg/scale/scale.go``): set
``spec.replicas`` of deployments, replica sets and replication controllers, several at once,
with the ``--current-replicas`` precondition (``Expected replicas to be 2, was 3``); output
``deployment.apps/web scaled``.

autoscale (``pkg/cmd/autoscale/autoscale.go``, with the ``--cpu``/``--memory`` flags of
upstream #129373): create an autoscaling/v2 HorizontalPodAutoscaler for each target;
``--cpu=80%`` targets average utilization, ``--cpu=500m`` an average value (a bare number means
millicores); the deprecated ``--cpu-percent=N`` means ``--cpu=N%``. With no target at all the
HPA gets the API server's default, 80% CPU (autoscaling/v2 SetDefaults). Output
``horizontalpodautoscaler.autoscaling/foo autoscaled``.

Both check every target before writing anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.codec import freeze
from ..api.errors import ApiError, CommandError
from ..api.kinds import BY_KIND
from ..api.meta import ObjectMeta
from ..api.policy import (
    CrossVersionObjectReference,
    HorizontalPodAutoscaler,
    HorizontalPodAutoscalerSpec,
)
from ..api.quantity import Quantity, QuantityError
from .common import check_output, printed, select_objects, selector_of
from .parse import (
    ALL,
    DRY_RUN,
    INT,
    INT32,
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
    from ..session import Session

SCALABLE = ("Deployment", "ReplicaSet", "ReplicationController")
# `kubectl scale` also scales StatefulSets (their scale subresource); autoscale keeps SCALABLE.
SCALE_KINDS = SCALABLE + ("StatefulSet",)
# autoscaling/v2 defaults.go: the CPU target of an HPA created without metrics.
DEFAULT_CPU_UTILIZATION = 80
CPU_PERCENT_DEPRECATED = ("Flag --cpu-percent has been deprecated, Use --cpu with percentage or "
                          "resource quantity format (e.g., '70%' for utilization or '500m' for "
                          "milliCPU).")


@attrs.frozen
class ScaleCommand:
    targets: tuple[Target, ...]
    replicas: int
    current_replicas: int = -1
    namespace: str = "default"
    selector: str = ""
    all: bool = False
    dry_run: str = "none"
    output: str = ""


def parse_scale(tokens: list[str]) -> ScaleCommand:
    flags = (NAMESPACE, SELECTOR, ALL, OUTPUT, DRY_RUN, Flag("replicas", INT, "", -1),
             Flag("current-replicas", INT, "", -1), Flag("resource-version", STR, "", ""),
             Flag("timeout", STR, "", "0s"))
    a = parse_flags("scale", tokens, flags)
    if not a.has("replicas"):
        raise CommandError('required flag(s) "replicas" not set')
    check_output("scale", a["output"])
    dry_run = dry_run_strategy(a)
    if a["replicas"] < 0:
        raise CommandError("The --replicas=COUNT flag is required, and COUNT must be greater "
                           "than or equal to 0")
    if a["current-replicas"] < -1:
        raise CommandError("The --current-replicas must specify an integer of -1 or greater")
    targets = parse_targets("scale", a.positionals)
    if not targets:
        raise CommandError("You must provide one or more resources by argument or filename.\n"
                           "Example resource specifications include:\n   '-f rsrc.yaml'\n"
                           "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
    if not any(t.names for t in targets) and not a["selector"] and not a["all"]:
        raise CommandError("resource(s) were provided, but no name, label selector, or --all "
                           "flag specified")
    selector_of(a["selector"])
    return ScaleCommand(targets, a["replicas"], a["current-replicas"], namespace_of(a),
                        a["selector"], a["all"], dry_run, a["output"])


def _unscalable(obj: Any) -> ApiError:
    # The type has no scale subresource: the API server answers 404 for it.
    return ApiError("NotFound", "the server could not find the requested resource", 404)


def run_scale(session: Session, cmd: ScaleCommand, stdin: str | None) -> str:
    objs = select_objects(session.store, cmd.targets, cmd.namespace, False,
                          selector_of(cmd.selector))
    if not objs:
        raise CommandError("no objects passed to scale")
    updates = []
    for obj in objs:
        if obj.kind not in SCALE_KINDS:
            raise _unscalable(obj)
        current = obj.spec.replicas if obj.spec.replicas is not None else 1
        if cmd.current_replicas != -1 and current != cmd.current_replicas:
            raise CommandError(f"Expected replicas to be {cmd.current_replicas}, was {current}")
        # kubectl's scaler sends int32(newSize): Go keeps the low 32 bits, so
        # --replicas=4294967297 asks for 1 and 2147483648 for -2147483648 (which validation
        # refuses) — as a real cluster answers.
        wrapped = (cmd.replicas + 2 ** 31) % 2 ** 32 - 2 ** 31
        updates.append(attrs.evolve(obj, spec=attrs.evolve(obj.spec, replicas=wrapped)))
    written = session.store.update_all(updates, dry_run=cmd.dry_run != "none")
    return "".join(printed(o, "scaled", cmd.output, cmd.dry_run) for o in written)


# -- autoscale ------------------------------------------------------------------------------

@attrs.frozen
class AutoscaleCommand:
    targets: tuple[Target, ...]
    max: int
    min: int = -1
    cpu: str = ""
    memory: str = ""
    name: str = ""
    namespace: str = "default"
    dry_run: str = "none"
    output: str = ""
    warnings: tuple[str, ...] = ()


def _check_target(flag: str, value: str, unit: str) -> None:
    """A ``--cpu``/``--memory`` value: ``N%`` or a quantity (a bare number takes ``unit``)."""
    if value.endswith("%"):
        digits = value[:-1]
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 10:
            raise CommandError(f"invalid percentage value: {digits}")
        return
    try:
        Quantity.parse(value + unit if value.isdigit() else value)
    except QuantityError:
        raise CommandError(f"invalid resource quantity for {flag}: {value}") from None


def parse_autoscale(tokens: list[str]) -> AutoscaleCommand:
    flags = (NAMESPACE, OUTPUT, DRY_RUN, Flag("min", INT32, "", -1), Flag("max", INT32, "", -1),
             Flag("cpu-percent", INT32, "", -1), Flag("cpu", STR, "", ""),
             Flag("memory", STR, "", ""), Flag("name", STR, "", ""))
    a = parse_flags("autoscale", tokens, flags)
    if not a.has("max"):
        raise CommandError('required flag(s) "max" not set')
    check_output("autoscale", a["output"])
    dry_run = dry_run_strategy(a)
    if a["max"] < 1:
        raise CommandError(f"--max=MAXPODS is required and must be at least 1, max: {a['max']}")
    if a["max"] < a["min"]:
        raise CommandError(f"--max=MAXPODS must be larger or equal to --min=MINPODS, "
                           f"max: {a['max']}, min: {a['min']}")
    cpu, warnings = a["cpu"], ()
    if a.has("cpu-percent"):
        warnings = (CPU_PERCENT_DEPRECATED,)
        if not cpu and a["cpu-percent"] >= 0:
            cpu = f"{a['cpu-percent']}%"
    if cpu:
        _check_target("--cpu", cpu, "m")
    if a["memory"]:
        _check_target("--memory", a["memory"], "Mi")
    targets = parse_targets("autoscale", a.positionals)
    if not targets or not any(t.names for t in targets):
        raise CommandError("You must provide one or more resources by argument or filename.\n"
                           "Example resource specifications include:\n   '-f rsrc.yaml'\n"
                           "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
    return AutoscaleCommand(targets, a["max"], a["min"], cpu, a["memory"], a["name"],
                            namespace_of(a), dry_run, a["output"], warnings)


def _metric(resource: str, value: str, unit: str) -> dict:
    if value.endswith("%"):
        target = {"type": "Utilization", "averageUtilization": int(value[:-1])}
    else:
        q = Quantity.parse(value + unit if value.isdigit() else value)
        target = {"type": "AverageValue", "averageValue": str(q)}
    return {"type": "Resource", "resource": {"name": resource, "target": target}}


def build_hpa(cmd: AutoscaleCommand, obj: Any) -> HorizontalPodAutoscaler:
    metrics = []
    if cmd.cpu:
        metrics.append(_metric("cpu", cmd.cpu, "m"))
    if cmd.memory:
        metrics.append(_metric("memory", cmd.memory, "Mi"))
    if not metrics:
        metrics.append(_metric("cpu", f"{DEFAULT_CPU_UTILIZATION}%", ""))
    ref = CrossVersionObjectReference(kind=obj.kind, name=obj.metadata.name,
                                      api_version=obj.api_version)
    spec = HorizontalPodAutoscalerSpec(scale_target_ref=ref, max_replicas=cmd.max,
                                       min_replicas=cmd.min if cmd.min > 0 else None,
                                       metrics=tuple(freeze(m) for m in metrics))
    meta = ObjectMeta(name=cmd.name or obj.metadata.name, namespace=obj.metadata.namespace)
    return HorizontalPodAutoscaler(metadata=meta, spec=spec)


def run_autoscale(session: Session, cmd: AutoscaleCommand, stdin: str | None) -> str:
    store = session.store
    objs = select_objects(store, cmd.targets, cmd.namespace)
    hpas: list[Any] = []
    seen: set[tuple[str, str]] = set()
    for obj in objs:
        if obj.kind not in SCALABLE:
            gv = obj.api_version if "/" in obj.api_version else "/" + obj.api_version
            raise CommandError(f"cannot autoscale a {obj.kind}: could not find scale "
                               f"subresource for {gv}, Resource={BY_KIND[obj.kind].resource} "
                               "in discovery information")
        hpa = build_hpa(cmd, obj)
        key = (hpa.metadata.namespace, hpa.metadata.name)
        if store.get(hpa.kind, key[1], key[0]) is not None or key in seen:
            raise ApiError.already_exists("horizontalpodautoscalers.autoscaling", key[1])
        seen.add(key)
        hpas.append(store.admit(hpa))
    if cmd.dry_run == "client":
        made = hpas
        word = "created"
    else:
        # Each HPA went through store.admit in the loop above (the create's own admission
        # and validation): all are checked before any is created.
        made = hpas if cmd.dry_run == "server" else [store.create(h, admitted=True)
                                                      for h in hpas]
        word = "autoscaled"
    warnings = "".join(w + "\n" for w in cmd.warnings)
    return warnings + "".join(printed(h, word, cmd.output, cmd.dry_run) for h in made)
