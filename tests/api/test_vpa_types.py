"""The VerticalPodAutoscaler type: decoding, validation, ``kubectl get vpa`` and describe."""

from __future__ import annotations

import attrs
import pytest

from ksandbox.api.codec import FrozenDict
from ksandbox.api.kinds import lookup_resource
from ksandbox.api.quantity import Quantity
from ksandbox.api.vpa import RecommendedContainerResources, RecommendedPodResources, \
    VerticalPodAutoscalerCondition
from ksandbox.session import Session
from ksandbox.views.describe_generic import smart_label

VPA = """
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {{name: web-vpa}}
spec:
  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}
{extra}
"""


def vpa_yaml(extra: str = "  updatePolicy: {updateMode: Auto}") -> str:
    return VPA.format(extra=extra)


def test_vpa_is_a_namespaced_kind_with_its_short_name():
    info = lookup_resource("vpa")
    assert info.kind == "VerticalPodAutoscaler"
    assert info.qualified == "verticalpodautoscaler.autoscaling.k8s.io"
    assert info.namespaced and "autoscaling.k8s.io/v1" in info.versions


def test_a_manifest_round_trips_and_reads_its_policies():
    s = Session.from_text(vpa_yaml("""  updatePolicy: {updateMode: Initial, minReplicas: 1}
  resourcePolicy:
    containerPolicies:
    - containerName: "*"
      minAllowed: {cpu: 100m}
      controlledResources: [cpu]
    - containerName: sidecar
      mode: "Off"
"""))
    v = s.store.get("VerticalPodAutoscaler", "web-vpa", "default")
    assert v.update_mode == "Initial"
    assert v.container_policy("app").container_name == "*"
    assert v.container_policy("sidecar").mode == "Off"
    assert v.container_policy("app").controlled_resources == ("cpu",)
    out = s.submit("kubectl get vpa web-vpa -o yaml").output
    assert "minReplicas: 1" in out and "controlledResources:\n      - cpu" in out


def test_the_update_mode_defaults_to_recreate():
    s = Session.from_text(vpa_yaml(""))
    assert s.store.get("VerticalPodAutoscaler", "web-vpa", "default").update_mode == "Recreate"


@pytest.mark.parametrize("extra, error", [
    ("  updatePolicy: {updateMode: Sometimes}",
     'spec.updatePolicy.updateMode: Unsupported value: "Sometimes": supported values: "Auto", '
     '"InPlaceOrRecreate", "Initial", "Off", "Recreate"'),
    ("  updatePolicy: {minReplicas: 0}",
     "spec.updatePolicy.minReplicas: Invalid value: 0: must be greater than 0"),
    ("""  resourcePolicy:
    containerPolicies:
    - {containerName: app, minAllowed: {cpu: 500m}, maxAllowed: {cpu: 100m}}""",
     'spec.resourcePolicy.containerPolicies[0].maxAllowed.cpu: Invalid value: "100m": must be '
     "greater than or equal to minAllowed 500m"),
    ("""  resourcePolicy:
    containerPolicies:
    - {containerName: app, controlledResources: [cpu, gpu]}""",
     'spec.resourcePolicy.containerPolicies[0].controlledResources[1]: Unsupported value: "gpu"'),
    ("""  resourcePolicy:
    containerPolicies:
    - {containerName: app, mode: Sometimes}""",
     'spec.resourcePolicy.containerPolicies[0].mode: Unsupported value: "Sometimes"'),
    ("""  resourcePolicy:
    containerPolicies:
    - {minAllowed: {cpu: 1}}""",
     "spec.resourcePolicy.containerPolicies[0].containerName: Required value"),
], ids=["an unknown update mode is refused", "minReplicas must be positive",
        "maxAllowed below minAllowed is refused", "only cpu and memory can be controlled",
        "a container mode is Auto or Off", "a container policy names its container"])
def test_validation(extra, error):
    s = Session.from_text("")
    result = s.submit("kubectl apply -f -", stdin=vpa_yaml(extra))
    assert result.error.startswith('The VerticalPodAutoscaler "web-vpa" is invalid: ')
    assert error in result.error


def test_a_vpa_needs_a_target():
    s = Session.from_text("")
    result = s.submit("kubectl apply -f -", stdin="""
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: lost}
spec: {}
""")
    assert "spec.targetRef: Required value" in result.error


def _with_recommendation(s: Session) -> None:
    """Write a recommendation as the recommender would (the target has no pods here)."""
    v = s.store.get("VerticalPodAutoscaler", "web-vpa", "default")
    q = {k: FrozenDict({"cpu": Quantity(c), "memory": Quantity(m)}) for k, (c, m) in {
        "target": ("587m", "262144k"), "lower_bound": ("25m", "262144k"),
        "upper_bound": ("1", "1Gi"), "uncapped_target": ("587m", "262144k")}.items()}
    rec = RecommendedContainerResources(container_name="app", **q)
    cond = VerticalPodAutoscalerCondition(type="RecommendationProvided", status="True",
                                          last_transition_time=0.0)
    s.store.update_status(attrs.evolve(v, status=attrs.evolve(
        v.status, recommendation=RecommendedPodResources(container_recommendations=(rec,)),
        conditions=(cond,))))


def test_get_prints_the_crd_columns():
    s = Session.from_text(vpa_yaml())
    # No pods yet: the recommender says so (RecommendationProvided False, NoPodsMatched).
    assert s.submit("kubectl get vpa").output.splitlines() == [
        "NAME      MODE   CPU      MEM      PROVIDED   AGE",
        "web-vpa   Auto   <none>   <none>   False      0s"]
    _with_recommendation(s)
    assert s.submit("kubectl get vpa").output.splitlines()[1].split() == \
        ["web-vpa", "Auto", "587m", "262144k", "True", "0s"]


def test_describe_walks_the_object_like_kubectls_generic_describer():
    s = Session.from_text(vpa_yaml())
    _with_recommendation(s)
    out = s.submit("kubectl describe vpa web-vpa").output
    assert "API Version:  autoscaling.k8s.io/v1" in out
    assert "Kind:         VerticalPodAutoscaler" in out
    assert "  Target Ref:\n    API Version:  apps/v1\n    Kind:         Deployment\n" in out
    assert "  Update Policy:\n    Update Mode:  Auto\n" in out
    assert "      Container Name:  app\n" in out
    assert "      Target:\n        Cpu:     587m\n        Memory:  262144k\n" in out
    assert out.rstrip().splitlines()[-1].split() == ["Events:", "<none>"]


@pytest.mark.parametrize("field, label", [
    ("apiVersion", "API Version"), ("uid", "UID"), ("containerName", "Container Name"),
    ("lowerBound", "Lower Bound"), ("cpu", "Cpu"), ("nvidia.com/gpu", "nvidia.com/gpu"),
])
def test_smart_labels(field, label):
    assert smart_label(field) == label
