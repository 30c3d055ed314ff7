"""Make the scheduler tests' helper module importable from every test directory below."""

import os
import sys

if os.path.dirname(__file__) not in sys.path:
    sys.path.append(os.path.dirname(__file__))

import pytest  # noqa: E402


@pytest.fixture
def explain_checked(monkeypatch):
    """Wrap every scheduling attempt: explain the pod first, then check the attempt chose the
    same node (or failed the same way). Yields the list of (pod, explained, actual)."""
    from ksandbox.scheduler.explain import explain_pod
    from ksandbox.scheduler.scheduler import Scheduler

    seen = []
    original = Scheduler.schedule_one

    def wrapped(self, q):
        pod = self.store.get("Pod", q.pi.pod.metadata.name, q.pi.namespace)
        before = None
        if pod is not None and not pod.spec.node_name and \
                pod.metadata.deletion_timestamp is None:
            before = explain_pod(self, pod)
        original(self, q)
        if before is None:
            return
        after = self.store.get("Pod", pod.metadata.name, pod.metadata.namespace)
        actual = after.spec.node_name if after is not None else None
        seen.append((pod.metadata.name, before.selected, actual or None, before.message))
        assert before.selected == (actual or None), (pod.metadata.name, before.message)
        if not actual:
            cond = after.status.condition("PodScheduled")
            assert cond is not None and cond.message == before.message

    monkeypatch.setattr(Scheduler, "schedule_one", wrapped)
    return seen
