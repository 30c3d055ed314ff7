"""Scheduler configuration: KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) and the
legacy Policy file, turned into profile specs.

Upstream ``apis/config/v1/defaults.go`` + ``default_plugins.go`` (mergePlugins: a profile's
``plugins`` are merged onto the default multiPoint set — ``disabled: [{name: "*"}]`` drops the
defaults for that point, a default re-enabled by name keeps its place with the new settings)
and ``apis/config/validation``. The Policy file (``kind: Policy``: predicates and priorities
with weights) was removed upstream in 1.23; it is still accepted here, translated into the
equivalent plugins of the ``default-scheduler`` profile, with a warning.

Errors are ManifestErrors naming the file, the document and the field path.
"""

from __future__ import annotations

from typing import Any

import attrs

from ...api.errors import ManifestError
from ..plugins import names
from ..plugins.registry import REGISTRY
from .defaults import DEFAULT_MULTI_POINT, DEFAULT_SCHEDULER_NAME, EXTENSION_POINTS

# apis/config/v1/defaults.go
DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10
POLICY_REMOVED_WARNING = ("the scheduler Policy API (kind: Policy) was removed upstream in "
                          "Kubernetes 1.23; translated to the equivalent "
                          "KubeSchedulerConfiguration plugins")


@attrs.define
class PluginSet:
    enabled: list = attrs.field(factory=list)     # [(name, weight)]
    disabled: list = attrs.field(factory=list)    # [name]


@attrs.define
class ProfileSpec:
    scheduler_name: str
    plugins: dict = attrs.field(factory=dict)      # point -> PluginSet (merged)
    plugin_config: dict = attrs.field(factory=dict)  # plugin name -> args dict
    percentage_of_nodes_to_score: int | None = None


@attrs.define
class SchedulerConfig:
    profiles: list
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff: float = float(DEFAULT_POD_INITIAL_BACKOFF_SECONDS)
    pod_max_backoff: float = float(DEFAULT_POD_MAX_BACKOFF_SECONDS)
    warnings: list = attrs.field(factory=list)


def default_profile(name: str = DEFAULT_SCHEDULER_NAME) -> ProfileSpec:
    return ProfileSpec(name, {"multiPoint": PluginSet(list(DEFAULT_MULTI_POINT), [])})


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: custom disables drop defaults ("*" all), a custom entry naming a default
    replaces it in place, other custom entries are appended."""
    disabled = list(custom.disabled) + list(default.disabled)
    custom_idx = {n: i for i, (n, _) in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list = []
    if "*" not in disabled:
        for name, w in default.enabled:
            if name in disabled:
                continue
            if name in custom_idx:
                i = custom_idx[name]
                enabled.append(custom.enabled[i])
                replaced.add(i)
            else:
                enabled.append((name, w))
    for i, entry in enumerate(custom.enabled):
        if i not in replaced:
            enabled.append(entry)
    return PluginSet(enabled, disabled)


class _Doc:
    def __init__(self, doc: Any) -> None:
        self.source = doc.source
        self.document = doc.document

    def error(self, path: str, message: str) -> ManifestError:
        return ManifestError(self.source, self.document, f"{path}: {message}")


def _int_field(d: _Doc, data: dict, key: str, path: str, lo: int, hi: int | None) -> int | None:
    v = data.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise d.error(f"{path}{key}", f"expected an integer, got {type(v).__name__}")
    if v < lo or (hi is not None and v > hi):
        rng = f"[{lo}-{hi}]" if hi is not None else f">= {lo}"
        raise d.error(f"{path}{key}", f"Invalid value: {v}: not in valid range {rng}")
    return v


def _plugin_set(d: _Doc, raw: Any, path: str) -> PluginSet:
    if raw is None:
        return PluginSet()
    if not isinstance(raw, dict):
        raise d.error(path, "expected an object with enabled/disabled")
    out = PluginSet()
    for which in ("enabled", "disabled"):
        items = raw.get(which) or []
        if not isinstance(items, list):
            raise d.error(f"{path}.{which}", "expected a list")
        for j, item in enumerate(items):
            p = f"{path}.{which}[{j}]"
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise d.error(f"{p}.name", "Required value")
            name = item["name"]
            if name != "*" and name not in REGISTRY:
                raise d.error(f"{p}.name", f'Invalid value: "{name}": no plugin with this '
                                           "name is registered")
            if which == "enabled":
                w = item.get("weight", 0)
                if isinstance(w, bool) or not isinstance(w, int) or w < 0:
                    raise d.error(f"{p}.weight", f"Invalid value: {w!r}: must be a "
                                                 "non-negative integer")
                out.enabled.append((name, w))
            else:
                out.disabled.append(name)
    return out


def _profile(d: _Doc, raw: Any, path: str) -> ProfileSpec:
    if not isinstance(raw, dict):
        raise d.error(path, "expected an object")
    name = raw.get("schedulerName", DEFAULT_SCHEDULER_NAME)
    if not isinstance(name, str) or not name:
        raise d.error(f"{path}.schedulerName", "Required value")
    spec = default_profile(name)
    spec.percentage_of_nodes_to_score = _int_field(d, raw, "percentageOfNodesToScore",
                                                   f"{path}.", 0, 100)
    plugins = raw.get("plugins") or {}
    if not isinstance(plugins, dict):
        raise d.error(f"{path}.plugins", "expected an object")
    for point, pset_raw in plugins.items():
        if point != "multiPoint" and point not in EXTENSION_POINTS:
            raise d.error(f"{path}.plugins.{point}", "unknown extension point")
        custom = _plugin_set(d, pset_raw, f"{path}.plugins.{point}")
        spec.plugins[point] = merge_plugin_set(spec.plugins.get(point, PluginSet()), custom)
    configs = raw.get("pluginConfig") or []
    if not isinstance(configs, list):
        raise d.error(f"{path}.pluginConfig", "expected a list")
    for j, pc in enumerate(configs):
        p = f"{path}.pluginConfig[{j}]"
        if not isinstance(pc, dict) or not isinstance(pc.get("name"), str):
            raise d.error(f"{p}.name", "Required value")
        pname = pc["name"]
        if pname not in REGISTRY:
            raise d.error(f"{p}.name", f'Invalid value: "{pname}": no plugin with this name '
                                       "is registered")
        if pname in spec.plugin_config:
            raise d.error(f"{p}.name", f'Duplicate value: "{pname}"')
        spec.plugin_config[pname] = pc.get("args") or {}
    return spec


def load_config(ksc_docs: list, policy_docs: list) -> SchedulerConfig:
    """The scheduler's configuration from the ``-f`` config documents (defaults when none)."""
    from ..plugins.args import ArgsError
    from .runtime import Handle, ProfileError, build_framework

    if len(ksc_docs) > 1:
        d = _Doc(ksc_docs[1])
        raise d.error("kind", "only one KubeSchedulerConfiguration may be given")
    cfg = SchedulerConfig(profiles=[default_profile()])
    checks: list[tuple[_Doc, str, ProfileSpec]] = []
    if ksc_docs:
        doc = ksc_docs[0]
        d = _Doc(doc)
        data = doc.data
        cfg.percentage_of_nodes_to_score = _int_field(d, data, "percentageOfNodesToScore", "",
                                                      0, 100)
        init = _int_field(d, data, "podInitialBackoffSeconds", "", 1, None)
        mx = _int_field(d, data, "podMaxBackoffSeconds", "", 1, None)
        if init is not None:
            cfg.pod_initial_backoff = float(init)
        if mx is not None:
            cfg.pod_max_backoff = float(mx)
        if cfg.pod_max_backoff < cfg.pod_initial_backoff:
            raise d.error("podMaxBackoffSeconds", f"Invalid value: {mx}: must be greater than "
                                                  "or equal to PodInitialBackoffSeconds")
        raw_profiles = data.get("profiles")
        if raw_profiles is not None:
            if not isinstance(raw_profiles, list):
                raise d.error("profiles", "expected a list")
            profiles = []
            seen: set[str] = set()
            for i, rp in enumerate(raw_profiles):
                spec = _profile(d, rp, f"profiles[{i}]")
                if spec.scheduler_name in seen:
                    raise d.error(f"profiles[{i}].schedulerName",
                                  f'Duplicate value: "{spec.scheduler_name}"')
                seen.add(spec.scheduler_name)
                profiles.append(spec)
                checks.append((d, f"profiles[{i}]", spec))
            if profiles:
                cfg.profiles = profiles
    if policy_docs:
        d = _Doc(policy_docs[-1])
        ignored: list[str] = []
        spec = translate_policy(d, policy_docs[-1].data, ignored)
        cfg.warnings.append(POLICY_REMOVED_WARNING)
        for name in ignored:
            cfg.warnings.append(f"the Policy's {name} has no plugin equivalent in the "
                                f"scheduling framework and is ignored")
        if any(p.scheduler_name == DEFAULT_SCHEDULER_NAME for p in cfg.profiles) and ksc_docs \
                and any(p.scheduler_name == DEFAULT_SCHEDULER_NAME for p in
                        (c[2] for c in checks)):
            raise d.error("kind", "a Policy and a KubeSchedulerConfiguration profile both "
                                  f"configure {DEFAULT_SCHEDULER_NAME}")
        cfg.profiles = [p for p in cfg.profiles if p.scheduler_name != DEFAULT_SCHEDULER_NAME]
        cfg.profiles.insert(0, spec)
        checks.append((d, "", spec))
    # Build each profile once now, so bad plugin args fail at load with their field path.
    for d, path, spec in checks:
        prefix = f"{path}." if path else ""
        for j, (pname, args) in enumerate(spec.plugin_config.items()):
            try:
                REGISTRY[pname](args, Handle(_NullCache()))
            except ArgsError as exc:
                raise d.error(f"{prefix}pluginConfig[{j}].args.{exc.path}", exc.message) \
                    from None
        try:
            build_framework(spec, Handle(_NullCache()))
        except ProfileError as exc:
            raise d.error(f"{prefix}{exc.path}", exc.message) from None
    return cfg


class _NullCache:
    image_nodes: dict = {}

    def node_list(self) -> list:
        return []

    def num_nodes(self) -> int:
        return 0


# -- the legacy Policy ---------------------------------------------------------------------------

# pkg/scheduler/framework/plugins/legacy_registry.go (removed in 1.23): predicate -> plugins.
_PREDICATES: dict[str, tuple[str, ...]] = {
    "PodFitsResources": (names.NODE_RESOURCES_FIT,),
    "PodFitsHostPorts": (names.NODE_PORTS,),
    "PodFitsPorts": (names.NODE_PORTS,),
    "HostName": (names.NODE_NAME,),
    "MatchNodeSelector": (names.NODE_AFFINITY,),
    "NoVolumeZoneConflict": (names.VOLUME_ZONE,),
    "NoDiskConflict": (names.VOLUME_RESTRICTIONS,),
    "PodToleratesNodeTaints": (names.TAINT_TOLERATION,),
    "CheckNodeUnschedulable": (names.NODE_UNSCHEDULABLE,),
    "MatchInterPodAffinity": (names.INTER_POD_AFFINITY,),
    "EvenPodsSpread": (names.POD_TOPOLOGY_SPREAD,),
    "GeneralPredicates": (names.NODE_RESOURCES_FIT, names.NODE_NAME, names.NODE_PORTS,
                          names.NODE_AFFINITY),
    "CheckVolumeBinding": (names.VOLUME_BINDING,),
    "MaxEBSVolumeCount": (names.NODE_VOLUME_LIMITS,),
    "MaxGCEPDVolumeCount": (names.NODE_VOLUME_LIMITS,),
    "MaxAzureDiskVolumeCount": (names.NODE_VOLUME_LIMITS,),
    "MaxCSIVolumeCountPred": (names.NODE_VOLUME_LIMITS,),
}
# Predicates that had become no-ops (node conditions are taints now).
_OBSOLETE_PREDICATES = {"CheckNodeCondition", "CheckNodeMemoryPressure",
                        "CheckNodeDiskPressure", "CheckNodePIDPressure",
                        "CheckServiceAffinity", "CheckNodeLabelPresence"}
# priority -> (plugin, NodeResourcesFit strategy if any)
_PRIORITIES: dict[str, tuple[str, str | None]] = {
    "LeastRequestedPriority": (names.NODE_RESOURCES_FIT, "LeastAllocated"),
    "MostRequestedPriority": (names.NODE_RESOURCES_FIT, "MostAllocated"),
    "RequestedToCapacityRatioPriority": (names.NODE_RESOURCES_FIT, "RequestedToCapacityRatio"),
    "BalancedResourceAllocation": (names.NODE_RESOURCES_BALANCED_ALLOCATION, None),
    "SelectorSpreadPriority": (names.POD_TOPOLOGY_SPREAD, None),
    "ServiceSpreadingPriority": (names.POD_TOPOLOGY_SPREAD, None),
    "EvenPodsSpreadPriority": (names.POD_TOPOLOGY_SPREAD, None),
    "InterPodAffinityPriority": (names.INTER_POD_AFFINITY, None),
    "NodeAffinityPriority": (names.NODE_AFFINITY, None),
    "TaintTolerationPriority": (names.TAINT_TOLERATION, None),
    "ImageLocalityPriority": (names.IMAGE_LOCALITY, None),
}
_OBSOLETE_PRIORITIES = {"NodePreferAvoidPodsPriority", "EqualPriority",
                        "ResourceLimitsPriority", "NodeLabelPriority"}
_DEFAULT_FILTER_ORDER = [n for n, _ in DEFAULT_MULTI_POINT]
_PRE_FILTERS = {names.NODE_RESOURCES_FIT, names.NODE_PORTS, names.NODE_AFFINITY,
                names.VOLUME_RESTRICTIONS, names.VOLUME_ZONE, names.POD_TOPOLOGY_SPREAD,
                names.INTER_POD_AFFINITY}
_PRE_SCORES = {names.TAINT_TOLERATION, names.NODE_AFFINITY, names.NODE_RESOURCES_FIT,
               names.POD_TOPOLOGY_SPREAD, names.INTER_POD_AFFINITY,
               names.NODE_RESOURCES_BALANCED_ALLOCATION}


# pkg/scheduler/framework/plugins/legacy_registry.go (NewLegacyRegistry): MandatoryPredicates,
# configured whatever the Policy lists — a Policy never let pods onto tainted or cordoned nodes.
_MANDATORY_FILTERS = (names.TAINT_TOLERATION, names.NODE_UNSCHEDULABLE)


def translate_policy(d: _Doc, data: dict, ignored: list[str] | None = None) -> ProfileSpec:
    """A Policy's predicates and priorities as the default-scheduler profile.

    Names of obsolete predicates/priorities that have no plugin are appended to ``ignored``.
    """
    spec = ProfileSpec(DEFAULT_SCHEDULER_NAME)
    ignored = [] if ignored is None else ignored
    filters: list[str] = list(_MANDATORY_FILTERS)
    preds = data.get("predicates")
    if preds is None:
        filters = [n for n in _DEFAULT_FILTER_ORDER if n in _PRE_FILTERS or n in
                   (names.NODE_UNSCHEDULABLE, names.NODE_NAME, names.TAINT_TOLERATION)]
    else:
        if not isinstance(preds, list):
            raise d.error("predicates", "expected a list")
        for i, p in enumerate(preds):
            name = p.get("name") if isinstance(p, dict) else None
            if name in _OBSOLETE_PREDICATES:
                ignored.append(f"predicate {name}")
                continue
            if name not in _PREDICATES:
                raise d.error(f"predicates[{i}].name", f'Invalid value: "{name}": no such '
                                                       "predicate")
            for plugin in _PREDICATES[name]:
                if plugin not in filters:
                    filters.append(plugin)
        filters.sort(key=_DEFAULT_FILTER_ORDER.index)
    scores: list[tuple[str, int]] = []
    prios = data.get("priorities")
    fit_args: dict = {}
    if prios is None:
        scores = [(n, w) for n, w in DEFAULT_MULTI_POINT if w]
    else:
        if not isinstance(prios, list):
            raise d.error("priorities", "expected a list")
        for i, p in enumerate(prios):
            name = p.get("name") if isinstance(p, dict) else None
            if name in _OBSOLETE_PRIORITIES:
                ignored.append(f"priority {name}")
                continue
            if name not in _PRIORITIES:
                raise d.error(f"priorities[{i}].name", f'Invalid value: "{name}": no such '
                                                       "priority")
            w = p.get("weight", 1)
            if isinstance(w, bool) or not isinstance(w, int) or w <= 0:
                raise d.error(f"priorities[{i}].weight", f"Invalid value: {w!r}: must be a "
                                                         "positive integer")
            plugin, strategy = _PRIORITIES[name]
            if strategy is not None:
                fit_args = {"scoringStrategy": {"type": strategy}}
                arg = (p.get("argument") or {}).get("requestedToCapacityRatioArguments")
                if strategy == "RequestedToCapacityRatio" and arg:
                    fit_args["scoringStrategy"]["requestedToCapacityRatio"] = {
                        "shape": arg.get("shape") or []}
                    if arg.get("resources"):
                        fit_args["scoringStrategy"]["resources"] = arg["resources"]
            if any(n == plugin for n, _ in scores):
                scores = [(n, ow + w if n == plugin else ow) for n, ow in scores]
            else:
                scores.append((plugin, w))
    if fit_args:
        spec.plugin_config[names.NODE_RESOURCES_FIT] = fit_args
    hard = data.get("hardPodAffinitySymmetricWeight")
    if hard is not None:
        spec.plugin_config[names.INTER_POD_AFFINITY] = {"hardPodAffinityWeight": hard}
    star = ["*"]
    spec.plugins = {
        "queueSort": PluginSet([(names.PRIORITY_SORT, 0)], star),
        "preFilter": PluginSet([(n, 0) for n in filters if n in _PRE_FILTERS], star),
        "filter": PluginSet([(n, 0) for n in filters], star),
        "postFilter": PluginSet([(names.DEFAULT_PREEMPTION, 0)], star),
        "preScore": PluginSet([(n, 0) for n, _ in scores if n in _PRE_SCORES], star),
        "score": PluginSet(scores, star),
        "bind": PluginSet([(names.DEFAULT_BINDER, 0)], star),
    }
    return spec
