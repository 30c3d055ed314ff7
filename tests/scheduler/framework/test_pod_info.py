"""PodInfo shortcuts equal the plain construction (upstream framework/types.go NewPodInfo)."""

import attrs

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod
from ksandbox.scheduler.framework.node_info import PodInfo, non_zero_requests


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
    for name in PodInfo.__slots__:
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
