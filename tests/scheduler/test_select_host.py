"""select_host: the highest total, ties broken by one draw — the same node from the plain
path's list of totals and from the fast path's numpy array of them (tied totals are the rule:
a template's pods on a roomy cluster score alike on most nodes)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.scheduler.schedule_one import select_host
from ksandbox.sim.rand import SimRandom


class _Node:
    def __init__(self, name: str) -> None:
        self.name = name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 4), min_size=1, max_size=40), st.integers(0, 1000))
def test_the_array_picks_what_the_list_picks(totals, seed):
    nodes = [_Node(f"n{i}") for i in range(len(totals))]
    plain = select_host(nodes, list(totals), SimRandom(seed))
    fast = select_host(nodes, np.array(totals, dtype=np.int64), SimRandom(seed))
    assert fast == plain
    assert totals[int(plain[1:])] == max(totals)
