"""SchedulerCache.add_pods (a load's assigned pods, the scheduler's load_done) leaves the cache
exactly as add_pod of each pod in turn: every NodeInfo's pods in the same order, its totals,
ports and generation, the cache's version, pods-by-key, orphans and affinity indexes.

The pods share spec objects as a loaded file's pods of one template on one node do (the totals
are added once per shared requests object, what a PodInfo reads of a spec is worked out once
per spec), and mix in what add_pods hands to add_pod: pods with
(anti-)affinity or host ports, terminated ones, a second version of a known pod, pods on a
node the cache does not have.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.codec import decode
from ksandbox.api.core import Node, Pod
from ksandbox.api.evolve import evolve
from ksandbox.scheduler.framework.cache import SchedulerCache

NODES = [decode(Node, {"metadata": {"name": f"n{i}"},
                       "status": {"capacity": {"cpu": "8", "memory": "16Gi", "pods": "50",
                                               "example.com/dongle": "4"}}})
         for i in range(4)]

_SPECS = [
    {"containers": [{"name": "a", "resources": {"requests": {"cpu": "100m",
                                                              "memory": "64Mi"}}}]},
    {"containers": [{"name": "a", "resources": {"requests": {"cpu": "250m"}}},
                    {"name": "b"}]},
    {"containers": [{"name": "a", "resources": {"requests": {
        "cpu": "1", "example.com/dongle": "1", "ephemeral-storage": "1Gi"}}}],
     "overhead": {"cpu": "10m"}},
    {"containers": [{"name": "a"}]},
    {"containers": [{"name": "a"}], "priority": 7},
    {"containers": [{"name": "a", "ports": [{"containerPort": 80, "hostPort": 8080}]}]},
    {"containers": [{"name": "a"}], "affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "x"}},
            "topologyKey": "kubernetes.io/hostname"}]}}},
    {"containers": [{"name": "a"}], "affinity": {"podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "x"}},
            "topologyKey": "kubernetes.io/hostname"}}]}}},
]
# one decoded pod per spec: the pods below share its spec object (a template's pods)
_TEMPLATES = [decode(Pod, {"metadata": {"name": "t", "namespace": "default",
                                        "labels": {"app": "x"}}, "spec": spec})
              for spec in _SPECS]


@st.composite
def pods(draw):
    out = []
    for i in range(draw(st.integers(0, 40))):
        t = _TEMPLATES[draw(st.integers(0, len(_TEMPLATES) - 1))]
        node = draw(st.sampled_from(["n0", "n1", "n2", "n3", "gone"]))
        # a repeated name is a second version of a pod added before
        name = f"p{draw(st.integers(0, i))}" if draw(st.booleans()) and i else f"p{i}"
        phase = draw(st.sampled_from(["Running", "Running", "Pending", "Succeeded"]))
        meta = evolve(t.metadata, name=name,
                      deletion_timestamp=5.0 if draw(st.integers(0, 9)) == 0 else None)
        out.append(evolve(t, metadata=meta, spec=t.spec.with_node_name(node),
                          status=evolve(t.status, phase=phase)))
    return out


def _cache():
    cache = SchedulerCache()
    for n in NODES:
        cache.add_node(n)
    return cache


def _fields(obj):
    """Every field of a PodInfo (an AffinityPodInfo's terms: theirs)."""
    slots = [n for cls in type(obj).__mro__ for n in getattr(cls, "__slots__", ())]
    return [(n, tuple(map(_fields, v)) if n.endswith("affinity") else getattr(obj, n))
            for n in slots if (v := getattr(obj, n)) is not None]


def _state(cache):
    infos = {}
    for name, ni in cache.node_infos.items():
        infos[name] = (
            [(k, type(pi), _fields(pi)) for k, pi in ni.pods.items()],
            list(ni.pods_with_affinity), list(ni.pods_with_required_anti_affinity),
            ni.req_cpu, ni.req_mem, ni.req_eph, dict(ni.req_scalar), ni.nz_cpu, ni.nz_mem,
            dict(ni.used_ports), ni.generation)
    return (infos, cache.version, cache.static_version, dict(cache._pod_node),
            {n: dict(p) for n, p in cache._orphans.items()}, list(cache._scoring),
            list(cache._with_affinity), list(cache._with_anti))


@settings(max_examples=200, deadline=None)
@given(pods(), st.integers(0, 40))
def test_add_pods_leaves_the_cache_as_add_pod_of_each(batch, cut):
    # some pods added one by one first: the batch meets pods the cache knows
    before, rest = batch[:cut], batch[cut:]
    plain, fast = _cache(), _cache()
    for p in before:
        plain.add_pod(p)
        fast.add_pod(p)
    for p in rest:
        plain.add_pod(p)
    fast.add_pods(rest)
    assert _state(fast) == _state(plain)


def test_pods_of_one_template_are_added_to_their_node_once():
    t = _TEMPLATES[2]
    batch = [evolve(t, metadata=evolve(t.metadata, name=f"p{i}"),
                    spec=t.spec.with_node_name("n1")) for i in range(30)]
    plain, fast = _cache(), _cache()
    for p in batch:
        plain.add_pod(p)
    ni = fast.node_infos["n1"]
    calls = []
    original = type(ni)._update
    type(ni)._update = lambda self, pi, sign: calls.append(sign) or original(self, pi, sign)
    try:
        fast.add_pods(batch)
    finally:
        type(ni)._update = original
    assert calls == [30]
    assert _state(fast) == _state(plain)


def test_with_a_listener_each_add_is_heard():
    heard = []
    cache = _cache()
    cache.on_pod_added.append(lambda ni, pi: heard.append((ni.name, pi.key, ni.generation)))
    plain = _cache()
    plain.on_pod_added.append(lambda ni, pi: heard.append((ni.name, pi.key, ni.generation)))
    t = _TEMPLATES[0]
    batch = [evolve(t, metadata=evolve(t.metadata, name=f"p{i}"),
                    spec=t.spec.with_node_name(f"n{i % 2}")) for i in range(6)]
    cache.add_pods(batch)
    fast_heard, heard[:] = list(heard), []
    for p in batch:
        plain.add_pod(p)
    assert fast_heard == heard and len(heard) == 6
    assert _state(cache) == _state(plain)
