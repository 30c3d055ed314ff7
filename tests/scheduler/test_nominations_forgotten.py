"""Forgetting a pod's nomination (upstream's nominator DeleteNominatedPodIfExists, called when
the pod is assigned or deleted — pkg/scheduler/backend/queue). The scheduler skips the walk of
the nominations when there are none (most pods' every write); with some, the pod's entry goes,
a node left with none goes with it, and the others stay."""

from ksandbox.session import Session


def test_forgetting_a_nomination_removes_only_that_pod():
    sched = Session.from_text("").cp.scheduler
    sched._forget_nomination("default/a")   # none at all: nothing to do
    assert sched.handle.nominated == {}
    sched.handle.nominated.update({"n0": {"default/a": 1, "default/b": 2},
                                   "n1": {"default/c": 3}})
    sched._forget_nomination("default/a")
    assert sched.handle.nominated == {"n0": {"default/b": 2}, "n1": {"default/c": 3}}
    sched._forget_nomination("default/c")
    assert sched.handle.nominated == {"n0": {"default/b": 2}}
    sched._forget_nomination("default/zz")
    assert sched.handle.nominated == {"n0": {"default/b": 2}}
