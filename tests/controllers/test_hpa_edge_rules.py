"""The HPA's edge rules: Pending pods, flipped directions, the first sync's recommendation,
scaleTargetRef by group and kind, the preferred version.

Ported from pkg/controller/podautoscaler/replica_calculator_test.go (TestReplicaCalcScaleUp,
TestReplicaCalcScaleUpUnreadyLessScale, TestReplicaCalcScaleUpUnreadyNoScale,
TestReplicaCalcScaleUpIgnoresFailedPods, TestReplicaCalcScaleDown,
TestReplicaCalcScaleDownIncludeUnreadyPods, TestReplicaCalcScaleDownExcludeUnscheduledPods,
TestReplicaCalcScaleDownIgnoresFailedPods) against replica_calculator.go's groupPods and
GetResourceReplicas; horizontal.go's recordInitialRecommendation and its scale-target
resolution (RESTMappings for the reference's group and kind, FailedGetScale).
"""

from __future__ import annotations

import pytest

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod
from ksandbox.controllers.hpa.replica_calculator import resource_replicas
from ksandbox.session import Session

NOW = 10_000.0
COOL = NOW - 600.0     # started long before the CPU initialization period (5 min)


def _pod(i: int, phase: str = "Running", ready: str = "True") -> Pod:
    conds = [{"type": "Ready", "status": ready, "lastTransitionTime": COOL + 5}]
    return decode(Pod, {
        "metadata": {"name": f"p{i}", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x:1",
                                 "resources": {"requests": {"cpu": "1"}}}]},
        "status": {"phase": phase, "startTime": COOL,
                   "conditions": conds if phase == "Running" else []}})


def _calc(levels: list[int | None], current: int, target: int, phases: list[str] | None = None,
          readiness: list[str] | None = None) -> tuple[int, int]:
    """levels in millicores of a 1-CPU request (None: no metric); returns (replicas, util)."""
    n = max(len(levels), len(phases or []), len(readiness or []))
    pods = [_pod(i, (phases or ["Running"] * n)[i], (readiness or ["True"] * n)[i])
            for i in range(n)]
    usage = {f"p{i}": lv / 10.0 for i, lv in enumerate(levels) if lv is not None}
    replicas, util, _ = resource_replicas(pods, lambda p: usage.get(p.metadata.name),
                                          current, target, NOW)
    return replicas, util


@pytest.mark.parametrize("name,levels,current,target,phases,readiness,want", [
    ("TestReplicaCalcScaleUp", [300, 500, 700], 3, 30, None, None, (5, 50)),
    ("TestReplicaCalcScaleUpUnreadyLessScale", [300, 500, 700], 3, 30, None,
     ["False", "True", "True"], (4, 60)),
    ("TestReplicaCalcScaleUpUnreadyNoScale", [400, 500, 700], 3, 30, None,
     ["True", "False", "False"], (3, 40)),
    ("TestReplicaCalcScaleUpIgnoresFailedPods", [500, 700, None, None], 2, 30,
     ["Running", "Running", "Failed", "Failed"], ["True", "True", "False", "False"], (4, 60)),
    ("TestReplicaCalcScaleDown", [100, 300, 500, 250, 250], 5, 50, None, None, (3, 28)),
    ("TestReplicaCalcScaleDownIncludeUnreadyPods", [100, 300, 500, 250, 250], 5, 50, None,
     ["True", "True", "True", "False", "False"], (2, 30)),
    ("TestReplicaCalcScaleDownExcludeUnscheduledPods", [100, None, None, None, None], 5, 50,
     ["Running", "Pending", "Pending", "Pending", "Pending"], None, (1, 10)),
    ("TestReplicaCalcScaleDownIgnoresFailedPods", [100, 300, 500, 250, 250, None, None], 5, 50,
     ["Running"] * 5 + ["Failed"] * 2, ["True"] * 5 + ["False"] * 2, (3, 28)),
])
def test_replica_calculator_tables(name, levels, current, target, phases, readiness, want):
    assert _calc(levels, current, target, phases, readiness) == want, name


def test_pending_pods_count_at_zero_on_a_scale_up():
    """groupPods puts Pending pods with the unready: on a scale-up they count at 0 % of
    their request. 3 running pods at 90 % and 1 Pending, target 50 %: 2700m over 4 CPUs
    is 67.5 %, ratio 1.35 → ceil(1.35 × 4) = 6 (ignoring the Pending pod gave ceil(1.8 × 3)
    = 6 too, but with 3 Pending it gave 6 where upstream keeps the count — next test)."""
    assert _calc([900, 900, 900, None], 4, 50, ["Running"] * 3 + ["Pending"]) == (6, 90)


def test_a_flipped_direction_keeps_the_current_count():
    """3 running pods at 80 % and 3 Pending, target 50 %: ratio 1.6 says up, but with the
    Pending pods at 0 % it is 0.8 — the direction flips, so the count stays 6 (the sandbox
    used to scale *down* to ceil(1.6 × 3) = 5, 'All metrics below target')."""
    assert _calc([800, 800, 800, None, None, None], 6, 50,
                 ["Running"] * 3 + ["Pending"] * 3) == (6, 80)


CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: "web:1", resources: {requests: {cpu: 600m}}}]}
"""


def _hpa(ref: str = "{apiVersion: apps/v1, kind: Deployment, name: web}",
         version: str = "autoscaling/v2") -> str:
    target = ("targetCPUUtilizationPercentage: 50" if version == "autoscaling/v1" else
              "metrics: [{type: Resource, resource: {name: cpu, target: "
              "{type: Utilization, averageUtilization: 50}}}]")
    return f"""
---
apiVersion: {version}
kind: HorizontalPodAutoscaler
metadata: {{name: web}}
spec:
  scaleTargetRef: {ref}
  minReplicas: 1
  maxReplicas: 10
  {target}
"""


def test_a_loaded_deployment_with_pending_pods_is_not_scaled_down():
    """The issue's case end to end: 6 replicas of 600m on a 2-CPU node (3 run, 3 Pending),
    each running pod at 80 % of its request, target 50 %: no rescale at all."""
    s = Session.from_text(CLUSTER + _hpa())
    s.run_until(10)
    for p in s.store.list("Pod", "default"):
        if p.status.phase == "Running":
            s.cp.metrics.set_load("default", "Pod", p.metadata.name, 80)
    s.run_until(400)
    assert s.store.get("Deployment", "web", "default").spec.replicas == 6
    assert not [e for e in s.store.events if e.reason == "SuccessfulRescale"]


@pytest.mark.parametrize("ref,error", [
    ("{apiVersion: extensions/v1beta1, kind: Deployment, name: web}",
     'no matches for kind "Deployment" in group "extensions"'),
    ("{apiVersion: apps/v1, kind: Deployment, name: nope}",
     'deployments.apps "nope" not found'),
    ("{apiVersion: apps/v1, kind: DaemonSet, name: web}",
     "the server could not find the requested resource"),
])
def test_scale_target_is_resolved_by_group_and_kind(ref: str, error: str):
    """horizontal.go: RESTMappings(group of apiVersion, kind), then the scale subresource;
    a failure is a FailedGetScale Warning with the error and AbleToScale=False — and the
    target is never scaled."""
    s = Session.from_text(CLUSTER + _hpa(ref))
    s.run_until(60)
    hpa = s.store.get("HorizontalPodAutoscaler", "web", "default")
    cond = {c["type"]: c for c in hpa.status.extra["conditions"]}
    assert (cond["AbleToScale"]["status"], cond["AbleToScale"]["reason"]) == \
        ("False", "FailedGetScale")
    assert cond["AbleToScale"]["message"] == \
        f"the HPA controller was unable to get the target's current scale: {error}"
    ev = [e for e in s.store.events if e.reason == "FailedGetScale"]
    assert ev and ev[0].message == error and ev[0].type == "Warning"
    assert s.store.get("Deployment", "web", "default").spec.replicas == 6


def test_a_v1_object_reads_back_in_the_preferred_version():
    """The API server stores and serves autoscaling/v2: an autoscaling/v1 HPA reads back
    with apiVersion autoscaling/v2 and its target as a Resource cpu metric."""
    s = Session.from_text(CLUSTER + _hpa(version="autoscaling/v1"))
    s.run_until(30)
    out = s.submit("kubectl get hpa web -o yaml").output
    assert out.startswith("apiVersion: autoscaling/v2\n")
    assert "targetCPUUtilizationPercentage" not in out
    assert "currentCPUUtilizationPercentage" not in out
    assert ("  metrics:\n  - resource:\n      name: cpu\n      target:\n"
            "        averageUtilization: 50\n        type: Utilization\n    type: Resource\n"
            ) in out
    row = s.submit("kubectl get hpa web").output.splitlines()[1]
    assert "cpu: " in row and "/50%" in row
