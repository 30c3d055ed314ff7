"""The cluster autoscaler's expanders: which node group to grow when several would help.

Ported in our own words from ``cluster-autoscaler/expander`` (``random``, ``mostpods``,
``waste``, ``priority``) and its chaining (``--expander=priority,least-waste``: each expander
narrows the options down; what is left is decided by the random one):

* ``random`` — any option, drawn from the sandbox's seeded random source;
* ``most-pods`` — the options that schedule the most pending pods;
* ``least-waste`` — the options leaving the least idle CPU plus memory on the new nodes, as
  fractions of the new nodes' capacity (``(capacity - requested) / capacity`` for each);
* ``priority`` — the options whose node group has the highest priority: a group's
  ``priority`` field, else the highest ``priorities`` entry whose regular expression matches
  the group's name (upstream's ``cluster-autoscaler-priority-expander`` ConfigMap data). Groups
  without a priority are dropped unless none has one.

Options are sorted by group name first, so the one random draw is reproducible.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from ...api.quantity import resource_amount

if TYPE_CHECKING:
    from ...api.core import Node


@attrs.define
class Option:
    """expander.Option: grow ``group`` by ``node_count`` nodes of ``template`` for ``pods``."""

    group: Any                 # NodeGroupSpec
    node_count: int
    pods: list[Any]
    template: Any              # the template Node


def _most_pods(options: list[Option], config: Any) -> list[Option]:
    best = max(len(o.pods) for o in options)
    return [o for o in options if len(o.pods) == best]


def _wasted(o: Option) -> float:
    node_cpu = _capacity(o.template, "cpu")
    node_mem = _capacity(o.template, "memory")
    req_cpu = sum(p.spec.requests.get("cpu", 0) for p in o.pods)
    req_mem = sum(p.spec.requests.get("memory", 0) for p in o.pods)
    score = 0.0
    for have, used in ((node_cpu * o.node_count, req_cpu), (node_mem * o.node_count, req_mem)):
        if have > 0:
            score += (have - used) / have
    return score


def _capacity(node: Node, name: str) -> int:
    q = node.status.capacity.get(name)
    if q is None:
        return node.allocatable_amounts.get(name, 0)
    return resource_amount(name, q)


def _least_waste(options: list[Option], config: Any) -> list[Option]:
    scores = [(_wasted(o), o) for o in options]
    best = min(s for s, _ in scores)
    return [o for s, o in scores if s == best]


def group_priority(group: Any, config: Any) -> int | None:
    if group.priority is not None:
        return group.priority
    for prio, patterns in config.priorities:   # sorted, highest first
        if any(re.search(p, group.name) for p in patterns):
            return prio
    return None


def _priority(options: list[Option], config: Any) -> list[Option]:
    ranked = [(group_priority(o.group, config), o) for o in options]
    known = [(p, o) for p, o in ranked if p is not None]
    if not known:
        return options
    best = max(p for p, _ in known)
    return [o for p, o in known if p == best]


_FILTERS = {"most-pods": _most_pods, "least-waste": _least_waste, "priority": _priority}


def best_option(options: list[Option], config: Any, rand: Any) -> Option | None:
    """The expander chain of ``config.expander``; the last tie is broken at random."""
    if not options:
        return None
    left = sorted(options, key=lambda o: o.group.name)
    for name in config.expander:
        fn = _FILTERS.get(name)
        if fn is None:      # "random": the final draw below
            break
        left = fn(left, config)
        if len(left) == 1:
            return left[0]
    if len(left) == 1:
        return left[0]
    return left[rand.randrange(len(left))]


class Expander:
    """The expander chain a cluster autoscaler was configured with (``--expander``), drawing
    its final tie-break from ``rand``."""

    def __init__(self, config: Any, rand: Any) -> None:
        self.config = config
        self.rand = rand

    def best_option(self, options: list[Option]) -> Option | None:
        return best_option(options, self.config, self.rand)
