"""The ReplicaSet (and ReplicationController) controller: pods to match spec.replicas, names,
owner references, shared specs, deletion order, status, adoption and release.

Tests drive a whole session; the scheduler and kubelets may or may not be part of the build, so
assertions look at what the controller does (counts of active pods, names, refs, events), and
pods are made ready by writing their status directly where a test needs ready pods.
"""

from __future__ import annotations

import random
import re

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from ksandbox.api.codec import FrozenDict
from ksandbox.api.core import Container, Pod, PodCondition, PodSpec, PodStatus
from ksandbox.api.meta import ObjectMeta
from ksandbox.controllers.activepods import ActivePods, deletion_key
from ksandbox.controllers.controller_utils import pod_active, pod_ready
from ksandbox.session import Session

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "32", memory: 64Gi, pods: "1000"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
status: {capacity: {cpu: "32", memory: 64Gi, pods: "1000"}}
"""


def rs_yaml(name: str = "web", replicas: int = 3, extra_spec: str = "",
            pod_spec: str = "") -> str:
    return f"""
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  {extra_spec}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}, tier: front}}}}
    spec:
      {pod_spec}
      containers: [{{name: app, image: nginx, resources: {{requests: {{cpu: 10m}}}}}}]
"""


def owned_pods(session: Session, owner: str, kind: str = "ReplicaSet") -> list:
    out = []
    for p in session.store.list("Pod", "default"):
        ref = p.metadata.controller_ref()
        if ref is not None and ref.kind == kind and ref.name == owner:
            out.append(p)
    return out


def active(pods: list) -> list:
    return [p for p in pods if pod_active(p)]


def make_ready(session: Session, pod) -> None:
    """What a kubelet would report for a started, ready pod."""
    pod = session.store.get("Pod", pod.metadata.name, pod.metadata.namespace)
    now = session.now
    status = attrs.evolve(pod.status, phase="Running", start_time=now, conditions=(
        PodCondition(type="Ready", status="True", last_transition_time=now),))
    session.store.update_status(attrs.evolve(pod, status=status))


def scale(session: Session, kind: str, name: str, replicas: int) -> None:
    obj = session.store.get(kind, name, "default")
    session.store.update(attrs.evolve(obj, spec=attrs.evolve(obj.spec, replicas=replicas)))


def events(session: Session, reason: str) -> list:
    return [e for e in session.store.events if e.reason == reason]


def test_creates_replicas_named_after_the_replicaset_with_a_controller_reference():
    s = Session.from_text(NODES + rs_yaml(replicas=3))
    rs = s.store.get("ReplicaSet", "web", "default")
    pods = active(owned_pods(s, "web"))
    assert len(pods) == 3
    for p in pods:
        assert re.fullmatch(r"web-[bcdfghjklmnpqrstvwxz2456789]{5}", p.metadata.name)
        ref = p.metadata.controller_ref()
        assert (ref.api_version, ref.kind, ref.name, ref.uid) == ("apps/v1", "ReplicaSet", "web",
                                                                  rs.metadata.uid)
        assert ref.block_owner_deletion
        assert dict(p.metadata.labels) == {"app": "web", "tier": "front"}
        # The template's containers are shared by every replica, not copied.
        assert p.spec.containers is rs.spec.template.spec.containers
    unbound = [p for p in pods if not p.spec.node_name]
    assert len({id(p.spec) for p in unbound}) <= 1


def test_records_successful_create_events_from_the_replicaset_controller():
    s = Session.from_text(NODES + rs_yaml(replicas=2))
    created = events(s, "SuccessfulCreate")
    names = sorted(p.metadata.name for p in owned_pods(s, "web"))
    assert sorted(e.message for e in created) == [f"Created pod: {n}" for n in names]
    assert {e.source_component for e in created} == {"replicaset-controller"}
    assert {e.object_path for e in created} == {"ReplicaSet/default/web"}


def test_pod_names_are_deterministic_for_a_seed():
    a = sorted(p.metadata.name for p in owned_pods(Session.from_text(NODES + rs_yaml()), "web"))
    b = sorted(p.metadata.name for p in owned_pods(Session.from_text(NODES + rs_yaml()), "web"))
    assert a == b


def test_scaling_up_and_down_changes_the_number_of_active_pods():
    s = Session.from_text(NODES + rs_yaml(replicas=2))
    scale(s, "ReplicaSet", "web", 5)
    s.run_for(1)
    assert len(active(owned_pods(s, "web"))) == 5
    scale(s, "ReplicaSet", "web", 1)
    s.run_for(1)
    assert len(active(owned_pods(s, "web"))) == 1
    deleted = events(s, "SuccessfulDelete")
    assert len(deleted) == 4
    assert all(re.fullmatch(r"Deleted pod: web-\w{5}", e.message) for e in deleted)


def test_a_deleted_pod_is_replaced():
    s = Session.from_text(NODES + rs_yaml(replicas=2))
    victim = active(owned_pods(s, "web"))[0]
    s.store.delete("Pod", victim.metadata.name, "default", grace_period=0)
    s.run_for(1)
    pods = active(owned_pods(s, "web"))
    assert len(pods) == 2 and victim.metadata.name not in {p.metadata.name for p in pods}


def test_creates_more_than_a_burst_at_the_client_rate():
    """kube-controller-manager's client: 30 requests at once, then 20 a second (--kube-api-qps,
    --kube-api-burst): 620 replicas take ~30 simulated seconds, as upstream."""
    s = Session.from_text(NODES + rs_yaml(replicas=620))
    assert len(active(owned_pods(s, "web"))) == 30
    s.run_until(29.0)
    assert len(active(owned_pods(s, "web"))) == 610
    s.run_until(30.0)
    assert len(active(owned_pods(s, "web"))) == 620
    assert s.store.get("ReplicaSet", "web", "default").status.replicas == 620


def test_status_counts_ready_and_available_replicas_with_min_ready_seconds():
    s = Session.from_text(NODES + rs_yaml(replicas=3, extra_spec="minReadySeconds: 10"))
    for p in active(owned_pods(s, "web"))[:2]:
        make_ready(s, p)
    s.run_for(1)
    st = s.store.get("ReplicaSet", "web", "default").status
    assert (st.replicas, st.fully_labeled_replicas) == (3, 3)
    assert st.ready_replicas >= 2
    assert st.available_replicas <= st.ready_replicas
    s.run_for(12)
    st = s.store.get("ReplicaSet", "web", "default").status
    assert st.available_replicas >= 2


def test_relabelled_pod_is_released_and_replaced():
    s = Session.from_text(NODES + rs_yaml(replicas=2))
    pod = active(owned_pods(s, "web"))[0]
    s.store.update(attrs.evolve(pod, metadata=pod.metadata.with_labels({"app": "debug"})))
    s.run_for(1)
    released = s.store.get("Pod", pod.metadata.name, "default")
    assert released.metadata.controller_ref() is None
    assert len(active(owned_pods(s, "web"))) == 2


def test_a_settled_owner_releases_a_pod_relabeled_out_of_its_selector_with_counts_kept():
    """A label added that the selector excludes (DoesNotExist) keeps the pod covering the
    template's labels: the owner's counts — active, ready, labeled — stay as its settled sync
    left them, and only the relabel says there is a pod to release (the settled entry is
    dropped with it: ReplicaSetController._unsettle). The pod is released and replaced."""
    rs = rs_yaml(replicas=2).replace(
        "selector: {matchLabels: {app: web}}",
        "selector: {matchLabels: {app: web}, "
        "matchExpressions: [{key: canary, operator: DoesNotExist}]}")
    s = Session.from_text(NODES + rs)
    s.run_for(5)
    rc = next(c for c in s.components if c.__class__.__name__ == "ReplicaSetController")
    assert ("default", "web") in rc._settled   # (what the shortcut would answer from)
    pod = active(owned_pods(s, "web"))[0]
    s.store.update(attrs.evolve(pod, metadata=pod.metadata.with_labels(
        {**pod.metadata.labels, "canary": "true"})))
    s.run_for(1)
    released = s.store.get("Pod", pod.metadata.name, "default")
    assert released.metadata.controller_ref() is None
    assert len(active(owned_pods(s, "web"))) == 2


def test_orphan_pods_matching_the_selector_are_adopted():
    s = Session.from_text(NODES)
    for i in range(2):
        s.store.create(Pod(metadata=ObjectMeta(name=f"stray-{i}", namespace="default",
                                               labels=FrozenDict({"app": "web"})),
                           spec=PodSpec(containers=(Container(name="app", image="nginx"),))))
    assert s.submit("kubectl apply -f -", stdin=rs_yaml(replicas=3)).ok
    s.run_for(1)
    names = {p.metadata.name for p in active(owned_pods(s, "web"))}
    assert {"stray-0", "stray-1"} <= names and len(names) == 3

    # the strays carry the selector's label but not the template's tier: active, not fully
    # labeled (calculateStatus counts them apart)
    st = s.store.get("ReplicaSet", "web", "default").status
    assert (st.replicas, st.fully_labeled_replicas, st.ready_replicas,
            st.available_replicas) == (3, 1, 0, 0)


def test_missing_priority_class_fails_creation_until_it_exists():
    s = Session.from_text(NODES + rs_yaml(replicas=2, pod_spec="priorityClassName: high"))
    failed = events(s, "FailedCreate")
    assert failed and failed[0].type == "Warning"
    assert failed[0].message == ('Error creating: pods "web-" is forbidden: no PriorityClass '
                                 'with name high was found')
    assert not owned_pods(s, "web")
    s.submit("kubectl apply -f -", stdin="apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                                         "metadata: {name: high}\nvalue: 1000\n")
    s.run_for(1)
    pods = active(owned_pods(s, "web"))
    assert len(pods) == 2 and all(p.spec.priority == 1000 for p in pods)


def test_replication_controller_uses_the_same_logic():
    rc = """
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  replicas: 2
  selector: {app: legacy}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      containers: [{name: app, image: nginx}]
"""
    s = Session.from_text(NODES + rc)
    pods = active(owned_pods(s, "legacy", kind="ReplicationController"))
    assert len(pods) == 2
    assert all(p.metadata.controller_ref().api_version == "v1" for p in pods)
    created = events(s, "SuccessfulCreate")
    assert {e.source_component for e in created} == {"replication-controller"}
    assert s.store.get("ReplicationController", "legacy", "default").status.replicas == 2


# -- deletion order (ActivePodsWithRanks), table-driven ------------------------------------


def _pod(name: str, node: str = "", phase: str = "Pending", ready: bool = False,
         ready_at: float = 0.0, created: float = 0.0, cost: str | None = None) -> Pod:
    conds = (PodCondition(type="Ready", status="True", last_transition_time=ready_at),) \
        if ready else ()
    ann = {"controller.kubernetes.io/pod-deletion-cost": cost} if cost is not None else {}
    return Pod(metadata=ObjectMeta(name=name, namespace="default", uid=name,
                                   creation_timestamp=created, annotations=ann),
               spec=PodSpec(node_name=node), status=PodStatus(phase=phase, conditions=conds))


@pytest.mark.parametrize("first,second,on_node", [
    (_pod("unscheduled"), _pod("scheduled", node="n1"), {}),
    (_pod("pending", node="n1"), _pod("running", node="n1", phase="Running"), {}),
    (_pod("unknown", node="n1", phase="Unknown"), _pod("running", node="n1", phase="Running"), {}),
    (_pod("not-ready", node="n1", phase="Running"),
     _pod("ready", node="n1", phase="Running", ready=True), {}),
    (_pod("cheap", node="n1", phase="Running", ready=True, cost="-5"),
     _pod("dear", node="n1", phase="Running", ready=True, cost="5"), {}),
    (_pod("doubled-up", node="n1", phase="Running", ready=True),
     _pod("alone", node="n2", phase="Running", ready=True), {"n1": 2, "n2": 1}),
    (_pod("ready-recently", node="n1", phase="Running", ready=True, ready_at=990.0),
     _pod("ready-long-ago", node="n2", phase="Running", ready=True, ready_at=10.0), {}),
    (_pod("created-recently", node="n1", phase="Running", created=995.0),
     _pod("created-long-ago", node="n2", phase="Running", created=1.0), {}),
], ids=lambda v: v.metadata.name if isinstance(v, Pod) else "")
def test_surplus_pods_are_deleted_in_upstream_order(first, second, on_node):
    now = 1000.0
    assert deletion_key(first, on_node, now) < deletion_key(second, on_node, now)


def test_picking_by_node_gives_exactly_the_full_sort():
    rng = random.Random(4)
    for trial in range(40):
        pods = ActivePods()
        for i in range(rng.randrange(1, 120)):
            node = rng.choice(["", "n1", "n2", "n3", "n4", "n5"])
            phase = rng.choice(["Running"] * 6 + ["Pending", "Unknown"])
            ready = rng.random() < 0.8
            cost = rng.choice([None] * 8 + ["-3", "7", "0"])
            p = _pod(f"p{trial}-{i:03d}-{rng.randrange(10**6)}", node=node if phase != "Pending"
                     or rng.random() < 0.5 else "", phase=phase, ready=ready,
                     ready_at=rng.choice([0.0, 1.0, 500.0, 900.0 + rng.random() * 99]),
                     created=rng.choice([0.0, 0.5, 400.0, 990.0]), cost=cost)
            pods.account(p, 1)
        everything = pods.all()
        for now in (1000.0 + trial, 1001.5 + trial, 3000.0, 1e6):  # cached orders must age
            ranks = pods.node_counts
            want = sorted(everything, key=lambda p: deletion_key(p, ranks, now))
            for k in {1, 3, len(everything) // 2, len(everything) - 1} - {0}:
                if k >= len(everything):
                    continue
                got = pods.pick(k, ranks, now)
                assert [p.metadata.name for p in got] == [p.metadata.name for p in want[:k]]
        # Deleting them all needs no order (upstream skips the sort too).
        assert len(pods.pick(len(everything), pods.node_counts, 1e6)) == len(everything)


@settings(max_examples=150, deadline=None)
@given(pods=hs.lists(hs.tuples(hs.sampled_from(["n1", "n2", "n3", "n4", "n5"]),
                               hs.floats(0.0, 64.0), hs.floats(0.0, 64.0)),
                     min_size=2, max_size=40),
       steps=hs.lists(hs.floats(0.0, 40.0), min_size=1, max_size=12),
       start=hs.floats(0.0, 30.0))
def test_a_standing_order_aged_between_picks_gives_the_full_sort(pods, steps, start):
    """Plain pods keep their order between picks while only their ages grow; an order is
    sorted again only when its node's best pod comes up (ActivePods._pick_plain), or at once
    when it held an age of zero or less (ready or created at or after the time it was sorted:
    such a key can fall). Each pick at a later time is the full sort's."""
    standing = ActivePods()
    for i, (node, ready_at, created) in enumerate(pods):
        standing.account(_pod(f"p{i:02d}", node=node, phase="Running", ready=True,
                              ready_at=ready_at, created=created), 1)
    everything = standing.all()
    now = start
    for step in steps:
        now += step
        ranks = standing.node_counts
        want = sorted(everything, key=lambda p: deletion_key(p, ranks, now))
        for k in sorted({1, 2, len(everything) - 1}):
            if k >= len(everything):
                continue   # all of them: no order (see test_picking_by_node...)
            got = standing.pick(k, ranks, now)
            assert [p.metadata.name for p in got] == [p.metadata.name for p in want[:k]]


def test_the_standing_order_follows_changes_in_the_family():
    rng = random.Random(9)
    a, b = ActivePods(), ActivePods()
    family: dict[str, int] = {}

    def account(pods, other, pod, sign):
        pods.account(pod, sign)
        node = pod.spec.node_name
        family[node] = family.get(node, 0) + sign
        other.ranks_changed([node])

    live: dict[str, tuple] = {}
    for step in range(300):
        now = 100.0 + step * 7.5
        if live and rng.random() < 0.4:
            name = rng.choice(sorted(live))
            owner, other, pod = live.pop(name)
            account(owner, other, pod, -1)
        else:
            owner, other = (a, b) if rng.random() < 0.5 else (b, a)
            pod = _pod(f"p{step:04d}", node=rng.choice(["n1", "n2", "n3", "n4"]),
                       phase="Running", ready=rng.random() < 0.9,
                       ready_at=now - rng.choice([0.5, 3.0, 40.0]), created=now - 60.0)
            live[pod.metadata.name] = (owner, other, pod)
            account(owner, other, pod, 1)
        mine = a.all()
        if len(mine) > 1:
            want = sorted(mine, key=lambda p: deletion_key(p, family, now))
            k = rng.randrange(1, len(mine))
            assert [p.metadata.name for p in a.pick(k, family, now)] == \
                [p.metadata.name for p in want[:k]]


_FAMILY_ADD = hs.tuples(
    # a pod of ReplicaSet 0 or 1 comes: its node (mostly a few crowded ones), how long ago it
    # became ready and was created (0: this instant, an age of zero), whether it is plain
    hs.just("add"), hs.integers(0, 1), hs.integers(0, 5) | hs.integers(0, 39),
    hs.sampled_from([0.0, 0.0, 0.25, 1.0, 3.0, 40.0, 300.0]),
    hs.sampled_from([0.0, 1.0, 60.0, 500.0]), hs.booleans() | hs.just(True))
_FAMILY_STEP = hs.one_of(
    _FAMILY_ADD, _FAMILY_ADD, _FAMILY_ADD,
    hs.tuples(hs.just("remove"), hs.integers(0, 10**6)),
    hs.tuples(hs.just("wait"), hs.sampled_from([0.0, 0.5, 7.0, 70.0, 700.0])),
    hs.tuples(hs.just("pick"), hs.integers(1, 3) | hs.integers(1, 60)),
    hs.tuples(hs.just("pick"), hs.just(1)),
    hs.tuples(hs.just("new ranks"),))   # the family's counts as a new object (a rebuild)


@settings(max_examples=200, deadline=None)
@given(steps=hs.lists(_FAMILY_STEP, min_size=30, max_size=150))
def test_standing_orders_of_a_family_pick_as_the_full_sort(steps):
    """Two ReplicaSets of one family on up to 40 nodes, pods coming and going, time passing:
    every pick of either one equals the plain computation — a full sort with upstream's key
    (deletion_key) and the family's counts. This holds the standing order's shortcuts to it:
    a node whose rank alone changed keeps its order, a node not sorted yet waits in the heap
    with its rank's key until it comes up (then its whole rank is sorted at once), an order
    aged past a power of two is sorted again, a new ranks object rebuilds the heap, and a
    single pod is read off the top without a merge."""
    owners = (ActivePods(), ActivePods())
    family: dict[str, int] = {}
    live: list[tuple[int, Pod]] = []
    now = 1000.0
    for n, step in enumerate(steps):
        if step[0] == "add":
            _, which, node_i, ready_ago, created_ago, plain = step
            node = f"n{node_i:02d}"
            pod = _pod(f"p{n:03d}", node=node, phase="Running", ready=plain,
                       ready_at=now - ready_ago, created=now - created_ago - ready_ago)
            owners[which].account(pod, 1)
            live.append((which, pod))
        elif step[0] == "remove" and live:
            which, pod = live.pop(step[1] % len(live))
            owners[which].account(pod, -1)
            node = pod.spec.node_name
        elif step[0] == "wait":
            now += step[1]
            continue
        elif step[0] == "new ranks":
            family = dict(family)
            continue
        elif step[0] == "pick":
            for which, mine in enumerate(owners):
                pods = [p for w, p in live if w == which]
                if len(pods) <= 1:
                    continue
                k = min(step[1], len(pods) - 1)
                want = sorted(pods, key=lambda p: deletion_key(p, family, now))[:k]
                got = mine.pick(k, family, now)
                assert [p.metadata.name for p in got] == [p.metadata.name for p in want]
            continue
        else:
            continue
        family[node] = family.get(node, 0) + (1 if step[0] == "add" else -1)
        if not family[node]:
            del family[node]
        for mine in owners:   # (the controller tells both; the owner's own mark is harmless)
            mine.ranks_changed([node])


def _count(family: dict[str, int], owners: tuple[ActivePods, ...], node: str,
           sign: int) -> None:
    """A pod of the family enters (+1) or leaves (-1) ``node``; both owners are told."""
    family[node] = family.get(node, 0) + sign
    if not family[node]:
        del family[node]
    for mine in owners:
        mine.ranks_changed([node])


def test_a_wide_rank_sorted_at_once_picks_as_the_full_sort(monkeypatch):
    """A family spread thin over many nodes (the bench's: a pod or two of each ReplicaSet a
    node) leaves dozens of nodes unsorted at one rank after a rebuild; they are sorted in one
    pass when their rank comes up (ActivePods._sort_rank's wide branch), found at the heap's
    top among dead entries of nodes pushed again since. Every pick is the full sort's; the
    spy checks that the wide branch and dead entries at the rank's key were both met."""
    seen = {"wide": 0, "dead": 0}
    real = ActivePods._sort_rank

    def spy(self, base, now, taken):
        unsorted = [e for e in self._entry.values() if e[1] is None and e[0] == base]
        seen["wide"] += len(unsorted) >= 16
        seen["dead"] += any(e[0] == base and self._entry.get(e[2]) is not e
                            for e in self._heap)
        return real(self, base, now, taken)

    monkeypatch.setattr(ActivePods, "_sort_rank", spy)
    rng = random.Random(11)
    for trial in range(4):
        owners = (ActivePods(), ActivePods())
        family: dict[str, int] = {}
        live: list[tuple[int, Pod]] = []
        now = 500.0

        for step in range(700):
            r = rng.random()
            if r < 0.5 or len(live) < 40:
                which = 0 if rng.random() < 0.8 else 1
                node = f"n{rng.randrange(160):03d}"
                pod = _pod(f"p{trial}-{step:03d}", node=node, phase="Running",
                           ready=rng.random() < 0.95,
                           ready_at=now - rng.choice([0.0, 2.0, 50.0, 700.0]),
                           created=now - rng.choice([800.0, 1000.0, 3000.0]))
                owners[which].account(pod, 1)
                live.append((which, pod))
                _count(family, owners, node, 1)
            elif r < 0.65:
                which, pod = live.pop(rng.randrange(len(live)))
                owners[which].account(pod, -1)
                _count(family, owners, pod.spec.node_name, -1)
            elif r < 0.7:
                family = dict(family)   # a new ranks object: every node's entry anew
            elif r < 0.75:
                now += rng.choice([0.5, 30.0, 400.0])
            else:
                for which, mine in enumerate(owners):
                    pods = [p for w, p in live if w == which]
                    if len(pods) <= 1:
                        continue
                    k = min(rng.choice([1, 1, 2, 5, 40]), len(pods) - 1)
                    want = sorted(pods, key=lambda p: deletion_key(p, family, now))[:k]
                    got = mine.pick(k, family, now)
                    assert [p.metadata.name for p in got] == [p.metadata.name for p in want]
    assert seen["wide"] and seen["dead"]


def test_scale_down_deletes_unready_pods_before_ready_ones():
    s = Session.from_text(NODES + rs_yaml(replicas=4))
    pods = active(owned_pods(s, "web"))
    keep = {p.metadata.name for p in pods[:2]}
    for p in pods[:2]:
        make_ready(s, p)
    s.run_for(1)
    not_ready = [p for p in active(owned_pods(s, "web")) if not pod_ready(p)]
    scale(s, "ReplicaSet", "web", 2)
    s.run_for(1)
    remaining = {p.metadata.name for p in active(owned_pods(s, "web"))}
    if len(not_ready) == 2:  # no kubelet made the other two ready meanwhile
        assert remaining == keep
    assert len(remaining) == 2


def _set_image(store, deployment, tag):
    """A new pod template for ``deployment``: its first container runs ``nginx:<tag>``."""
    d = store.get("Deployment", deployment, "default")
    c = attrs.evolve(d.spec.template.spec.containers[0], image=f"nginx:{tag}")
    t = attrs.evolve(d.spec.template, spec=attrs.evolve(d.spec.template.spec, containers=(c,)))
    store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, template=t)))


def _full_sort_pick(store, rs, parent, count, now):
    """The ``count`` pods of ``rs`` a full sort deletes first, ranked on the nodes of the
    pods of ``parent``'s whole family (upstream's getPodsRankedByRelatedPodsOnSameNode)."""
    family: dict[str, int] = {}
    mine = []
    for p in store.list("Pod", "default"):
        ref = p.metadata.controller_ref()
        if ref is None or not pod_active(p):
            continue
        owner = store.get("ReplicaSet", ref.name, "default")
        oref = owner.metadata.controller_ref() if owner is not None else None
        if ref.uid == rs.metadata.uid:
            mine.append(p)
        if parent is not None and oref is not None and oref.uid == parent.uid:
            family[p.spec.node_name] = family.get(p.spec.node_name, 0) + 1
    return sorted(mine, key=lambda p: deletion_key(p, family, now))[:count]


def test_rolling_updates_scale_down_in_the_full_sort_order_of_the_family():
    """getPodsToDelete with ActivePodsWithRanks (upstream ``replica_set.go`` and
    ``controller_utils.go``): in rolling updates of Deployments (three ReplicaSets at once in
    one of them, a scale in the middle) every scale-down picks exactly the pods a full sort
    with the family's ranks — active pods per node over the Deployment's ReplicaSets, counted
    afresh from the store — puts first. The controller tells the siblings' standing orders
    only about nodes whose family count changed since the last pick (a pod status write
    leaves and re-enters the same node); this holds that to the plain computation."""

    from ksandbox.controllers.replicaset import ReplicaSetController

    nodes = "".join(f"""
---
apiVersion: v1
kind: Node
metadata: {{name: node-{i}, labels: {{topology.kubernetes.io/zone: z{i % 3}}}}}
status: {{capacity: {{cpu: "32", memory: 64Gi, pods: "110"}}}}
""" for i in range(12))
    deps = "".join(f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d{i}}}
spec:
  replicas: {20 + 7 * i}
  strategy: {{type: RollingUpdate, rollingUpdate: {{maxSurge: {1 + i}, maxUnavailable: {i}}}}}
  selector: {{matchLabels: {{app: d{i}}}}}
  template:
    metadata: {{labels: {{app: d{i}}}}}
    spec:
      containers: [{{name: app, image: "nginx:1", resources: {{requests: {{cpu: 10m}}}}}}]
""" for i in range(3))
    session = Session.from_text(nodes + deps, seed=4)
    store = session.store
    checked = []
    original = ReplicaSetController.pods_to_delete

    def checked_pick(self, rs, count):
        got = original(self, rs, count)
        parent = rs.metadata.controller_ref()
        want = _full_sort_pick(store, rs, parent, count, session.now)
        checked.append(([p.metadata.name for p in got], [p.metadata.name for p in want]))
        return got

    ReplicaSetController.pods_to_delete = checked_pick
    try:
        session.run_until(40)
        for i in range(3):
            _set_image(store, f"d{i}", "2")
        session.run_until(55)
        _set_image(store, "d1", "3")                       # mid-rollout: a third ReplicaSet
        session.run_until(70)
        session.submit("kubectl scale deployment d2 --replicas=25")
        session.run_until(200)
    finally:
        ReplicaSetController.pods_to_delete = original
    assert len(checked) > 40
    assert [got for got, _ in checked] == [want for _, want in checked]


def test_a_replicaset_released_with_pods_leaves_the_family_ranks_at_once():
    """ActivePodsWithRanks (upstream ``controller_utils.go``; ``replica_set.go``
    getPodsToDelete ranks a pod by the active pods of its whole family — the ReplicaSets of one
    Deployment — on its node): when a ReplicaSet that runs pods leaves the family (released by
    ``ClaimReplicaSets`` after a relabel, mid-rollout), the family's counts change at once and
    every sibling's standing deletion order must be rebuilt against them. The controller keeps
    the family's counts object when a join or a leave leaves the counts as they were (a new,
    empty ReplicaSet; an emptied one cleaned up), so the siblings' orders stand; here every
    pick after a leave that does change them must equal a full sort with the family counted
    afresh from the store (keeping the object whatever the counts fails it: checked)."""
    from ksandbox.controllers.replicaset import ReplicaSetController

    nodes = "".join(f"""
---
apiVersion: v1
kind: Node
metadata: {{name: node-{i}}}
status: {{capacity: {{cpu: "32", memory: 64Gi, pods: "110"}}}}
""" for i in range(6))
    dep = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d0}
spec:
  replicas: 12
  minReadySeconds: 600
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 4, maxUnavailable: 0}}
  selector: {matchLabels: {app: d0}}
  template:
    metadata: {labels: {app: d0}}
    spec:
      containers: [{name: app, image: "nginx:1", resources: {requests: {cpu: 10m}}}]
"""
    session = Session.from_text(nodes + dep, seed=7)
    store = session.store
    checked = []
    original = ReplicaSetController.pods_to_delete

    def checked_pick(self, rs, count):
        got = original(self, rs, count)
        parent = store.get("ReplicaSet", rs.metadata.name, "default").metadata.controller_ref()
        want = _full_sort_pick(store, rs, parent, count, session.now)
        checked.append((rs.metadata.name, [p.metadata.name for p in got],
                        [p.metadata.name for p in want]))
        return got

    ReplicaSetController.pods_to_delete = checked_pick
    try:
        session.run_until(700)
        _set_image(store, "d0", "2")   # four surge pods; the old ones wait 600 s for them
        session.run_until(720)
        [old] = [rs for rs in store.list("ReplicaSet", "default")
                 if rs.spec.template.spec.containers[0].image == "nginx:1"]
        assert old.status.replicas == 12
        session.submit("kubectl scale deployment d0 --replicas=14")   # proportional: both grow
        session.run_until(730)
        session.submit("kubectl scale deployment d0 --replicas=13")   # both shrink: ranks
        session.run_until(740)
        before = len(checked)
        # The old ReplicaSet stops matching: the Deployment releases it, pods and all.
        old = store.get("ReplicaSet", old.metadata.name, "default")
        store.update(attrs.evolve(old, metadata=attrs.evolve(
            old.metadata, labels=FrozenDict({"app": "gone"}))))
        session.run_until(745)
        assert store.get("ReplicaSet", old.metadata.name, "default").metadata.controller_ref() \
            is None
        session.submit("kubectl scale deployment d0 --replicas=3")
        session.run_until(800)
    finally:
        ReplicaSetController.pods_to_delete = original
    assert before >= 1 and len(checked) > before
    assert [got for _, got, _ in checked] == [want for _, _, want in checked]


class _NeverSettled(dict):
    """A ``_settled`` table that never answers: every sync takes the full path."""

    def get(self, key, default=None):
        return default


def _settle_trace(monkeypatch, settled: bool) -> tuple[list, int]:
    """Every write and event of a run with ReplicaSets, a ReplicationController and rolling
    Deployments through relabels, adoptions, scaling, minReadySeconds, deleted pods and a
    failed node; and how many syncs went past the settled check."""
    from ksandbox.apiserver import store as store_mod
    from ksandbox.controllers.replicaset import ReplicaSetController

    out: list = []
    full = [0]
    # (every sync past the settled check writes or checks the status; _claim is skipped
    # when there is nothing to claim)
    real_notify, real_status = store_mod.Store._notify, ReplicaSetController._update_status

    def notify(self, type_, obj, old=None, status=False):
        out.append(("w", self._now(), type_, repr(obj)))
        return real_notify(self, type_, obj, old, status)

    def update_status(self, rs):
        full[0] += 1
        return real_status(self, rs)

    monkeypatch.setattr(store_mod.Store, "_notify", notify)
    monkeypatch.setattr(ReplicaSetController, "_update_status", update_status)
    deployment = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: roll}
spec:
  replicas: 6
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  selector: {matchLabels: {app: roll}}
  template:
    metadata: {labels: {app: roll}}
    spec:
      containers: [{name: app, image: "nginx:1", resources: {requests: {cpu: 10m}}}]
"""
    rc = """
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: 2
  selector: {app: rc}
  template:
    metadata: {labels: {app: rc}}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: 10m}}}]
"""
    s = Session.from_text(NODES + rs_yaml(replicas=4) + rs_yaml("slow", 3, "minReadySeconds: 5")
                          + deployment + rc, seed=3)
    if not settled:
        for c in s.components:
            if isinstance(c, ReplicaSetController):
                c._settled = _NeverSettled()
    s.run_until(20)
    _set_image(s.store, "roll", "2")
    s.run_until(30)
    pod = active(owned_pods(s, "web"))[0]
    s.store.update(attrs.evolve(pod, metadata=pod.metadata.with_labels({"app": "debug"})))
    s.run_until(35)
    s.store.update(attrs.evolve(s.store.get("Pod", pod.metadata.name, "default"),
                                metadata=pod.metadata.with_labels({"app": "web"})))
    s.run_until(40)
    scale(s, "ReplicaSet", "web", 6)
    s.submit(f"kubectl delete pod {active(owned_pods(s, 'slow'))[0].metadata.name}")
    s.run_until(50)
    _set_image(s.store, "roll", "3")
    s.submit("ksandbox fail node node-2")
    s.run_until(60)
    scale(s, "ReplicationController", "rc", 1)
    s.run_until(500)
    out.append(("events", [(e.reason, e.message) for e in s.store.occurrences]))
    monkeypatch.undo()
    return out, full[0]


def test_a_sync_that_finds_its_owner_settled_does_what_the_full_sync_does(monkeypatch):
    """A sync that finds the same stored owner and the same counts its last settled sync
    left (nothing to create, delete, claim or write: the new pod's own create, bind and
    start heard back) returns at once. The run is the one in which every sync takes the full
    path, write for write and event for event; and the shortcut is taken."""
    short, full_syncs_short = _settle_trace(monkeypatch, settled=True)
    plain, full_syncs_plain = _settle_trace(monkeypatch, settled=False)
    assert len(plain) > 300
    assert short == plain
    assert full_syncs_short <= full_syncs_plain - 20, (full_syncs_short, full_syncs_plain)
