"""-o yaml / -o json / -o name: sorted keys, RFC 3339 times, List wrapping, Go's escaping."""

from __future__ import annotations

import json

import yaml

from view_helpers import cluster  # noqa: F401

from ksandbox.api.manifest import load_manifests
from ksandbox.views.serialize import dump_json, dump_yaml, name_of, render, to_manifest

POD = """
apiVersion: v1
kind: Pod
metadata: {name: web-1, labels: {zeta: "1", alpha: "true"}, annotations: {note: "<b>&</b>"}}
spec: {containers: [{name: c, image: nginx}]}
"""


def test_keys_are_sorted_and_times_are_rfc3339(cluster):
    cluster.at(125.9)
    (pod,) = cluster.create(POD)
    text = render([pod], "yaml", single=True)
    assert text.startswith("apiVersion: v1\nkind: Pod\nmetadata:\n")
    data = yaml.safe_load(text)
    assert data["metadata"]["creationTimestamp"] == "2026-01-01T00:02:05Z"
    assert list(data["metadata"]["labels"]) == ["alpha", "zeta"]
    # Strings that read back as other types keep their quotes, like go-yaml's.
    assert 'alpha: "true"' in text and 'zeta: "1"' in text


def test_taint_time_added_is_a_timestamp(cluster):
    (node,) = cluster.create("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n"
                             "  taints: [{key: k, effect: NoExecute, timeAdded: 60}]\n")
    assert to_manifest(node)["spec"]["taints"] == [
        {"effect": "NoExecute", "key": "k", "timeAdded": "2026-01-01T00:01:00Z"}]


def test_lists_are_wrapped_like_kubectls(cluster):
    objs = cluster.create(POD + "---\n" + POD.replace("web-1", "web-2"))
    data = json.loads(render(objs, "json", single=False))
    assert list(data) == ["apiVersion", "items", "kind", "metadata"]
    assert (data["kind"], data["metadata"]) == ("List", {"resourceVersion": ""})
    assert [i["metadata"]["name"] for i in data["items"]] == ["web-1", "web-2"]


def test_json_is_indented_by_four_and_escapes_like_go():
    text = dump_json({"b": "<b>&</b>", "a": [1]})
    assert text == ('{\n    "a": [\n        1\n    ],\n'
                    '    "b": "\\u003cb\\u003e\\u0026\\u003c/b\\u003e"\n}\n')


def test_empty_strings_are_double_quoted():
    assert dump_yaml({"resourceVersion": ""}) == 'resourceVersion: ""\n'


def test_name_printer(cluster):
    (pod,) = cluster.create(POD)
    assert name_of(pod) == "pod/web-1"
    assert render([pod], "name", single=True) == "pod/web-1\n"


def test_yaml_reads_back_as_the_same_object(cluster):
    (pod,) = cluster.create(POD)
    (again,) = load_manifests(render([pod], "yaml", single=True))
    assert again.spec.containers == pod.spec.containers
    assert again.spec.tolerations == pod.spec.tolerations
    assert dict(again.metadata.labels) == dict(pod.metadata.labels)


HPA = """
apiVersion: {version}
kind: HorizontalPodAutoscaler
metadata: {{name: web}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}
  maxReplicas: 3
status:
  currentReplicas: 1
  desiredReplicas: 1
  currentCPUUtilizationPercentage: 40
  currentMetrics:
  - type: Resource
    resource: {{name: cpu, current: {{averageUtilization: 40}}}}
"""


def test_a_v2_hpa_does_not_carry_the_v1_cpu_percentage():
    (hpa,) = load_manifests(HPA.format(version="autoscaling/v2"))
    status = to_manifest(hpa)["status"]
    assert "currentCPUUtilizationPercentage" not in status
    assert status["currentMetrics"][0]["resource"]["current"] == {"averageUtilization": 40}
    # The object itself keeps what the controller wrote.
    assert hpa.status.current_cpu_utilization_percentage == 40


def test_a_v1_hpa_keeps_its_cpu_percentage():
    (hpa,) = load_manifests(HPA.format(version="autoscaling/v1"))
    assert to_manifest(hpa)["status"]["currentCPUUtilizationPercentage"] == 40


def test_micro_time_fields_print_with_microseconds():
    (lease,) = load_manifests("""
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: node-1, namespace: kube-node-lease}
spec: {holderIdentity: node-1, renewTime: 90, acquireTime: 1.25}
""")
    spec = to_manifest(lease)["spec"]
    assert (spec["renewTime"], spec["acquireTime"]) == ("2026-01-01T00:01:30.000000Z",
                                                        "2026-01-01T00:00:01.250000Z")
