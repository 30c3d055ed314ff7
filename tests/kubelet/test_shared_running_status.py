"""The kubelet's running status shares equal conditions and container statuses between pods
that start at the same instant; each pod's status equals the one built for it alone
(upstream: kubelet status manager generateAPIPodStatus — Ready, ContainersReady, Initialized,
PodReadyToStartContainers True at the start, a running containerStatus per container)."""

from ksandbox.api.codec import encode
from ksandbox.api.core import PodCondition
from ksandbox.kubelet import pod_workers as pw


def test_shared_values_equal_fresh_ones_and_keep_the_times_type(monkeypatch):
    monkeypatch.setattr(pw, "_SHARED_LIMIT", 3)
    for since in (5, 5.0, 7.5, "2024-01-01T00:00:00Z", 5, 5.0):
        for t in ("Ready", "Initialized", "ContainersReady"):
            c = pw._true_condition(t, since, 2)
            fresh = PodCondition(type=t, observed_generation=2, status="True",
                                 last_transition_time=since)
            assert c == fresh
            # every field, extra too (no part of ==): built by the replacer from a blank
            # condition, the same value as the keyword call's
            assert type(c) is PodCondition and encode(c) == encode(fresh)
            assert c.extra is fresh.extra and repr(c) == repr(fresh)
            assert type(c.last_transition_time) is type(since)
        cs = pw._running_container_status("c", "nginx", since)
        assert cs == pw._container_status("c", "nginx", since)
        assert type(cs["state"]["running"]["startedAt"]) is type(since)
    assert len(pw._CONDITIONS) <= 3 and len(pw._CONTAINER_STATUSES) <= 3
    # the same instant again: the same object
    assert pw._true_condition("Ready", 9.0, 1) is pw._true_condition("Ready", 9.0, 1)
    # another generation: another condition
    assert pw._true_condition("Ready", 9.0, 2).observed_generation == 2
    # an unhashable time (a hostile file's startedAt) is not shared, and does not fail
    odd = ["x"]
    assert pw._true_condition("Ready", odd, 1).last_transition_time is odd
    assert pw._running_container_status("c", "i", odd)["state"]["running"]["startedAt"] is odd


# -- the running conditions and container statuses, remembered per old conditions ---------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ksandbox.api.core import Container, PodStatus  # noqa: E402

_TYPES = ("PodScheduled", "Ready", "Initialized", "PodReadyToStartContainers",
          "ContainersReady", "DisruptionTarget")
_TIMES = st.sampled_from([0, 0.0, 1.5, 2, 2.0, "2024-01-01T00:00:00Z"])
_CONDITION = st.builds(lambda t, g, s, at: PodCondition(type=t, observed_generation=g, status=s,
                                                       last_transition_time=at),
                       st.sampled_from(_TYPES), st.integers(0, 2),
                       st.sampled_from(["True", "False", "Unknown"]), _TIMES)
_CONDITIONS = st.lists(_CONDITION, max_size=4).map(tuple)
_CONTAINERS = st.lists(st.builds(Container, name=st.sampled_from(["a", "b"]),
                                 image=st.sampled_from(["nginx", "busybox:1"])),
                       min_size=1, max_size=2).map(tuple)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), _TIMES, _TIMES,
                          st.integers(0, 2)),
                min_size=1, max_size=12),
       st.lists(_CONDITIONS, min_size=4, max_size=4), st.lists(_CONTAINERS, min_size=3,
                                                               max_size=3))
def test_remembered_running_parts_are_the_ones_computed_for_each_pod(steps, conds, containers):
    """Pods sharing (or not) their old conditions' and containers' objects, starting at
    equal times of different types, of one generation or another: each gets what
    _running_parts_of computes for it alone, with each time's own type."""
    pw._RUNNING_PARTS.clear()
    statuses = [PodStatus(conditions=c) for c in conds]
    for i, j, since, running_since, gen in steps:
        old, cs = statuses[i], containers[j]
        got = pw._running_parts(old, cs, since, running_since, gen)
        want = pw._running_parts_of(old, cs, since, running_since, gen)
        assert got == want
        assert [type(c.last_transition_time) for c in got[0]] == \
            [type(c.last_transition_time) for c in want[0]]
        assert [type(s["state"]["running"]["startedAt"]) for s in got[1]] == \
            [type(s["state"]["running"]["startedAt"]) for s in want[1]]
    # an unhashable time is computed, not remembered
    odd = ["x"]
    got = pw._running_parts(statuses[0], containers[0], odd, odd, 1)
    assert got == pw._running_parts_of(statuses[0], containers[0], odd, odd, 1)
