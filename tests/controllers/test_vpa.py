"""The VPA: recommender values, updater evictions and the admission hook, on the clock.

The component ticks every 60 s from t=0 (recommender, then updater). ``hungry`` asks for 50m
and 64Mi; ``ksandbox load`` makes it use 300m (600 % of its request). Memory usage is what
the workload declares (64Mi), below the VPA's 250Mi minimum, so the memory target is
262144k (250Mi as upstream prints it).
"""

from __future__ import annotations

import pytest

from ksandbox.api.quantity import Quantity
from ksandbox.controllers.vpa.model import AggregateContainerState, Histogram, estimate
from ksandbox.session import Session

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "16", memory: 64Gi, pods: "110"}}
"""


def deploy(replicas: int = 2, resources: str = "requests: {cpu: 50m, memory: 64Mi}") -> str:
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: hungry}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: hungry}}}}
  template:
    metadata: {{labels: {{app: hungry}}}}
    spec:
      containers:
      - name: app
        image: nginx
        resources: {{{resources}}}
"""


def vpa(mode: str = "Auto", policy: str = "") -> str:
    return f"""
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {{name: hungry-vpa}}
spec:
  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: hungry}}
  updatePolicy: {{updateMode: "{mode}"}}
{policy}
"""


def session(*docs: str, load: int = 600) -> Session:
    s = Session.from_text(NODE + "".join(docs))
    s.submit(f"ksandbox load deployment/hungry {load}")
    return s


def rec(s: Session):
    v = s.store.get("VerticalPodAutoscaler", "hungry-vpa", "default")
    r = v.status.recommendation
    return r.container_recommendations[0] if r is not None else None


def requests(s: Session) -> list[tuple[str, str]]:
    pods = [p for p in s.store.list("Pod", "default") if p.metadata.deletion_timestamp is None]
    return sorted((str(p.spec.containers[0].resources.requests.get("cpu")),
                   str(p.spec.containers[0].resources.requests.get("memory"))) for p in pods)


def events(s: Session, reason: str) -> list[tuple[float, str, str]]:
    return [(e.first_timestamp, e.object_path, e.message) for e in s.store.occurrences
            if e.reason == reason]


# -- the model ---------------------------------------------------------------------------------

def test_a_percentile_is_the_end_of_its_bucket():
    h = Histogram(1000.0, 0.01, 86400.0)
    for _ in range(9):
        h.add(0.3, 1.0, 0.0)
    h.add(1.0, 1.0, 0.0)
    # 0.3 core falls in bucket 18 (starts 0.2907), which ends at 0.3052.
    assert h.percentile(0.5) == pytest.approx(0.30539, abs=1e-4)
    assert h.percentile(0.9) == pytest.approx(0.30539, abs=1e-4)
    assert h.percentile(0.95) > 1.0


def test_estimates_follow_upstreams_formula():
    st = AggregateContainerState()
    for minute in range(61):                 # one hour, one sample a minute
        st.add_cpu_sample(0.3, 0.05, minute * 60.0)
        st.add_memory_sample(("uid", "app"), 500 * 2**20, minute * 60.0)
    est = estimate(st, 1)
    assert est["target"]["cpu"] == 350       # 305m (bucket end) + 15 %
    conf = min(3600 / 86400, 61 / 1440)
    assert est["upperBound"]["cpu"] == int(350 * (1 + 1 / conf))
    assert est["lowerBound"]["cpu"] == int(350 * (1 + 0.001 / conf) ** -2)
    assert est["target"]["memory"] > 500 * 2**20 * 1.15


# -- the recommender ---------------------------------------------------------------------------

def test_the_first_recommendation_comes_with_the_first_samples():
    s = session(deploy(), vpa("Off"))
    s.run_until(59)
    assert rec(s) is None
    v = s.store.get("VerticalPodAutoscaler", "hungry-vpa", "default")
    assert v.condition("RecommendationProvided").status == "False"
    s.run_until(60)
    r = rec(s)
    assert r.container_name == "app"
    assert (str(r.target["cpu"]), str(r.target["memory"])) == ("350m", "262144k")
    # No history yet: the bounds are as wide as upstream makes them (confidence 0).
    assert (str(r.lower_bound["cpu"]), str(r.lower_bound["memory"])) == ("25m", "262144k")
    assert (str(r.upper_bound["cpu"]), str(r.upper_bound["memory"])) == ("100G", "100T")
    assert r.uncapped_target == r.target
    v = s.store.get("VerticalPodAutoscaler", "hungry-vpa", "default")
    assert v.condition("RecommendationProvided").status == "True"
    assert s.submit("kubectl get vpa").output.splitlines()[1].split()[:5] == \
        ["hungry-vpa", "Off", "350m", "262144k", "True"]


def test_the_bounds_narrow_as_history_grows():
    s = session(deploy(), vpa("Off"))
    s.run_until(120)
    lower, upper = rec(s).lower_bound["cpu"], rec(s).upper_bound["cpu"]
    s.run_until(600)
    assert rec(s).lower_bound["cpu"] > lower and rec(s).upper_bound["cpu"] < upper
    assert str(rec(s).target["cpu"]) == "350m"


def test_container_policies_cap_the_target_but_not_the_uncapped_target():
    s = session(deploy(), vpa("Off", """  resourcePolicy:
    containerPolicies:
    - containerName: "*"
      maxAllowed: {cpu: 200m}
      minAllowed: {memory: 300Mi}
      controlledResources: [cpu, memory]"""))
    s.run_until(60)
    r = rec(s)
    assert str(r.target["cpu"]) == "200m" and str(r.uncapped_target["cpu"]) == "350m"
    assert r.target["memory"] == Quantity("300Mi")


def test_controlled_resources_limit_what_is_recommended():
    s = session(deploy(), vpa("Off", """  resourcePolicy:
    containerPolicies:
    - {containerName: app, controlledResources: [cpu]}"""))
    s.run_until(60)
    assert set(rec(s).target) == {"cpu"}


def test_a_target_without_pods_says_so():
    s = Session.from_text(NODE + vpa("Auto"))
    s.run_until(60)
    v = s.store.get("VerticalPodAutoscaler", "hungry-vpa", "default")
    assert v.condition("NoPodsMatched").status == "True"
    assert v.condition("RecommendationProvided").reason == "NoPodsMatched"


def test_memory_usage_set_through_metrics_drives_the_memory_target():
    s = session(deploy(), vpa("Off"))
    s.cp.metrics.set_memory("default", "Deployment", "hungry", 600 * 2**20)
    s.run_until(60)
    assert rec(s).target["memory"] > Quantity("600Mi")


# -- the updater -------------------------------------------------------------------------------

def test_auto_mode_evicts_out_of_range_pods_one_at_a_time_and_they_come_back_right_sized():
    s = session(deploy(), vpa("Auto"))
    s.run_until(200)
    evicted = events(s, "EvictedByVPA")
    # 64Mi is below the 262144k lower bound from the start; with 2 replicas the eviction
    # tolerance (int(2 × 0.5) = 1) lets one pod go per loop.
    assert [t for t, _o, _m in evicted] == [60.0, 120.0]
    assert all(m == "Pod was evicted by VPA Updater to apply resource recommendation."
               for _t, _o, m in evicted)
    assert [m for _t, _o, m in events(s, "EvictedPod")][0].startswith("VPA Updater evicted Pod ")
    assert requests(s) == [("350m", "262144k"), ("350m", "262144k")]
    s.run_until(900)
    assert len(events(s, "EvictedByVPA")) == 2           # in range now: left alone


@pytest.mark.parametrize("mode", ["Off", "Initial"])
def test_off_and_initial_never_evict(mode):
    s = session(deploy(), vpa(mode))
    s.run_until(300)
    assert events(s, "EvictedByVPA") == []
    assert requests(s) == [("50m", "64Mi"), ("50m", "64Mi")]


def test_a_single_replica_is_not_evicted():
    s = session(deploy(replicas=1), vpa("Recreate"))
    s.run_until(300)
    assert events(s, "EvictedByVPA") == []


def test_a_pod_disruption_budget_holds_the_updater_back():
    pdb = """
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: hungry}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: hungry}}
"""
    s = session(deploy(), vpa("Auto"), pdb)
    s.run_until(300)
    assert events(s, "EvictedByVPA") == []


# -- the admission controller ------------------------------------------------------------------

def test_initial_mode_sets_requests_of_new_pods_and_scales_limits_in_proportion():
    s = session(deploy(resources="requests: {cpu: 50m, memory: 64Mi}, "
                                 "limits: {cpu: 100m, memory: 128Mi}"),
                vpa("Initial"))
    s.run_until(60)
    target = rec(s).target["cpu"]
    s.submit("kubectl scale deployment hungry --replicas=3")
    s.run_until(61)
    new = [p for p in s.store.list("Pod", "default")
           if p.spec.containers[0].resources.requests["cpu"] == target]
    assert len(new) == 1
    c = new[0].spec.containers[0].resources
    assert c.limits["cpu"] == Quantity.from_scaled(2 * target.milli_value(), -3)
    assert c.limits["memory"] == Quantity("524288k")
    ann = new[0].metadata.annotations
    assert ann["vpaUpdates"] == ("Pod resources updated by hungry-vpa: container 0: "
                                 "cpu request, cpu limit, memory request, memory limit")
    assert ann["vpaObservedContainers"] == "app"


def test_requests_only_leaves_limits_alone():
    s = session(deploy(resources="requests: {cpu: 50m}, limits: {cpu: 100m}"),
                vpa("Initial", """  resourcePolicy:
    containerPolicies:
    - {containerName: "*", controlledValues: RequestsOnly, controlledResources: [cpu]}"""))
    s.run_until(60)
    s.submit("kubectl scale deployment hungry --replicas=3")
    s.run_until(61)
    limits = {str(p.spec.containers[0].resources.limits["cpu"])
              for p in s.store.list("Pod", "default")}
    assert limits == {"100m"}


def test_pods_of_other_workloads_are_untouched():
    other = deploy().replace("hungry", "calm")
    s = session(deploy(), vpa("Auto"), other)
    s.run_until(300)
    calm = [p for p in s.store.list("Pod", "default") if p.metadata.name.startswith("calm")]
    assert {str(p.spec.containers[0].resources.requests["cpu"]) for p in calm} == {"50m"}
    assert all("vpaUpdates" not in p.metadata.annotations for p in calm)


def test_a_headless_run_waits_until_the_narrowing_bounds_reach_a_pod():
    # 200m is inside the bounds at first (the lower bound starts wide); as the history grows
    # the lower bound rises towards 350m and passes 200m after a few minutes. settle() must
    # not stop before the updater gets there.
    s = session(deploy(resources="requests: {cpu: 200m, memory: 300Mi}"), vpa("Auto"),
                load=150)
    s.settle()
    assert [t for t, _o, _m in events(s, "EvictedByVPA")] == [360.0, 420.0]
    # Memory: 300Mi used → the 90th-percentile bucket's end plus 15 %, in bytes.
    assert requests(s) == [("350m", "380258472"), ("350m", "380258472")]
