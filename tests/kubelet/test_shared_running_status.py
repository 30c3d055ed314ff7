"""The kubelet's running status shares equal conditions and container statuses between pods
that start at the same instant; each pod's status equals the one built for it alone
(upstream: kubelet status manager generateAPIPodStatus — Ready, ContainersReady, Initialized,
PodReadyToStartContainers True at the start, a running containerStatus per container)."""

from ksandbox.api.core import PodCondition
from ksandbox.kubelet import pod_workers as pw


def test_shared_values_equal_fresh_ones_and_keep_the_times_type(monkeypatch):
    monkeypatch.setattr(pw, "_SHARED_LIMIT", 3)
    for since in (5, 5.0, 7.5, "2024-01-01T00:00:00Z", 5, 5.0):
        for t in ("Ready", "Initialized", "ContainersReady"):
            c = pw._true_condition(t, since)
            assert c == PodCondition(type=t, status="True", last_transition_time=since)
            assert type(c.last_transition_time) is type(since)
        cs = pw._running_container_status("c", "nginx", since)
        assert cs == pw._container_status("c", "nginx", since)
        assert type(cs["state"]["running"]["startedAt"]) is type(since)
    assert len(pw._CONDITIONS) <= 3 and len(pw._CONTAINER_STATUSES) <= 3
    # the same instant again: the same object
    assert pw._true_condition("Ready", 9.0) is pw._true_condition("Ready", 9.0)
    # an unhashable time (a hostile file's startedAt) is not shared, and does not fail
    odd = ["x"]
    assert pw._true_condition("Ready", odd).last_transition_time is odd
    assert pw._running_container_status("c", "i", odd)["state"]["running"]["startedAt"] is odd
