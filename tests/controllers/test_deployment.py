"""The Deployment controller: ReplicaSets named by the template hash, scaling, RollingUpdate
within maxSurge/maxUnavailable, Recreate, revisions and history cleanup, status.

Pods are made ready by writing their status directly (a kubelet may or may not be part of the
build); bounds are checked on every write the store sees, through a watch.
"""

from __future__ import annotations

import re

import attrs
import pytest

from ksandbox.api.core import PodCondition
from ksandbox.controllers import deployment_util as du
from ksandbox.controllers.controller_utils import compute_hash, pod_active, pod_ready
from ksandbox.session import Session

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "64", memory: 256Gi, pods: "1000"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
status: {capacity: {cpu: "64", memory: 256Gi, pods: "1000"}}
"""
HASH = re.compile(r"[bcdfghjklmnpqrstvwxz2456789]+")


def deploy_yaml(replicas: int = 3, image: str = "nginx:1.25", strategy: str = "",
                extra: str = "") -> str:
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  {strategy}
  {extra}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: app, image: "{image}", resources: {{requests: {{cpu: 10m}}}}}}]
"""


def rss(s: Session) -> list:
    return sorted(s.store.list("ReplicaSet", "default"), key=lambda rs: rs.metadata.name)


def deployment(s: Session):
    return s.store.get("Deployment", "web", "default")


def set_image(s: Session, image: str) -> None:
    d = deployment(s)
    tmpl = d.spec.template
    containers = tuple(attrs.evolve(c, image=image) for c in tmpl.spec.containers)
    tmpl = attrs.evolve(tmpl, spec=attrs.evolve(tmpl.spec, containers=containers))
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, template=tmpl)))


def set_replicas(s: Session, n: int) -> None:
    d = deployment(s)
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, replicas=n)))


def make_all_ready(s: Session) -> int:
    """Mark every active, not-ready pod Running and Ready; how many were changed."""
    now, n = s.now, 0
    for p in s.store.list("Pod", "default"):
        if pod_active(p) and not pod_ready(p):
            status = attrs.evolve(p.status, phase="Running", start_time=now, conditions=(
                PodCondition(type="Ready", status="True", last_transition_time=now),))
            s.store.update_status(attrs.evolve(p, status=status))
            n += 1
    return n


def finish_terminating(s: Session) -> None:
    """What kubelets do at the end of a graceful deletion."""
    for p in s.store.list("Pod", "default"):
        if p.metadata.deletion_timestamp is not None:
            s.store.remove("Pod", p.metadata.name, "default")


def roll_to_completion(s: Session, steps: int = 60) -> None:
    for _ in range(steps):
        s.run_for(1)
        finish_terminating(s)
        changed = make_all_ready(s)
        s.run_for(1)
        d = deployment(s)
        st = d.status
        if not changed and st.updated_replicas == st.replicas == st.available_replicas \
                == d.spec.replicas and len([r for r in rss(s) if r.spec.replicas]) == 1:
            return
    raise AssertionError(f"rollout did not finish: {deployment(s).status}")


def scaling_messages(s: Session) -> list[str]:
    return [e.message for e in s.store.events if e.reason == "ScalingReplicaSet"]


def test_creates_a_replicaset_named_by_the_pod_template_hash():
    s = Session.from_text(NODES + deploy_yaml(replicas=3))
    (rs,) = rss(s)
    d = deployment(s)
    pod_hash = rs.metadata.labels["pod-template-hash"]
    assert HASH.fullmatch(pod_hash) and 6 <= len(pod_hash) <= 10
    assert rs.metadata.name == f"web-{pod_hash}"
    assert rs.spec.selector.match_labels["pod-template-hash"] == pod_hash
    assert rs.spec.template.metadata.labels["pod-template-hash"] == pod_hash
    assert rs.spec.template.spec is d.spec.template.spec
    assert rs.metadata.controller_ref().uid == d.metadata.uid
    assert rs.metadata.annotations[du.REVISION] == "1"
    assert d.metadata.annotations[du.REVISION] == "1"
    assert rs.spec.replicas == 3
    assert scaling_messages(s) == [f"Scaled up replica set {rs.metadata.name} from 0 to 3"]
    events = [e for e in s.store.events if e.reason == "ScalingReplicaSet"]
    assert events[0].source_component == "deployment-controller"
    pods = [p for p in s.store.list("Pod", "default") if pod_active(p)]
    assert len(pods) == 3
    assert all(p.metadata.name.startswith(f"{rs.metadata.name}-") for p in pods)


def test_template_hash_is_stable_and_changes_with_the_template():
    a = deployment(Session.from_text(NODES + deploy_yaml())).spec.template
    b = deployment(Session.from_text(NODES + deploy_yaml(), seed=7)).spec.template
    c = deployment(Session.from_text(NODES + deploy_yaml(image="nginx:1.26"))).spec.template
    assert compute_hash(a) == compute_hash(b)
    assert compute_hash(a) != compute_hash(c)
    assert compute_hash(a, 1) != compute_hash(a)


def test_status_reports_replicas_and_availability():
    s = Session.from_text(NODES + deploy_yaml(replicas=3))
    make_all_ready(s)
    s.run_for(1)
    st = deployment(s).status
    assert (st.replicas, st.updated_replicas, st.ready_replicas, st.available_replicas,
            st.unavailable_replicas) == (3, 3, 3, 3, 0)


def test_scaling_resizes_the_one_replicaset():
    s = Session.from_text(NODES + deploy_yaml(replicas=3))
    (rs,) = rss(s)
    set_replicas(s, 5)
    s.run_for(1)
    assert [r.spec.replicas for r in rss(s)] == [5]
    assert scaling_messages(s)[-1] == f"Scaled up replica set {rs.metadata.name} from 3 to 5"
    set_replicas(s, 2)
    s.run_for(1)
    assert [r.spec.replicas for r in rss(s)] == [2]
    assert scaling_messages(s)[-1] == f"Scaled down replica set {rs.metadata.name} from 5 to 2"
    assert rss(s)[0].metadata.annotations[du.DESIRED_REPLICAS] == "2"


@pytest.mark.parametrize("replicas,surge,unavailable,want_surge,want_unavailable", [
    (10, "25%", "25%", 3, 2),   # surge rounds up, unavailability rounds down
    (4, 1, 0, 1, 0),
    (4, 0, 1, 0, 1),
    (5, "50%", "20%", 3, 1),
])
def test_rolling_update_stays_within_max_surge_and_max_unavailable(
        replicas, surge, unavailable, want_surge, want_unavailable):
    strategy = ("strategy: {type: RollingUpdate, rollingUpdate: "
                f"{{maxSurge: {surge!r}, maxUnavailable: {unavailable!r}}}}}")
    s = Session.from_text(NODES + deploy_yaml(replicas=replicas, strategy=strategy))
    make_all_ready(s)
    s.run_for(1)
    seen = {"max_total": 0, "min_available": replicas}

    def watch(ev):
        if ev.obj.kind != "ReplicaSet":
            return
        all_rs = s.store.list("ReplicaSet", "default")
        seen["max_total"] = max(seen["max_total"], sum(r.spec.replicas for r in all_rs))
        ready = sum(1 for p in s.store.list("Pod", "default") if pod_active(p) and pod_ready(p))
        seen["min_available"] = min(seen["min_available"], ready)

    s.store.subscribe(None, watch)
    set_image(s, "nginx:1.26")
    roll_to_completion(s)
    assert seen["max_total"] == replicas + want_surge
    assert seen["min_available"] == replicas - want_unavailable
    new, = [r for r in rss(s) if r.spec.replicas]
    assert new.spec.template.spec.containers[0].image == "nginx:1.26"
    assert new.metadata.annotations[du.REVISION] == "2"
    assert deployment(s).metadata.annotations[du.REVISION] == "2"
    st = deployment(s).status
    assert (st.replicas, st.updated_replicas, st.available_replicas) == (replicas,) * 3


def test_kubectl_apply_of_an_edited_deployment_starts_a_rollout():
    s = Session.from_text(NODES + deploy_yaml(replicas=2))
    make_all_ready(s)
    s.run_for(1)
    old, = rss(s)
    result = s.submit("kubectl apply -f -", stdin=deploy_yaml(replicas=2, image="nginx:1.27"))
    assert result.ok, result.error
    s.run_for(1)
    names = [r.metadata.name for r in rss(s)]
    assert len(names) == 2 and old.metadata.name in names
    new_name = next(n for n in names if n != old.metadata.name)
    assert f"Scaled up replica set {new_name} from 0 to 1" in scaling_messages(s)
    roll_to_completion(s)
    assert {r.metadata.name: r.spec.replicas for r in rss(s)} == {old.metadata.name: 0,
                                                                   new_name: 2}


def test_recreate_removes_every_old_pod_before_creating_new_ones():
    s = Session.from_text(NODES + deploy_yaml(replicas=3, strategy="strategy: {type: Recreate}"))
    make_all_ready(s)
    s.run_for(1)
    old, = rss(s)
    set_image(s, "nginx:1.26")
    s.run_for(1)
    assert s.store.get("ReplicaSet", old.metadata.name, "default").spec.replicas == 0
    lingering = [p for p in s.store.list("Pod", "default")
                 if p.metadata.name.startswith(old.metadata.name)]
    new_rss = [r for r in rss(s) if r.metadata.name != old.metadata.name]
    if lingering:  # bound pods terminate gracefully: nothing new may start meanwhile
        assert all(r.spec.replicas == 0 for r in new_rss)
        finish_terminating(s)
        s.run_for(1)
        new_rss = [r for r in rss(s) if r.metadata.name != old.metadata.name]
    assert [r.spec.replicas for r in new_rss] == [3]
    msgs = scaling_messages(s)
    down = msgs.index(f"Scaled down replica set {old.metadata.name} from 3 to 0")
    up = msgs.index(f"Scaled up replica set {new_rss[0].metadata.name} from 0 to 3")
    assert down < up


def test_old_replicasets_beyond_the_revision_history_limit_are_deleted():
    s = Session.from_text(NODES + deploy_yaml(replicas=1, extra="revisionHistoryLimit: 1"))
    make_all_ready(s)
    for image in ("nginx:2", "nginx:3", "nginx:4"):
        set_image(s, image)
        roll_to_completion(s)
    remaining = rss(s)
    assert len(remaining) == 2
    assert sorted(r.metadata.annotations[du.REVISION] for r in remaining) == ["3", "4"]


def test_going_back_to_an_old_template_reuses_its_replicaset():
    s = Session.from_text(NODES + deploy_yaml(replicas=2))
    make_all_ready(s)
    first, = rss(s)
    set_image(s, "nginx:1.26")
    roll_to_completion(s)
    set_image(s, "nginx:1.25")
    roll_to_completion(s)
    assert len(rss(s)) == 2
    current = s.store.get("ReplicaSet", first.metadata.name, "default")
    assert current.spec.replicas == 2
    assert current.metadata.annotations[du.REVISION] == "3"


def test_scaling_mid_rollout_is_proportional():
    strategy = "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 3, maxUnavailable: 0}}"
    s = Session.from_text(NODES + deploy_yaml(replicas=10, strategy=strategy))
    make_all_ready(s)
    s.run_for(1)
    set_image(s, "nginx:1.26")
    s.run_for(1)  # new pods are not made ready: the rollout stalls at the surge
    before = {r.metadata.name: r.spec.replicas for r in rss(s)}
    assert sorted(before.values()) == [3, 10]
    set_replicas(s, 20)
    s.run_for(1)
    after = {r.metadata.name: r.spec.replicas for r in rss(s)}
    assert sum(after.values()) == 20 + 3
    assert all(after[n] > before[n] for n in before)


def test_paused_deployment_scales_but_does_not_roll_out():
    s = Session.from_text(NODES + deploy_yaml(replicas=2))
    d = deployment(s)
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, paused=True)))
    set_image(s, "nginx:1.26")
    s.run_for(1)
    assert len(rss(s)) == 1
    set_replicas(s, 4)
    s.run_for(1)
    assert [r.spec.replicas for r in rss(s)] == [4]


def test_a_pause_and_a_resume_set_the_progressing_condition():
    """checkPausedConditions through the sync: Progressing Unknown DeploymentPaused once
    paused, DeploymentResumed once resumed (written, then replaced as the rollout it held
    goes on)."""
    s = Session.from_text(NODES + deploy_yaml(replicas=2))
    s.run_for(5)
    written: list = []

    def heard(ev):
        for c in ev.obj.status.extra.get("conditions") or ():
            if c.get("type") == "Progressing":
                seen = (c.get("status"), c.get("reason"))
                if not written or written[-1] != seen:
                    written.append(seen)

    s.store.subscribe("Deployment", heard)
    d = deployment(s)
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, paused=True)))
    s.run_for(1)
    set_image(s, "nginx:1.26")
    s.run_for(1)
    d = deployment(s)
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, paused=False)))
    s.run_for(60)
    assert written[:4] == [("True", "NewReplicaSetAvailable"), ("Unknown", "DeploymentPaused"),
                           ("Unknown", "DeploymentResumed"), ("True", "NewReplicaSetCreated")]
    assert written[-1] == ("True", "NewReplicaSetAvailable")


def test_a_new_replicaset_found_without_a_progressing_condition_is_recorded():
    """getNewReplicaSet: a sync that finds its new ReplicaSet while no Progressing condition
    is stored writes FoundNewReplicaSet (then the status sync completes it)."""
    s = Session.from_text(NODES + deploy_yaml(replicas=2))
    s.run_for(5)
    d = deployment(s)
    s.store.write_status(d, attrs.evolve(d.status, extra=d.status.extra.set("conditions", ())))
    written: list = []

    def heard(ev):
        for c in ev.obj.status.extra.get("conditions") or ():
            if c.get("type") == "Progressing":
                written.append((c.get("status"), c.get("reason")))

    s.store.subscribe("Deployment", heard)
    d = deployment(s)   # a write that changes no spec: the controller syncs it again
    s.store.update(attrs.evolve(d, metadata=d.metadata.with_labels({"touched": "1"})))
    s.run_for(1)
    assert ("True", "FoundNewReplicaSet") in written
    assert written[-1] == ("True", "NewReplicaSetAvailable")


def test_reapplying_the_same_manifest_and_kubectl_scale_start_no_rollout():
    s = Session.from_text(NODES + deploy_yaml(replicas=2))
    first, = rss(s)
    assert s.submit("kubectl apply -f -", stdin=deploy_yaml(replicas=4)).ok
    s.run_for(1)
    assert s.submit("kubectl scale deployment web --replicas=3").ok
    s.run_for(1)
    assert [(r.metadata.name, r.spec.replicas) for r in rss(s)] == [(first.metadata.name, 3)]
    assert scaling_messages(s)[1:] == [
        f"Scaled up replica set {first.metadata.name} from 2 to 4",
        f"Scaled down replica set {first.metadata.name} from 4 to 3"]


def test_equal_ignore_hash_remembered_per_pair_answers_as_computed_afresh():
    """EqualIgnoreHash (upstream ``util/deployment_util.go``): the answer remembered per
    (template, template) object pair is the one a fresh comparison gives, for templates that
    differ only by the pod-template-hash label, by another label, by an annotation or by
    their spec — asked twice, in both orders."""
    from ksandbox.api.codec import FrozenDict, decode
    from ksandbox.api.core import PodTemplateSpec

    def tmpl(labels, image="nginx:1", annotations=None):
        return decode(PodTemplateSpec, {
            "metadata": {"labels": labels, "annotations": annotations or {}},
            "spec": {"containers": [{"name": "c", "image": image}]}})

    base = tmpl({"app": "web"})
    hashed = attrs.evolve(base, metadata=attrs.evolve(base.metadata, labels=FrozenDict(
        {"app": "web", du.POD_TEMPLATE_HASH: "abc"})))
    others = [hashed, tmpl({"app": "web", du.POD_TEMPLATE_HASH: "xyz"}), tmpl({"app": "api"}),
              tmpl({"app": "web"}, annotations={"a": "b"}), tmpl({"app": "web"}, image="nginx:2"),
              base]
    keys = du.TemplateKeys()
    for _ in range(2):
        for a in others:
            for b in (base, hashed):
                for x, y in ((a, b), (b, a)):
                    assert keys.equal_ignore_hash(x, y) == \
                        du.TemplateKeys()._equal_ignore_hash(x, y) == \
                        (du.template_key(x, du.POD_TEMPLATE_HASH)
                         == du.template_key(y, du.POD_TEMPLATE_HASH))


def test_fenceposts_remembered_per_spec_answer_as_computed_afresh():
    """ResolveFenceposts (upstream ``util/deployment_util.go``: maxSurge rounds up and
    maxUnavailable down, of ``spec.replicas``) is remembered by the identity of the Deployment's
    (immutable) spec. A scale keeps the strategy object and changes only the replica count, so
    the answer must follow the spec, not the strategy (keying by the strategy fails this:
    checked)."""
    from ksandbox.api.apps import Deployment
    from ksandbox.api.codec import decode

    d = decode(Deployment, {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 10, "selector": {"matchLabels": {"app": "web"}},
                 "strategy": {"type": "RollingUpdate",
                              "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "35%"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}})
    for replicas in (10, 7, 1, 0, 40, 10, None):
        scaled = attrs.evolve(d, spec=attrs.evolve(d.spec, replicas=replicas))
        assert scaled.spec.strategy is d.spec.strategy
        n = 1 if replicas is None else replicas
        fresh = du.resolve_fenceposts("25%", "35%", n)
        for _ in range(2):
            assert du.max_surge(scaled) == fresh[0] == -(-n * 25 // 100)
            assert du.max_unavailable(scaled) == (min(fresh[1], n) if n else 0)


def test_a_status_sync_takes_what_the_sync_found_only_as_found_afresh(monkeypatch):
    """_status_rss with ``known`` (the ReplicaSets a sync claimed and the new one it found)
    gives what reading the store again gives (_stored_rss): the stored Deployment, its
    selected ReplicaSets in the index's order, the same new one — over rollouts, a scaling
    event, a return to an old template, and a ReplicaSet adopted and another released."""
    from ksandbox.controllers.deployment import DeploymentController

    kept = DeploymentController._status_rss
    seen = {"checked": 0, "unwritten": 0}

    def checked(self, d, known):
        got = kept(self, d, known)
        fresh = self.store.get("Deployment", d.metadata.name, d.metadata.namespace)
        if known is not None and fresh is not None:
            rss_again, new_again = self._stored_rss(fresh)
            assert got[0] is fresh
            assert [r.metadata.name for r in got[1]] == [r.metadata.name for r in rss_again]
            assert all(a is b for a, b in zip(got[1], rss_again))
            assert got[2] is new_again
            seen["checked"] += 1
            seen["unwritten"] += self.store.resource_version == self._read_rv
        return got

    monkeypatch.setattr(DeploymentController, "_status_rss", checked)
    strategy = "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}"
    s = Session.from_text(NODES + deploy_yaml(replicas=4, strategy=strategy))
    make_all_ready(s)
    s.run_for(1)
    for image in ("nginx:1.26", "nginx:1.27"):
        set_image(s, image)
        roll_to_completion(s)
    set_image(s, "nginx:1.28")
    s.run_for(2)
    set_replicas(s, 6)   # a scaling event mid-rollout
    roll_to_completion(s)
    set_image(s, "nginx:1.25")   # back to the first template: its ReplicaSet again
    roll_to_completion(s)
    # An orphan that matches is adopted; a ReplicaSet relabeled out of the selector released.
    rs = max(rss(s), key=lambda r: r.metadata.creation_timestamp)
    s.store.update(attrs.evolve(rs, metadata=attrs.evolve(rs.metadata, owner_references=())))
    s.run_for(2)
    old = min(rss(s), key=lambda r: r.metadata.creation_timestamp)
    s.store.update(attrs.evolve(old, metadata=attrs.evolve(
        old.metadata, labels=old.metadata.labels.set("app", "other"))))
    s.run_for(2)
    assert seen["checked"] >= 20 and 0 < seen["unwritten"] < seen["checked"]


def test_what_a_sync_found_is_not_taken_once_the_store_says_otherwise():
    """_status_rss falls back to reading the store (_stored_rss) when ``known`` no longer
    holds: an owned ReplicaSet relabeled out of the selector (claimed or not), or a
    Deployment whose spec changed since the sync read it."""
    strategy = "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}"
    s = Session.from_text(NODES + deploy_yaml(replicas=2, strategy=strategy))
    make_all_ready(s)
    s.run_for(1)
    set_image(s, "nginx:1.26")
    roll_to_completion(s)
    dc = s.cp.components["deployment"]
    d = deployment(s)
    claimed = rss(s)
    new = next(r for r in claimed if r.spec.replicas)
    old = next(r for r in claimed if r is not new)

    def plain():
        fresh = deployment(s)
        return (fresh, *dc._stored_rss(fresh))

    def same(a, b):
        return a[0] is b[0] and len(a[1]) == len(b[1]) and \
            all(x is y for x, y in zip(a[1], b[1])) and a[2] is b[2]

    dc._read_rv = -1   # (as after a write: the resourceVersion shortcut does not apply)
    assert same(dc._status_rss(d, (claimed, new)), plain())
    # A new template since the sync read the Deployment: no ReplicaSet of it yet.
    set_image(s, "nginx:1.27")
    assert plain()[2] is None
    assert same(dc._status_rss(d, (claimed, new)), plain())
    d = deployment(s)
    # The old ReplicaSet relabeled, still owned (no sync has released it yet).
    s.store.update(attrs.evolve(old, metadata=attrs.evolve(
        old.metadata, labels=old.metadata.labels.set("app", "other"))))
    assert [r.metadata.name for r in plain()[1]] == [new.metadata.name]
    assert same(dc._status_rss(d, (claimed, new)), plain())     # claimed before the relabel
    assert same(dc._status_rss(d, ([new], new)), plain())       # not claimed at all


def test_a_sync_that_wrote_nothing_reads_its_replicasets_again_as_the_store_has_them(
        monkeypatch):
    """_fresh of a sync that wrote nothing since reading its Deployment returns what it was
    given: each is what the store holds (over rollouts and a scaling event, Recreate too)."""
    from ksandbox.controllers.deployment import DeploymentController

    kept = DeploymentController._fresh
    seen = {"calls": 0, "unwritten": 0}

    def checked(self, rss_in):
        got = kept(self, rss_in)
        for rs, cur in zip(rss_in, got):
            stored = self.store.get("ReplicaSet", rs.metadata.name, rs.metadata.namespace)
            assert cur is (stored if stored is not None else rs)
        seen["calls"] += 1
        seen["unwritten"] += self.store.resource_version == self._read_rv
        return got

    monkeypatch.setattr(DeploymentController, "_fresh", checked)
    for strategy in ("strategy: {type: RollingUpdate, rollingUpdate: "
                     "{maxSurge: 1, maxUnavailable: 0}}", "strategy: {type: Recreate}"):
        s = Session.from_text(NODES + deploy_yaml(replicas=3, strategy=strategy))
        make_all_ready(s)
        s.run_for(1)
        set_image(s, "nginx:1.26")
        roll_to_completion(s)
        set_replicas(s, 5)
        set_image(s, "nginx:1.27")
        roll_to_completion(s)
        set_image(s, "nginx:1.28")   # paused mid-rollout, then scaled: resizes, then cleanup
        s.run_for(1)
        d = deployment(s)
        s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, paused=True)))
        s.run_for(1)
        set_replicas(s, 2)
        s.run_for(2)
    assert 0 < seen["unwritten"] < seen["calls"]


def test_status_counts_ready_apart_from_available_with_min_ready_seconds():
    """calculateStatus's counts each in their own field: with minReadySeconds, ready pods
    are not available yet (readyReplicas 3, availableReplicas 0, unavailableReplicas 3),
    and mid-rollout the updated pods are fewer than all of them."""
    s = Session.from_text(NODES + deploy_yaml(replicas=3, extra="minReadySeconds: 30"))
    make_all_ready(s)
    s.run_for(1)
    d = deployment(s)
    st = d.status
    assert (st.replicas, st.updated_replicas, st.ready_replicas, st.available_replicas,
            st.unavailable_replicas, st.observed_generation) == (3, 3, 3, 0, 3,
                                                                 d.metadata.generation)
    s.run_for(31)
    st = deployment(s).status
    assert (st.ready_replicas, st.available_replicas, st.unavailable_replicas) == (3, 3, 0)
    set_image(s, "nginx:1.26")
    s.run_for(1)
    d = deployment(s)
    st = d.status
    assert st.observed_generation == d.metadata.generation == 2
    assert st.replicas > st.updated_replicas > 0
