"""The health pass's short ways — for a node it saw Ready and untainted last time (the node object
unchanged), and the sorted node list kept while no node comes or goes: the same conditions, taints, events, resourceVersions and health records as the
full tryUpdateNodeHealth path (upstream: pkg/controller/nodelifecycle/
node_lifecycle_controller.go monitorNodeHealth, run on every node every period) through
failures, NotReady, recovery, cordoning, labels, a node added and one deleted; and processPod's
short way (no pod read while every node is Ready) the same as reading each newly bound pod,
with pods bound to Ready, NotReady and Unknown nodes along the way."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kubelet"))

from nodesim import cluster, kubelets, node, play, pod  # noqa: E402

from ksandbox.api.manifest import load_manifests  # noqa: E402
from ksandbox.controllers.nodelifecycle import NodeLifecycleController  # noqa: E402


class _Forgetful(dict):
    """A steady-node cache that never remembers: every node takes the full path."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def _controller(s: Any) -> NodeLifecycleController:
    return next(c for c in s.cp.components.values() if isinstance(c, NodeLifecycleController))


def _run(short_way: bool) -> tuple[list, int]:
    zones = {"topology.kubernetes.io/zone": "a"}
    other = {"topology.kubernetes.io/zone": "b"}
    s = cluster(*(node(f"node-{i}", labels=zones if i < 4 else other) for i in range(8)),
                node("node-x", labels={**other, "node.kubernetes.io/exclude-disruption": ""}),
                pod("web", "node-2"), pod("db", "node-6"))
    ctl = _controller(s)
    if not short_way:
        ctl._steady = _Forgetful()
        full_pass = ctl.monitor_node_health

        def every_node_registered_again() -> None:
            ctl._members_seen = -1     # as if a node had come or gone: sort, register, drop
            full_pass()

        ctl.monitor_node_health = every_node_registered_again  # type: ignore[method-assign]
        # processPod reads every pod, whatever the nodes' health
        ctl._some_node_not_ready = lambda: True  # type: ignore[method-assign]
    calls = [0]
    full = ctl._try_update_node_health

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return full(*args)

    ctl._try_update_node_health = counted  # type: ignore[method-assign]
    k = kubelets(s)

    def bound(name: str, node_name: str) -> Any:
        """A pod created bound and Running and Ready (an import's loaded state): processPod
        marks it NotReady when its node is not Ready."""
        doc = json.loads(pod(name, node_name))
        doc["status"] = {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z"}]}
        return lambda s: s.store.create(load_manifests(json.dumps(doc))[0])

    steps: list = [
        (5, bound("early", "node-3")),
        (10, "ksandbox fail node node-2"),
        (12, lambda s: k.fail_node("node-6", not_ready=True)),
        (21, bound("beside-not-ready", "node-5")),
        (33, "kubectl cordon node-1"),
        (47, "kubectl label node node-3 node.kubernetes.io/exclude-disruption="),
        (55, bound("on-not-ready", "node-6")),
        (61, lambda s: (k.add_node("node-9", like="node-0"), k.add_node("node-10",
                                                                        like="node-0"))),
        (90, "kubectl taint node node-4 team=x:NoSchedule"),
        (100, bound("on-unknown", "node-2")),
        (130, "kubectl uncordon node-1"),
        # One node goes and another comes between two passes: as many nodes as before.
        (150, lambda s: (s.submit("kubectl delete node node-7"),
                         k.add_node("node-11", like="node-4"))),
        (200, "ksandbox recover node node-2"),
        # Zone a counts 0, 1, 2, 9, 10 (node-3 is excluded): 3 of 5 down is a partial
        # disruption; counting node-3 (Ready) would make it 3 of 6, a normal zone.
        (230, lambda s: [k.fail_node(f"node-{i}") for i in (0, 1, 10, 5)]),
        (400, "ksandbox recover node node-6"),
        (420, lambda s: [k.recover_node(f"node-{i}") for i in (0, 1, 10, 5)]),
        (500, bound("late", "node-6")),
    ]
    trace = []
    t = 0.0
    for at, step in steps + [(600, None)]:
        while t < at:
            t += 2.5
            s.run_until(t)
            trace.append(_snapshot(s, ctl))
        if step is not None:
            play(s, [(at, step)])
    return trace, calls[0]


def _snapshot(s: Any, ctl: NodeLifecycleController) -> tuple:
    store = s.store
    nodes = tuple((n.metadata.name, n.metadata.resource_version, n.status.conditions,
                   n.spec.taints) for n in sorted(store.nodes(), key=lambda n: n.metadata.name))
    health = tuple(sorted((name, h.probe, h.ready_transition, h.ready, h.lease_renew)
                          for name, h in ctl.health.items()))
    events = tuple((e.reason, e.object_path, e.message, e.count, e.first_timestamp,
                    e.last_timestamp) for e in store.events)
    pods = tuple((p.metadata.name, p.metadata.resource_version, p.status.conditions,
                  p.metadata.deletion_timestamp) for p in store.list("Pod"))
    queues = tuple(sorted((z, tuple(q.items)) for z, q in ctl.tainters.items()))
    return (s.now, store.resource_version, nodes, health, events, pods, queues,
            tuple(sorted(ctl.zone_states.items())))


def test_the_short_way_gives_what_the_full_path_gives() -> None:
    fast, fast_calls = _run(short_way=True)
    slow, slow_calls = _run(short_way=False)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        assert a == b, f"differs at t={a[0]}"
    # The short way was taken for most node-passes (~12 nodes, 240 passes).
    assert fast_calls < slow_calls // 2
    # The scenario did what it says: taints came and went, a node went NotReady.
    reasons = {e[0] for e in fast[-1][4]}
    assert {"NodeNotReady", "RegisteredNode", "RemovingNode"} <= reasons
    assert any(dict(snap[7]).get(":\x00:a") == "PartialDisruption" for snap in fast)
    # Pods bound to a NotReady or Unknown node were marked so by processPod.
    marked = {p[0] for snap in fast for p in snap[5]
              if any(c.type == "Ready" and c.status == "False" for c in p[2])}
    assert {"on-not-ready", "on-unknown"} <= marked
