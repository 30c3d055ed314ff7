"""Sharing equal sub-values while a file loads (codec.sharing, evolve.by_identity): pods of one
template share their containers, labels and the API server's defaults, and every loaded object
is exactly the one a decode without sharing builds — as data (encode), as ``==`` and in what
the sandbox shows (``get -o yaml`` of every object)."""

from __future__ import annotations

import pytest

from ksandbox.api import codec
from ksandbox.api.codec import encode
from ksandbox.api.errors import ManifestError
from ksandbox.api.evolve import by_identity
from ksandbox.api.manifest import decode_object, load_manifests
from ksandbox.api.safeload import load_yaml_documents
from ksandbox.session import Session

NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
"""


def pod(name: str, app: str, *, env: str = "", order: bool = False, cpu: str = "100m",
        tolerate: bool = False) -> str:
    requests = f"{{memory: 64Mi, cpu: {cpu}}}" if order else f"{{cpu: {cpu}, memory: 64Mi}}"
    lines = [f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n"
             f"  labels: {{app: {app}, tier: backend}}\nspec:\n  nodeName: n1\n"
             f"  containers:\n    - name: app\n      image: registry.example/{app}:1.0\n"
             f"      resources:\n        requests: {requests}\n"]
    if env:
        lines.append(f"      env: [{{name: MODE, value: {env}}}]\n")
    if tolerate:
        lines.append("  tolerations: [{key: dedicated, operator: Exists}]\n")
    return "".join(lines)


FILE = "---\n".join([NODE,
                     pod("a1", "a"), pod("a2", "a"), pod("a3", "a", tolerate=True),
                     pod("a4", "a", tolerate=True),
                     pod("b1", "b"), pod("b2", "b", env="x"), pod("b3", "b", env="y"),
                     pod("c1", "c", order=True), pod("c2", "c"), pod("c3", "c", cpu="0.1")])


def test_pods_of_a_template_share_their_containers_and_labels():
    objs = {o.metadata.name: o for o in load_manifests(FILE)}
    a1, a2, a3 = objs["a1"], objs["a2"], objs["a3"]
    assert a1.spec.containers is a2.spec.containers is a3.spec.containers
    assert a1.metadata.labels is a2.metadata.labels
    assert a1.spec.node_name is a2.spec.node_name == "n1"   # one str per distinct value
    assert a3.spec.tolerations is objs["a4"].spec.tolerations
    # equal under attrs' == (extra is not compared) but not the same text: never shared
    assert objs["b2"].spec.containers == objs["b3"].spec.containers
    assert objs["b2"].spec.containers is not objs["b3"].spec.containers
    assert objs["b1"].spec.containers is not objs["b2"].spec.containers
    # key order and spelling are kept as written: another text, another value
    assert objs["c1"].spec.containers is not objs["c2"].spec.containers
    assert objs["c2"].spec.containers is not objs["c3"].spec.containers
    assert list(encode(objs["c1"])["spec"]["containers"][0]["resources"]["requests"]) == \
        ["memory", "cpu"]
    assert encode(objs["c3"])["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "100m"


def test_shared_and_unshared_loads_build_the_same_objects():
    shared = load_manifests(FILE)
    # one document at a time, outside sharing(): nothing is shared
    alone = [decode_object(d, "f", n) for n, d in load_yaml_documents(FILE, "f")]
    assert codec._shared is None
    assert [encode(o) for o in shared] == [encode(o) for o in alone]
    assert shared == alone
    assert alone[1].spec.containers is not alone[2].spec.containers


def test_the_stored_pods_share_their_defaults_and_read_as_before():
    s = Session.from_text(FILE)
    pods = {p.metadata.name: p for p in s.store.list("Pod")}
    a1, a2 = pods["a1"], pods["a2"]
    # the API server's defaults, computed once per template and shared
    assert a1.spec.containers is a2.spec.containers
    assert a1.spec.containers[0].image_pull_policy == "IfNotPresent"
    assert a1.spec.containers[0].extra["terminationMessagePolicy"] == "File"
    assert a1.spec.extra is a2.spec.extra and a1.spec.extra["serviceAccountName"] == "default"
    assert a1.spec.tolerations is a2.spec.tolerations and len(a1.spec.tolerations) == 2
    assert len(pods["a3"].spec.tolerations) == 3
    assert a1.spec.requests is a2.spec.requests and a1.spec.requests == {"cpu": 100,
                                                                         "memory": 64 << 20}
    assert pods["b2"].spec.containers[0].extra["env"] != pods["b3"].spec.containers[0].extra["env"]
    # every object reads as a session that shared nothing reads it
    plain = Session.from_documents(
        [decode_object(d, "f", n) for n, d in load_yaml_documents(FILE, "f")])
    for kind in ("Pod", "Node"):
        assert [encode(o) for o in s.store.list(kind)] == [encode(o) for o in plain.store.list(kind)]
    for name in pods:
        assert s.submit(f"kubectl get pod {name} -o yaml").output == \
            plain.submit(f"kubectl get pod {name} -o yaml").output


def test_an_unknown_field_is_refused_wherever_its_text_was_seen_before():
    """A value shared from an earlier document never hides a later document's error."""
    bad = pod("a9", "a").replace("      resources:", "      colour: blue\n      resources:")
    with pytest.raises(ManifestError) as err:
        load_manifests("---\n".join([pod("a1", "a"), pod("a2", "a"), bad]), "f.yaml")
    assert err.value.document == 3 and "colour" in str(err.value)
    # the same text twice: the first is refused (nothing was remembered from it)
    with pytest.raises(ManifestError) as err:
        load_manifests("---\n".join([pod("a1", "a"), bad, bad.replace("a9", "a8")]), "f.yaml")
    assert err.value.document == 2


def test_by_identity_gives_the_function_s_answer():
    calls = []

    def total(xs):
        calls.append(xs)
        return sum(xs)

    t, u = (1, 2, 3), (1, 2, 3) + ()
    assert by_identity(total, t) == 6 and by_identity(total, t) == 6
    assert len(calls) == 1
    v = tuple([1, 2, 3])            # equal, another object: computed again (never wrong)
    assert by_identity(total, v) == 6 and len(calls) == 2
    assert by_identity(total, u) == 6


@pytest.mark.parametrize("arity", range(6))
def test_by_identity_keys_every_argument_by_identity(arity):
    """Whatever the number of arguments (the usual ones have their own key building), each
    one is part of the key by identity: an equal other object in any place is computed
    again, the same objects are not."""
    calls = []

    def f(*args):
        calls.append(args)
        return len(calls)

    args = [tuple([i]) for i in range(arity + 1)]
    first = by_identity(f, *args)
    assert by_identity(f, *args) == first and len(calls) == 1
    for i in range(arity + 1):
        other = list(args)
        other[i] = tuple([i])          # equal, another object
        assert by_identity(f, *other) == len(calls) and calls[-1] == tuple(other)
    assert len(calls) == arity + 2


@pytest.mark.parametrize("bad", [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
     "spec": {"containers": [{"name": "a", "image": "i", "colour": "blue"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
     "spec": {"containers": [{"name": "a", "image": 7}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}},
     "spec": {"containers": [{"name": "a", "image": "i"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
     "spec": {"priority": 99999999999999999999, "containers": [{"name": "a", "image": "i"}]}},
    {"apiVersion": "v1", "kind": "Nope", "metadata": {"name": "x"}},
    ["not", "a", "mapping"],
])
def test_a_refused_list_item_is_named_by_its_path(bad):
    """List items decode without their path (speed) and a refused one again with it: the
    message is the one decoding with the path gives."""
    import json

    good = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ok"},
            "spec": {"containers": [{"name": "a", "image": "i"}]}}
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [good, good, bad]})
    with pytest.raises(ManifestError) as err:
        load_manifests(text, "f.json")
    with pytest.raises(ManifestError) as direct:
        decode_object(bad, "f.json", 1, "items[2]")
    assert str(err.value) == str(direct.value)
    if isinstance(bad, dict) and bad["kind"] == "Pod":
        assert "items[2]" in str(err.value)


def _node(name: str, cpu: str) -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\n"
            f"status: {{capacity: {{cpu: {cpu}, memory: 8Gi, pods: '110'}}}}\n")


def test_nodes_of_one_shape_share_their_capacity_and_the_kubelet_reports_it_once():
    text = "---\n".join([_node("n1", "'4'"), _node("n2", "'4'"), _node("n3", "4"),
                         _node("n4", "'4000m'")])
    nodes = {o.metadata.name: o for o in load_manifests(text)}
    caps = {n: o.status.capacity for n, o in nodes.items()}
    assert caps["n1"] is caps["n2"]
    # another text (an integer, another spelling), another value: never shared
    assert caps["n3"] is not caps["n1"] and caps["n4"] is not caps["n1"]
    alone = [decode_object(d, "f", n) for n, d in load_yaml_documents(text, "f")]
    assert [encode(o) for o in alone] == [encode(o) for o in nodes.values()]
    # what the kubelets posted: equal to the plain computation, node by node, and computed
    # once for the nodes that share a capacity
    from ksandbox.kubelet import node_status

    s = Session.from_text(text)
    posted = {n.metadata.name: n.status for n in s.store.nodes()}
    for name, node in nodes.items():
        config = s.cp.kubelets.kubelets[name].config
        cap, alloc = node_status._reported_resources(config, node.status.capacity,
                                                     node.status.allocatable)
        assert (encode(posted[name].capacity), encode(posted[name].allocatable)) == \
            (encode(cap), encode(alloc))
    assert posted["n1"].allocatable is posted["n2"].allocatable
    # ... and the amounts read from it (Node.allocatable_amounts): the plain ones, computed
    # once per shape
    from ksandbox.api.quantity import resource_amount

    stored = {n.metadata.name: n for n in s.store.nodes()}
    for node in stored.values():
        assert dict(node.allocatable_amounts) == \
            {k: resource_amount(k, q) for k, q in node.status.allocatable.items()}
    assert stored["n1"].allocatable_amounts is stored["n2"].allocatable_amounts
