"""Would this pod fit there? The scheduler's predicates, asked from outside a scheduling cycle.

The cluster autoscaler's PredicateChecker (``cluster-autoscaler/simulator/predicatechecker``,
now ``ClusterSnapshot.CheckPredicates``) runs the scheduler framework's PreFilter and Filter
plugins of the pod's profile against one node of a snapshot — a real node, a real node with
pods the simulation has already moved onto it, or a *template* node that does not exist yet
(what a new node of a node group would look like). This module is that check, on the
scheduler's own plugins and cache:

* ``fit_reasons(sched, pod, node, extra_pods)`` — the reasons the pod does not fit (the failing
  plugin's reasons, upstream's words: ``Insufficient cpu``, ``node(s) didn't match Pod's node
  affinity/selector``), or ``()`` when it fits. ``node`` is a node name (its NodeInfo from the
  cache, cloned) or a Node object not in the cluster (a template, taken as empty).
* ``first_fit(sched, pod, names, extra_pods)`` — the first of ``names`` the pod fits on.

``extra_pods`` (per node name, or a list for a single node) are pods the simulation has placed
there; PreFilter extensions hear them (``add_pod``) as nominated pods are heard. Nothing is
written, no random number is drawn, nothing in the scheduler changes. This runs the reference
path (``Framework``), never the fast path.

Not here: choosing a node (no scoring), preemption.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .framework.interface import Code
from .framework.node_info import NodeInfo, PodInfo
from .schedule_one import new_cycle_state

if TYPE_CHECKING:
    from ..api.core import Node, Pod

NO_PROFILE = "no scheduler profile serves the pod's schedulerName"


def _profile(sched: Any, pod: Pod) -> Any:
    return sched.profiles.get(pod.spec.scheduler_name or "default-scheduler")


def _node_info(sched: Any, node: Node | str) -> NodeInfo | None:
    if isinstance(node, str):
        ni = sched.cache.get(node)
        return ni.clone() if ni is not None else None
    ni = NodeInfo(node)
    ni.index = -1
    return ni


def _pre_filter(fwk: Any, sched: Any, pod: Pod, template: NodeInfo | None) -> tuple:
    state, _ = new_cycle_state(pod)
    nodes = sched.cache.node_list()
    if template is not None:
        nodes = list(nodes) + [template]
    result, st, _plugins = fwk.run_pre_filter(state, pod, nodes)
    return state, result, st


def _filter(fwk: Any, state: Any, pod: Pod, ni: NodeInfo, extra: Iterable[Any]) -> tuple:
    extra = list(extra)
    if extra:
        state = state.clone()
        for p in extra:
            pi = PodInfo(p)
            ni.add_pod(pi)
            fwk.run_add_pod(state, pod, pi, ni)
    st = fwk.run_filter(state, pod, ni)
    if st is None or st.code == Code.SUCCESS:
        return ()
    return st.reasons or (st.message() or "node(s) didn't fit",)


def fit_reasons(sched: Any, pod: Pod, node: Node, extra_pods: Iterable[Any] = ()) -> tuple:
    """Why ``pod`` would not fit on ``node`` (a name, or a template Node); ``()`` if it fits."""
    fwk = _profile(sched, pod)
    if fwk is None:
        return (NO_PROFILE,)
    ni = _node_info(sched, node)
    if ni is None:
        return (f'node "{node}" not found',)
    state, result, st = _pre_filter(fwk, sched, pod, ni if not isinstance(node, str) else None)
    if st is not None:
        return st.reasons or (st.message(),)
    if result is not None and not result.all_nodes() and ni.name not in result.node_names:
        return ("node(s) didn't satisfy plugin(s) [NodeAffinity]",)
    return _filter(fwk, state, pod, ni, extra_pods)


def first_fit(sched: Any, pod: Pod, names: Iterable[str],
              extra_pods: Mapping[str, Iterable[Any]] | None = None) -> str | None:
    """The first node of ``names`` (existing nodes) ``pod`` fits on, or None."""
    fwk = _profile(sched, pod)
    if fwk is None:
        return None
    state, result, st = _pre_filter(fwk, sched, pod, None)
    if st is not None:
        return None
    extra_pods = extra_pods or {}
    for name in names:
        if result is not None and not result.all_nodes() and name not in result.node_names:
            continue
        ni = _node_info(sched, name)
        if ni is None:
            continue
        if not _filter(fwk, state, pod, ni, extra_pods.get(name, ())):
            return name
    return None
