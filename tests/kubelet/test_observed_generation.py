"""Pod generation tracking (KEP 5067, PodObservedGenerationTracking, GA in v1.35).

The kubelet posts ``status.observedGeneration``, the ``metadata.generation`` of the pod it
synced, and the same generation on each condition it owns; the scheduler, the taint manager,
PodGC and the Eviction API set a condition's ``observedGeneration`` to the pod's generation
when they write it. A graceful deletion moves the generation one up, and the kubelet posts it
when it starts terminating the pod. A mirror pod's status carries none (the kubelet syncs the
static pod, whose manifest has no generation). The binding leaves PodScheduled=True without
one: the kubelet's first status stamps it.
"""

from __future__ import annotations

import yaml
from nodesim import cluster, get_pod, node, play, pod
from test_static_pods import CONFIG, control_plane

KUBELET_OWNED = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                 "PodScheduled")


def generations(p):
    return {c.type: c.observed_generation for c in p.status.conditions}


def test_a_running_pod_reports_its_generation_in_status_and_in_each_kubelet_condition():
    s = cluster(node("node-1"), pod("web"))
    s.run_until(1)
    bound = get_pod(s, "web")
    scheduled = bound.status.condition("PodScheduled")
    # the binding subresource sets PodScheduled=True without a generation
    assert (scheduled.status, scheduled.observed_generation) == ("True", 0)
    assert bound.status.observed_generation == 0
    s.run_until(10)
    web = get_pod(s, "web")
    assert web.status.phase == "Running"
    assert web.metadata.generation == 1
    assert web.status.observed_generation == 1
    assert generations(web) == dict.fromkeys(KUBELET_OWNED, 1)
    # re-stamped, not re-timed: the condition keeps the binding's transition time
    assert web.status.condition("PodScheduled").last_transition_time == \
        scheduled.last_transition_time


def test_a_graceful_deletion_moves_the_generation_and_the_kubelet_posts_it():
    s = cluster(node("node-1"), pod("web"))
    s.run_until(10)
    running = get_pod(s, "web")
    ready_since = running.status.condition("Ready").last_transition_time
    play(s, [(11, "kubectl delete pod web --wait=false")])
    s.run_until(12)
    web = get_pod(s, "web")
    assert web.metadata.deletion_timestamp is not None
    assert web.metadata.generation == 2
    assert web.status.observed_generation == 2
    assert generations(web) == dict.fromkeys(KUBELET_OWNED, 2)
    assert web.status.condition("Ready").last_transition_time == ready_since


def test_the_rendered_pod_shows_both_fields():
    s = cluster(node("node-1"), pod("web"))
    s.run_until(10)
    out = s.submit("kubectl get pod web -o yaml")
    assert out.error == ""
    status = yaml.safe_load(out.output)["status"]
    assert status["observedGeneration"] == 1
    assert {c["type"]: c["observedGeneration"] for c in status["conditions"]} == \
        dict.fromkeys(KUBELET_OWNED, 1)


def test_the_schedulers_failure_condition_carries_the_generation_not_the_status():
    s = cluster(node("node-1", cpu="1"), pod("big", requests={"cpu": "8"}))
    s.run_until(5)
    big = get_pod(s, "big")
    cond = big.status.condition("PodScheduled")
    assert (cond.status, cond.reason, cond.observed_generation) == ("False", "Unschedulable", 1)
    # only the kubelet writes status.observedGeneration (the KEP's single writer)
    assert big.status.observed_generation == 0


def test_a_mirror_pods_status_carries_no_generation():
    s = cluster(CONFIG, control_plane())
    s.run_until(5)
    mirror = get_pod(s, "etcd-cp-1", "kube-system")
    assert mirror.status.phase == "Running"
    assert mirror.metadata.generation == 1
    assert mirror.status.observed_generation == 0
    assert set(generations(mirror).values()) == {0}
    out = s.submit("kubectl get pod etcd-cp-1 -n kube-system -o yaml")
    assert "observedGeneration" not in out.output


def test_the_taint_managers_condition_is_of_the_generation_it_saw():
    s = cluster(node("node-1"), node("node-2"), pod("web", "node-2"))
    play(s, [(10, "ksandbox fail node node-2")])
    s.run_until(375)
    web = get_pod(s, "web")
    target = web.status.condition("DisruptionTarget")
    assert (target.reason, target.observed_generation) == ("DeletionByTaintManager", 1)
    # deleted (generation 2) on a silent node: no kubelet posts the new generation
    assert (web.metadata.generation, web.status.observed_generation) == (2, 1)


def test_the_eviction_apis_condition_carries_the_generation():
    s = cluster(node("node-1"), node("node-2"), pod("web", "node-1"))
    s.run_until(10)
    play(s, [(11, "kubectl drain node-1 --ignore-daemonsets --force")])
    web = get_pod(s, "web")
    target = web.status.condition("DisruptionTarget")
    assert (target.reason, target.observed_generation) == ("EvictionByEvictionAPI", 1)
    assert web.metadata.generation == 2


def test_a_spec_update_moves_the_generation_and_the_kubelet_posts_it():
    s = cluster(node("node-1"), pod("web"))
    s.run_until(10)
    play(s, [(11, "kubectl set image pod/web app=nginx:1.27")])
    s.run_until(12)
    web = get_pod(s, "web")
    assert web.spec.containers[0].image == "nginx:1.27"
    assert (web.metadata.generation, web.status.observed_generation) == (2, 2)
    assert generations(web) == dict.fromkeys(KUBELET_OWNED, 2)


# -- as_posted: the fast stamp against the plain one -------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ksandbox.api.core import PodCondition, PodStatus  # noqa: E402
from ksandbox.api.evolve import evolve  # noqa: E402
from ksandbox.api.manifest import load_manifests  # noqa: E402
from ksandbox.kubelet.generation import KUBELET_CONDITIONS, as_posted  # noqa: E402

_CONDITION = st.builds(lambda t, g, s: PodCondition(type=t, observed_generation=g, status=s,
                                                    last_transition_time=3.0),
                       st.sampled_from(sorted(KUBELET_CONDITIONS) + ["DisruptionTarget"]),
                       st.integers(0, 3), st.sampled_from(["True", "False"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_CONDITION, max_size=6), st.integers(0, 3), st.integers(1, 3), st.booleans())
def test_as_posted_stamps_the_kubelets_conditions_and_nothing_else(conds, status_gen, gen,
                                                                   mirror):
    meta = "{name: p, generation: %d%s}" % (
        gen, ", annotations: {kubernetes.io/config.mirror: abc}" if mirror else "")
    (p,) = load_manifests("apiVersion: v1\nkind: Pod\nmetadata: %s\n"
                          "spec: {containers: [{name: c, image: i}]}\n" % meta)
    status = PodStatus(observed_generation=status_gen, conditions=tuple(conds))
    want_gen = 0 if mirror else gen
    want = evolve(status, observed_generation=want_gen, conditions=tuple(
        evolve(c, observed_generation=want_gen) if c.type in KUBELET_CONDITIONS else c
        for c in conds))
    got = as_posted(p, status)
    assert got == want
    assert [c.observed_generation for c in got.conditions] == \
        [c.observed_generation for c in want.conditions]
    if want == status and status_gen == want_gen:
        assert got is status      # nothing to stamp: the same object, no write


def test_a_created_pod_that_starts_over_carries_no_observed_generation():
    """A status given with a create survives only as loaded state (a Running pod of an
    export): a pod that starts as Pending has no condition and no observedGeneration until
    its kubelet posts one."""
    s = cluster(node("node-1"))
    r = s.submit("kubectl apply -f -", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                 "spec: {containers: [{name: c, image: nginx}]}\n"
                 "status: {observedGeneration: 7, conditions: [{type: Ready, status: 'True', "
                 "observedGeneration: 7}]}\n")
    assert r.error == ""
    p = get_pod(s, "p")
    assert (p.status.phase, p.status.observed_generation, p.status.conditions) == \
        ("Pending", 0, ())
    s.run_until(5)
    assert get_pod(s, "p").status.observed_generation == 1


LOADED_RUNNING = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: node-1
  containers: [{name: app, image: nginx}]
status:
  phase: Running
  conditions: [{type: Ready, status: "True"}]
"""


def test_a_pod_loaded_running_posts_its_generation_once_a_spec_update_moves_it():
    """An export of an older cluster: a Running pod with no observedGeneration. Adopted as
    it is (no write for that alone); a spec update moves the generation and the kubelet
    posts it, as for a pod it started itself."""
    s = cluster(node("node-1"), LOADED_RUNNING)
    s.run_until(5)
    web = get_pod(s, "web")
    assert (web.status.phase, web.metadata.generation, web.status.observed_generation) == \
        ("Running", 1, 0)
    rv = web.metadata.resource_version
    # a kubelet back from a silence syncs every pod of its node again: nothing to post
    play(s, [(6, "ksandbox fail node node-1"), (20, "ksandbox recover node node-1")])
    s.run_until(25)
    assert get_pod(s, "web").metadata.resource_version == rv   # adopted, not re-posted
    play(s, [(26, "kubectl set image pod/web app=nginx:1.27")])
    s.run_until(27)
    web = get_pod(s, "web")
    assert (web.metadata.generation, web.status.observed_generation) == (2, 2)
    assert web.status.condition("Ready").observed_generation == 2
