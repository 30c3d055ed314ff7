"""The disruption controller's PodDisruptionBudget status, as upstream computes it."""

from __future__ import annotations

import sys
from pathlib import Path

import attrs
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kubelet"))

from nodesim import cluster, get_pod, node, pod  # noqa: E402

RS = """
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 0
  selector: {matchLabels: {app: other}}
  template:
    metadata: {labels: {app: other}}
    spec: {containers: [{name: c, image: nginx}]}
"""


def pdb(spec: str) -> str:
    return f"""
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: web}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  {spec}
"""


def status(s):
    st = s.store.get("PodDisruptionBudget", "web", "default").status
    return (st.expected_pods, st.desired_healthy, st.current_healthy, st.disruptions_allowed)


def web_pods(n=3, owner=None):
    return [pod(f"web-{i}", "node-1", labels={"app": "web"}, owner=owner) for i in range(n)]


def scale_rs(s, replicas):
    rs = s.store.get("ReplicaSet", "web", "default")
    s.store.update(attrs.evolve(rs, spec=attrs.evolve(rs.spec, replicas=replicas)))


@pytest.mark.parametrize("spec,want", [
    ("minAvailable: 2", (3, 2, 3, 1)),
    ("minAvailable: 3", (3, 3, 3, 0)),
    ("minAvailable: 5", (3, 5, 3, 0)),
], ids=["two of three must stay: one may go", "all must stay: none may go",
        "more than exist: none may go"])
def test_min_available_counts_matching_ready_pods(spec, want):
    s = cluster(node("node-1"), pdb(spec), *web_pods())
    s.run_until(10)
    assert status(s) == want


def test_pods_not_ready_do_not_count_as_healthy():
    s = cluster(node("node-1"), pdb("minAvailable: 2"), *web_pods())
    assert status(s) == (3, 2, 0, 0)       # not started yet
    s.run_until(10)
    assert status(s) == (3, 2, 3, 1)


def test_max_unavailable_uses_the_controllers_scale():
    s = cluster(node("node-1"), RS, pdb("maxUnavailable: 1"), *web_pods(owner="ReplicaSet/web"))
    scale_rs(s, 4)
    s.run_until(10)
    assert status(s) == (4, 3, 3, 0)
    scale_rs(s, 3)
    s.run_until(10)
    assert status(s) == (3, 2, 3, 1)


def test_a_percentage_rounds_up():
    s = cluster(node("node-1"), RS, pdb('minAvailable: "50%"'),
                *web_pods(owner="ReplicaSet/web"))
    scale_rs(s, 3)
    s.run_until(10)
    assert status(s) == (3, 2, 3, 1)


def test_pods_without_a_controller_allow_no_disruption_under_max_unavailable():
    s = cluster(node("node-1"), pdb("maxUnavailable: 1"), *web_pods())
    s.run_until(10)
    assert status(s) == (0, 0, 0, 0)
    assert any(e.reason == "CalculateExpectedPodCountFailed" for e in s.store.events)


def test_a_deleting_pod_is_not_healthy():
    s = cluster(node("node-1"), pdb("minAvailable: 1"), *web_pods())
    s.run_until(10)
    s.submit("kubectl delete pod web-0")
    s.run_until(10)
    assert status(s) == (3, 1, 2, 1)
    assert get_pod(s, "web-0").metadata.deletion_timestamp == 40.0
