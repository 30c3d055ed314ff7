"""The fast path asks a Filter plugin that reads only the pod's spec and the nodes' static parts
(``filter_vec_static``: NodeUnschedulable, NodeName, TaintToleration) once per spec object
whether every node passes it, and skips it for the spec's later pods while the nodes' static
parts stand (``FastPath._passes``). A taint or a cordon is a static change: the next pod of the
same spec is filtered again, and the nodes it no longer fits are out.
"""

from __future__ import annotations

import attrs
from schedtest import store_cluster

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod, Taint
from ksandbox.api.evolve import evolve
from ksandbox.scheduler.schedule_one import new_cycle_state


def _feasible(sched, p) -> list[str]:
    fwk = sched.profiles["default-scheduler"]
    fast = sched.fast_for(fwk)
    state, _ = new_cycle_state(p)
    feasible, _diag = fast.find_nodes_that_fit(sched, fwk, state, p)
    return sorted(ni.name for ni in feasible)


def test_a_spec_that_passed_every_node_is_filtered_again_after_a_taint_or_a_cordon():
    store, _clock, sched = store_cluster(6, seed=1, use_fast=True)
    # Two pods of one template (the API server defaults a spec object once: both get the
    # same spec object, as a ReplicaSet's pods do).
    template = decode(Pod, {"metadata": {"name": "a", "namespace": "default"},
                            "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    first = store.create(template)
    names = [f"node-{i:02d}" for i in range(6)]
    assert _feasible(sched, first) == names
    fast = sched.fast_for(sched.profiles["default-scheduler"])
    assert fast._passes[id(first.spec)][1] == {"NodeUnschedulable", "NodeName",
                                               "TaintToleration"}
    # Taint four nodes, cordon a fifth: only node-05 is left for a pod without tolerations.
    for name in names[:4]:
        n = store.get("Node", name)
        store.update(evolve(n, spec=evolve(n.spec, taints=(
            Taint(key="dedicated", value="x", effect="NoSchedule"),))))
    n = store.get("Node", names[4])
    store.update(evolve(n, spec=evolve(n.spec, unschedulable=True)))
    second = store.create(attrs.evolve(template, metadata=attrs.evolve(template.metadata,
                                                                       name="b")))
    assert second.spec is first.spec   # the same spec object: the remembered answer's key
    assert _feasible(sched, second) == [names[5]]
    # and the answer for the spec now: TaintToleration and NodeUnschedulable fail nodes
    assert fast._passes[id(first.spec)][1] == {"NodeName"}
