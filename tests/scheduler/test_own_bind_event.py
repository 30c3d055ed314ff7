"""The scheduler's own bind makes no AssignedPod/Add event when no one would hear it.

At a bind the pod being scheduled is the one pod in flight: the AssignedPod/Add event of its
own binding would only be kept among the events seen while it was in flight (the list its
``queue.done`` drops right after the bind) and offered to the parked pods. With no pod parked
(a roomy cluster: every SchedulingBasic pod) Scheduler._own_bind_unheard skips it. This mixed
workload (test_scheduler_fast_path's: pods that wait, are preempted, retried after node
churn) runs with the skip and with every bind's event made, and must write, record and queue
exactly the same."""

import pytest
from test_scheduler_fast_path import churn

from ksandbox.scheduler.scheduler import Scheduler


def _queue_state(sched):
    q = sched.queue
    return (sorted(q._where.items()), sorted(q.unschedulable), sorted(q.in_flight),
            sorted((k, v.attempts, v.timestamp, sorted(v.unschedulable_plugins))
                   for k, v in q._infos.items()),
            sorted(q._entry.items()), sorted(e for e in q._backoff if q._entry.get(e[2]) is e))


def _run(use_fast):
    states = []
    log, _sched = churn(use_fast, seed=5, nodes=60, steps=8, per_step=60, add_at=3,
                        delete_at=5, settle=60,
                        observe=lambda sched: states.append(_queue_state(sched)))
    return log, states


@pytest.mark.parametrize("use_fast", [True, False])
def test_skipping_the_own_bind_event_changes_nothing(use_fast, monkeypatch):
    answers = []
    real = Scheduler._own_bind_unheard

    def counted(self, key):
        answer = real(self, key)
        answers.append(answer)
        return answer

    monkeypatch.setattr(Scheduler, "_own_bind_unheard", counted)
    skipped = _run(use_fast)
    monkeypatch.setattr(Scheduler, "_own_bind_unheard", lambda self, key: False)
    plain = _run(use_fast)
    assert skipped == plain
    assert sum(answers) > 50 and answers.count(False) > 50   # both ways were taken
    assert any(e[1] == "Preempted" for e in plain[0])
    assert any(e[1] == "FailedScheduling" for e in plain[0])
