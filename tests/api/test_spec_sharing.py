"""Whole pod specs shared while a file loads (codec.register_shared) and everything computed
from them by identity (admission's ``admitted_spec``, validation's checks): pods of one
template on one node hold one decoded spec and one admitted spec, and a load that shares is
exactly a load that shares nothing — stored objects, refusals and their messages.

Upstream has no such sharing (each object is decoded and defaulted on its own:
k8s.io/apiserver's create handler, pkg/apis/core/v1/defaults.go); the property test holds the
sandbox's shared path to that plain one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api import codec
from ksandbox.api.codec import encode
from ksandbox.api.errors import KsandboxError, ValidationError
from ksandbox.api.manifest import decode_object, load_manifests
from ksandbox.api.safeload import load_yaml_documents
from ksandbox.session import Session

NODES = "".join(f"""apiVersion: v1
kind: Node
metadata: {{name: {n}}}
status: {{capacity: {{cpu: "64", memory: 256Gi, pods: "110"}}}}
---
""" for n in ("n1", "n2"))

PRIORITY_CLASS = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
"""


def pod(name: str, node: str = "n1", image: str = "app:1.0", *, priority_class: str = "",
        priority: int | None = None, restart: str = "", mirror: bool = False,
        tolerate: bool = False) -> str:
    meta = f"  name: {name}\n"
    if mirror:
        meta += "  annotations: {kubernetes.io/config.mirror: abc}\n"
    spec = f"  nodeName: {node}\n" if node else ""
    spec += f"  containers: [{{name: app, image: {image}, resources: {{requests: {{cpu: 100m}}}}}}]\n"
    if priority_class:
        spec += f"  priorityClassName: {priority_class}\n"
    if priority is not None:
        spec += f"  priority: {priority}\n"
    if restart:
        spec += f"  restartPolicy: {restart}\n"
    if tolerate:
        spec += "  tolerations: [{key: dedicated, operator: Exists}]\n"
    return f"apiVersion: v1\nkind: Pod\nmetadata:\n{meta}spec:\n{spec}---\n"


def unshared(text: str) -> list:
    """Every document decoded on its own, outside sharing(): nothing shared."""
    return [decode_object(d, "f", n) for n, d in load_yaml_documents(text, "f")]


def test_pods_of_one_template_on_one_node_share_one_spec():
    text = NODES + pod("a1") + pod("a2") + pod("a3", "n2") + pod("b1", image="b:1")
    objs = {o.metadata.name: o for o in load_manifests(text)}
    assert objs["a1"].spec is objs["a2"].spec            # decoded once
    assert objs["a1"].spec is not objs["a3"].spec        # another node: another spec
    assert objs["a1"].spec.containers is objs["a3"].spec.containers
    assert objs["a1"].spec is not objs["b1"].spec
    s = Session.from_text(text)
    pods = {p.metadata.name: p for p in s.store.list("Pod")}
    assert pods["a1"].spec is pods["a2"].spec            # admitted once (admitted_spec)
    assert pods["a1"].spec is not pods["a3"].spec
    assert pods["a1"].spec.scheduler_name == "default-scheduler"
    assert pods["a1"].spec.node_name == "n1" and pods["a3"].spec.node_name == "n2"


def test_a_load_whose_specs_do_not_repeat_stops_looking_them_up(monkeypatch):
    """After SHARE_PROBE specs with too few repeats the table is dropped: later repeats are
    decoded on their own (equal values, not shared); a load that repeats keeps sharing."""
    monkeypatch.setattr(codec, "SHARE_PROBE", 8)
    unique = "".join(pod(f"u{i}", node=f"node-{i}") for i in range(8))
    text = unique + pod("a1") + pod("a2")
    objs = {o.metadata.name: o for o in load_manifests(text)}
    assert objs["a1"].spec == objs["a2"].spec and objs["a1"].spec is not objs["a2"].spec
    repeating = "".join(pod(f"r{i}", node=f"node-{i % 2}") for i in range(8))
    objs = {o.metadata.name: o for o in load_manifests(repeating + pod("a1") + pod("a2"))}
    assert objs["a1"].spec is objs["a2"].spec


def test_a_shared_invalid_spec_is_refused_for_every_pod_with_the_same_message():
    s = Session.from_text(NODES)
    bad = load_manifests(pod("x1", restart="Sometimes") + pod("x2", restart="Sometimes"))
    assert bad[0].spec is bad[1].spec
    messages = []
    for obj in bad:
        with pytest.raises(ValidationError) as err:
            s.store.create(obj)
        messages.append(str(err.value).replace(obj.metadata.name, "NAME"))
    assert messages[0] == messages[1] and "restartPolicy" in messages[0]
    assert s.store.count("Pod") == 0


def _outcome(make):
    """What loading gives: every stored pod as data, or the refusal's message."""
    try:
        s = make()
    except KsandboxError as exc:
        return ("refused", str(exc))
    return ("loaded", [(encode(p), p.spec.priority) for p in s.store.list("Pod")],
            s.submit("kubectl get pods -o yaml").output)


POD_CHOICES = st.fixed_dictionaries({
    "node": st.sampled_from(["n1", "n2", ""]),
    "image": st.sampled_from(["app:1.0", "app:latest"]),
    "priority_class": st.sampled_from(["", "high", "system-node-critical"]),
    "priority": st.sampled_from([None, 1000, 7]),
    "restart": st.sampled_from(["", "Never", "Sometimes"]),
    "mirror": st.booleans(),
    "tolerate": st.booleans(),
})


@settings(max_examples=60, deadline=None)
@given(st.lists(POD_CHOICES, min_size=1, max_size=12), st.booleans())
def test_a_shared_load_is_a_plain_load(choices, with_class):
    """Any mix of pods (repeats, other nodes, priorities right and wrong, invalid specs,
    mirror pods) loads as the same pods, or is refused with the same message, whether
    specs are shared or every document is decoded and admitted on its own."""
    text = NODES + (PRIORITY_CLASS if with_class else "") + "".join(
        pod(f"p{i}", **c) for i, c in enumerate(choices))
    shared = _outcome(lambda: Session.from_text(text))
    plain = _outcome(lambda: Session.from_documents(unshared(text)))
    assert shared == plain


@pytest.mark.parametrize("a, b", [
    (1, True), (1, 1.0), (1, "1"), (0, False), (None, "null"), ("", None), ([], {}),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ([1, 2], [2, 1]), (0.0, -0.0), ("é", "e"),
    ({"x": [1]}, {"x": (1,)}),
])
def test_the_sharing_key_tells_apart_data_of_other_types_or_order(a, b):
    """codec._plain_key (the key a load's shared specs are found by): data that differ in a
    type (True / 1 / 1.0 / "1"), in key order or in any character never share a key, so a
    spec is only ever shared with one decoded from the very same data."""
    assert codec._plain_key(a) != codec._plain_key(b)
    assert codec._plain_key(a) == codec._plain_key(_copy(a))


def _copy(v):
    import json
    return json.loads(json.dumps(v)) if not isinstance(v, float) else float(str(v))


def test_a_json_export_shares_the_specs_of_one_template_on_one_node():
    """The JSON List path (safeload.JsonList, kubectl get -o json) shares as the YAML one:
    pods of one template on one node hold one decoded spec; another node, another spec."""
    import json

    from ksandbox.api.manifest import load_manifests_with_origins

    items = [{"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": f"p{i}", "namespace": "default"},
              "spec": {"nodeName": f"n{i % 2}", "containers": [
                  {"name": "app", "image": "app:1.0",
                   "resources": {"requests": {"cpu": "100m"}}}]}} for i in range(6)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)
    pods = [o for o, _ in load_manifests_with_origins(text, "f.json")]
    specs = [p.spec for p in pods]
    assert specs[0] is specs[2] is specs[4] and specs[1] is specs[3] is specs[5]
    assert specs[0] is not specs[1]
