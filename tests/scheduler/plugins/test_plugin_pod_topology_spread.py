"""PodTopologySpread: cases from upstream's filtering_test.go and scoring_test.go."""

import pytest
from schedtest import cache_of, code_name, node, pod, run_filter, run_scores

from ksandbox.scheduler.framework.runtime import Handle
from ksandbox.scheduler.plugins import pod_topology_spread as pts
from ksandbox.scheduler.schedule_one import new_cycle_state

H = "kubernetes.io/hostname"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
NOT_MATCH = "node(s) didn't match pod topology spread constraints"
MISSING = NOT_MATCH + " (missing required label)"


def c(skew, key, when, selector=FOO, **kw):
    d = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        d["labelSelector"] = selector
    d.update(kw)
    return d


def hn(name, **labels):
    return node(name, labels={H: name, **labels})


def zn(name, zone, **labels):
    return node(name, labels={"zone": zone, H: name, **labels})


def existing(spec):
    """'a:2,b:1' -> pods with label foo on node-a (2) and node-b (1)."""
    out = []
    for part in spec.split(","):
        n, k = part.split(":")
        out += [pod(f"p-{n}{i}", labels={"foo": ""}, node_name=f"node-{n}") for i in range(int(k))]
    return out


ZONES4 = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"),
          zn("node-y", "zone2")]
HOSTS4 = [hn("node-a"), hn("node-b"), hn("node-x"), hn("node-y")]

FILTER_CASES = [
    ("no existing pods", [c(1, "zone", "DoNotSchedule")], ZONES4, [], {}),
    ("no existing pods, incoming pod doesn't match itself",
     [c(1, "zone", "DoNotSchedule", BAR)], ZONES4, [], {}),
    ("existing pods in a different namespace do not count",
     [c(1, "zone", "DoNotSchedule")], ZONES4,
     [pod("p-a1", namespace="ns1", labels={"foo": ""}, node_name="node-a")]
     + existing("a:1,b:1"), {"node-a": NOT_MATCH, "node-b": NOT_MATCH}),
    ("pods spread across zones as 3/3, all nodes fit", [c(1, "zone", "DoNotSchedule")],
     ZONES4, existing("a:1,b:2,x:1,y:2"), {}),
    ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
     [c(1, "zone", "DoNotSchedule")],
     [zn("node-a", "zone1"), hn("node-b"), zn("node-x", "zone2"), zn("node-y", "zone2")],
     existing("a:1,x:1,y:1"), {"node-b": MISSING, "node-x": NOT_MATCH, "node-y": NOT_MATCH}),
    ("pod cannot be scheduled as all nodes don't have label 'rack'",
     [c(1, "rack", "DoNotSchedule")], ZONES4[:2], [], {"node-a": MISSING, "node-b": MISSING}),
    ("pods spread across nodes as 2/1/0/3, only node-x fits",
     [c(1, H, "DoNotSchedule")], HOSTS4, existing("a:2,b:1,y:3"),
     {"node-a": NOT_MATCH, "node-b": NOT_MATCH, "node-y": NOT_MATCH}),
    ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
     [c(2, H, "DoNotSchedule")], HOSTS4, existing("a:2,b:1,y:3"),
     {"node-a": NOT_MATCH, "node-y": NOT_MATCH}),
    ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
     [c(1, H, "DoNotSchedule", BAR)], HOSTS4,
     [pod(f"q{i}", labels={"bar": ""}, node_name=n) for i, n in
      enumerate(["node-a", "node-a", "node-b", "node-y", "node-y", "node-y"])],
     {"node-a": NOT_MATCH, "node-y": NOT_MATCH}),
    ("two Constraints on zone and node, spreads = [3/3, 2/1/0/3], only node-x fits",
     [c(1, "zone", "DoNotSchedule"), c(1, H, "DoNotSchedule")], ZONES4,
     existing("a:2,b:1,y:3"),
     {"node-a": NOT_MATCH, "node-b": NOT_MATCH, "node-y": NOT_MATCH}),
    ("two Constraints on zone and node, spreads = [1/4, 1/0/1/3], only node-b fits",
     [c(1, "zone", "DoNotSchedule"), c(1, H, "DoNotSchedule")], ZONES4,
     existing("a:1,x:1,y:3"), {"node-a": NOT_MATCH, "node-x": NOT_MATCH, "node-y": NOT_MATCH}),
    ("minDomains greater than the number of domains treats the global minimum as 0",
     [c(2, H, "DoNotSchedule", minDomains=5)], HOSTS4, existing("a:2,b:1,x:1"),
     {"node-a": NOT_MATCH}),
    ("minDomains no greater than the number of domains keeps the real minimum",
     [c(2, H, "DoNotSchedule", minDomains=4)], HOSTS4, existing("a:2,b:1,x:1,y:1"), {}),
    ("nodeAffinityPolicy Honor: only nodes the pod could go to count, so zone2 fits",
     [c(1, "zone", "DoNotSchedule")],
     [zn("node-a", "zone1", ok="1"), zn("node-b", "zone1"), zn("node-x", "zone2", ok="1"),
      zn("node-y", "zone2")], existing("a:1,b:1,y:2"), {"node-a": NOT_MATCH, "node-b": NOT_MATCH}),
    ("nodeAffinityPolicy Ignore: every node with the key counts",
     [c(1, "zone", "DoNotSchedule", nodeAffinityPolicy="Ignore")],
     [zn("node-a", "zone1", ok="1"), zn("node-b", "zone1"), zn("node-x", "zone2", ok="1"),
      zn("node-y", "zone2")], existing("a:1,b:1,y:2"), {}),
    ("nodeTaintsPolicy Honor: a tainted node is not an empty domain, so node-a fits",
     [c(1, H, "DoNotSchedule", nodeTaintsPolicy="Honor")],
     [hn("node-a"), node("node-b", labels={H: "node-b"},
                         taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])],
     existing("a:1"), {}),
    ("nodeTaintsPolicy Ignore: the tainted empty node is the minimum, so node-a does not fit",
     [c(1, H, "DoNotSchedule")],
     [hn("node-a"), node("node-b", labels={H: "node-b"},
                         taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])],
     existing("a:1"), {"node-a": NOT_MATCH}),
]


@pytest.mark.parametrize("name,constraints,nodes,pods,want", FILTER_CASES,
                         ids=[x[0] for x in FILTER_CASES])
def test_filter(name, constraints, nodes, pods, want):
    sel = {"ok": "1"} if "nodeAffinityPolicy" in name else None
    p = pod(labels={"foo": ""}, spread=constraints, node_selector=sel)
    got = run_filter(pts.new, p, nodes, pods)
    for n, st in got.items():
        if n in want:
            assert st is not None and st.reasons == (want[n],), n
            assert code_name(st) == ("UnschedulableAndUnresolvable" if want[n] == MISSING
                                     else "Unschedulable")
        else:
            assert st is None, (n, st)


def test_filter_skips_pods_without_hard_constraints():
    p = pod(labels={"foo": ""}, spread=[c(1, "zone", "ScheduleAnyway")])
    assert all(st is None for st in run_filter(pts.new, p, ZONES4[:1]).values())


SCORE_CASES = [
    ("one constraint on node, no existing pods", [c(1, H, "ScheduleAnyway")],
     [hn("node-a"), hn("node-b")], [], None, {"node-a": 100, "node-b": 100}),
    ("one constraint on node, only one node is candidate", [c(1, H, "ScheduleAnyway")],
     [hn("node-a"), hn("node-b")], existing("a:2,b:1"), ["node-a"], {"node-a": 100}),
    ("one constraint on node, all nodes have the same number of matching pods",
     [c(1, H, "ScheduleAnyway")], [hn("node-a"), hn("node-b")], existing("a:1,b:1"), None,
     {"node-a": 100, "node-b": 100}),
    ("one constraint on node, all 4 nodes are candidates", [c(1, H, "ScheduleAnyway")],
     [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")], existing("a:2,b:1,d:3"), None,
     {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}),
    ("one constraint on node, null selector", [c(1, H, "ScheduleAnyway", None)],
     [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")], existing("a:2,b:1,d:3"), None,
     {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=2",
     [c(2, H, "ScheduleAnyway")], [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")],
     existing("a:2,b:1,d:3"), None, {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=3",
     [c(3, H, "ScheduleAnyway")], [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")],
     existing("a:4,b:3,c:2,d:1"), None,
     {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}),
    ("one constraint on node, 3 out of 4 nodes are candidates", [c(1, H, "ScheduleAnyway")],
     [hn("node-a"), hn("node-b"), hn("node-x"), hn("node-y")], existing("a:4,b:2,x:1,y:3"),
     ["node-a", "node-b", "node-x"], {"node-a": 33, "node-b": 83, "node-x": 100}),
    ("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match "
     "topology key", [c(1, H, "ScheduleAnyway")],
     [hn("node-a"), node("node-b", labels={"n": "node-b"}), hn("node-x"), hn("node-y")],
     existing("a:4,b:2,x:1,y:3"), ["node-a", "node-b", "node-x"],
     {"node-a": 16, "node-b": 0, "node-x": 100}),
    ("one constraint on zone, 3 out of 4 nodes are candidates", [c(1, "zone", "ScheduleAnyway")],
     ZONES4, existing("a:4,b:2,x:1,y:3"), ["node-a", "node-b", "node-x"],
     {"node-a": 75, "node-b": 75, "node-x": 100}),
    ("two Constraints on zone and node, 2 out of 4 nodes are candidates",
     [c(1, "zone", "ScheduleAnyway"), c(1, H, "ScheduleAnyway")], ZONES4,
     existing("a:2,b:1,x:2,y:4"), ["node-a", "node-x"], {"node-a": 100, "node-x": 63}),
    ("existing pods in a different namespace do not count", [c(1, H, "ScheduleAnyway")],
     [hn("node-a"), hn("node-b")],
     [pod("p-a1", namespace="ns1", labels={"foo": ""}, node_name="node-a")]
     + existing("a:1,b:2"), None, {"node-a": 100, "node-b": 33}),
]


@pytest.mark.parametrize("name,constraints,nodes,pods,feasible,want", SCORE_CASES,
                         ids=[x[0] for x in SCORE_CASES])
def test_score(name, constraints, nodes, pods, feasible, want):
    p = pod(labels={"foo": ""}, spread=constraints)
    assert run_scores(pts.new, p, nodes, pods, feasible) == want


def test_two_constraints_on_zone_and_node_with_different_label_selectors():
    p = pod(labels={"foo": "", "bar": ""},
            spread=[c(1, "zone", "ScheduleAnyway"), c(1, H, "ScheduleAnyway", BAR)])
    pods = [pod("p-a1", labels={"foo": ""}, node_name="node-a"),
            pod("p-b1", labels={"foo": "", "bar": ""}, node_name="node-b"),
            pod("p-y1", labels={"foo": ""}, node_name="node-y"),
            pod("p-y2", labels={"bar": ""}, node_name="node-y")]
    assert run_scores(pts.new, p, ZONES4, pods) == {
        "node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}


class _Store:
    def __init__(self, *objs):
        self.objs = {(o.kind, o.metadata.name): o for o in objs}

    def get(self, kind, name, namespace=""):
        return self.objs.get((kind, name))

    def list(self, kind, namespace=None):
        return [o for (k, _), o in self.objs.items()
                if k == kind and namespace in (None, o.metadata.namespace)]

    def count(self, kind):
        return sum(1 for k, _ in self.objs if k == kind)


def test_system_defaulting_spreads_pods_of_a_replicaset_by_hostname():
    from ksandbox.api.apps import ReplicaSet
    from ksandbox.api.codec import decode

    rs = decode(ReplicaSet, {"metadata": {"name": "rs", "namespace": "default"},
                             "spec": {"selector": {"matchLabels": {"foo": ""}}}})
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "controller": True}
    p = pod(labels={"foo": ""}, owner=owner)
    nodes = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]
    got = run_scores(pts.new, p, nodes, existing("a:4,b:3,c:2,d:1"), store=_Store(rs))
    assert got == {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}
    # Without a controller there is no default selector: the plugin skips.
    assert run_scores(pts.new, pod(labels={"foo": ""}), nodes, [], store=_Store(rs)) == {
        n.name: 0 for n in nodes}


def test_list_defaulting_rejects_a_selector():
    from ksandbox.scheduler.plugins.args import ArgsError

    with pytest.raises(ArgsError, match="defaultConstraints\\[0\\].labelSelector"):
        pts.new({"defaultingType": "List", "defaultConstraints": [
            c(1, "zone", "ScheduleAnyway")]}, None)


def _svc(name, selector, namespace="default"):
    from ksandbox.api.codec import decode
    from ksandbox.api.core_objects import Service

    return decode(Service, {"metadata": {"name": name, "namespace": namespace},
                            "spec": {"selector": selector}})


def test_a_service_alone_gives_bare_pods_default_spreading():
    """helper.DefaultSelector: the selectors of the Services that select the pod count, with no
    controller at all (scoring_test.go's system-defaulting cases use a Service the same way)."""
    p = pod(labels={"foo": ""})
    nodes = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]
    got = run_scores(pts.new, p, nodes, existing("a:4,b:3,c:2,d:1"),
                     store=_Store(_svc("web", {"foo": ""})))
    assert got == {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}


def test_default_selector_merges_services_and_the_controller():
    """helper/spread.go DefaultSelector and spread_test.go TestGetPodServices: Services in the
    pod's namespace whose selector matches its labels (pod-3 and pod-4 match none; a Service
    without a selector selects nothing; another namespace's Service is not looked at), ANDed
    with the ReplicationController's, ReplicaSet's or StatefulSet's selector — the owner
    matched by group/version and kind."""
    from schedtest import handle_for

    from ksandbox.api.apps import ReplicationController, StatefulSet
    from ksandbox.api.codec import decode

    svcs = [_svc(f"service-{i}", {"app": f"test-{i}"}) for i in range(3)]
    svcs += [_svc("headless", {}), _svc("other-ns", {"label": "label-0"}, namespace="prod")]
    h = handle_for([hn("node-a")], store=_Store(*svcs))
    for i, want in enumerate([{"app": "test-0"}, {"app": "test-1"}, {"app": "test-2"}, None,
                              None]):
        sel = h.default_selector(pod(f"test-pod-{i}",
                                     labels={"app": f"test-{i}", "label": f"label-{i}"}))
        assert (dict(sel.match_labels) if sel is not None else None) == want

    sts = decode(StatefulSet, {"metadata": {"name": "db", "namespace": "default"}, "spec": {
        "selector": {"matchLabels": {"app": "test-0"},
                     "matchExpressions": [{"key": "tier", "operator": "Exists"}]}}})
    rc = decode(ReplicationController, {"metadata": {"name": "rc", "namespace": "default"},
                                        "spec": {"selector": {"rc": "x"}}})
    h = handle_for([hn("node-a")], store=_Store(*svcs, sts, rc))
    owned = pod("db-0", labels={"app": "test-0", "tier": "db"}, owner={
        "apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "controller": True})
    sel = h.default_selector(owned)
    assert dict(sel.match_labels) == {"app": "test-0"}
    assert [str(r) for r in sel.match_expressions] == ["tier"]
    by_rc = pod("rc-1", labels={"app": "test-1", "rc": "x"}, owner={
        "apiVersion": "v1", "kind": "ReplicationController", "name": "rc", "controller": True})
    assert dict(h.default_selector(by_rc).match_labels) == {"app": "test-1", "rc": "x"}
    # An owner of another group/version is not a supported controller: the Services remain.
    foreign = pod("x", labels={"app": "test-2"}, owner={
        "apiVersion": "example.com/v1", "kind": "StatefulSet", "name": "db", "controller": True})
    assert dict(h.default_selector(foreign).match_labels) == {"app": "test-2"}


def test_default_selector_remembered_answers_follow_services_and_owners():
    """DefaultSelector's answers are kept by the selector objects they were merged from: the
    pods of one ReplicaSet share one LabelSelector, and a Service added, changed or deleted,
    or an owner with another selector, gives a fresh answer — always the one a handle with
    nothing remembered computes (helper/spread.go DefaultSelector)."""
    import attrs

    from ksandbox.api.apps import ReplicaSet
    from ksandbox.api.codec import decode
    from ksandbox.api.core import Namespace, Pod
    from ksandbox.api.core_objects import Service
    from ksandbox.api.meta import ObjectMeta
    from ksandbox.apiserver.store import Store
    from ksandbox.scheduler.framework.runtime import Handle
    from ksandbox.sim.rand import SimRandom

    store = Store(lambda: 0.0, SimRandom(1))
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    rs = store.create(decode(ReplicaSet, {"metadata": {"name": "web", "namespace": "default"},
                                          "spec": {"selector": {"matchLabels": {"app": "web"}},
                                                   "template": {"metadata": {"labels": {
                                                       "app": "web"}}, "spec": {"containers": [
                                                       {"name": "c", "image": "nginx"}]}}}}))

    def pod(name):
        return decode(Pod, {"metadata": {"name": name, "namespace": "default",
                                         "labels": {"app": "web", "tier": "front"},
                                         "ownerReferences": [{
                                             "apiVersion": "apps/v1", "kind": "ReplicaSet",
                                             "name": "web", "uid": rs.metadata.uid,
                                             "controller": True}]}})

    h = Handle(None, store)

    def check(name):
        got = h.default_selector(pod(name))
        assert got == Handle(None, store).default_selector(pod(name))
        return got

    first = check("a")
    assert dict(first.match_labels) == {"app": "web"}
    assert check("b") is first                      # one selector for the ReplicaSet's pods
    svc = store.create(decode(Service, {"metadata": {"name": "s", "namespace": "default"},
                                        "spec": {"selector": {"tier": "front"},
                                                 "ports": [{"port": 80}]}}))
    assert dict(check("c").match_labels) == {"tier": "front", "app": "web"}
    store.update(attrs.evolve(svc, spec=attrs.evolve(svc.spec, selector=decode(
        Service, {"spec": {"selector": {"tier": "back"}}}).spec.selector)))
    assert dict(check("d").match_labels) == {"app": "web"}       # no longer selects it
    store.delete("Service", "s", "default")
    assert check("e") is first


def test_remembered_constraints_equal_freshly_parsed_ones():
    """get_constraints' answers are kept by the identity of what they are built from (the pod's
    constraints tuple, the default selector, the pod's labels when a constraint has
    matchLabelKeys): the pods of a template share one parsed list, and every answer equals
    the constraints a plugin with nothing remembered parses (common.go
    filterTopologySpreadConstraints / buildDefaultConstraints)."""
    import attrs

    from ksandbox.api.codec import decode
    from ksandbox.api.core import Namespace, Pod
    from ksandbox.api.core_objects import Service
    from ksandbox.api.meta import ObjectMeta
    from ksandbox.apiserver.store import Store
    from ksandbox.scheduler.framework.runtime import Handle
    from ksandbox.sim.rand import SimRandom

    store = Store(lambda: 0.0, SimRandom(1))
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    handle = Handle(None, store)
    plugin = pts.new({}, handle)

    def fresh():
        return pts.new({}, Handle(None, store))

    def fields(cs):
        return [(c.max_skew, c.topology_key, c.selector, c.min_domains, c.affinity_honor,
                 c.taints_honor) for c in cs]

    spread = (c(1, "zone", "DoNotSchedule", {"matchLabels": {"app": "web"}}) |
              {"matchLabelKeys": ["rev"]},
              c(2, H, "ScheduleAnyway", {"matchLabels": {"app": "web"}}))

    def template_pod(name, rev, constraints=spread):
        return decode(Pod, {"metadata": {"name": name, "namespace": "default",
                                         "labels": {"app": "web", "rev": rev}},
                            "spec": {"topologySpreadConstraints": list(constraints),
                                     "containers": [{"name": "c", "image": "nginx"}]}})

    a = template_pod("a", "1")
    b = attrs.evolve(a, metadata=attrs.evolve(a.metadata, name="b"))      # same template
    other_rev = attrs.evolve(a, metadata=attrs.evolve(a.metadata, labels=decode(
        Pod, {"metadata": {"labels": {"app": "web", "rev": "2"}}}).metadata.labels))
    for p in (a, b, other_rev, template_pod("d", "3")):
        for action in ("DoNotSchedule", "ScheduleAnyway"):
            got = plugin.get_constraints(p, action)
            assert fields(got) == fields(fresh().get_constraints(p, action)), (p, action)
    assert plugin.get_constraints(b, "DoNotSchedule") is plugin.get_constraints(a, "DoNotSchedule")
    # matchLabelKeys take the pod's own value: another rev is another selector.
    rev_sel = plugin.get_constraints(other_rev, "DoNotSchedule")[0].selector
    assert rev_sel != plugin.get_constraints(a, "DoNotSchedule")[0].selector
    assert rev_sel.matches({"app": "web", "rev": "2"}) and not rev_sel.matches(
        {"app": "web", "rev": "1"})

    # The system defaults: the default selector (a Service here) decides; none, no constraints.
    plain = decode(Pod, {"metadata": {"name": "p", "namespace": "default",
                                      "labels": {"app": "api"}}, "spec": {}})
    assert plugin.get_constraints(plain, "ScheduleAnyway") == []
    svc = store.create(decode(Service, {"metadata": {"name": "api", "namespace": "default"},
                                        "spec": {"selector": {"app": "api"},
                                                 "ports": [{"port": 80}]}}))
    for _ in range(2):
        got = plugin.get_constraints(plain, "ScheduleAnyway")
        assert fields(got) == fields(fresh().get_constraints(plain, "ScheduleAnyway"))
        assert [c.topology_key for c in got] == [H, "topology.kubernetes.io/zone"]
        assert all(dict(c.selector.match_labels) == {"app": "api"} for c in got)
    store.update(attrs.evolve(svc, spec=attrs.evolve(svc.spec, selector=decode(
        Service, {"spec": {"selector": {"app": "api", "tier": "x"}}}).spec.selector)))
    assert plugin.get_constraints(plain, "ScheduleAnyway") == []   # no longer selects it
    assert plugin.get_constraints(plain, "DoNotSchedule") == []


SSD = {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "disk", "operator": "In", "values": ["ssd"]}]}]}
POLICY_PODS = [
    ("no node affinity", {}, {}),
    ("a nodeSelector", {"node_selector": {"disk": "ssd"}}, {}),
    ("required node affinity", {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": SSD}}}, {}),
    ("only preferred node affinity", {"affinity": {"nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": SSD["nodeSelectorTerms"][0]}]}}}, {}),
    ("a nodeSelector, affinity policy Ignore", {"node_selector": {"disk": "ssd"}},
     {"nodeAffinityPolicy": "Ignore"}),
    ("taints policy Honor", {}, {"nodeTaintsPolicy": "Honor"}),
]


@pytest.mark.parametrize("name,pod_kw,policy", POLICY_PODS, ids=[x[0] for x in POLICY_PODS])
def test_pre_score_counts_only_included_nodes_in_each_domain(name, pod_kw, policy):
    """scoring.go's PreScore: a node the inclusion policies exclude (matchNodeInclusionPolicies
    in common.go) adds nothing to its domain's count. The plain PreScore skips asking the
    policies when ``includes_every_node`` says none can exclude a node for the pod; every
    domain count must equal a count that asks them of each node."""
    taint = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    nodes = [zn("node-a", "zone1", disk="ssd"), zn("node-b", "zone1"),
             zn("node-x", "zone2", disk="ssd"), zn("node-y", "zone2"),
             node("node-t", labels={"zone": "zone2", H: "node-t", "disk": "ssd"},
                  taints=taint)]
    p = pod(labels={"foo": ""}, spread=[c(1, "zone", "ScheduleAnyway", **policy),
                                        c(1, H, "ScheduleAnyway", **policy)], **pod_kw)
    cache = cache_of(nodes, existing("a:1,b:2,x:3,y:4,t:5"))
    plugin = pts.new(None, Handle(cache, None))
    state, _ = new_cycle_state(p)
    infos = cache.node_list()
    assert plugin.pre_score(state, p, infos) is None
    s = state.read(pts.PRE_SCORE_STATE_KEY)
    zone = s.constraints[0]
    want = {"zone1": 0, "zone2": 0}
    for ni in infos:
        if zone.includes_node(p, ni.node):
            want[ni.labels["zone"]] += len(ni.pods)
    assert s.value_counts[0] == want
    assert s.value_counts[1] == {}
    # the shortcut's answer is that of every node
    assert zone.includes_every_node(p) == all(zone.includes_node(p, ni.node) for ni in infos)
