"""Explain: the scheduler's decision for one pod, per node and per plugin, computed on demand.

``explain_pod`` runs the very algorithm the scheduler would run now (same profile, same node
order and start index, a *copy* of the random source so the simulation is not disturbed) and
records, for every node, each filter plugin's verdict and, for every scored node, each score
plugin's normalized score and the weighted total. A bound pod is explained as if it were
pending (taken off its node). Nothing is stored on any object.

``Explanation.to_dict()`` is the ``ksandbox explain -o json`` contract (DESIGN.md §3); the
text matrix lives in ``ksandbox.views.explain``.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

import attrs

from ..sim.rand import SimRandom
from .framework.interface import Code
from .framework.node_info import NodeInfo
from .framework.types import FitError
from .schedule_one import (
    FAST_PATH_MIN_NODES,
    NoNodesAvailable,
    SchedulingError,
    fast_path,
    new_cycle_state,
    schedule_pod,
)

if TYPE_CHECKING:
    from ..api.core import Pod


@attrs.frozen
class FilterVerdict:
    plugin: str
    status: str                 # Success | Skip | Unschedulable | UnschedulableAndUnresolvable
    reason: str = ""            # the node's reason (the specific one when known)
    summary: str = ""           # upstream's aggregate wording (what FailedScheduling counts)


# Not slotted: a frozen slotted class sets each field through object.__setattr__, a frozen
# dict-backed one writes its __dict__ directly — about 1 µs less per record, and explain
# builds one per node (5,000 at 5,000 nodes). Still frozen; repr/eq are the same.
@attrs.frozen(slots=False)
class NodeExplanation:
    name: str
    feasible: bool
    filters: tuple[FilterVerdict, ...]
    scores: dict
    total: int
    weights: dict = attrs.field(factory=dict)
    scored: bool = False
    evaluated: bool = True

    def to_dict(self) -> dict:
        return {"name": self.name, "feasible": self.feasible,
                "filters": [{"plugin": f.plugin, "status": f.status, "reason": f.reason}
                            for f in self.filters],
                "scores": dict(self.scores), "total": self.total}


@attrs.frozen
class BoundFacts:
    """What is true of a pod that already has a node, before any what-if.

    ``by_scheduler``: a scheduler bound it (its Scheduled event) — else ``spec.nodeName``
    placed it and the scheduler was bypassed. ``kubelet``: ``admitted`` (it runs or ran there),
    ``rejected`` (GeneralPredicates or node pressure refused it: ``reason``/``message`` are
    the kubelet's), ``waiting`` (not admitted yet) or ``no-node`` (no such node: no kubelet
    will ever run it)."""

    node: str
    by_scheduler: bool
    node_exists: bool
    kubelet: str
    reason: str = ""
    message: str = ""

    def to_dict(self) -> dict:
        return {"node": self.node, "byScheduler": self.by_scheduler,
                "nodeExists": self.node_exists, "kubelet": self.kubelet,
                "reason": self.reason, "message": self.message}

    def summary(self, pod: str) -> str:
        """One sentence a learner can trust (explain's message starts with it)."""
        how = (f"{pod} was bound to {self.node} by the scheduler" if self.by_scheduler else
               f"{pod} names {self.node} in spec.nodeName: the scheduler was bypassed "
               "(NodeName passes only there)")
        if not self.node_exists:
            return f"{how}; node {self.node} does not exist, so no kubelet will run it"
        if self.kubelet == "rejected":
            return f"{how}; its kubelet rejected it: {self.reason}: {self.message}"
        if self.kubelet == "waiting":
            return f"{how}; its kubelet has not admitted it yet"
        return f"{how}; its kubelet admitted it"


REJECTED_PREFIX = "Pod was rejected: "


def bound_facts(store: Any, pod: Pod) -> BoundFacts | None:
    """The facts of a bound pod (None for a pod without a node): who placed it, whether the
    node exists, what its kubelet did. The TUI and ``explain`` read them from here."""
    node = pod.spec.node_name
    if not node:
        return None
    uid = pod.metadata.uid
    by_scheduler = any(e.reason == "Scheduled" and (not e.involved_object.uid
                                                    or e.involved_object.uid == uid)
                       for e in store.events_for("Pod", pod.metadata.name,
                                                 pod.metadata.namespace))
    exists = store.get("Node", node) is not None
    st = pod.status
    if not exists:
        verdict, reason, message = "no-node", "", ""
    elif st.phase == "Failed" and st.message.startswith(REJECTED_PREFIX):
        verdict, reason, message = "rejected", st.reason, st.message[len(REJECTED_PREFIX):]
    elif st.phase in ("Running", "Succeeded", "Failed") or st.start_time is not None:
        verdict, reason, message = "admitted", "", ""
    else:
        verdict, reason, message = "waiting", "", ""
    return BoundFacts(node, by_scheduler, exists, verdict, reason, message)


@attrs.frozen
class Explanation:
    pod: str
    scheduler: str
    selected: str | None
    message: str
    nodes: tuple[NodeExplanation, ...]
    filter_plugins: tuple[str, ...] = ()
    score_plugins: tuple[tuple[str, int], ...] = ()
    nominated: str | None = None
    served: bool = True
    bound: BoundFacts | None = None

    def to_dict(self) -> dict:
        """DESIGN.md §3's fixed shape: a bound pod's facts travel in the message.

        Nodes with the same verdicts (explain shares one tuple among every node that passes
        every filter) share one ``filters`` list: read it, do not change it. At 5,000 nodes
        that is one list of plugin dicts instead of 5,000 (the JSON is the same)."""
        memo: dict[int, list] = {}
        nodes: list[dict] = []
        append = nodes.append
        for n in self.nodes:
            verdicts = n.filters
            filters = memo.get(id(verdicts))
            if filters is None:
                filters = memo[id(verdicts)] = [
                    {"plugin": f.plugin, "status": f.status, "reason": f.reason}
                    for f in verdicts]
            append({"name": n.name, "feasible": n.feasible, "filters": filters,
                    "scores": dict(n.scores), "total": n.total})
        return {"pod": self.pod, "scheduler": self.scheduler, "selected": self.selected,
                "message": self.message, "nodes": nodes}


class _ShadowCache:
    """The cache as it would be without ``key`` on ``node`` (explaining a bound pod)."""

    def __init__(self, real: Any, node: str, key: str) -> None:
        self.real = real
        self.image_nodes = real.image_nodes
        self.version = real.version
        self.static_version = real.static_version
        # node_list() (re)assigns every NodeInfo's ``index`` after nodes come or go: read the
        # shadowed node's index only after it.
        real.node_list()
        self._list_of: Any = None
        self._list: list = []
        base = real.get(node)
        self.shadow = base.clone() if base is not None else None
        if self.shadow is not None:
            self.shadow.remove_pod(key)
        # The fast path whose per-node counters matching_counts reads (count_from).
        self._fast: Any = None
        self._matching: dict[tuple[str, int], tuple[Any, tuple[list, list]]] = {}

    def count_from(self, fast: Any) -> None:
        """Answer matching_counts from ``fast``'s per-node counters (synced on the real
        cache, which they follow from its pod events)."""
        self._fast = fast

    def matching_counts(self, namespace: str, selector: Any) -> tuple[list, list] | None:
        """(node_list(), each node's count_matching by index): the real cache's counts from
        the fast path — the same rule (not terminating, same namespace, selector matches)
        over the same pods — with the shadowed node counted afresh. PodTopologySpread then
        reads a count per node instead of matching the pods of every node (5,000 method
        calls at 5,000 nodes, each a count or a remembered one) — what made a Deployment's
        pod (system-default spreading) take twice an owner-less one's time. None without a
        fast path in step with the real cache."""
        fast = self._fast
        if fast is None or fast.infos is not self.real.node_list():
            return None
        key = (namespace, id(selector))
        hit = self._matching.get(key)
        if hit is not None and hit[0] is selector:
            return hit[1]
        counts = fast.match_counts(namespace, selector).tolist()
        if self.shadow is not None:
            counts[self.shadow.index] = self.shadow.count_matching(namespace, selector)
        out = (self.node_list(), counts)
        # The entry keeps the selector alive, so its id is not reused while remembered.
        self._matching[key] = (selector, out)
        return out

    def node_list(self) -> list:
        out = self.real.node_list()
        if self.shadow is None:
            return out
        # One copy per real list (a cycle asks several times; callers only read it, as they
        # only read the real cache's own list).
        if self._list_of is not out:
            self._list_of = out
            self._list = list(out)
            self._list[self.shadow.index] = self.shadow
        return self._list

    def get(self, name: str) -> Any:
        if self.shadow is not None and name == self.shadow.name:
            return self.shadow
        return self.real.get(name)

    def num_nodes(self) -> int:
        return self.real.num_nodes()

    # The nodes hosting pods with (anti-)affinity: the real cache keeps them as they change
    # (a handful of nodes, usually none); only the shadowed node is swapped in or out — not a
    # walk of every node per question (three per explain: ~3-8 ms at 5,000 nodes).
    def _swap(self, nodes: list, has: Any) -> list:
        shadow = self.shadow
        if shadow is None:
            return nodes
        out = [ni for ni in nodes if ni.name != shadow.name]
        if has(shadow):
            out.append(shadow)
            out.sort(key=_index)
        return out

    def have_pods_with_affinity(self) -> list:
        return self._swap(self.real.have_pods_with_affinity(),
                          lambda ni: ni.pods_with_affinity)

    def have_pods_with_required_anti_affinity(self) -> list:
        return self._swap(self.real.have_pods_with_required_anti_affinity(),
                          lambda ni: ni.pods_with_required_anti_affinity)

    def pods_with_scoring_affinity(self) -> list:
        return [(ni, pi) for ni in self.have_pods_with_affinity()
                for pi in ni.pods_with_affinity.values()
                if pi.required_affinity or pi.preferred_affinity or pi.preferred_anti_affinity]


class _Ctx:
    """A scheduling context that leaves the scheduler untouched."""

    def __init__(self, sched: Any, cache: Any, use_fast: bool | None) -> None:
        self.cache = cache
        self.sched = sched
        self.rand = SimRandom(0)
        self.rand.setstate(sched.rand.getstate())
        self.next_start_node_index = sched.next_start_node_index
        self.percentage_of_nodes_to_score = sched.percentage_of_nodes_to_score
        self.use_fast = use_fast

    def fast_for(self, fwk: Any) -> Any:
        return self.sched.fast_for(fwk)


def explain_pod(sched: Any, pod: Pod) -> Explanation:
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    name = pod.spec.scheduler_name
    fwk = sched.profiles.get(name)
    if fwk is None:
        all_names = sorted(ni.name for ni in sched.cache.node_list())
        msg = (f'no scheduler named "{name}" runs in this sandbox: no profile serves this '
               "pod, so it stays Pending (the sandbox's scheduler profiles are "
               + ", ".join(sorted(sched.profiles)) + ")")
        return Explanation(key, name, None, msg, tuple(
            NodeExplanation(n, False, (), {}, 0) for n in all_names), served=False)
    cache = sched.cache
    bound_to = pod.spec.node_name
    original = pod
    if bound_to:
        cache = _ShadowCache(sched.cache, pod.spec.node_name, key)
        pod = attrs.evolve(pod, spec=attrs.evolve(pod.spec, node_name=""),
                           status=attrs.evolve(pod.status, nominated_node_name=""))
    ctx = _Ctx(sched, cache, use_fast=sched.use_fast if cache is sched.cache else False)
    handle = fwk.handle
    saved = handle.cache
    handle.cache = cache
    # Thousands of small records: keep the cyclic collector from sweeping the whole cluster
    # in the middle of them (it runs again right after).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        if ctx.use_fast is False:
            fast = _live_fast(sched, fwk)
            if fast is not None and isinstance(cache, _ShadowCache):
                cache.count_from(fast)
                # Inside the collector's pause: a small record per node (5,000 at 5,000
                # nodes) would otherwise set off a collection of the whole cluster now and then.
                _seed_spread_counts(fast, fwk, pod)
        exp = _explain(sched, ctx, fwk, pod, key)
    finally:
        handle.cache = saved
        if was_enabled:
            gc.enable()
    if not bound_to:
        return exp
    facts = bound_facts(sched.store, original)
    return _as_bound(exp, bound_to, facts)


def _live_fast(sched: Any, fwk: Any) -> Any:
    """The profile's fast path, synced, where the scheduler runs it (its per-node counters
    are then current); None elsewhere."""
    fast = sched._fast.get(fwk.scheduler_name)
    if fast is None or sched.use_fast is False or \
            sched.cache.num_nodes() < FAST_PATH_MIN_NODES:
        return None
    fast.sync()
    return fast


def _seed_spread_counts(fast: Any, fwk: Any, pod: Pod) -> None:
    """Hand each real node the count of pods that the pod's DoNotSchedule spread selectors
    match, from the fast path's counters (the same rule: not terminating, same namespace,
    selector matches). Explain itself reads them from the shadow cache
    (``matching_counts``); these are for what comes after it on the real cache:
    ``spread_facts`` runs the PreFilter there (the TUI asks it right after explain), and
    finds them in count_matching's memo instead of matching every pod of the cluster
    (~30,000 label matches at 1,000 nodes). ScheduleAnyway constraints only score: nothing
    after explain counts them (a Deployment's pods' system-default spreading)."""
    plugin = next((p for p in fwk.pre_filter_plugins if p.name == "PodTopologySpread"), None)
    if plugin is None:
        return
    ns = pod.metadata.namespace
    selectors = {id(c.selector): c.selector
                 for c in plugin.get_constraints(pod, "DoNotSchedule") if c.selector is not None}
    for sel in selectors.values():
        NodeInfo.seed_matching(fast.infos, ns, sel, fast.match_counts(ns, sel).tolist())


def _as_bound(exp: Explanation, node: str, facts: BoundFacts | None) -> Explanation:
    """Explain a pod that is already bound without contradicting where it is.

    A pod placed through ``spec.nodeName`` never met the scheduler: say so, say whether the
    node exists and what its kubelet did, then — as a what-if — where the scheduler would put
    it with nodeName cleared (the table). For a pod the scheduler bound, the re-run cycle may
    pick another node only because of a tie (the scheduler picks among equally scored nodes
    at random) or because the cluster changed since: a tie that includes the pod's node is
    reported as that node; a real difference is said.
    """
    exp = attrs.evolve(exp, bound=facts)
    if facts is not None and not facts.by_scheduler:
        what_if = (f"it would go to {exp.selected}" if exp.selected is not None
                   else f"it would not fit: {exp.message}")
        return attrs.evolve(exp, message=f"{facts.summary(exp.pod)}. What-if with nodeName "
                                         f"cleared: {what_if}")
    if exp.selected == node:
        return exp
    # The two nodes compared, found in one pass (not a dict of every node's name).
    here = chosen = None
    for n in exp.nodes:
        if n.name == node:
            here = n
        elif n.name == exp.selected:
            chosen = n
    if here is not None and chosen is not None and here.scored and \
            here.total == chosen.total:
        others = ", ".join(sorted(n.name for n in exp.nodes if n.scored and n.name != node
                                  and n.total == here.total))
        return attrs.evolve(exp, selected=node, message=(
            f"Successfully assigned {exp.pod} to {node} (tied with {others} at {here.total}: "
            "the scheduler picks among equal scores at random)"))
    now = (f"scheduled now it would go to {exp.selected}" if exp.selected is not None
           else f"scheduled now it would not fit: {exp.message}")
    return attrs.evolve(exp, message=f"{exp.pod} is bound to {node}; {now}")


def _explain(sched: Any, ctx: _Ctx, fwk: Any, pod: Pod, key: str) -> Explanation:
    from .scheduler import PreemptionContext

    state, _ = new_cycle_state(pod)
    selected = None
    res = None
    diagnosis = None
    nominated = None
    try:
        res = schedule_pod(ctx, fwk, state, pod, keep_scores=True)
        selected = res.host
        message = f"Successfully assigned {key} to {selected}"
    except FitError as fe:
        diagnosis = fe.diagnosis
        if fwk.post_filter_plugins:
            rand = SimRandom(0)
            rand.setstate(ctx.rand.getstate())
            pctx = PreemptionContext(sched, fwk, dry_run=True, rand=rand)
            pctx.nodes = ctx.cache.node_list()
            result, st = fwk.run_post_filter(state, pod, fe.diagnosis.node_to_status, pctx)
            fe.diagnosis.post_filter_msg = st.message() if st is not None else ""
            nominated = result or None
        message = str(fe)
    except NoNodesAvailable as exc:
        message = str(exc)
    except SchedulingError as exc:
        message = str(exc)
    filter_names = [p.name for p in fwk.filter_plugins]
    score_names = [(p.name, fwk.weights[p.name]) for p in fwk.score_plugins]
    nodes = []
    feasible = {ni.name for ni in res.feasible} if res is not None else set()
    scored: dict[str, dict] = {}
    totals: dict[str, int] = {}
    if res is not None and res.totals is not None and len(res.totals):
        idx = {n: i for i, n in enumerate(res.plugin_names)}
        for j, ni in enumerate(res.feasible):
            scored[ni.name] = {pname: int(res.per_plugin[idx[pname]][j]) if pname in idx else 0
                               for pname, _ in score_names}
            totals[ni.name] = int(res.totals[j])
    weights = dict(score_names)
    fast = fast_path(ctx, fwk)
    last = getattr(fast, "last_filter", None) if fast is not None else None
    if last is not None and last[0] is not state:
        last = None
    success = {p.name: FilterVerdict(p.name, "Skip" if p.name in state.skip_filter
                                     else "Success") for p in fwk.filter_plugins}
    ordered = [success[p.name] for p in fwk.filter_plugins]
    # The plugins the plain path runs, with their place in ``ordered``: a node's verdicts are
    # the shared Success/Skip ones up to its first failure (no records per node and plugin).
    active = [(i, p) for i, p in enumerate(fwk.filter_plugins) if p.name not in state.skip_filter]
    infos = sorted(ctx.cache.node_list(), key=_name)
    if last is None and diagnosis is None:
        # The pod fits (or no filter failed anywhere): no node has a known status, so each
        # node's verdicts come from running the active filters alone — the per-node
        # diagnosis checks of ``_filters_for`` are hoisted out, and every passing node
        # shares one verdict tuple.
        return Explanation(key, fwk.scheduler_name, selected, message,
                           _passing_nodes(state, pod, infos, feasible, ordered, active,
                                          scored, totals, weights,
                                          _column_passes(sched, fwk, ctx, state, pod, active)),
                           tuple(filter_names), tuple(score_names), nominated)
    all_ok = tuple(ordered)   # shared by every node that passes (one list in to_dict)
    for ni in infos:
        if last is not None and not (diagnosis is not None and diagnosis.pre_filter_msg):
            verdicts, ok = _fast_verdicts(fwk, state, pod, ni, last, ordered, diagnosis)
            evaluated = ni.name in feasible or (diagnosis is not None and
                                                ni.name in diagnosis.node_to_status.statuses)
        else:
            verdicts, ok, evaluated = _filters_for(fwk, state, pod, ni, diagnosis, feasible,
                                                      ordered, active)
        nodes.append(NodeExplanation(
            ni.name, ni.name in feasible or ok,
            all_ok if verdicts is ordered else tuple(verdicts), scored.get(ni.name, {}),
            totals.get(ni.name, 0), weights, scored=ni.name in scored, evaluated=evaluated))
    return Explanation(key, fwk.scheduler_name, selected, message, tuple(nodes),
                       tuple(filter_names), tuple(score_names), nominated)


def _name(ni: Any) -> str:
    return ni.name


def _index(ni: Any) -> int:
    return ni.index


def _column_passes(sched: Any, fwk: Any, ctx: _Ctx, state: Any, pod: Pod,
                   active: list[tuple[int, Any]]) -> tuple[list[bool], list] | None:
    """For a bound pod's plain cycle (on the shadow cache) when the scheduler runs the fast
    path: which nodes pass every active filter that reads one node only
    (``filter_reads_one_node``), from those plugins' ``filter_vec`` columns over the real
    cache — kept current by the fast path, so no per-node Python call — and the active
    plugins still to run on those nodes. The real cache differs from the shadow one only in
    the node the pod is taken off (its row still holds the pod): that node is marked not
    passing, so it is filtered by hand like any node a column fails. None: no shortcut.

    Only for plugins whose Filter reads the pod, a PreFilter state computed from the pod
    alone, and that node's NodeInfo: PodTopologySpread or InterPodAffinity count pods over
    the whole cluster in PreFilter (the pod itself among them), so their verdicts on the real
    cache could differ on any node."""
    cache = ctx.cache
    if not isinstance(cache, _ShadowCache) or sched.use_fast is False or \
            sched.cache.num_nodes() < FAST_PATH_MIN_NODES:
        return None
    local = [pl for _, pl in active if getattr(pl, "filter_reads_one_node", False)]
    if not local:
        return None
    fast = sched.fast_for(fwk)
    fast.sync()
    failed = None
    for pl in local:
        res = pl.filter_vec(state, pod, fast)
        if res is None:
            continue
        bad = res[0] != 0
        failed = bad if failed is None else failed | bad
    passes = [True] * fast.n if failed is None else (~failed).tolist()
    if cache.shadow is not None:
        passes[cache.shadow.index] = False
    return passes, [(i, pl) for i, pl in active if pl not in local]


def _passing_nodes(state: Any, pod: Pod, infos: list, feasible: set,
                   ordered: list[FilterVerdict], active: list[tuple[int, Any]],
                   scored: dict, totals: dict, weights: dict,
                   columns: tuple[list[bool], list] | None = None,
                   ) -> tuple[NodeExplanation, ...]:
    """``_filters_for`` over every node when there is no diagnosis (the same verdicts: stop
    at the first failing plugin; a node is evaluated when it is feasible). ``columns``
    (``_column_passes``): the nodes (by index) known to pass the one-node plugins, which then
    run only the other active plugins — the first failure among those is the first of all."""
    all_ok = tuple(ordered)
    success = Code.SUCCESS
    nodes: list[NodeExplanation] = []
    append = nodes.append
    passes, rest = columns if columns is not None else (None, active)
    for ni in infos:
        name = ni.name
        verdicts = all_ok
        ok = True
        for i, pl in (rest if passes is not None and passes[ni.index] else active):
            st = pl.filter(state, pod, ni)
            if st is None or st.code == success:
                continue
            verdicts = (*ordered[:i], FilterVerdict(pl.name, str(st.code),
                                                    st.detail or st.message(), st.message()))
            ok = False
            break
        is_feasible = name in feasible
        sc = scored.get(name)
        append(NodeExplanation(name, is_feasible or ok, verdicts,
                               sc if sc is not None else {}, totals.get(name, 0), weights,
                               sc is not None, is_feasible))
    return tuple(nodes)


def _fast_verdicts(fwk: Any, state: Any, pod: Pod, ni: Any, last: tuple, ordered: list,
                   diagnosis: Any) -> tuple[list[FilterVerdict], bool]:
    """A node's verdicts from the fast path's evaluation (first failing plugin and code)."""
    _, fail_plugin, fail_code, scalar, maps = last
    i = ni.index
    k = int(fail_plugin[i])
    if k == 0:
        return ordered, True
    if k < 0:
        st = diagnosis.node_to_status.absent if diagnosis is not None else None
        msg = st.message() if st is not None else ""
        return [FilterVerdict("PreFilter", str(st.code) if st else "", msg, msg)], False
    pl = fwk.filter_plugins[k - 1]
    st = scalar.get(i)
    if st is None:
        st = maps[k - 1][int(fail_code[i])]
    detail = st.detail
    if not detail and getattr(pl, "has_detail", False):
        again = pl.filter(state, pod, ni)
        detail = again.detail if again is not None else ""
    return ordered[:k - 1] + [FilterVerdict(pl.name, str(st.code), detail or st.message(),
                                            st.message())], False


def _filters_for(fwk: Any, state: Any, pod: Pod, ni: Any, diagnosis: Any, feasible: set,
                 ordered: list[FilterVerdict], active: list[tuple[int, Any]],
                 ) -> tuple[list[FilterVerdict], bool, bool]:
    """Each filter plugin's verdict on one node, stopping at the first failure as upstream.

    ``ordered`` is every plugin's passing verdict (Success, or Skip for a plugin PreFilter
    skipped), ``active`` the plugins to run with their index in it; the verdicts before the
    first failure are shared from ``ordered`` (the caller only reads them)."""
    if diagnosis is not None and diagnosis.pre_filter_msg:
        st = diagnosis.node_to_status.absent
        return [FilterVerdict(st.plugin or "PreFilter", str(st.code), st.message(),
                              st.message())], False, True
    evaluated = True
    known = None
    if diagnosis is not None:
        if ni.name in diagnosis.node_to_status.statuses:
            known = diagnosis.node_to_status.statuses[ni.name]
        elif ni.name not in feasible and diagnosis.node_to_status.absent.reasons:
            st = diagnosis.node_to_status.absent
            return [FilterVerdict("PreFilter", str(st.code), st.message(), st.message())], \
                False, True
    if ni.name not in feasible and known is None:
        evaluated = False
    known_plugin = known.plugin if known is not None else None
    for i, pl in active:
        st = pl.filter(state, pod, ni)
        if known is not None and pl.name == known_plugin:
            detail = st.detail if st is not None and st.code == known.code else ""
            return ordered[:i] + [FilterVerdict(pl.name, str(known.code),
                                                detail or known.message(),
                                                known.message())], False, evaluated
        if st is None or st.code == Code.SUCCESS:
            continue
        return ordered[:i] + [FilterVerdict(pl.name, str(st.code), st.detail or st.message(),
                                            st.message())], False, evaluated
    return ordered, True, evaluated
