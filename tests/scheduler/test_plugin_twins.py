"""Every plugin's numpy twin agrees with its plain method, node by node.

A plugin may offer vectorized twins of its extension points (``pre_filter_vec``,
``filter_vec``, ``pre_score_vec``, ``score_vec``, ``normalize_vec``) for the fast path. The
twins gather their inputs from arrays and apply the plugin's rule functions; this test holds
each twin to the plain method it stands for, on a mixed cluster and a table of incoming pods:
the same Filter verdict (code and reasons) for every node, the same raw Score and the same
normalized score. ``test_scheduler_fast_path.py`` checks the whole cycle's placements; this
names the plugin and the node when a twin drifts.

The plain methods are upstream's (``pkg/scheduler/framework/plugins/*``); the table of pods is
ours.
"""

from __future__ import annotations

import numpy as np
import pytest

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod
from ksandbox.scheduler.framework.cycle_state import CycleState
from ksandbox.session import Session
from ksandbox.sim.rand import SimRandom

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _cluster() -> Session:
    r = SimRandom(5)
    docs = []
    for i in range(24):
        labels = {HOST: f"n{i:02d}", "disk": "ssd" if i % 2 else "hdd"}
        if i % 7 != 6:                      # a few nodes have no zone
            labels[ZONE] = "zone-" + "abc"[i % 3]
        taints = '[{key: dedicated, value: infra, effect: NoSchedule}]' if i % 8 == 0 else "[]"
        docs.append(f"""
apiVersion: v1
kind: Node
metadata: {{name: n{i:02d}, labels: {labels!r}}}
spec: {{taints: {taints}}}
status: {{capacity: {{cpu: "{2 + i % 4}", memory: {4 + i % 3 * 4}Gi, pods: "30"}}}}
""".replace("'", '"'))
    for j in range(90):
        node = f"n{r.randrange(24):02d}"
        app = f"app-{j % 4}"
        anti = ""
        if j % 11 == 0:
            anti = (f', affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuring'
                    f'Execution: [{{labelSelector: {{matchLabels: {{app: app-2}}}}, '
                    f'topologyKey: {ZONE}}}]}}}}')
        elif j % 13 == 0:
            anti = (f', affinity: {{podAffinity: {{preferredDuringSchedulingIgnoredDuring'
                    f'Execution: [{{weight: 30, podAffinityTerm: {{labelSelector: '
                    f'{{matchLabels: {{app: app-1}}}}, topologyKey: {ZONE}}}}}]}}}}')
        docs.append(f"""
apiVersion: v1
kind: Pod
metadata: {{name: p{j:03d}, labels: {{app: {app}}}}}
spec: {{nodeName: {node}, containers: [{{name: c, image: nginx, resources:
  {{requests: {{cpu: {50 + r.randrange(400)}m, memory: {32 + r.randrange(300)}Mi}}}}}}]{anti}}}
""")
    return Session.from_text("---".join(docs))


SPREAD = [
    {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
     "labelSelector": {"matchLabels": {"app": "app-0"}}},
    {"maxSkew": 2, "topologyKey": HOST, "whenUnsatisfiable": "ScheduleAnyway",
     "labelSelector": {"matchLabels": {"app": "app-0"}}},
]

PODS = {
    "plain requests": {},
    "spread over zones and hosts": {"topologySpreadConstraints": SPREAD},
    "spread with minDomains, taints honored": {"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
         "minDomains": 5, "nodeTaintsPolicy": "Honor",
         "labelSelector": {"matchLabels": {"app": "app-1"}}},
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "app-1"}}}]},
    "spread honoring a node selector": {"nodeSelector": {"disk": "ssd"},
                                        "topologySpreadConstraints": SPREAD},
    "required anti-affinity by host": {"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "app-3"}}, "topologyKey": HOST}]}}},
    "required affinity by zone": {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "app-1"}}, "topologyKey": ZONE}]}}},
    "preferred affinity and anti-affinity": {"affinity": {
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 40, "podAffinityTerm": {"labelSelector": {"matchLabels": {
                "app": "app-0"}}, "topologyKey": ZONE}}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 70, "podAffinityTerm": {"labelSelector": {"matchLabels": {
                "app": "app-2"}}, "topologyKey": HOST}}]}}},
    "named node": {"nodeName": "n05"},
    "too big for most nodes": {"cpu": "4"},
}


def _pod(s: Session, name: str, extra: dict) -> Pod:
    extra = dict(extra)
    cpu = extra.pop("cpu", "300m")
    spec = {"containers": [{"name": "c", "image": "nginx",
                            "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}],
            **extra}
    labels = {"app": "app-2" if "podAntiAffinity" in str(extra) else "app-0"}
    pod = decode(Pod, {"metadata": {"name": name, "namespace": "default", "labels": labels},
                       "spec": spec})
    return s.store.admit(pod)


def _status(st) -> tuple | None:
    if st is None or st.code == 0:
        return None
    return (int(st.code), tuple(st.reasons))


@pytest.fixture(scope="module")
def cluster():
    s = _cluster()
    s.run_for(1)
    sched = s.cp.scheduler
    fwk = sched.profiles["default-scheduler"]
    ctx = sched.fast_for(fwk)
    ctx.sync()
    return s, fwk, ctx


def _prepare(point: str, pl, pod, nodes, ctx, idx):
    """Both cycle states after ``point`` (pre_filter / pre_score): the plain one, and the
    one the fast path builds (the twin where there is one)."""
    plain, fast = CycleState(), CycleState()
    if point == "pre_filter":
        a = pl.pre_filter(plain, pod, nodes)[1] if hasattr(pl, "pre_filter") else None
        vec = getattr(pl, "pre_filter_vec", None)
        b = vec(fast, pod, ctx)[1] if vec else (
            pl.pre_filter(fast, pod, nodes)[1] if hasattr(pl, "pre_filter") else None)
    else:
        a = pl.pre_score(plain, pod, nodes) if hasattr(pl, "pre_score") else None
        vec = getattr(pl, "pre_score_vec", None)
        b = vec(fast, pod, ctx, idx) if vec else (
            pl.pre_score(fast, pod, nodes) if hasattr(pl, "pre_score") else None)
    assert _status(a) == _status(b), f"{pl.name}.{point}"
    return plain, fast, a


@pytest.mark.parametrize("case", list(PODS))
def test_every_filter_twin_gives_every_node_the_plain_verdict(cluster, case):
    s, fwk, ctx = cluster
    pod = _pod(s, "incoming", PODS[case])
    nodes = ctx.infos
    twins = [pl for pl in fwk.filter_plugins if hasattr(pl, "filter_vec")]
    assert {pl.name for pl in twins} >= {"PodTopologySpread", "InterPodAffinity",
                                         "NodeResourcesFit", "NodeName"}
    for pl in twins:
        plain, fast, pre = _prepare("pre_filter", pl, pod, nodes, ctx, None)
        if pre is not None and pre.code != 0:
            continue      # skipped (or rejected) alike: Filter does not run
        res = pl.filter_vec(fast, pod, ctx)   # None: every node passes
        codes, statuses = res if res is not None else (np.zeros(len(nodes), dtype=int), {})
        for i, ni in enumerate(nodes):
            want = _status(pl.filter(plain, pod, ni))
            got = _status(statuses[int(codes[i])]) if codes[i] else None
            assert got == want, f"{pl.name} on {ni.name} ({case})"


@pytest.mark.parametrize("case", list(PODS))
def test_every_score_twin_gives_every_node_the_plain_score(cluster, case):
    s, fwk, ctx = cluster
    pod = _pod(s, "incoming", PODS[case])
    nodes = list(ctx.infos)
    idx = np.arange(len(nodes), dtype=np.int64)
    twins = [pl for pl in fwk.score_plugins if hasattr(pl, "score_vec")]
    assert {pl.name for pl in twins} >= {"PodTopologySpread", "InterPodAffinity",
                                         "NodeResourcesFit", "NodeResourcesBalancedAllocation"}
    for pl in twins:
        plain, fast, pre = _prepare("pre_score", pl, pod, nodes, ctx, idx)
        if pre is not None and pre.code != 0:
            continue
        want = [pl.score(plain, pod, ni) for ni in nodes]
        got = pl.score_vec(fast, pod, ctx, idx)
        assert got.tolist() == want, f"{pl.name}.score ({case})"
        if hasattr(pl, "normalize_score"):
            pl.normalize_score(plain, pod, want, nodes)
            nv = getattr(pl, "normalize_vec", None)
            if nv is not None:
                got = nv(fast, pod, got, ctx, idx)
            else:
                lst = got.tolist()
                pl.normalize_score(fast, pod, lst, nodes)
                got = np.array(lst)
            assert got.tolist() == want, f"{pl.name}.normalize ({case})"


@pytest.mark.parametrize("case", [c for c in PODS if "spread" in c])
def test_the_spread_score_twin_reads_what_its_pre_score_read_or_reads_it_again(cluster, case):
    """PodTopologySpread's Score twin takes the per-node reads its PreScore twin made for the
    same candidate nodes (the counts by host, the candidates' zones), and reads them itself
    for other nodes: the same scores either way, on candidates out of node order."""
    s, fwk, ctx = cluster
    [pl] = [p for p in fwk.score_plugins if p.name == "PodTopologySpread"]
    pod = _pod(s, "incoming", PODS[case])
    idx = np.array(list(range(1, len(ctx.infos), 2))[::-1] + [0, 4], dtype=np.int64)
    nodes = [ctx.infos[i] for i in idx.tolist()]
    plain, fast, pre = _prepare("pre_score", pl, pod, nodes, ctx, idx)
    assert pre is None
    want = [pl.score(plain, pod, ni) for ni in nodes]
    assert len(set(want)) > 1
    assert pl.score_vec(fast, pod, ctx, idx).tolist() == want
    assert pl.score_vec(fast, pod, ctx, idx.copy()).tolist() == want


def test_the_twin_check_can_fail(cluster):
    """A twin that drifts by one on one node is caught."""
    s, fwk, ctx = cluster
    pod = _pod(s, "incoming", PODS["spread over zones and hosts"])
    nodes = list(ctx.infos)
    idx = np.arange(len(nodes), dtype=np.int64)
    [pl] = [p for p in fwk.score_plugins if p.name == "PodTopologySpread"]
    plain, fast, _ = _prepare("pre_score", pl, pod, nodes, ctx, idx)
    want = [pl.score(plain, pod, ni) for ni in nodes]
    got = pl.score_vec(fast, pod, ctx, idx)
    got[3] += 1
    assert got.tolist() != want


STRATEGIES = {
    "MostAllocated": {"type": "MostAllocated"},
    "RequestedToCapacityRatio": {"type": "RequestedToCapacityRatio", "resources": [
        {"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                               {"utilization": 60, "score": 10},
                                               {"utilization": 100, "score": 3}]}},
}


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("case", ["plain requests", "too big for most nodes"])
def test_the_other_scoring_strategies_twins_score_as_the_plain_ones(cluster, strategy, case):
    """NodeResourcesFit's MostAllocated and RequestedToCapacityRatio (not in the default
    profile) through the same rule functions (resource_allocation.py)."""
    from ksandbox.scheduler.plugins import node_resources_fit

    s, fwk, ctx = cluster
    pl = node_resources_fit.new({"scoringStrategy": STRATEGIES[strategy]}, fwk.handle)
    pod = _pod(s, "incoming", PODS[case])
    nodes = list(ctx.infos)
    idx = np.arange(len(nodes), dtype=np.int64)
    plain, fast, pre = _prepare("pre_score", pl, pod, nodes, ctx, idx)
    want = [pl.score(plain, pod, ni) for ni in nodes]
    assert len(set(want)) > 3          # the nodes really differ
    assert pl.score_vec(fast, pod, ctx, idx).tolist() == want
