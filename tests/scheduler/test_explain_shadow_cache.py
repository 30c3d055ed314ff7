"""Explain of a bound pod runs the plain cycle on ``_ShadowCache`` (the cache without the
pod). Its answers about pods with (anti-)affinity come from the real cache's kept lists with
only the shadowed node swapped; they must equal a walk of every node of the shadow cache
(upstream's snapshot lists, pkg/scheduler/backend/cache/snapshot.go
havePodsWithAffinityNodeInfoList / havePodsWithRequiredAntiAffinityNodeInfoList): the pod's
own node leaves a list when the pod was its only such pod, stays when another remains, and
every other node is listed as in the real cache, in node order."""

from test_explain_passing_twin import node, session

from ksandbox.scheduler.explain import _ShadowCache, explain_pod


def pod(name, node_name="", affinity=""):
    where = f"\n  nodeName: {node_name}" if node_name else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default, "
            f"labels: {{app: {name}}}}}\nspec:{where}{affinity}\n"
            "  containers: [{name: c, image: nginx}]\n")


ANTI = ("\n  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "[{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: x}}}]}}")
PREFERRED = ("\n  affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
             "[{weight: 5, podAffinityTerm: {topologyKey: kubernetes.io/hostname, "
             "labelSelector: {matchLabels: {app: y}}}}]}}")


def walk(shadow):
    nodes = shadow.node_list()
    return ([ni for ni in nodes if ni.pods_with_affinity],
            [ni for ni in nodes if ni.pods_with_required_anti_affinity],
            [(ni, pi) for ni in nodes for pi in ni.pods_with_affinity.values()
             if pi.required_affinity or pi.preferred_affinity or pi.preferred_anti_affinity])


def test_shadow_affinity_lists_equal_a_walk_of_every_node():
    s = session(*(node(f"n-{i}") for i in range(6)),
                pod("anti-alone", "n-1", ANTI), pod("pref-alone", "n-2", PREFERRED),
                pod("anti-shared", "n-3", ANTI), pod("pref-shared", "n-3", PREFERRED),
                pod("plain-3", "n-3"), pod("plain-4", "n-4"), pod("plain-0", "n-0"))
    sched = s.cp.scheduler
    cases = 0
    for name in ("anti-alone", "pref-alone", "anti-shared", "pref-shared", "plain-3",
                 "plain-4", "plain-0"):
        bound = s.store.get("Pod", name, "default")
        shadow = _ShadowCache(sched.cache, bound.spec.node_name, f"default/{name}")
        got = (shadow.have_pods_with_affinity(), shadow.have_pods_with_required_anti_affinity(),
               shadow.pods_with_scoring_affinity())
        assert got == walk(shadow), name
        assert [ni.index for ni in got[0]] == sorted(ni.index for ni in got[0])
        cases += 1
        explain_pod(sched, bound)   # and explain runs on it
    assert cases == 7
    shadow = _ShadowCache(sched.cache, "n-1", "default/anti-alone")
    assert "n-1" not in {ni.name for ni in shadow.have_pods_with_required_anti_affinity()}
    assert "n-1" in {ni.name for ni in sched.cache.have_pods_with_required_anti_affinity()}
    shadow = _ShadowCache(sched.cache, "n-3", "default/anti-shared")
    by = {ni.name: ni for ni in shadow.have_pods_with_affinity()}
    assert by["n-3"] is shadow.shadow and "default/anti-shared" not in by["n-3"].pods


def test_shadow_node_list_is_the_real_one_with_the_node_swapped_and_follows_it():
    """node_list() is copied once per real list (a cycle asks several times), and again when
    the real cache's list is rebuilt (a node came or went)."""
    s = session(*(node(f"n-{i}") for i in range(4)), pod("p", "n-2"))
    cache = s.cp.scheduler.cache
    shadow = _ShadowCache(cache, "n-2", "default/p")
    first = shadow.node_list()
    assert first == [shadow.shadow if ni.name == "n-2" else ni for ni in cache.node_list()]
    assert shadow.node_list() is first
    s.submit("kubectl create -f -", stdin=node("n-9"))
    again = shadow.node_list()
    assert "n-9" in {ni.name for ni in again} and again is not first
    assert again[shadow.shadow.index] is shadow.shadow
    assert again == [shadow.shadow if ni.name == "n-2" else ni for ni in cache.node_list()]
