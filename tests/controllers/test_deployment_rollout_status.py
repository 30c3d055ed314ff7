"""dp.rollout_status — a rollout's status counts and conditions in one pass — answers what
calculate_status and status_conditions(progress=True) answer, and the view it hands back
for the conditions it made is what _view finds in them.

The Deployment controller takes the one pass when it remembers (``memo``); the plain calls
are what it makes with ``memo = False`` (test_deployment_memo compares the two over whole
rollouts). Here the inputs are drawn at random: the Deployment's replicas, deadline,
generation and stored counts, its stored conditions (Available and Progressing of every
reason, repeated, out of order, with entries that are not mappings), its ReplicaSets' sizes
and counts, which of them is new, and the time.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as hs

from ksandbox.api.apps import Deployment, DeploymentSpec, DeploymentStatus
from ksandbox.api.codec import FrozenDict
from ksandbox.api.meta import ObjectMeta
from ksandbox.controllers import deployment_progress as dp
from ksandbox.controllers import deployment_util as du

_REASONS = {
    "Available": [("True", dp.MIN_AVAILABLE), ("False", dp.MIN_UNAVAILABLE)],
    "Progressing": [("True", dp.NEW_RS_AVAILABLE), ("True", dp.RS_UPDATED),
                    ("True", dp.NEW_RS_CREATED), ("True", dp.FOUND_NEW_RS),
                    ("False", dp.TIMED_OUT), ("Unknown", dp.PAUSED), ("Unknown", dp.RESUMED)],
}
_TIMES = hs.sampled_from([0.0, 1.0, 7.5, 40.0, 600.0, 655.5])


@hs.composite
def _condition(draw):
    type_ = draw(hs.sampled_from(["Available", "Progressing", "Other"]))
    if type_ == "Other":
        status, reason = "True", "Whatever"
    else:
        status, reason = draw(hs.sampled_from(_REASONS[type_]))
    return FrozenDict({"type": type_, "status": status, "lastUpdateTime": draw(_TIMES),
                       "lastTransitionTime": draw(_TIMES), "reason": reason, "message": "m"})


# small counts: equal ones (a complete rollout, one complete before) come often
_COUNT = hs.integers(0, 3)


@hs.composite
def _inputs(draw):
    stored = draw(hs.lists(hs.one_of(_condition(), hs.just("junk")), max_size=4))
    status = DeploymentStatus(
        replicas=draw(_COUNT), updated_replicas=draw(_COUNT), ready_replicas=draw(_COUNT),
        available_replicas=draw(_COUNT))
    status = DeploymentStatus(
        replicas=status.replicas, updated_replicas=status.updated_replicas,
        ready_replicas=status.ready_replicas, available_replicas=status.available_replicas,
        extra=FrozenDict({"conditions": tuple(stored)}) if stored or draw(hs.booleans())
        else FrozenDict({}))
    d = Deployment(
        metadata=ObjectMeta(name="web", namespace="default", generation=draw(hs.integers(1, 3))),
        spec=DeploymentSpec(replicas=draw(hs.one_of(hs.none(), hs.integers(0, 3))),
                            progress_deadline_seconds=draw(hs.sampled_from(
                                [None, 3, 600, 2 ** 31 - 1]))),
        status=status)
    rss = [SimpleNamespace(
        metadata=SimpleNamespace(name=f"web-{i}"),
        spec=SimpleNamespace(replicas=draw(hs.one_of(hs.none(), _COUNT))),
        status=SimpleNamespace(replicas=draw(_COUNT), ready_replicas=draw(_COUNT),
                               available_replicas=draw(_COUNT)))
        for i in range(draw(hs.integers(0, 3)))]
    new_rs = draw(hs.sampled_from([None] + rss))
    return d, rss, new_rs, draw(_TIMES) + draw(hs.sampled_from([0.0, 0.5, 30.0]))


_ORDER = ("replicas", "updated_replicas", "ready_replicas", "available_replicas",
          "unavailable_replicas", "observed_generation")


@settings(max_examples=1500, deadline=None)
@given(_inputs())
def test_one_pass_answers_as_the_plain_calls(inputs):
    d, rss, new_rs, now = inputs
    want = du.calculate_status(d, rss, new_rs)
    plain_conds, plain_after = dp.status_conditions(d, want, new_rs, now, True)
    counts, conds, after, view = dp.rollout_status(d, rss, new_rs, now)
    assert counts == tuple(want[k] for k in _ORDER)
    assert conds == plain_conds
    assert [type(c) for c in conds] == [type(c) for c in plain_conds]
    # (each condition's keys in the same order: a written status shows them so)
    assert [repr(c) for c in conds] == [repr(c) for c in plain_conds]
    assert after == plain_after and type(after) is type(plain_after)
    if view is not None:
        # what _view finds in the tuple written from these conditions, each the same object
        written = tuple(conds)
        filtered = [c for c in written if hasattr(c, "get")]
        assert view[0] == filtered and all(a is b for a, b in zip(view[0], filtered))
        assert view[1] is dp.get_condition(filtered, dp.AVAILABLE)
        assert view[2] is dp.get_condition(filtered, dp.PROGRESSING)


def test_the_one_pass_answers_a_rollout_under_way_itself():
    """The case it is for (the Progressing condition moved on, nothing else): it hands back
    the view of what it made — so the controller remembers it — where the other cases go
    through the plain _rollout and hand back none."""
    p = dp.new_condition("Progressing", "True", dp.RS_UPDATED, "x", 1.0)
    a = dp.new_condition("Available", "True", dp.MIN_AVAILABLE, "y", 1.0)
    d = Deployment(metadata=ObjectMeta(name="web", namespace="default", generation=1),
                   spec=DeploymentSpec(replicas=3, progress_deadline_seconds=600),
                   status=DeploymentStatus(replicas=3, updated_replicas=1, ready_replicas=3,
                                           available_replicas=3,
                                           extra=FrozenDict({"conditions": (a, p)})))
    new = SimpleNamespace(metadata=SimpleNamespace(name="web-2"),
                          spec=SimpleNamespace(replicas=2),
                          status=SimpleNamespace(replicas=2, ready_replicas=1,
                                                 available_replicas=1))
    old = SimpleNamespace(metadata=SimpleNamespace(name="web-1"),
                          spec=SimpleNamespace(replicas=2),
                          status=SimpleNamespace(replicas=2, ready_replicas=2,
                                                 available_replicas=2))
    counts, conds, after, view = dp.rollout_status(d, [old, new], new, 9.0)
    assert counts == (4, 2, 3, 3, 1, 1)
    assert [c["reason"] for c in conds] == [dp.MIN_AVAILABLE, dp.RS_UPDATED]
    assert conds[1]["lastUpdateTime"] == 9.0 and conds[1]["lastTransitionTime"] == 1.0
    assert after == 601.0
    assert view == [conds, a, conds[1]] and view[1] is a


def test_a_remembered_view_is_what_view_finds():
    """_view of a tuple remembered by remember_view is the one kept; of a tuple not
    remembered, the plain filter (and then kept)."""
    a = dp.new_condition("Available", "True", dp.MIN_AVAILABLE, "y", 1.0)
    p = dp.new_condition("Progressing", "True", dp.RS_UPDATED, "x", 1.0)
    raw = (a, p)
    view = [[a, p], a, p]
    dp.remember_view(raw, view)
    d = SimpleNamespace(status=SimpleNamespace(extra=FrozenDict({"conditions": raw})))
    assert dp._view(d) is view
    other = (p, "junk", a)
    d2 = SimpleNamespace(status=SimpleNamespace(extra=FrozenDict({"conditions": other})))
    got = dp._view(d2)
    assert got == [[p, a], a, p]
    assert dp._view(d2) is got
