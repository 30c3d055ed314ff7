"""PodInfo shortcuts equal the plain construction (upstream framework/types.go NewPodInfo)."""

import sys

import attrs
import pytest

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod
from ksandbox.scheduler.framework.node_info import AffinityPodInfo, PodInfo, non_zero_requests
from ksandbox.sim.snapshot import fork_graph

_ALL = PodInfo.__slots__ + AffinityPodInfo.__slots__


def _pod(**spec) -> Pod:
    base = {"containers": [{"name": "c", "image": "i",
                            "resources": {"requests": {"cpu": "300m"}}}],
            "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "podAffinityTerm": {"topologyKey": "zone",
                                                  "labelSelector": {"matchLabels": {"a": "b"}}}}]}}}
    base.update(spec)
    return decode(Pod, {"metadata": {"name": "p", "namespace": "ns", "labels": {"a": "b"}},
                        "spec": base})


def test_with_pod_for_a_status_write_equals_a_fresh_pod_info_in_every_slot():
    pod = _pod(priority=7)
    running = attrs.evolve(pod, status=attrs.evolve(pod.status, phase="Running", start_time=12.5))
    shortcut = PodInfo(pod).with_pod(running)
    fresh = PodInfo(running)
    assert type(shortcut) is type(fresh) is AffinityPodInfo
    for name in _ALL:
        a, b = getattr(shortcut, name), getattr(fresh, name)
        if name.endswith("affinity"):   # parsed terms: compare what they hold
            a = [(t.namespaces, t.selector, t.topology_key, t.weight) for t in a]
            b = [(t.namespaces, t.selector, t.topology_key, t.weight) for t in b]
        assert a == b, name


def test_non_zero_requests_is_shared_by_a_spec_and_its_bound_copy_but_not_by_others():
    pod = _pod()
    assert non_zero_requests(pod.spec) == (300, 200 * 1024 * 1024)
    bound = pod.spec.with_node_name("n1")
    assert non_zero_requests(bound) == (300, 200 * 1024 * 1024)
    # Same containers, another overhead or init container: not the cached figure.
    more = attrs.evolve(bound, overhead=decode(Pod, {"spec": {"overhead": {"cpu": "1"}}})
                        .spec.overhead)
    assert non_zero_requests(more) == (1300, 200 * 1024 * 1024)
    init = attrs.evolve(bound, init_containers=_pod(containers=[
        {"name": "i", "image": "i", "resources": {"requests": {"cpu": "2"}}}]).spec.containers)
    assert non_zero_requests(init) == (2000, 200 * 1024 * 1024)


_AFFINITIES = {
    "none": None,
    "node affinity only": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
    "empty pod affinity": {"podAffinity": {}},
    "empty anti-affinity": {"podAntiAffinity": {}},
    "required affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}]}},
    "preferred anti-affinity": {"podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "podAffinityTerm": {"topologyKey": "zone",
                                              "labelSelector": {"matchLabels": {"a": "b"}}}}]}},
}


@pytest.mark.parametrize("affinity", list(_AFFINITIES))
def test_a_pod_without_pod_affinity_holds_no_affinity_slots(affinity):
    """Most pods (all 150,000 of a big load) have no pod (anti-)affinity: their PodInfo is
    the plain class, 32 bytes smaller, whose four term tuples are the class's empty ones;
    a pod with any (even an empty) podAffinity / podAntiAffinity is an AffinityPodInfo.
    has_affinity is upstream's podWithAffinity (framework/types.go) either way, and
    with_pod and a fork keep the class and the terms."""
    pod = _pod(affinity=_AFFINITIES[affinity])
    aff = pod.spec.affinity
    expected = aff is not None and (aff.pod_affinity is not None
                                    or aff.pod_anti_affinity is not None)
    pi = PodInfo(pod, "ns/p")
    assert pi.has_affinity is expected
    assert type(pi) is (AffinityPodInfo if expected else PodInfo)
    plain = PodInfo(_pod(affinity=None), "ns/p")
    if expected:
        assert sys.getsizeof(pi) == sys.getsizeof(plain) + 4 * 8
    else:
        assert sys.getsizeof(pi) == sys.getsizeof(plain) < 152 - 3 * 8
        for name in AffinityPodInfo.__slots__:
            assert getattr(pi, name) == () and name not in type(pi).__slots__
    for other in (pi.with_pod(attrs.evolve(pod, status=attrs.evolve(pod.status,
                                                                     start_time=3.0))),
                  fork_graph(pi)):
        assert type(other) is type(pi) and other.has_affinity is expected
        for name in AffinityPodInfo.__slots__:
            assert len(getattr(other, name)) == len(getattr(pi, name))
    if affinity == "required affinity":
        assert len(pi.required_affinity) == 1 and pi.required_affinity[0].topology_key == "zone"
    if affinity == "preferred anti-affinity":
        assert [t.weight for t in pi.preferred_anti_affinity] == [5]
