"""The codec: manifests round-trip, upstream fields the sandbox does not model are kept, unknown
fields are refused as a strict decode does, types are checked with paths."""

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
  dnsConfig: {nameservers: [1.1.1.1], options: [{name: ndots, value: "2"}]}
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
    assert out["spec"]["dnsConfig"] == {"nameservers": ["1.1.1.1"],
                                        "options": [{"name": "ndots", "value": "2"}]}
    assert out["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert out["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m",
                                                                     "memory": "1536Mi"}
    assert out["metadata"]["annotations"] == {"note": "keep me"}
    again = decode(Pod, yaml.safe_load(yaml.safe_dump(out)))
    assert encode(again) == out


def test_unknown_fields_are_refused_as_a_strict_decode_does():
    """kubectl's default --validate=strict: the API server's strict decoding names every
    unknown field (apimachinery's strict decoding error; the message of
    k8s.io/apiserver's handlers when field validation is Strict)."""
    from ksandbox.api.errors import ManifestError

    bad = POD.replace("  nodeSelector:", "  someFutureField: 1\n  nodeSelector:").replace(
        "      imagePullPolicy:", "      imagePulPolicy:")
    with pytest.raises(ManifestError) as e:
        load_manifests(bad)
    assert str(e.value) == (
        '<stdin> (document 1): Pod in version "v1" cannot be handled as a Pod: strict '
        'decoding error: unknown field "spec.someFutureField", unknown field '
        '"spec.containers[0].imagePulPolicy"')
    deploy = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replica: 2
  selector: {matchLabels: {a: b}}
  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: x}]}}
"""
    with pytest.raises(ManifestError, match='Deployment in version "v1" cannot be handled as a '
                                            'Deployment: strict decoding error: unknown field '
                                            '"spec.replica"'):
        load_manifests(deploy)


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


NESTED_LIST = """
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a1}}
- apiVersion: v1
  kind: List
  items:
  - {apiVersion: v1, kind: Namespace, metadata: {name: b1}}
  - {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: Namespace, metadata: {name: c1}}]}
  - {apiVersion: v1, kind: Namespace, metadata: {name: b2}}
- {apiVersion: v1, kind: Namespace, metadata: {name: a2}}
"""


@pytest.mark.parametrize("as_json", [False, True])
def test_a_list_in_a_list_is_flattened_as_kubectl_does(as_json):
    """cli-runtime's FlattenListVisitor: the items of a List nested in the List are visited
    too, breadth first (a nested List's objects after the objects beside it). The JSON
    export's streamed path and the YAML path agree; a refused nested item is named by its
    path; apply's documents line up with the objects (its last-applied annotations)."""
    import json

    import yaml

    from ksandbox.api.errors import ManifestError
    from ksandbox.api.manifest import load_manifests_with_data, load_manifests_with_origins

    text = json.dumps(yaml.safe_load(NESTED_LIST)) if as_json else NESTED_LIST
    loaded = load_manifests_with_origins(text, "f")
    assert [o.metadata.name for o, _ in loaded] == ["a1", "a2", "b1", "b2", "c1"]
    assert [origin.path for _, origin in loaded] == [
        "items[0]", "items[2]", "items[1].items[0]", "items[1].items[2]",
        "items[1].items[1].items[0]"]
    assert [(o.metadata.name, d["metadata"]["name"])
            for o, d in load_manifests_with_data(text, "f")] == [
        (n, n) for n in ("a1", "a2", "b1", "b2", "c1")]
    bad = NESTED_LIST.replace("metadata: {name: c1}", "metadata: {labels: {a: b}}")
    text = json.dumps(yaml.safe_load(bad)) if as_json else bad
    with pytest.raises(ManifestError, match=r"^f \(document 1\): items\[1\]\.items\[1\]\."
                                            r"items\[0\]\.metadata\.name: Required value"):
        load_manifests_with_origins(text, "f")
