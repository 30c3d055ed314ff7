"""The codec: manifests round-trip, unknown fields are kept, types are checked with paths."""

import pytest
import yaml

from ksandbox.api.codec import FrozenDict, decode, encode
from ksandbox.api.core import Pod
from ksandbox.api.errors import FieldError
from ksandbox.api.manifest import load_manifests

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
  annotations: {note: keep me}
spec:
  nodeSelector: {hw-type: gpu}
  someFutureField: {nested: [1, 2]}
  containers:
    - name: app
      image: nginx
      imagePullPolicy: IfNotPresent
      resources:
        requests: {cpu: "0.5", memory: 1.5Gi}
      ports: [{containerPort: 80, hostPort: 8080}]
  tolerations:
    - {key: hw-type, operator: Equal, value: gpu, effect: NoSchedule}
"""


def test_a_pod_round_trips_with_unknown_fields_kept_and_quantities_canonical():
    (pod,) = load_manifests(POD)
    out = encode(pod)
    assert out["spec"]["someFutureField"] == {"nested": [1, 2]}
    assert out["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert out["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m",
                                                                     "memory": "1536Mi"}
    assert out["metadata"]["annotations"] == {"note": "keep me"}
    again = decode(Pod, yaml.safe_load(yaml.safe_dump(out)))
    assert encode(again) == out


def test_derived_requests_include_init_containers_and_overhead():
    (pod,) = load_manifests(POD.replace("  tolerations:", """  initContainers:
    - name: init
      image: busybox
      resources: {requests: {cpu: "2"}}
  overhead: {memory: 100Mi}
  tolerations:"""))
    assert pod.spec.requests["cpu"] == 2000           # the init container's 2 CPU wins
    assert pod.spec.requests["memory"] == 1536 * 2**20 + 100 * 2**20
    assert pod.spec.host_ports == (("0.0.0.0", "TCP", 8080),)
    assert pod.spec.qos_class == "Burstable"


@pytest.mark.parametrize("spec,path", [
    ({"containers": "nginx"}, "spec.containers"),
    ({"containers": [{"name": 5}]}, "spec.containers[0].name"),
    ({"nodeSelector": {"a": 1}}, "spec.nodeSelector.a"),
    ({"priority": "high"}, "spec.priority"),
    ({"hostNetwork": "yes"}, "spec.hostNetwork"),
])
def test_wrong_types_name_the_field(spec, path):
    with pytest.raises(FieldError) as err:
        decode(Pod, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": spec})
    assert err.value.path == path


def test_frozen_dicts_refuse_mutation_and_hash():
    d = FrozenDict({"a": "b"})
    with pytest.raises(TypeError):
        d["c"] = "d"
    assert hash(d) == hash(FrozenDict({"a": "b"}))
    assert d.set("c", "d") == {"a": "b", "c": "d"} and d == {"a": "b"}


def test_a_kind_list_loads_every_item():
    text = """
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: Namespace, metadata: {name: team-a}}
  - {apiVersion: v1, kind: Node, metadata: {name: n1}}
"""
    assert [o.kind for o in load_manifests(text)] == ["Namespace", "Node"]
