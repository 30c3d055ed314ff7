"""kubectl patch: strategic merge (apimachinery strategicpatch patch_test.go cases: merge a
list by its merge key, ``$patch: delete`` an item, ``null`` deletes a field, lists without a
merge key replaced, finalizers unioned), JSON merge patch (RFC 7386 appendix A examples) and
JSON patch (RFC 6902 operations), with kubectl's patch.go messages."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401
from ksandbox.commands.patch import json_patch, merge_patch, strategic_merge


def test_strategic_merge_merges_lists_by_their_keys():
    pod = {"spec": {"containers": [{"name": "a", "image": "x", "env": [{"name": "K", "value": "1"}]},
                                   {"name": "b", "image": "y"}],
                    "tolerations": [{"key": "t"}]}}
    patch = {"spec": {"containers": [{"name": "a", "env": [{"name": "L", "value": "2"}]},
                                     {"name": "b", "$patch": "delete"},
                                     {"name": "c", "image": "z"}],
                      "tolerations": [{"key": "u"}]}}
    out = strategic_merge(pod, patch)
    # mergeSlice's order (normalizeElementOrder / mergeSortedSlice): the patch's items in the
    # patch's order, each live-only item placed only before a patch item that comes after it
    # live — so env's new L comes before the live K.
    assert out["spec"]["containers"] == [
        {"name": "a", "image": "x", "env": [{"name": "L", "value": "2"}, {"name": "K", "value": "1"}]},
        {"name": "c", "image": "z"}]
    assert out["spec"]["tolerations"] == [{"key": "u"}]   # no merge key: replaced
    assert strategic_merge({"metadata": {"labels": {"a": "1", "b": "2"}}},
                           {"metadata": {"labels": {"b": None}}}) == {"metadata": {"labels": {"a": "1"}}}
    assert strategic_merge({"metadata": {"finalizers": ["x"]}},
                           {"metadata": {"finalizers": ["y", "x"]}})["metadata"]["finalizers"] == ["y", "x"]
    assert strategic_merge({"spec": {"a": 1, "b": 2}}, {"spec": {"$patch": "replace", "c": 3}}) == \
        {"spec": {"c": 3}}


@pytest.mark.parametrize("target,patch,want", [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
])
def test_merge_patch_rfc7386(target, patch, want):
    assert merge_patch(target, patch) == want


def test_json_patch_rfc6902():
    doc = {"foo": ["bar", "baz"], "x": {"y": 1}}
    out = json_patch(doc, [{"op": "add", "path": "/foo/1", "value": "qux"},
                           {"op": "remove", "path": "/x/y"},
                           {"op": "replace", "path": "/foo/0", "value": "b"},
                           {"op": "copy", "from": "/foo/0", "path": "/z"},
                           {"op": "move", "from": "/z", "path": "/x/w"},
                           {"op": "add", "path": "/foo/-", "value": "end"},
                           {"op": "test", "path": "/x/w", "value": "b"}])
    assert out == {"foo": ["b", "qux", "baz", "end"], "x": {"w": "b"}}
    assert doc == {"foo": ["bar", "baz"], "x": {"y": 1}}


def test_patch_a_deployment_three_ways(session):
    assert run(session, """kubectl patch deployment web -p '{"spec":{"replicas":2}}'""").output \
        == "deployment.apps/web patched\n"
    assert run(session, """kubectl patch deployment web -p '{"spec":{"replicas":2}}'""").output \
        == "deployment.apps/web patched (no change)\n"
    run(session, """kubectl patch deploy web --type merge -p '{"metadata":{"labels":{"team":"a"}}}'""")
    run(session, """kubectl patch deploy/web --type=json -p '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"}]'""")
    d = session.store.get("Deployment", "web", "default")
    assert d.spec.replicas == 2 and d.metadata.labels["team"] == "a"
    assert d.spec.template.spec.containers[0].image == "nginx:1.28"


@pytest.mark.parametrize("line,error", [
    ("kubectl patch deploy web", "error: must specify --patch or --patch-file containing the "
                                 "contents of the patch\n"),
    ("kubectl patch deploy web --type=xml -p {}", 'error: --type must be one of [json merge '
                                                  'strategic], not "xml"\n'),
    ("""kubectl patch deploy web -p '{"spec":{"replicas":-1}}'""",
     'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or '
     'equal to 0\n'),
    ("""kubectl patch deploy nope -p '{}'""", 'Error from server (NotFound): deployments.apps '
                                              '"nope" not found\n'),
    ("""kubectl patch deploy web --type=json -p '[{"op":"remove","path":"/spec/nope"}]'""",
     "error: jsonpatch /spec/nope: the path does not exist\n"),
])
def test_bad_patches_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error


FORBIDDEN = ('The Pod "web-1" is invalid: spec: Forbidden: pod updates may not change fields '
             'other than `spec.containers[*].image`,')
TOLERATIONS = ('The Pod "web-1" is invalid: spec.tolerations: Forbidden: existing toleration '
               'can not be modified except its tolerationSeconds\n')


def test_a_pod_takes_only_the_updates_the_api_server_allows(session):
    """ValidatePodUpdate: a running pod's spec takes new images and added tolerations (an
    existing one may change its tolerationSeconds only); anything else is Forbidden, a
    toleration taken away first (validateOnlyAddedTolerations). The patch used to be taken
    whole: a pod's nodeSelector changed under it, its tolerations removed.
    DefaultTolerationSeconds admits updates too (NewHandler(admission.Create, admission.
    Update)): a default toleration taken away is added again, so that patch passes."""
    assert fails_without_change(
        session, "kubectl patch pod web-1 -p '{\"spec\":{\"nodeSelector\":{\"a\":\"b\"}}}'"
    ).startswith(FORBIDDEN)
    assert run(session, "kubectl patch pod web-1 --type=json "
                        "-p '[{\"op\":\"remove\",\"path\":\"/spec/tolerations/0\"}]'"
               ).output == "pod/web-1 patched\n"
    assert [t.key for t in session.store.get("Pod", "web-1", "default").spec.tolerations] == [
        "node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"]
    assert run(session, "kubectl patch pod web-1 --type=json -p '[{\"op\":\"replace\",\"path\":"
                        "\"/spec/tolerations/1/tolerationSeconds\",\"value\":60}]'").output == \
        "pod/web-1 patched\n"
    run(session, "kubectl patch pod web-1 -p '{\"spec\":{\"tolerations\":[{\"key\":\"a\","
                 "\"operator\":\"Exists\"},{\"key\":\"node.kubernetes.io/unreachable\","
                 "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300},"
                 "{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
                 "\"effect\":\"NoExecute\",\"tolerationSeconds\":60}]}}'")
    assert run(session, "kubectl patch pod web-1 -p '{\"spec\":{\"tolerations\":[{\"key\":\"b\","
                        "\"operator\":\"Exists\"}]}}'").error == TOLERATIONS   # replaces the list
    assert run(session, "kubectl patch pod web-1 -p '{\"spec\":{\"containers\":[{\"name\":"
                        "\"nginx\",\"image\":\"nginx:1.28\"}]}}'").output == "pod/web-1 patched\n"
    pod = session.store.get("Pod", "web-1", "default")
    assert pod.spec.containers[0].image == "nginx:1.28"
    assert [t.toleration_seconds for t in pod.spec.tolerations] == [None, 300, 60]


def test_apply_over_a_pod_may_not_take_its_tolerations_away(session):
    """Seed note 000's gpu-pod applied over one that tolerates more. Upstream's three-way
    apply removes only what the last applied manifest set: over a pod applied with the
    toleration, dropping it from the manifest is a removal, refused; over a pod that was not
    applied (no last-applied annotation, as the sample's), nothing is removed — the
    toleration stays and the apply passes with the missing-annotation warning."""
    gpu = ("apiVersion: v1\nkind: Pod\nmetadata: {name: gpu}\nspec:\n  nodeName: node-2\n"
           "  containers: [{name: nginx, image: nginx:1.27}]\n")
    tolerating = gpu + ("  tolerations: [{key: hw-type, value: gpu, effect: NoSchedule, "
                        "operator: Equal}]\n")
    run(session, "kubectl apply -f -", tolerating)
    assert fails_without_change(session, "kubectl apply -f -", gpu) == \
        TOLERATIONS.replace("web-1", "gpu")
    run(session, "kubectl patch pod web-1 --type=json -p '[{\"op\":\"add\",\"path\":"
                 "\"/spec/tolerations/-\",\"value\":{\"key\":\"hw-type\",\"value\":\"gpu\","
                 "\"effect\":\"NoSchedule\",\"operator\":\"Equal\"}}]'")
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata: {name: web-1}\nspec:\n  nodeName: node-2\n"
                "  containers: [{name: nginx, image: nginx:1.27, "
                "resources: {requests: {cpu: 100m}}}]\n")
    out = run(session, "kubectl apply -f -", manifest).output
    assert out.startswith("Warning: resource pods/web-1 is missing the ") and \
        out.endswith("\npod/web-1 configured\n")
    assert "hw-type" in [t.key for t in session.store.get("Pod", "web-1", "default").spec.tolerations]


def test_a_pod_may_not_gain_or_lose_containers_but_an_init_container_takes_a_new_image(session):
    """ValidateContainerUpdates, before anything else: 'pod updates may not add or remove
    containers' on spec.containers or spec.initContainers (a sidecar added by apply is the
    classic case), and the munged spec takes init containers' images as it takes the
    containers' (`spec.initContainers[*].image` is in the list of what may change)."""
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata: {name: web-1}\nspec:\n  nodeName: node-2\n"
                "  containers: [{name: nginx, image: nginx:1.27, "
                "resources: {requests: {cpu: 100m}}}, {name: log, image: busybox}]\n")
    # (web-1 was loaded with the cluster: apply's warning of the missing annotation first)
    assert fails_without_change(session, "kubectl apply -f -", manifest).endswith(
        "The missing annotation will be patched automatically.\n"
        'The Pod "web-1" is invalid: spec.containers: Forbidden: pod updates may not add or '
        'remove containers\n')
    run(session, "kubectl apply -f -",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: ini}\nspec:\n  nodeName: node-2\n"
        "  initContainers: [{name: init, image: busybox:1}]\n"
        "  containers: [{name: c, image: nginx:1.27}]\n")
    assert fails_without_change(
        session, "kubectl patch pod ini --type=json -p '[{\"op\":\"add\",\"path\":"
                 "\"/spec/initContainers/-\",\"value\":{\"name\":\"i2\",\"image\":\"x\"}}]'") == (
        'The Pod "ini" is invalid: spec.initContainers: Forbidden: pod updates may not add or '
        'remove containers\n')
    assert run(session, "kubectl patch pod ini -p '{\"spec\":{\"initContainers\":[{\"name\":"
                        "\"init\",\"image\":\"busybox:2\"}]}}'").output == "pod/ini patched\n"
    assert session.store.get("Pod", "ini", "default").spec.init_containers[0].image == "busybox:2"


def test_a_toleration_taken_away_and_another_change_are_both_reported(session):
    """ValidatePodUpdate appends validateOnlyAddedTolerations' error and the munged spec's."""
    run(session, "kubectl patch pod web-1 --type=json -p '[{\"op\":\"add\",\"path\":"
                 "\"/spec/tolerations/-\",\"value\":{\"key\":\"hw-type\",\"operator\":"
                 "\"Exists\"}}]'")
    error = fails_without_change(
        session, "kubectl patch pod web-1 -p '{\"spec\":{\"nodeSelector\":{\"a\":\"b\"},"
                 "\"tolerations\":[]}}'")
    assert error.startswith('The Pod "web-1" is invalid: \n* spec.tolerations: Forbidden: '
                            'existing toleration can not be modified except its '
                            'tolerationSeconds\n* spec: Forbidden: pod updates may not change '
                            'fields other than'), error


@pytest.mark.parametrize("kind", ["strategic", "merge"])
def test_a_patch_with_a_stale_resource_version_conflicts(session, kind):
    """A resourceVersion in the patch is the API server's precondition (the registry's
    update: the patched object's version must be the stored one): a stale one is a
    Conflict and nothing changes; the stored one patches."""
    live = session.store.get("Deployment", "web", "default").metadata.resource_version
    stale = str(int(live) - 1)
    error = fails_without_change(
        session, f"kubectl patch deploy web --type={kind} -p "
        f"'{{\"metadata\":{{\"resourceVersion\":\"{stale}\",\"labels\":{{\"x\":\"1\"}}}}}}'")
    assert error == ('Error from server (Conflict): Operation cannot be fulfilled on '
                     'deployments.apps "web": the object has been modified; please apply your '
                     'changes to the latest version and try again\n')
    out = run(session, f"kubectl patch deploy web --type={kind} -p "
              f"'{{\"metadata\":{{\"resourceVersion\":\"{live}\",\"labels\":{{\"x\":\"1\"}}}}}}'")
    assert out.output == "deployment.apps/web patched\n"


REFUSED_RV = ": json: cannot unmarshal number into Go struct field " \
    "ObjectMeta.metadata.resourceVersion of type string\n"


@pytest.mark.parametrize("patch_type,patch", [
    ("merge", '{"metadata":{"resourceVersion":5}}'),
    ("json", '[{"op":"replace","path":"/metadata/resourceVersion","value":5}]'),
])
def test_a_patched_object_the_server_cannot_decode_is_an_invalid_request(
        session, patch_type, patch):
    """apiserver patch.go (jsonPatcher): the patched JSON fails encoding/json's decode, and
    the answer is errors.NewInvalid with no kind or name — kubectl's checkErr prints
    ``The request is invalid: patch: Invalid value: "<patched JSON>": <json error>``. The
    patched object is Go's compact JSON: the objects the patch went into (and the root) with
    sorted keys. It was accepted (resourceVersion held any type) and "pod/web-2 patched"."""
    import json

    want = json.loads(run(session, "get pod web-2 -o json").output)
    want["metadata"]["resourceVersion"] = 5
    error = fails_without_change(session, f"patch pod web-2 --type={patch_type} -p '{patch}'")
    head = 'The request is invalid: patch: Invalid value: "'
    assert error.startswith(head + '{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"Pod\\",'
                            '\\"metadata\\":{\\"creationTimestamp\\":\\"2026-01-01T00:00:00Z\\",')
    assert error.endswith('"' + REFUSED_RV)
    value = json.loads(error[len(head) - 1:-len(REFUSED_RV)])
    assert json.loads(value) == want


def test_a_strategic_patch_the_server_cannot_convert_names_the_patch_map(session):
    """apiserver patch.go (smpPatcher): the merged map goes through the unstructured
    converter, whose refusal is the detail and the patch map (Go's %+v) the value."""
    assert fails_without_change(
        session, """patch pod web-2 -p '{"metadata":{"resourceVersion":5,"labels":{"a":"b"}}}'""") \
        == ('The request is invalid: patch: Invalid value: '
            '"map[metadata:map[labels:map[a:b] resourceVersion:5]]": '
            'cannot convert int64 to string\n')
    assert fails_without_change(
        session, """patch pod web-2 -p '{"spec":{"containers":[{"name":"nginx","image":7}]}}'""") \
        == ('The request is invalid: patch: Invalid value: '
            '"map[spec:map[containers:[map[image:7 name:nginx]]]]": '
            'cannot convert int64 to string\n')
    assert fails_without_change(
        session, """patch pod web-2 --type=merge -p '{"spec":{"priority":"high"}}'""") \
        .endswith('": json: cannot unmarshal string into Go struct field PodSpec.spec.priority '
                  'of type int32\n')


@pytest.mark.parametrize("value,text", [
    (5.5, "5.5"), (100000.0, "100000"), (1e6, "1e+06"), (1234567.0, "1.234567e+06"),
    (0.0001, "0.0001"), (0.00001, "1e-05"), (-2.5, "-2.5"),
])
def test_go_sprint_prints_floats_as_go_percent_v(value, text):
    from ksandbox.commands.patch import go_sprint

    assert go_sprint(value) == text


@pytest.mark.parametrize("patch, detail", [
    # kubectl's own test-cmd checks this one (hack/lib/test/cmd core.sh)
    ('{"metadata":{"labels":"invalid"}}', "cannot restore map from string"),
    ('{"spec":{"containers":[{"name":"nginx","env":"prod"}]}}',
     "cannot restore slice from string"),
    ('{"spec":{"affinity":["x"]}}', "cannot restore struct from: slice"),
    ('{"spec":{"containers":[{"name":"nginx","livenessProbe":true}]}}',
     "cannot restore struct from: bool"),
])
def test_a_strategic_patch_of_the_wrong_shape_is_the_converters_refusal(session, patch, detail):
    """A map, slice or struct field given a value of another kind: the unstructured converter
    cannot restore the field from it. A field the sandbox does not model (env, probes) is
    held to its upstream kind too, not kept as it came."""
    error = fails_without_change(session, f"patch pod web-2 -p '{patch}'")
    assert error.startswith('The request is invalid: patch: Invalid value: "map[')
    assert error.endswith(f'": {detail}\n')


@pytest.mark.parametrize("patch, detail", [
    ('{"metadata":{"labels":"invalid"}}',
     "cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type "
     "map[string]string"),
    ('{"metadata":{"labels":{"a":1}}}',
     "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    ('{"spec":{"tolerations":{"key":"a"}}}',
     "cannot unmarshal object into Go struct field PodSpec.spec.tolerations of type "
     "[]v1.Toleration"),
])
def test_a_merge_patch_of_the_wrong_shape_is_encoding_jsons_refusal(session, patch, detail):
    error = fails_without_change(session, f"patch pod web-2 --type=merge -p '{patch}'")
    assert error.endswith(f'": json: {detail}\n'), error[-300:]


@pytest.mark.parametrize("patch, detail", [
    # an int64 is Go-convertible to a string: refused in the converter's own words
    ('{"spec":{"containers":[{"name":"nginx","imagePullPolicy":5}]}}',
     "cannot convert int64 to v1.PullPolicy"),
    ('{"metadata":{"labels":{"a":1}}}', "cannot convert int64 to string"),
    # other kinds are no conversion at all: the field's kind is "unrecognized"
    ('{"spec":{"containers":[{"name":"nginx","image":true}]}}', "unrecognized type: string"),
    ('{"spec":{"priority":"high"}}', "unrecognized type: int32"),
    ('{"spec":{"priority":1.5}}', "cannot convert float64 to int32"),
])
def test_a_strategic_patch_of_a_scalar_of_another_kind_is_the_converters_refusal(
        session, patch, detail):
    error = fails_without_change(session, f"patch pod web-2 -p '{patch}'")
    assert error.endswith(f'": {detail}\n'), error[-200:]


def test_a_named_string_type_is_named_as_encoding_json_names_it(session):
    error = fails_without_change(session, "patch pod web-2 --type=merge -p "
                                 """'{"spec":{"restartPolicy":1}}'""")
    assert error.endswith(": json: cannot unmarshal number into Go struct field "
                          "PodSpec.spec.restartPolicy of type v1.RestartPolicy\n")
