"""A template's answers: the PreFilter and PreScore answers that read only the pod's spec.

The pods of one template share their spec object (the codec's sharing, the API server's
defaulting by identity), and most plugins' PreFilter and PreScore read nothing but that spec
and their own args: NodeResourcesFit's requests, TaintToleration's PreferNoSchedule
tolerations, the Skip of NodeAffinity or NodePorts for a pod that asks for no affinity or host
port, the volume plugins' Skip for a pod without claims. A plugin names those extension points
for a pod (``spec_only(pod)``). The fast path asks each of them once per spec object, on a
scratch CycleState, and every later pod of that spec gets the recorded answer — its state
writes, then its Skip — in the plugin's place in the order, without a call. An answer that is
anything else (a rejection, an error, a PreFilterResult) is not recorded: that plugin stays
live for the spec. The values written are then shared by the spec's pods, as they are by one
pod's state and its clones: no plugin changes a value in place but on a clone (preemption's
simulations clone the state first).

One step is ``(plugin, method, takes the fast path's context, recorded answer or None)``, a
recorded answer being (state writes, names of the plugins that answered Skip); consecutive
recorded answers are merged into one step (:func:`merged`). ``Framework.run_pre_filter`` and
``FastPath.prioritize`` walk the steps, so a recorded answer is applied by the same loop that
runs a live one. tests/scheduler/test_pod_plan.py checks the
plans against the plain path, which never uses them.
"""

from __future__ import annotations

from typing import Any, Callable

from .cycle_state import CycleState
from .interface import Code

PRE_FILTER = "pre_filter"
PRE_SCORE = "pre_score"


# PodPlan.filters before the spec's first pod reached the fast path's Filter loop, and after
# (neither matches a static generation, which counts from 0; equal tuples of constants would
# be one object): see FastPath._filter.
FILTERS_UNSEEN: tuple = (None, -1, None, None)
FILTERS_SEEN: tuple = (None, -2, None, None)


class PodPlan:
    """The steps of one spec object's PreFilter and PreScore (PreScore built when first
    needed: a pod that fits one node only is never scored), and the Filter steps its pods
    run (FastPath._filter)."""

    __slots__ = ("spec", "pre_filter", "pre_score", "plugins", "filters")

    def __init__(self, spec: Any, pre_filter: list, plugins: tuple) -> None:
        self.spec = spec
        self.pre_filter = pre_filter
        self.pre_score: list | None = None
        # the profile's plugin lists the steps were built from (a test may swap them)
        self.plugins = plugins
        # (skip set, static generation, the profile's filter plugin list, Filter steps):
        # the steps left for the spec's pods with that skip set while the nodes' static
        # parts stand, or one of the FILTERS_ markers
        self.filters: tuple = FILTERS_UNSEEN


def spec_only_points(pl: Any, pod: Any) -> tuple[str, ...]:
    fn = getattr(pl, "spec_only", None)
    return fn(pod) if fn is not None else ()


def _recorded(pl: Any, state: CycleState, st: Any) -> tuple | None:
    """What a scratch call of ``pl`` left: (its state writes, the names of the plugins that
    answered Skip: its own or none); None when the answer is not to be replayed (anything
    but success or Skip)."""
    if st is not None and st.code != Code.SUCCESS and st.code != Code.SKIP:
        return None
    writes = {k: v for k, v in state._data.items() if k != "PodInfo"}
    return writes, (pl.name,) if st is not None and st.code == Code.SKIP else ()


def replay(state: CycleState, memo: tuple, skipped: set) -> None:
    """Apply a recorded answer (``_recorded``, ``merged``) as the calls would have: their
    state writes, and the plugins that answered Skip added to ``skipped`` (the cycle's
    skip_filter or skip_score)."""
    writes, skips = memo
    if writes:
        state.write_all(writes)
    if skips:
        skipped.update(skips)


def merged(steps: list) -> list:
    """``steps`` with each run of consecutive recorded answers made one step (plugin None):
    their writes in order (a later one of a key wins, as written one after the other) and
    their Skips in order — what replaying them one by one leaves, in fewer turns of the
    loop. Live steps keep their places."""
    out: list = []
    for step in steps:
        memo = step[3]
        if memo is not None and out and out[-1][3] is not None:
            writes, skips = out[-1][3]
            out[-1] = (None, None, False, ({**writes, **memo[0]}, skips + memo[1]))
        elif memo is not None:
            out.append((None, None, False, memo))
        else:
            out.append(step)
    return out


def _scratch(pi: Any) -> CycleState:
    s = CycleState()
    s.write("PodInfo", pi)
    return s


def pre_filter_steps(steps: list, pod: Any, pi: Any, ctx: Any, nodes: Any) -> list:
    """``steps`` (Framework.pre_filter_steps) with the spec-only answers recorded."""
    out = []
    for pl, fn, with_ctx, _ in steps:
        memo = None
        if PRE_FILTER in spec_only_points(pl, pod):
            scratch = _scratch(pi)
            r, st = fn(scratch, pod, ctx if with_ctx else nodes)
            if r is None:
                memo = _recorded(pl, scratch, st)
        out.append((pl, fn, with_ctx, memo))
    return out


def pre_score_steps(plugins: list, pod: Any, pi: Any,
                    call: Callable[[Any, bool, CycleState], Any]) -> list:
    """The PreScore steps of ``plugins`` (their vectorized method where they have one), with
    the spec-only answers recorded; ``call(method, takes_ctx, state)`` runs one as the
    cycle would."""
    out = []
    for pl in plugins:
        vec = getattr(pl, "pre_score_vec", None)
        fn, with_ctx = (vec, True) if vec is not None else (pl.pre_score, False)
        memo = None
        if PRE_SCORE in spec_only_points(pl, pod):
            scratch = _scratch(pi)
            memo = _recorded(pl, scratch, call(fn, with_ctx, scratch))
        out.append((pl, fn, with_ctx, memo))
    return out
