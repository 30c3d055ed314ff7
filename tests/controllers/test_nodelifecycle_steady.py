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


def _run(short_way: bool, scenario: str = "failures") -> tuple[list, int]:
    zones = {"topology.kubernetes.io/zone": "a"}
    other = {"topology.kubernetes.io/zone": "b"}
    extra = []
    if scenario == "full disruption":
        # the first node in name order alone in its zone, excluded from disruption: the
        # first pass drops the zone from the zone states, the next one adds it back
        extra = [node("edge-0", labels={"topology.kubernetes.io/zone": "c",
                                        "node.kubernetes.io/exclude-disruption": ""})]
    s = cluster(*extra,
                *(node(f"node-{i}", labels=zones if i < 4 else other) for i in range(8)),
                node("node-x", labels={**other, "node.kubernetes.io/exclude-disruption": ""}),
                pod("web", "node-2"), pod("db", "node-6"))
    ctl = _controller(s)
    if not short_way:
        ctl._steady.entries = _Forgetful()
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

    if scenario == "full disruption":
        every = [f"node-{i}" for i in range(8)] + ["node-x"]
        steps: list = [
            (20, "ksandbox fail node node-1"),
            # every counted node silent: a full disruption (nobody is evicted), then back
            (60, lambda s: [k.fail_node(n) for n in every if n != "node-1"]),
            (200, lambda s: [k.recover_node(n) for n in every]),
            (260, "kubectl label node node-4 team=x"),
        ]
        return _play(s, ctl, steps, calls)
    steps = [
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
    return _play(s, ctl, steps, calls)


def _play(s: Any, ctl: NodeLifecycleController, steps: list, calls: list) -> tuple[list, int]:
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


def test_the_changed_nodes_pass_holds_through_a_full_disruption() -> None:
    """A full disruption moves every probe time and writes every node; a zone of excluded
    nodes leaves the zone states and comes back: the passes over changed nodes give what
    the full pass over every node gives."""
    fast, fast_calls = _run(short_way=True, scenario="full disruption")
    slow, slow_calls = _run(short_way=False, scenario="full disruption")
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        assert a == b, f"differs at t={a[0]}"
    assert fast_calls < slow_calls // 2
    states = [dict(snap[7]) for snap in fast]
    assert any(st.get(":\x00:a") == "FullDisruption" for st in states)
    assert states[-1].get(":\x00:a") == "Normal"
    assert any(":\x00:c" not in st for st in states) and ":\x00:c" in states[-1]


class _Health:
    def __init__(self, probe: float, lease_renew: float | None) -> None:
        self.probe = probe
        self.lease_renew = lease_renew


def test_a_steady_node_is_looked_at_once_silent_past_the_grace_period() -> None:
    """SteadyNodes alone: a node kept at a probe time and never renewed again is looked at by
    the first pass past ``probe + grace`` (not by one at exactly that time, the short way's
    ``now <= probe + grace``); a renewal taken by a pass moves its deadline to that pass's
    time; a node written since the last pass is looked at whatever its deadline."""
    from ksandbox.controllers.nodelifecycle_steady import SteadyNodes

    steady = SteadyNodes()
    known = {"a": "uid-a", "b": "uid-b", "c": "uid-c"}
    health = {"a": _Health(10.0, 5.0), "b": _Health(10.0, 5.0), "c": _Health(10.0, 5.0)}
    renewals = {"a": 5.0, "b": 5.0, "c": 5.0}
    steady.full_pass_starts()
    for name in ("a", "b"):
        steady.keep(name, (object(), "z", True), 10.0)
    steady.full_pass_done(health)
    steady.keep("c", (object(), "z", False), 10.0)   # kept by a later look, same probe
    grace = 40.0

    def look(now: float) -> list[str]:
        names, counted = steady.to_look_at(known, health, renewals, now, grace)
        assert counted == {"z": 2 - sum(1 for n in names if n in ("a", "b"))}
        return names

    assert look(15.0) == []
    renewals["b"] = 18.0
    steady.renewed["b"] = None
    assert look(20.0) == []
    assert (health["b"].probe, health["b"].lease_renew) == (20.0, 18.0)
    assert look(50.0) == []                  # exactly probe + grace: still the short way
    assert look(55.0) == ["a", "c"]          # silent since 10: past the grace period
    steady.written("b")
    assert look(56.0) == ["b"]
    assert look(60.0) == []                  # b's deadline is 20 + 40: not past yet
    assert look(61.0) == ["b"]
