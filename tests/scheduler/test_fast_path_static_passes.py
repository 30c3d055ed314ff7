"""The fast path walks only the Filter plugins a pod does not skip (steps kept by skip set), and
a spec's PodPlan keeps the steps its pods run (``PodPlan.filters``): from the spec's second pod
on, without the plugins that read only the spec and the nodes' static parts
(``filter_vec_static``: NodeUnschedulable, NodeName, TaintToleration) and let every node pass.
Those steps hold for the skip set they were kept with, while the nodes' static parts stand:

- a taint or a cordon is a static change: the next pod of the same spec is filtered again, and
  the nodes it no longer fits are out;
- a pod of the same spec whose PreFilter skips fewer plugins (InterPodAffinity, once an existing
  pod's required anti-affinity matches it) runs the plugins the kept steps left out.
"""

from __future__ import annotations

import attrs
from schedtest import store_cluster

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod, Taint
from ksandbox.api.evolve import evolve
from ksandbox.scheduler.framework.pod_plan import FILTERS_SEEN
from ksandbox.scheduler.schedule_one import new_cycle_state

HOST = "kubernetes.io/hostname"
NAMES = [f"node-{i:02d}" for i in range(6)]


def _feasible(sched, p) -> list[str]:
    fwk = sched.profiles["default-scheduler"]
    fast = sched.fast_for(fwk)
    state, _ = new_cycle_state(p)
    feasible, _diag = fast.find_nodes_that_fit(sched, fwk, state, p)
    return sorted(ni.name for ni in feasible)


def _kept(sched, spec) -> list[str] | None:
    """The names of the Filter plugins the spec's PodPlan keeps for its pods (None: none
    kept yet)."""
    fast = sched.fast_for(sched.profiles["default-scheduler"])
    kept = fast._plans[id(spec)].filters
    if kept[3] is None:
        return None
    return [pl.name for _k, pl, _vec, _static in kept[3]]


def _twin(store, raw, first, name):
    """Another pod made from ``raw`` (as ``first`` was): the API server defaults a spec object
    once, so both get the same spec object, as a ReplicaSet's pods do."""
    p = store.create(attrs.evolve(raw, metadata=attrs.evolve(raw.metadata, name=name)))
    assert p.spec is first.spec
    return p


def test_a_spec_that_passed_every_node_is_filtered_again_after_a_taint_or_a_cordon():
    store, _clock, sched = store_cluster(6, seed=1, use_fast=True)
    raw = decode(Pod, {"metadata": {"name": "a", "namespace": "default"},
                       "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    template = store.create(raw)
    assert _feasible(sched, template) == NAMES
    # one pod of the spec: marked seen, nothing kept (a spec seen once pays nothing more)
    fast = sched.fast_for(sched.profiles["default-scheduler"])
    assert fast._plans[id(template.spec)].filters is FILTERS_SEEN
    assert _feasible(sched, _twin(store, raw, template, "b")) == NAMES
    kept = _kept(sched, template.spec)
    assert kept is not None
    assert not {"NodeUnschedulable", "NodeName", "TaintToleration"} & set(kept)
    assert "NodeResourcesFit" in kept
    # Taint four nodes, cordon a fifth: only node-05 is left for a pod without tolerations.
    for name in NAMES[:4]:
        n = store.get("Node", name)
        store.update(evolve(n, spec=evolve(n.spec, taints=(
            Taint(key="dedicated", value="x", effect="NoSchedule"),))))
    n = store.get("Node", NAMES[4])
    store.update(evolve(n, spec=evolve(n.spec, unschedulable=True)))
    assert _feasible(sched, _twin(store, raw, template, "c")) == [NAMES[5]]
    # and the steps kept for the spec now: TaintToleration and NodeUnschedulable fail nodes
    kept = _kept(sched, template.spec)
    assert kept is not None
    assert {"NodeUnschedulable", "TaintToleration"} <= set(kept)
    assert "NodeName" not in kept


def test_a_pod_that_skips_fewer_plugins_runs_the_ones_the_kept_steps_left_out():
    store, _clock, sched = store_cluster(6, seed=1, use_fast=True,
                                         labels_of=lambda i: {HOST: NAMES[i]})
    raw = decode(Pod, {"metadata": {"name": "a", "namespace": "default", "labels": {"app": "web"}},
                       "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    template = store.create(raw)
    assert _feasible(sched, template) == NAMES
    assert _feasible(sched, _twin(store, raw, template, "b")) == NAMES
    kept = _kept(sched, template.spec)
    assert kept is not None and "InterPodAffinity" not in kept   # skipped: nothing to count
    # A pod on node-00 that wants no app=web pod on its host: not a static change, but the
    # spec's next pod no longer skips InterPodAffinity, which keeps it off node-00.
    store.create(decode(Pod, {
        "metadata": {"name": "guard", "namespace": "default"},
        "spec": {"nodeName": NAMES[0], "containers": [{"name": "c", "image": "nginx"}],
                 "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                     {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}}}))
    assert _feasible(sched, _twin(store, raw, template, "c")) == NAMES[1:]
    kept = _kept(sched, template.spec)
    assert kept is not None and "InterPodAffinity" in kept
