"""The HorizontalPodAutoscaler controller and the metrics stand-in: decisions over simulated
time with loads set through the ``metrics`` component.

Pods are made Running and Ready by writing their status (a kubelet may or may not be in the
build). The HPA acts at creation and then every 15 s.
"""

from __future__ import annotations

import attrs
import pytest

from ksandbox.api.core import PodCondition
from ksandbox.controllers.controller_utils import pod_active, pod_ready
from ksandbox.controllers.hpa import scale_down_limit, scale_up_limit
from ksandbox.session import Session

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "64", memory: 256Gi, pods: "500"}}
"""


def deploy_yaml(replicas: int, requests: str = "resources: {requests: {cpu: 100m}}",
                name: str = "web") -> str:
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: app, image: nginx, {requests}}}]
"""


def hpa_yaml(lo: int, hi: int, target: int, behavior: str = "", name: str = "web") -> str:
    return f"""
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: {name}}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}
  minReplicas: {lo}
  maxReplicas: {hi}
  {behavior}
  metrics:
  - type: Resource
    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: {target}}}}}
"""


def make_all_ready(s: Session) -> None:
    now = s.now
    for p in s.store.list("Pod", "default"):
        if pod_active(p) and not pod_ready(p):
            st = attrs.evolve(p.status, phase="Running", start_time=now, conditions=(
                PodCondition(type="Ready", status="True", last_transition_time=now),))
            s.store.update_status(attrs.evolve(p, status=st))


def run_ready(s: Session, until: float) -> None:
    """Run to ``until`` second by second, pods becoming ready as soon as they exist."""
    while s.now < until:
        make_all_ready(s)
        s.run_until(min(until, s.now + 1))
    make_all_ready(s)


def replicas(s: Session, name: str = "web") -> int:
    return s.store.get("Deployment", name, "default").spec.replicas


def hpa_status(s: Session, name: str = "web"):
    return s.store.get("HorizontalPodAutoscaler", name, "default").status


def hpa_obj(s: Session, name: str = "web"):
    return s.store.get("HorizontalPodAutoscaler", name, "default")


def rescales(s: Session) -> list[str]:
    return [e.message for e in s.store.events if e.reason == "SuccessfulRescale"]


def load(s: Session, percent: float, name: str = "web") -> None:
    s.cp.metrics.set_load("default", "Deployment", name, percent)


def test_scales_up_to_the_utilization_ratio_and_settles():
    s = Session.from_text(NODES + deploy_yaml(2) + hpa_yaml(1, 10, 50))
    load(s, 100)  # 2 pods at 100 % of their request, target 50 % → 4 pods
    run_ready(s, 20)
    assert replicas(s) == 4
    assert rescales(s) == ["New size: 4; reason: cpu resource utilization (percentage of "
                           "request) above target"]
    ev = next(e for e in s.store.events if e.reason == "SuccessfulRescale")
    assert ev.source_component == "horizontal-pod-autoscaler" and ev.type == "Normal"
    assert ev.object_path == "HorizontalPodAutoscaler/default/web"
    assert hpa_status(s).last_scale_time == 15.0
    run_ready(s, 200)
    st = hpa_status(s)
    assert replicas(s) == 4  # the same demand over 4 pods is 50 %: on target
    assert (st.current_replicas, st.desired_replicas, hpa_obj(s).cpu_current_percent()) \
        == (4, 4, 50)


def test_a_new_autoscaler_waits_out_the_window_before_its_first_scale_down():
    """horizontal.go recordInitialRecommendation: the first sync records the current count
    as a recommendation, so an idle workload keeps its 3 replicas until the 5-minute
    downscale stabilization window has passed since the HPA first looked."""
    s = Session.from_text(NODES + deploy_yaml(3) + hpa_yaml(1, 10, 50))
    run_ready(s, 290)  # idle pods use 0 %, but 3 was recommended at t=0
    assert replicas(s) == 3 and not rescales(s)
    cond = {c["type"]: c for c in hpa_obj(s).status.extra["conditions"]}
    assert cond["AbleToScale"]["reason"] == "ScaleDownStabilized"
    run_ready(s, 320)
    assert replicas(s) == 1
    assert rescales(s) == ["New size: 1; reason: All metrics below target"]


def test_a_ratio_within_the_tolerance_does_not_scale():
    s = Session.from_text(NODES + deploy_yaml(4) + hpa_yaml(1, 10, 50))
    load(s, 54)  # ratio 1.08 ≤ 1.1
    run_ready(s, 120)
    assert replicas(s) == 4 and not rescales(s)
    assert hpa_obj(s).cpu_current_percent() == 54


def test_scale_up_is_limited_to_double_or_four_pods_per_sync():
    s = Session.from_text(NODES + deploy_yaml(1) + hpa_yaml(1, 50, 10))
    load(s, 1000)  # wants 100 pods; the plain path allows max(2 × current, 4)
    run_ready(s, 20)
    assert replicas(s) == 4
    run_ready(s, 35)
    assert replicas(s) == 8
    assert rescales(s)[:2] == [f"New size: {n}; reason: cpu resource utilization (percentage "
                               "of request) above target" for n in (4, 8)]


def test_scale_down_waits_for_the_stabilization_window():
    s = Session.from_text(NODES + deploy_yaml(4) + hpa_yaml(1, 10, 50))
    load(s, 50)
    run_ready(s, 100)
    assert replicas(s) == 4 and not rescales(s)
    load(s, 10)  # wants 1 pod
    changed_at = s.now
    run_ready(s, changed_at + 280)
    assert replicas(s) == 4
    assert s.cp.components["hpa"].busy_until() is not None
    run_ready(s, changed_at + 330)
    assert replicas(s) == 1
    assert rescales(s) == ["New size: 1; reason: All metrics below target"]


def test_replicas_are_brought_within_min_and_max_without_metrics():
    s = Session.from_text(NODES + deploy_yaml(2, name="my-ap"))
    result = s.submit("kubectl autoscale deployment my-ap --max 6 --min 4 --cpu-percent 50")
    assert result.ok, result.error
    s.run_for(1)
    assert replicas(s, "my-ap") == 4
    assert rescales(s) == ["New size: 4; reason: Current number of replicas below "
                           "Spec.MinReplicas"]
    d = s.store.get("Deployment", "my-ap", "default")
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, replicas=9)))
    s.run_for(16)
    assert replicas(s, "my-ap") == 6
    assert rescales(s)[-1] == ("New size: 6; reason: Current number of replicas above "
                               "Spec.MaxReplicas")


def test_v1_target_cpu_utilization_percentage_is_honoured():
    v1 = """
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 10
  targetCPUUtilizationPercentage: 40
"""
    s = Session.from_text(NODES + deploy_yaml(2) + v1)
    load(s, 80)
    run_ready(s, 20)
    assert replicas(s) == 4
    run_ready(s, 90)
    assert replicas(s) == 4 and hpa_obj(s).cpu_current_percent() == 40


def test_pods_without_cpu_requests_leave_the_utilization_unknown():
    s = Session.from_text(NODES + deploy_yaml(2, requests="resources: {}") +
                          hpa_yaml(1, 10, 50))
    load(s, 300)
    run_ready(s, 90)
    assert replicas(s) == 2 and not rescales(s)
    assert hpa_obj(s).cpu_current_percent() is None
    failed = [e for e in s.store.events if e.reason == "FailedGetResourceMetric"]
    assert failed and failed[-1].type == "Warning"
    assert failed[-1].message.startswith("failed to get cpu utilization: missing request for "
                                         "cpu in container app of Pod web-")
    assert failed[-1].count >= 4  # every 15 s, deduplicated like upstream's correlator


def test_only_running_pods_have_metrics():
    s = Session.from_text(NODES + deploy_yaml(2))
    metrics = s.cp.metrics
    load(s, 70)
    pods = [p for p in s.store.list("Pod", "default") if pod_active(p)]
    for p in pods:
        if p.status.phase != "Running":
            assert metrics.usage(p) is None
    make_all_ready(s)
    pods = [s.store.get("Pod", p.metadata.name, "default") for p in pods]
    assert [metrics.usage(p) for p in pods] == [70.0, 70.0]


def test_load_is_spread_over_the_serving_pods_and_capped_by_the_limit():
    limited = "resources: {requests: {cpu: 100m}, limits: {cpu: 150m}}"
    s = Session.from_text(NODES + deploy_yaml(2, requests=limited))
    make_all_ready(s)
    metrics = s.cp.metrics
    load(s, 120)
    d = s.store.get("Deployment", "web", "default")
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, replicas=4)))
    s.run_for(1)
    make_all_ready(s)
    pods = [p for p in s.store.list("Pod", "default") if pod_active(p)]
    assert [metrics.usage(p) for p in pods] == [60.0] * 4
    load(s, 500)
    assert {metrics.usage(p) for p in pods} == {150.0}


def test_behavior_policies_limit_the_rate():
    behavior = ("behavior: {scaleUp: {stabilizationWindowSeconds: 0, "
                "policies: [{type: Pods, value: 1, periodSeconds: 60}]}}")
    s = Session.from_text(NODES + deploy_yaml(2) + hpa_yaml(1, 10, 50, behavior=behavior))
    load(s, 400)  # wants 16 → 10, but one pod a minute
    run_ready(s, 50)
    assert replicas(s) == 3
    run_ready(s, 110)
    assert replicas(s) == 4


@pytest.mark.parametrize("current,ups,downs,rules,want", [
    (4, [], [], {"selectPolicy": "Max", "policies": (
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15})}, 8),
    (1, [], [], {"selectPolicy": "Max", "policies": (
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15})}, 5),
    (6, [(95.0, 2)], [], {"selectPolicy": "Min", "policies": (
        {"type": "Pods", "value": 4, "periodSeconds": 60},
        {"type": "Percent", "value": 50, "periodSeconds": 60})}, 6),
    (6, [], [], {"selectPolicy": "Disabled", "policies": ()}, 6),
])
def test_scale_up_limit_with_scaling_rules(current, ups, downs, rules, want):
    assert scale_up_limit(current, ups, downs, rules, now=100.0) == want


def test_scale_down_limit_with_scaling_rules():
    rules = {"selectPolicy": "Max", "policies": (
        {"type": "Percent", "value": 50, "periodSeconds": 60},)}
    assert scale_down_limit(10, [], [], rules, now=100.0) == 5
    assert scale_down_limit(5, [], [(90.0, 5)], rules, now=100.0) == 5


def test_a_headless_settle_waits_out_the_stabilization_window():
    s = Session.from_text(NODES + deploy_yaml(4) + hpa_yaml(1, 10, 50))
    load(s, 50)
    run_ready(s, 60)
    load(s, 10)
    s.settle(limit=2000)
    assert replicas(s) == 1
    assert s.now < 600
