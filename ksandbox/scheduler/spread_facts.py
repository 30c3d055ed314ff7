"""PodTopologySpread's numbers for one pod, as the plugin's own PreFilter computes them.

A learner asks "why not node-3?" and the answer is arithmetic: per topology domain, how many
matching pods there are; the smallest count (0 while fewer domains than ``minDomains`` exist);
and, per node, the skew placing the pod there would produce — ``count(domain) + self - min``
— against ``maxSkew``. :func:`spread_facts` runs the profile's PodTopologySpread PreFilter on a
fresh cycle state (the very counting the Filter uses) and reads those numbers out of its state,
so the explain view cannot disagree with the scheduler. A bound pod is counted without itself
(as explain re-runs it pending). Constraints with ``ScheduleAnyway`` only score: they are listed
as preferences without a verdict.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (calPreFilterState,
Filter's skew check).
"""

from __future__ import annotations

from typing import Any

import attrs

from .framework.interface import is_success
from .plugins.pod_topology_spread import PRE_FILTER_STATE_KEY
from .plugins.pod_topology_spread_common import skew_exceeded
from .schedule_one import new_cycle_state


@attrs.frozen
class NodeSkew:
    node: str
    domain: str | None        # None: the node lacks the topology label
    included: bool            # counted (nodeAffinityPolicy / nodeTaintsPolicy)
    skew: int | None = None   # what placing the pod there would make
    ok: bool = False


@attrs.frozen
class SpreadConstraintFacts:
    topology_key: str
    max_skew: int
    min_domains: int
    when_unsatisfiable: str
    selector: str
    counts: tuple[tuple[str, int], ...]   # (domain, matching pods), by domain
    min_match: int
    self_match: int
    nodes: tuple[NodeSkew, ...] = ()


def _selector_text(sel: Any) -> str:
    return str(sel) if sel is not None and str(sel) else "<none>"


def spread_facts(sched: Any, pod: Any) -> tuple[SpreadConstraintFacts, ...]:
    """The spread constraints of ``pod`` under its scheduler profile, with their counts."""
    fwk = sched.profiles.get(pod.spec.scheduler_name)
    if fwk is None:
        return ()
    plugin = next((p for p in fwk.filter_plugins if p.name == "PodTopologySpread"), None)
    if plugin is None:
        return ()
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    infos = []
    for ni in sched.cache.node_list():
        if pod.spec.node_name and ni.name == pod.spec.node_name:
            ni = ni.clone()
            ni.remove_pod(key)
        infos.append(ni)
    out: list[SpreadConstraintFacts] = []
    state, _pi = new_cycle_state(pod)
    _res, status = plugin.pre_filter(state, pod, infos)
    s = state.get(PRE_FILTER_STATE_KEY) if is_success(status) else None
    if s is not None:
        labels = pod.metadata.labels
        for i, c in enumerate(s.constraints):
            self_match = 1 if c.matches(labels) else 0
            counts = s.value_counts[i]
            low = s.min_match(i)
            nodes = []
            for ni in sorted(infos, key=lambda n: n.name):
                value = ni.labels.get(c.topology_key)
                if value is None:
                    nodes.append(NodeSkew(ni.name, None, False))
                    continue
                included = c.includes_node(pod, ni.node)
                n = counts.get(value, 0)
                skew = n + self_match - low
                nodes.append(NodeSkew(ni.name, value, included, skew,
                                      not skew_exceeded(n, self_match, low, c.max_skew)))
            out.append(SpreadConstraintFacts(
                c.topology_key, c.max_skew, c.min_domains, "DoNotSchedule",
                _selector_text(c.selector), tuple(sorted(counts.items())), low, self_match,
                tuple(nodes)))
    for c in plugin.get_constraints(pod, "ScheduleAnyway"):
        out.append(SpreadConstraintFacts(c.topology_key, c.max_skew, c.min_domains,
                                         "ScheduleAnyway", _selector_text(c.selector), (), 0,
                                         1 if c.matches(pod.metadata.labels) else 0))
    return tuple(out)
