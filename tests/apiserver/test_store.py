"""The store: watches, resourceVersion, admission defaults, atomic apply, graceful delete."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ksandbox.api.errors import ApiError, KsandboxError, ManifestError, ValidationError
from ksandbox.api.manifest import load_manifests, load_manifests_with_origins
from ksandbox.apiserver.store import ADDED, DELETED, MODIFIED, Store, apply_all
from ksandbox.session import Session
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
"""

POD = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def fresh_store() -> tuple[Store, Clock]:
    clock = Clock()
    store = Store(lambda: clock.now, SimRandom(1))
    apply_all(store, load_manifests("apiVersion: v1\nkind: Namespace\nmetadata: {name: default}"))
    return store, clock


def test_watchers_hear_every_write_in_order_with_rising_resource_versions():
    store, _ = fresh_store()
    seen = []
    store.subscribe("Node", lambda ev: seen.append((ev.type, ev.obj.metadata.name,
                                                     int(ev.obj.metadata.resource_version))))
    apply_all(store, load_manifests(NODES))
    node = store.get("Node", "node-1")
    store.update(attrs.evolve(node, spec=attrs.evolve(node.spec, unschedulable=True)))
    store.delete("Node", "node-2")
    assert [(t, n) for t, n, _ in seen] == [(ADDED, "node-1"), (ADDED, "node-2"),
                                          (MODIFIED, "node-1"), (DELETED, "node-2")]
    versions = [rv for _, _, rv in seen[:3]]
    assert versions == sorted(versions) and len(set(versions)) == 3


def test_apply_is_all_or_nothing():
    store, _ = fresh_store()
    bad = NODES + "---\n" + NODES.split("---")[0].replace("node-1", "node-3").replace(
        'cpu: "2"', "cpu: two")
    rv = store.resource_version
    with pytest.raises(ManifestError):
        apply_all(store, load_manifests(bad))
    assert store.resource_version == rv
    assert store.list("Node") == []


def test_a_refused_object_is_reported_with_its_file_and_document():
    store, _ = fresh_store()
    text = NODES + "---\n" + POD.replace("image: nginx", "image: ''")
    loaded = load_manifests_with_origins(text, "cluster.yaml")
    with pytest.raises(ManifestError) as err:
        apply_all(store, [o for o, _ in loaded], [g for _, g in loaded])
    assert str(err.value).startswith('cluster.yaml (document 3): The Pod "web" is invalid: '
                                     'spec.containers[0].image: Required value')
    assert store.list("Node") == []


def test_pod_admission_adds_default_tolerations_scheduler_and_priority():
    store, _ = fresh_store()
    (pod, _), = apply_all(store, load_manifests(POD))
    assert pod.spec.scheduler_name == "default-scheduler"
    assert pod.spec.priority == 0
    assert pod.status.phase == "Pending"
    assert pod.spec.termination_grace_period_seconds == 30
    tol = {(t.key, t.effect, t.toleration_seconds, t.operator) for t in pod.spec.tolerations}
    assert tol == {("node.kubernetes.io/not-ready", "NoExecute", 300, "Exists"),
                   ("node.kubernetes.io/unreachable", "NoExecute", 300, "Exists")}
    assert pod.metadata.uid and pod.metadata.creation_timestamp == 0.0


def test_a_pod_that_already_tolerates_unreachable_keeps_its_own_seconds():
    store, _ = fresh_store()
    text = POD.replace("containers:", "tolerations: [{key: node.kubernetes.io/unreachable, "
                                      "operator: Exists, effect: NoExecute, "
                                      "tolerationSeconds: 6000}]\n  containers:")
    (pod, _), = apply_all(store, load_manifests(text))
    secs = {t.key: t.toleration_seconds for t in pod.spec.tolerations}
    assert secs == {"node.kubernetes.io/unreachable": 6000, "node.kubernetes.io/not-ready": 300}


def test_priority_comes_from_the_priority_class_and_a_missing_class_is_refused():
    store, _ = fresh_store()
    pc = ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
          "value: 1000\n---\n")
    with_class = POD.replace("containers:", "priorityClassName: high\n  containers:")
    results = apply_all(store, load_manifests(pc + with_class))
    assert results[1][0].spec.priority == 1000
    other = with_class.replace("name: web", "name: web2").replace("high", "missing")
    with pytest.raises(ApiError, match="no PriorityClass with name missing was found"):
        apply_all(store, load_manifests(other))


def test_reapplying_the_same_manifest_is_unchanged_and_a_change_is_configured():
    store, _ = fresh_store()
    assert [r for _, r in apply_all(store, load_manifests(NODES))] == ["created", "created"]
    assert [r for _, r in apply_all(store, load_manifests(NODES))] == ["unchanged", "unchanged"]
    changed = NODES.replace("metadata: {name: node-1}",
                            "metadata: {name: node-1, labels: {disktype: ssd}}")
    assert [r for _, r in apply_all(store, load_manifests(changed))] == ["configured",
                                                                         "unchanged"]
    assert store.get("Node", "node-1").metadata.labels["disktype"] == "ssd"


def test_creating_twice_is_already_exists_and_missing_is_not_found():
    store, _ = fresh_store()
    apply_all(store, load_manifests(NODES))
    node = store.get("Node", "node-1")
    with pytest.raises(ApiError, match=r'nodes "node-1" already exists'):
        store.create(node)
    with pytest.raises(ApiError, match=r'Error from server \(NotFound\): nodes "x" not found'):
        store.delete("Node", "x")


def test_updates_are_validated():
    store, _ = fresh_store()
    apply_all(store, load_manifests(NODES))
    node = store.get("Node", "node-1")
    from ksandbox.api.taints import Taint

    bad = attrs.evolve(node, spec=attrs.evolve(node.spec, taints=(Taint("k", "v", "Sometimes"),)))
    with pytest.raises(ValidationError, match='Unsupported value: "Sometimes"'):
        store.update(bad)
    assert store.get("Node", "node-1").spec.taints == ()


def test_an_update_with_new_metadata_is_validated_and_one_keeping_it_is_written():
    """validate() skips the metadata checks when an update keeps the stored metadata object
    (heartbeats, status posts); a bad label or name in new metadata is still refused."""
    store, _ = fresh_store()
    apply_all(store, load_manifests(NODES))
    node = store.get("Node", "node-1")
    kept = store.update(attrs.evolve(node, spec=attrs.evolve(node.spec, unschedulable=True)))
    assert kept.spec.unschedulable
    bad_labels = attrs.evolve(kept, metadata=kept.metadata.with_labels({"bad key": "x"}))
    with pytest.raises(ValidationError, match='metadata.labels: Invalid value: "bad key"'):
        store.update(bad_labels)
    bad_value = attrs.evolve(kept, metadata=kept.metadata.with_labels({"ok": "-x-"}))
    with pytest.raises(ValidationError, match='metadata.labels: Invalid value: "-x-"'):
        store.update(bad_value)
    assert store.get("Node", "node-1").metadata.labels == kept.metadata.labels


def test_a_bound_pod_is_deleted_gracefully_and_an_unbound_one_at_once():
    store, clock = fresh_store()
    apply_all(store, load_manifests(NODES))
    bound = POD.replace("containers:", "nodeName: node-1\n  containers:")
    apply_all(store, load_manifests(bound))
    apply_all(store, load_manifests(POD.replace("name: web", "name: loose")))
    marked = store.delete("Pod", "web", "default")
    assert marked.metadata.deletion_timestamp == clock.now + 30
    assert store.get("Pod", "web", "default") is not None
    store.delete("Pod", "loose", "default")
    assert store.get("Pod", "loose", "default") is None
    store.remove("Pod", "web", "default")
    assert store.pods_on_node("node-1") == []


def test_pods_are_indexed_by_node():
    store, _ = fresh_store()
    apply_all(store, load_manifests(NODES))
    apply_all(store, load_manifests(POD.replace("containers:", "nodeName: node-2\n  containers:")))
    assert [p.metadata.name for p in store.pods_on_node("node-2")] == ["web"]
    assert store.pods_on_node("node-1") == []


def test_events_are_deduplicated_with_a_count():
    store, clock = fresh_store()
    apply_all(store, load_manifests(NODES))
    node = store.get("Node", "node-1")
    store.record_event(node, "Normal", "NodeNotReady", "Node node-1 status is now: NodeNotReady")
    clock.run_until(5)
    store.record_event(node, "Normal", "NodeNotReady", "Node node-1 status is now: NodeNotReady")
    ev = store.events[-1]
    assert ev.count == 2 and ev.first_timestamp == 0 and ev.last_timestamp == 5
    assert len(store.events) == 1


def test_fork_shares_objects_but_not_future_writes():
    store, clock = fresh_store()
    apply_all(store, load_manifests(NODES))
    other = store.fork(lambda: clock.now, SimRandom(2))
    other.delete("Node", "node-1")
    assert store.get("Node", "node-1") is not None
    assert other.get("Node", "node-1") is None


def test_pod_generation_is_one_at_create_then_counts_spec_changes_and_graceful_deletion():
    """pkg/registry/core/pod/strategy.go (v1.33+): Generation = 1 at create, +1 when the spec
    changes; the binding subresource and status writes leave it; apiserver rest.BeforeDelete
    adds one when a graceful deletion starts (not again on a second delete)."""
    s = Session.from_text(NODES + "---\n" + POD)
    pod = s.store.get("Pod", "web", "default")
    assert pod.metadata.generation == 1
    s.run_until(10)                                   # bound, started: binding and status
    pod = s.store.get("Pod", "web", "default")
    assert pod.spec.node_name and pod.status.phase == "Running"
    assert pod.metadata.generation == 1
    assert s.submit("kubectl label pod web a=b").ok   # metadata only
    assert s.store.get("Pod", "web", "default").metadata.generation == 1
    assert s.submit("kubectl set image pod/web app=nginx:2").ok
    assert s.store.get("Pod", "web", "default").metadata.generation == 2
    out = s.submit("kubectl get pod web -o yaml").output
    assert "\n  generation: 2\n" in out
    assert s.submit("kubectl delete pod web --wait=false").ok
    pod = s.store.get("Pod", "web", "default")
    assert pod.metadata.deletion_timestamp is not None and pod.metadata.generation == 3
    s.store.delete("Pod", "web", "default")           # already terminating: unchanged
    assert s.store.get("Pod", "web", "default").metadata.generation == 3


def test_object_count_follows_creates_removes_and_forks():
    """The count the --max-objects cap reads is kept as writes happen (not re-summed per
    create): it must equal the objects actually stored after creates, graceful and
    immediate deletes, refused creates and in a fork."""
    store, clock = fresh_store()

    def stored(s: Store) -> int:
        return sum(s.count(k) for k in s._objects)

    apply_all(store, load_manifests(NODES))
    apply_all(store, load_manifests(POD.replace("containers:", "nodeName: node-1\n  containers:")))
    apply_all(store, load_manifests(POD.replace("name: web", "name: loose")))
    with pytest.raises(ApiError):
        store.create(store.get("Node", "node-1"))
    assert store.object_count() == stored(store) == 5
    store.delete("Pod", "web", "default")           # graceful: still stored
    store.delete("Pod", "loose", "default")         # unbound: gone at once
    assert store.object_count() == stored(store) == 4
    other = store.fork(lambda: clock.now, SimRandom(2))
    other.remove("Pod", "web", "default")
    other.delete("Node", "node-2")
    assert other.object_count() == stored(other) == 2
    assert store.object_count() == stored(store) == 4


def test_session_replay_gives_the_same_state():
    s = Session.from_text(NODES + "---\n" + POD)
    s.run_until(100)
    assert s.replay(until=100).view() == s.view()


def test_session_reports_changes_since_a_resource_version():
    s = Session.from_text(NODES)
    rv = s.resource_version
    assert s.changes_since(rv) == set()
    node = s.store.get("Node", "node-1")
    s.store.update(attrs.evolve(node, spec=attrs.evolve(node.spec, unschedulable=True)))
    assert ("Node", "", "node-1") in s.changes_since(rv)
    assert s.changes_since(-10_000_000) is None or isinstance(s.changes_since(0), set)


def test_generation_starts_at_one_for_workloads_and_counts_spec_changes_only():
    from ksandbox.resources import data_path

    s = Session.from_files([str(data_path("sample_clusters") / "default.yaml")])
    s.run_until(30)
    d = s.store.get("Deployment", "web", "default")
    assert d.metadata.generation == 1 and d.status.observed_generation == 1
    assert s.submit("kubectl scale deployment web --replicas=4").ok
    s.run_until(40)
    d = s.store.get("Deployment", "web", "default")
    assert (d.metadata.generation, d.status.observed_generation) == (2, 2)
    pods = [p for p in s.store.list("Pod", "kube-system") if p.metadata.name.startswith("kube-proxy")]
    assert {p.metadata.labels["pod-template-generation"] for p in pods} == {"1"}
    assert s.store.get("Lease", "node-1", "kube-node-lease").metadata.generation == 0


def test_object_count_follows_creates_removes_and_forks():
    """object_count is a running count (the --max-objects check asks it on every create): it
    must equal the tables' sizes after creates, graceful and immediate deletes, and in a fork."""
    s = Session.from_text(NODES + "---\n" + POD)
    store = s.store

    def tables() -> int:
        return sum(len(list(store.items(k))) for k in store._objects)

    assert store.object_count() == tables()
    r = s.submit("kubectl run two --image=i")
    assert r.ok, r.error
    s.run_until(5.0)
    assert store.object_count() == tables()
    before = store.object_count()
    s.submit("kubectl delete pod web --force")
    s.submit("kubectl delete node node-2")
    s.run_until(40.0)
    assert store.object_count() == tables() < before
    other = store.fork(store.now, SimRandom(2))
    assert other.object_count() == store.object_count()
    other.remove("Pod", "two", "default")
    assert other.object_count() == store.object_count() - 1


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def test_a_template_checked_once_is_still_refused_every_time_and_scaling_keeps_it():
    """validate_template_spec remembers a template value's problems: the same bad template is
    refused with the same message on every write, a good one scales without a new check."""
    store, _ = fresh_store()
    apply_all(store, load_manifests(DEPLOYMENT))
    dep = store.get("Deployment", "web", "default")
    scaled = store.update(attrs.evolve(dep, spec=attrs.evolve(dep.spec, replicas=5)))
    assert scaled.spec.replicas == 5 and scaled.spec.template is dep.spec.template
    bad_spec = attrs.evolve(dep.spec.template.spec, restart_policy="Sometimes")
    bad = attrs.evolve(scaled, spec=attrs.evolve(scaled.spec, template=attrs.evolve(
        scaled.spec.template, spec=bad_spec)))
    messages = []
    for _ in range(2):
        with pytest.raises(ValidationError) as err:
            store.update(bad)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "spec.template.spec.restartPolicy" in messages[0]
    assert store.get("Deployment", "web", "default").spec.replicas == 5


def test_consecutive_events_about_one_object_share_its_reference_and_others_get_their_own():
    store, _ = fresh_store()
    apply_all(store, load_manifests(NODES))
    n1, n2 = store.get("Node", "node-1"), store.get("Node", "node-2")
    store.record_event(n1, "Normal", "A", "a")
    store.record_event(n1, "Normal", "B", "b")
    store.record_event(n2, "Normal", "C", "c")
    n1b = store.update(attrs.evolve(n1, spec=attrs.evolve(n1.spec, unschedulable=True)))
    store.record_event(n1b, "Normal", "D", "d")
    a, b, c, d = store.events
    assert a.involved_object is b.involved_object
    for ev, node in ((a, n1), (c, n2), (d, n1b)):
        ref = ev.involved_object
        assert (ref.kind, ref.name, ref.uid, ref.api_version) == (
            "Node", node.metadata.name, node.metadata.uid, node.api_version)


def _record_on_every_write(store: Store) -> None:
    store.subscribe(None, lambda ev: ev.obj.kind != "Event" and store.record_event(
        ev.obj, "Normal", "Seen", "seen"))


def test_an_applied_object_is_stored_as_staged_and_restamped_when_versions_moved_on():
    """apply_all stages every object in a copy of the store (uid, resourceVersion, creation
    time stamped there); the real create stores that object itself when its stamp is the one
    it would give, and stamps it again when a write came in between (here a watcher that
    records an event on each create, moving the resourceVersion on): either way the stored
    object is what a create of the unstamped object gives."""
    deploy = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
              "  selector: {matchLabels: {app: d}}\n  template:\n"
              "    metadata: {labels: {app: d}}\n"
              "    spec: {containers: [{name: c, image: nginx}]}\n---\n")
    text = NODES + "---\n" + deploy + POD
    staged = []
    original = Store.create

    def spy(self, obj, *, admitted=False):
        out = original(self, obj, admitted=admitted)
        if self is not store:
            staged.append(out)
        return out

    for writes_between in (False, True):
        store, _ = fresh_store()
        staged.clear()
        if writes_between:
            _record_on_every_write(store)
        Store.create = spy  # type: ignore[method-assign]
        try:
            results = apply_all(store, load_manifests(text))
        finally:
            Store.create = original  # type: ignore[method-assign]
        stored = [o for o, _ in results]
        # the plain way: each object created on its own, one after the other
        plain, _ = fresh_store()
        if writes_between:
            _record_on_every_write(plain)
        plain.rand = SimRandom(1)
        plain.rand.uid()  # the default namespace's uid, drawn by fresh_store's apply
        created = [plain.create(o) for o in load_manifests(text)]
        assert [attrs.asdict(o) for o in stored] == [attrs.asdict(o) for o in created]
        assert stored[2].metadata.generation == 1
        same = [a is b for a, b in zip(stored, staged)]
        # the first object's stamp is still right (no event before it); after it, no longer
        assert same == ([True, False, False, False] if writes_between else [True] * 4)


_BATCH_OBJECTS = {
    "ns-team": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n",
    "ns-default-labelled": "apiVersion: v1\nkind: Namespace\n"
                           "metadata: {name: default, labels: {a: b}}\n",
    "ns-default": "apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n",
    "pc-high": "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
               "metadata: {name: high}\nvalue: 1000\n",
    "pod-high": "apiVersion: v1\nkind: Pod\nmetadata: {name: h}\n"
                "spec: {priorityClassName: high, containers: [{name: c, image: nginx}]}\n",
    "pc-default": "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                  "metadata: {name: everyone}\nvalue: 7\nglobalDefault: true\n",
    "pod-team": "apiVersion: v1\nkind: Pod\nmetadata: {name: t, namespace: team}\n"
                "spec: {containers: [{name: c, image: nginx}]}\n",
    "pod-team-2": "apiVersion: v1\nkind: Pod\nmetadata: {name: t2, namespace: team}\n"
                  "spec: {containers: [{name: c, image: nginx}]}\n",
    "pod-other": "apiVersion: v1\nkind: Pod\nmetadata: {name: o}\n"
                 "spec: {containers: [{name: c, image: nginx}]}\n",
    "pod-web": POD,
    "pod-web-again": POD,
    "pod-bad": "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\n"
               "spec: {restartPolicy: Sometimes, containers: [{name: c, image: nginx}]}\n",
    "pod-generated": "apiVersion: v1\nkind: Pod\nmetadata: {generateName: gen-}\n"
                     "spec: {containers: [{name: c, image: nginx}]}\n",
    "node": NODES.split("---")[0],
    "svc": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
           "spec: {ports: [{port: 80}]}\n",
    "deploy": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
              "  selector: {matchLabels: {app: d}}\n  template:\n"
              "    metadata: {labels: {app: d}}\n"
              "    spec: {containers: [{name: c, image: nginx}]}\n",
}


def _apply_outcome(names: list[str], atomic: bool):
    store, _ = fresh_store()
    heard = []
    store.subscribe(None, lambda ev: heard.append((ev.type, attrs.asdict(ev.obj))))
    objs = [load_manifests(_BATCH_OBJECTS[n])[0] for n in names]
    try:
        results = apply_all(store, objs, atomic=atomic)
    except KsandboxError as exc:
        return ("refused", str(exc), exc.object_index)  # type: ignore[attr-defined]
    return ([(attrs.asdict(o), how) for o, how in results], heard, store.resource_version,
            store.rand.getstate())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(sorted(_BATCH_OBJECTS)), min_size=1, max_size=8))
@example(["pod-web", "pc-default", "pod-other"])   # a class answer the default class changes
@example(["ns-team", "pod-team", "pod-team-2"])    # a namespace found once, for both
def test_apply_in_one_pass_gives_what_staging_gives(names):
    """apply_all(atomic=False) — a Session's load — admits and writes each object at once;
    for any batch (namespaces declared in it or already there, a PriorityClass before or after
    the pods naming it, a default class between pods without one, duplicates, refusals,
    generated names, services' drawn IPs) the stored
    objects, the results, the watch events, the resourceVersion and the random draws are the
    staged way's, and a refusal names the same object with the same message."""
    assert _apply_outcome(names, False) == _apply_outcome(names, True)


def test_bind_stores_and_announces_what_the_plain_write_would():
    """Store.bind builds the bound pod once around its stamped metadata; the plain way is the
    generic write of ``evolve(old, spec=spec bound to the node, status=status)``. Same stored
    pod, resourceVersion, pods-by-node index and watch event (upstream's binding REST sets
    nodeName and the PodScheduled condition in one update) — but the generation: the binding
    subresource writes without the pod strategy, so a bind keeps it where a spec change (the
    generic write) adds one."""
    from ksandbox.api.core import PodCondition

    def same(pod):   # the generation aside
        return attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, generation=0))

    text = ("apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n---\n"
            "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default, labels: {x: y}}\n"
            "spec: {containers: [{name: c, image: nginx}]}\n")
    out = []
    for plain in (False, True):
        clock = Clock()
        store = Store(lambda clock=clock: clock.now, SimRandom(3))
        apply_all(store, load_manifests(text))
        heard: list = []
        store.subscribe("Pod", heard.append)
        clock.run_until(4.0)
        old = store.get("Pod", "a", "default")
        status = attrs.evolve(old.status, conditions=(PodCondition(
            type="PodScheduled", status="True", last_transition_time=4.0),))
        if plain:
            bound = store._write(old, attrs.evolve(old, spec=attrs.evolve(
                old.spec, node_name="n1"), status=status), False)
        else:
            bound = store.bind(old, "n1", status)
        assert store.get("Pod", "a", "default") is bound
        assert bound.metadata.generation == (2 if plain else 1)
        out.append((same(bound), bound.metadata.resource_version, store.resource_version,
                    [same(p) for p in store.pods_on_node("n1")],
                    store.last_change_time, [(e.type, same(e.obj), e.old) for e in heard]))
        assert heard[0].old is old and heard[0].obj is bound
    assert out[0] == out[1]


def test_the_change_log_starts_with_its_first_question():
    """Nothing is logged until changes_since is first asked (no write pays for a log nobody
    reads); that first answer knows only the current version (older ones: None, redraw all),
    and later answers list what was written since."""
    s = Session.from_text(NODES)
    assert s._changes is None
    rv = s.resource_version
    assert s.changes_since(rv - 1) is None
    assert s.changes_since(rv) == set()
    node = s.store.get("Node", "node-1")
    s.store.update(attrs.evolve(node, spec=attrs.evolve(node.spec, unschedulable=True)))
    assert s.changes_since(rv) == {("Node", "", "node-1")}
    assert s.changes_since(rv - 1) is None


def test_recorded_events_equal_plainly_built_ones_and_share_their_reference():
    """record_event builds the Event by position from a default template and remembers one
    ObjectReference per object: each event equals the keyword-built core/v1 Event, and the
    events about one pod (two versions of it) share one reference."""
    from ksandbox.api.core import Event, ObjectReference
    from ksandbox.api.meta import ObjectMeta

    s = Session.from_text(NODES + "---\n" + POD)
    store = s.store
    pod = store.list("Pod")[0]
    newer = attrs.evolve(pod, status=attrs.evolve(pod.status, phase="Running"))
    seq, rv = store._event_seq, store.resource_version
    store.record_event(pod, "Normal", "Pulled", "pulled x", "kubelet")
    store.record_event(newer, "Warning", "Failed", "no", "kubelet")
    a, b = store.events[-2:]
    m = pod.metadata
    ref = ObjectReference(kind="Pod", namespace=m.namespace, name=m.name, uid=m.uid,
                          api_version=pod.api_version)
    for ev, (n, t, reason, msg) in ((a, (1, "Normal", "Pulled", "pulled x")),
                                    (b, (2, "Warning", "Failed", "no"))):
        want = Event(metadata=ObjectMeta(name=f"{m.name}.{seq + n:x}", namespace=m.namespace,
                                         resource_version=str(rv + n)),
                     involved_object=ref, reason=reason, message=msg, type=t,
                     source_component="kubelet", first_timestamp=store.now(),
                     last_timestamp=store.now())
        assert ev == want and attrs.asdict(ev) == attrs.asdict(want)
    assert a.involved_object is b.involved_object


def test_a_pod_written_in_one_pass_is_stored_as_its_admission_stamped_it(monkeypatch):
    """apply_all's one pass (a Session's load) stamps a pod's resourceVersion, uid and
    creation time in its admission (admission._defaulted_meta's stamp), so the write stores
    the admitted pod as it is instead of building its metadata and the pod again; the
    property above holds the result to staging's."""
    from ksandbox.apiserver import store as store_module

    store, _ = fresh_store()
    rebuilt = []
    plain = store_module._with_metadata
    monkeypatch.setattr(store_module, "_with_metadata",
                        lambda obj, meta: rebuilt.append(obj.kind) or plain(obj, meta))
    pods = load_manifests(_BATCH_OBJECTS["pod-generated"] + "---\n" + _BATCH_OBJECTS["pod-web"])
    results = apply_all(store, pods, atomic=False)
    assert rebuilt == [] and [how for _, how in results] == ["created", "created"]
    assert all(o.metadata.uid and o.metadata.resource_version for o, _ in results)


def test_a_kinds_table_is_live_for_the_stores_life():
    """Store.table: the same dict through creates, updates and removals (a kubelet holds its
    Node's table and looks itself up there at every status check)."""
    store, _ = fresh_store()
    nodes, pods = store.table("Node"), store.table("Pod")
    assert nodes == {}
    (node, _), = apply_all(store, load_manifests("apiVersion: v1\nkind: Node\n"
                                                 "metadata: {name: n1}"))
    store.create(load_manifests("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                "spec: {containers: [{name: c, image: nginx}]}")[0])
    assert nodes[("", "n1")] is store.get("Node", "n1")
    assert pods[("default", "p")] is store.get("Pod", "p", "default")
    cordoned = store.update(attrs.evolve(node, spec=attrs.evolve(node.spec, unschedulable=True)))
    assert nodes[("", "n1")] is cordoned
    store.remove("Node", "n1")
    assert nodes == {} and store.table("Node") is nodes and store.table("Pod") is pods
