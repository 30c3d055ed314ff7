"""The Framework: one profile's plugins, run extension point by extension point.

Upstream ``framework/runtime/framework.go``. Building a profile instantiates every plugin it
names (with its ``pluginConfig`` args), expands ``multiPoint`` onto each extension point the
plugin implements (plugins named at a specific point keep their place first, as upstream
orders overrides), and fixes the score weights (a specific ``score`` weight beats the
multiPoint one; 0 means 1). Running it: PreFilter (Skip removes a plugin from Filter for this
cycle; a rejection ends the cycle), Filter (a node's status is its first failing filter),
PreScore (Skip removes a plugin from Score), Score + NormalizeScore, times the weight, summed.

This is the plain reference path. ``fast.py`` evaluates the same plugins over numpy arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.codec import FrozenDict
from ...api.selectors import LabelSelector
from ..plugins.registry import REGISTRY
from .cycle_state import CycleState
from .interface import MAX_NODE_SCORE, MIN_NODE_SCORE, Code, PreFilterResult, Status, implements
from .node_info import NodeInfo, PodInfo
from .pod_plan import replay

if TYPE_CHECKING:
    from ...api.core import Pod
    from ...apiserver.store import Store


class Handle:
    """What plugins may ask of the scheduler: the snapshot (the cache) and the store."""

    def __init__(self, cache: Any, store: Store | None = None) -> None:
        self.cache = cache
        self.store = store
        # Pods nominated to a node by preemption: node name -> {pod key: PodInfo}.
        self.nominated: dict[str, dict[str, PodInfo]] = {}
        # default_selector's answers by the selector objects they were merged from: the
        # pods of one ReplicaSet get one LabelSelector (built and compiled once), and the
        # fast path's counters find it by identity-equal key.
        self._default_selectors: dict[tuple, tuple[tuple, Any]] = {}

    def node_list(self) -> list[NodeInfo]:
        return self.cache.node_list()

    def num_nodes(self) -> int:
        return self.cache.num_nodes()

    def image_nodes(self) -> Any:
        return self.cache.image_nodes

    def have_pods_with_affinity(self) -> list[NodeInfo]:
        return self.cache.have_pods_with_affinity()

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        return self.cache.have_pods_with_required_anti_affinity()

    def pods_with_scoring_affinity(self) -> list:
        """(NodeInfo, PodInfo) of pods with required pod affinity or preferred (anti-)affinity
        terms, in node order."""
        return self.cache.pods_with_scoring_affinity()

    def namespace_labels(self, namespace: str) -> Any:
        if self.store is None:
            return {}
        ns = self.store.get("Namespace", namespace)
        return ns.metadata.labels if ns is not None else {}

    def matching_counts(self, namespace: str, selector: Any) -> tuple[list, list] | None:
        """Every node's count of the pods ``selector`` matches (countPodsMatchSelector), by
        node index, with the node list they belong to, when the cache keeps them
        (explain's shadow cache); None: count node by node (pod_topology_spread_common's
        known_counts)."""
        fn = getattr(self.cache, "matching_counts", None)
        return fn(namespace, selector) if fn is not None else None

    def default_selector(self, pod: Pod) -> LabelSelector | None:
        """helper.DefaultSelector (``plugins/helper/spread.go``): what the system-default
        spreading counts as "pods like this one" — the selectors of every Service in the pod's
        namespace that selects it, ANDed with its controller's selector (ReplicationController,
        ReplicaSet or StatefulSet). A Service without a selector selects nothing
        (GetPodServices). None when nothing applies (an empty selector: no default spreading).
        """
        if self.store is None:
            return None
        meta = pod.metadata
        ns, labels = meta.namespace, meta.labels
        # The selectors merged, in order: each matching Service's, then the controller's
        # (an RC's map, or an RS/StatefulSet's LabelSelector).
        parts: list[Any] = []
        if self.store.count("Service"):
            for svc in self.store.list("Service", ns):
                sel = svc.spec.selector
                if sel and all(labels.get(k) == v for k, v in sel.items()):
                    parts.append(sel)
        ref = meta.controller_ref()
        if ref is not None:
            # Matched by group/version and kind, as upstream's switch on the owner's GVK.
            if ref.kind == "ReplicationController" and ref.api_version == "v1":
                rc = self.store.get("ReplicationController", ref.name, ns)
                if rc is not None and rc.spec.selector:
                    parts.append(rc.spec.selector)
            elif ref.kind in ("ReplicaSet", "StatefulSet") and ref.api_version == "apps/v1":
                owner = self.store.get(ref.kind, ref.name, ns)
                sel = owner.spec.selector if owner is not None else None
                if sel is not None:
                    parts.append(sel)
        if not parts:
            return None
        # The entry holds the parts its key's ids name, so while it stands those ids are
        # theirs: a hit is for these very selectors.
        key = tuple(map(id, parts))
        hit = self._default_selectors.get(key)
        if hit is not None:
            return hit[1]
        merged: dict[str, str] = {}
        expressions: tuple = ()
        for sel in parts:
            if isinstance(sel, LabelSelector):
                merged.update(sel.match_labels)
                expressions = sel.match_expressions
            else:
                merged.update(sel)
        result = None if not merged and not expressions else \
            LabelSelector(match_labels=FrozenDict(merged), match_expressions=expressions)
        if len(self._default_selectors) >= 1024:
            self._default_selectors.clear()
        self._default_selectors[key] = (tuple(parts), result)
        return result

    def pdbs(self) -> list:
        return self.store.list("PodDisruptionBudget") if self.store is not None else []

    def nominated_pods_for(self, node_name: str) -> list[PodInfo]:
        d = self.nominated.get(node_name)
        return list(d.values()) if d else []


class ProfileError(Exception):
    """A profile that cannot be built; ``path`` names the field under the profile."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class Framework:
    def __init__(self, scheduler_name: str, handle: Handle, plugins: dict[str, Any],
                 points: dict[str, list[str]], weights: dict[str, int],
                 percentage_of_nodes_to_score: int | None) -> None:
        self.scheduler_name = scheduler_name
        self.handle = handle
        self.plugins = plugins
        self.points = points
        self.weights = weights
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.pre_filter_plugins = [plugins[n] for n in points.get("preFilter", ())]
        self.filter_plugins = [plugins[n] for n in points.get("filter", ())]
        self.post_filter_plugins = [plugins[n] for n in points.get("postFilter", ())]
        self.pre_score_plugins = [plugins[n] for n in points.get("preScore", ())]
        self.score_plugins = [plugins[n] for n in points.get("score", ())]
        self.reserve_plugins = [plugins[n] for n in points.get("reserve", ())]
        self.pre_bind_plugins = [plugins[n] for n in points.get("preBind", ())]
        self.extension_plugins = [p for p in self.pre_filter_plugins
                                  if implements(p, "add_pod")]
        # pre_filter_steps' answer per path (plain, fast), with the list it was built from
        self._pre_filter_steps: dict[bool, tuple[list, list]] = {}

    # -- PreFilter ----------------------------------------------------------------------------
    def pre_filter_steps(self, vec: bool) -> list:
        """The PreFilter loop's steps (pod_plan.py): each plugin with the method it runs —
        its ``pre_filter_vec`` on the fast path (``vec``) where it has one — and no recorded
        answer."""
        cached = self._pre_filter_steps.get(vec)
        if cached is not None and cached[0] is self.pre_filter_plugins:
            return cached[1]
        steps = []
        for pl in self.pre_filter_plugins:
            fn = getattr(pl, "pre_filter_vec", None) if vec else None
            steps.append((pl, fn, True, None) if fn is not None else
                         (pl, pl.pre_filter, False, None))
        self._pre_filter_steps[vec] = (self.pre_filter_plugins, steps)
        return steps

    def run_pre_filter(self, state: CycleState, pod: Pod, nodes: list,
                       vec_ctx: Any = None, steps: list | None = None
                       ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """RunPreFilterPlugins over ``steps`` (default: every plugin live; the fast path
        passes its template's plan, whose recorded answers are applied in their place)."""
        result: PreFilterResult | None = None
        with_nodes: list[str] = []
        if steps is None:
            steps = self.pre_filter_steps(vec_ctx is not None)
        for pl, fn, with_ctx, memo in steps:
            if memo is not None:
                replay(state, memo, state.skip_filter)  # the answers for every pod of this spec
                continue
            r, st = fn(state, pod, vec_ctx if with_ctx else nodes)
            if st is not None and st.code == Code.SKIP:
                state.skip_filter.add(pl.name)
                continue
            if st is not None and st.code != Code.SUCCESS:
                st.plugin = pl.name
                if st.is_rejected():
                    return None, st, {pl.name}
                return None, Status(Code.ERROR, f"running PreFilter plugin {pl.name!r}: "
                                    f"{st.message()}", plugin=pl.name), set()
            if r is not None and not r.all_nodes():
                with_nodes.append(pl.name)
                result = r if result is None else result.merge(r)
                if not result.node_names:
                    if len(with_nodes) == 1:
                        msg = f"node(s) didn't satisfy plugin {with_nodes[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(with_nodes)}] " \
                              "simultaneously"
                    return result, Status.unresolvable(msg), set(with_nodes)
        return result, None, set(with_nodes)

    def run_add_pod(self, state: CycleState, pod: Pod, pi: PodInfo, ni: NodeInfo) -> None:
        for pl in self.extension_plugins:
            if pl.name not in state.skip_filter:
                pl.add_pod(state, pod, pi, ni)

    def run_remove_pod(self, state: CycleState, pod: Pod, pi: PodInfo, ni: NodeInfo) -> None:
        for pl in self.extension_plugins:
            if pl.name not in state.skip_filter:
                pl.remove_pod(state, pod, pi, ni)

    # -- Filter -------------------------------------------------------------------------------
    def run_filter(self, state: CycleState, pod: Pod, ni: NodeInfo) -> Status | None:
        skip = state.skip_filter
        for pl in self.filter_plugins:
            if pl.name in skip:
                continue
            st = pl.filter(state, pod, ni)
            if st is not None and st.code != Code.SUCCESS:
                if not st.is_rejected():
                    st = Status(Code.ERROR, f"running {pl.name!r} filter plugin: "
                                f"{st.message()}")
                else:
                    st = Status(st.code, *st.reasons, detail=st.detail)
                st.plugin = pl.name
                return st
        return None

    def run_filter_with_nominated(self, state: CycleState, pod: Pod, ni: NodeInfo,
                                  priority: int, key: str) -> Status | None:
        """RunFilterPluginsWithNominatedPods: first with the node's equal-or-higher priority
        nominated pods added, then (if that passed and any were added) without them."""
        nominated = [p for p in self.handle.nominated_pods_for(ni.name)
                     if p.priority >= priority and p.key != key]
        if not nominated:
            return self.run_filter(state, pod, ni)
        s2 = state.clone()
        n2 = ni.clone()
        for p in nominated:
            n2.add_pod(p)
            self.run_add_pod(s2, pod, p, n2)
        st = self.run_filter(s2, pod, n2)
        if st is not None:
            return st
        return self.run_filter(state, pod, ni)

    # -- PreBind ------------------------------------------------------------------------------
    def run_pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """RunPreBindPlugins: the first failure stops the binding ("running PreBind plugin
        ..." is the message the pod's FailedScheduling event carries)."""
        for pl in self.pre_bind_plugins:
            st = pl.pre_bind(state, pod, node_name)
            if st is not None and not st.is_success():
                return Status(st.code, f'running PreBind plugin "{pl.name}": {st.message()}',
                              plugin=pl.name)
        return None

    # -- PostFilter ---------------------------------------------------------------------------
    def run_post_filter(self, state: CycleState, pod: Pod, node_to_status: Any,
                        scheduler: Any) -> tuple[Any, Status | None]:
        result = None
        status: Status | None = Status(Code.UNSCHEDULABLE)
        for pl in self.post_filter_plugins:
            r, st = pl.post_filter(state, pod, node_to_status, scheduler)
            if st is None or st.code == Code.SUCCESS:
                return r, st
            if st.code != Code.UNSCHEDULABLE:
                return r, st
            result, status = r if r is not None else result, st
        return result, status

    # -- PreScore / Score ---------------------------------------------------------------------
    def run_pre_score(self, state: CycleState, pod: Pod, nodes: list) -> Status | None:
        for pl in self.pre_score_plugins:
            st = pl.pre_score(state, pod, nodes)
            if st is not None and st.code == Code.SKIP:
                state.skip_score.add(pl.name)
            elif st is not None and st.code != Code.SUCCESS:
                return Status(Code.ERROR, f"running PreScore plugin {pl.name!r}: "
                                          f"{st.message()}", plugin=pl.name)
        return None

    def run_score(self, state: CycleState, pod: Pod,
                  nodes: list[NodeInfo]) -> tuple[list[str], list[list[int]], list[int]]:
        """(plugin names, normalized scores per plugin, weighted totals per node)."""
        names: list[str] = []
        per_plugin: list[list[int]] = []
        totals = [0] * len(nodes)
        for pl in self.score_plugins:
            if pl.name in state.skip_score:
                continue
            scores = [pl.score(state, pod, ni) for ni in nodes]
            norm = getattr(pl, "normalize_score", None)
            if norm is not None:
                norm(state, pod, scores, nodes)
            w = self.weights[pl.name]
            for i, s in enumerate(scores):
                if s > MAX_NODE_SCORE or s < MIN_NODE_SCORE:
                    raise ValueError(f"plugin {pl.name!r} returns an invalid score {s}, it "
                                     f"should in the range of [0, 100] after normalizing")
                totals[i] += s * w
            names.append(pl.name)
            per_plugin.append(scores)
        return names, per_plugin, totals

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def events(self) -> dict[str, list]:
        """Plugin name -> the cluster events (with hints) that may make a pod it rejected
        schedulable."""
        out = {}
        for name, pl in self.plugins.items():
            fn = getattr(pl, "events_to_register", None)
            if fn is not None:
                out[name] = fn()
        return out


# -- building a profile ----------------------------------------------------------------------

def build_framework(spec: Any, handle: Handle) -> Framework:
    """Instantiate a ProfileSpec (config.py) into a Framework."""
    needed: list[str] = []
    for pset in spec.plugins.values():
        for name, _ in pset.enabled:
            if name not in needed:
                needed.append(name)
    plugins: dict[str, Any] = {}
    for name in needed:
        factory = REGISTRY.get(name)
        if factory is None:
            raise ProfileError("plugins", f'plugin "{name}" does not exist')
        plugins[name] = factory(spec.plugin_config.get(name), handle)
    points: dict[str, list[str]] = {}
    for point, method in _POINT_METHODS.items():
        pset = spec.plugins.get(point)
        names = [n for n, _ in pset.enabled] if pset is not None else []
        for n in names:
            if not implements(plugins[n], method):
                raise ProfileError(f"plugins.{point}", f'plugin "{n}" does not extend {point} '
                                                        "plugin")
        points[point] = _expand_multi_point(spec, point, method, names, plugins)
    weights: dict[str, int] = {}
    score_set = spec.plugins.get("score")
    multi = spec.plugins.get("multiPoint")
    for name, w in (score_set.enabled if score_set else []) + (multi.enabled if multi else []):
        if name in weights or not implements(plugins[name], "score"):
            continue
        weights[name] = w if w else 1
    return Framework(spec.scheduler_name, handle, plugins, points, weights,
                     spec.percentage_of_nodes_to_score)


_POINT_METHODS = {"preFilter": "pre_filter", "filter": "filter", "postFilter": "post_filter",
                  "preScore": "pre_score", "score": "score", "reserve": "reserve",
                  "preBind": "pre_bind"}


def _expand_multi_point(spec: Any, point: str, method: str, enabled: list[str],
                        plugins: dict[str, Any]) -> list[str]:
    """expandMultiPointPlugins: overrides first, then multiPoint plugins, then the rest."""
    pset = spec.plugins.get(point)
    disabled = set(pset.disabled) if pset is not None else set()
    if "*" in disabled:
        return list(enabled)
    multi = spec.plugins.get("multiPoint")
    enabled_set = list(enabled)
    overrides: list[str] = []
    multi_enabled: list[str] = []
    for name, _ in (multi.enabled if multi else []):
        if not implements(plugins[name], method) or name in disabled:
            continue
        if name in enabled_set:
            overrides.append(name)
            continue
        if name in multi_enabled:
            raise ProfileError("plugins.multiPoint", f'plugin "{name}" already registered as '
                                                      f'"{point}"')
        multi_enabled.append(name)
    first = [n for n in enabled_set if n in overrides]
    rest = [n for n in enabled_set if n not in overrides]
    return first + multi_enabled + rest
