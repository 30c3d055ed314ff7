"""Issue 9 item 3: the explain view's zone-disruption banner.

Upstream pkg/controller/nodelifecycle (node_lifecycle_controller.go: ComputeZoneState,
handleDisruption, setLimiterInZone; node_lifecycle_controller_test.go's disruption tables):
a zone is FullDisruption when none of its nodes is Ready. Only when *every* zone is fully
disrupted does the controller stop evicting (it blames the control plane); one dead zone among
healthy ones keeps the normal eviction rate.
"""

from __future__ import annotations

from pathlib import Path

from helpers import settle
from screen_text import screen_text

from ksandbox.controllers.nodelifecycle import zone_name
from ksandbox.session import Session

ROOT = Path(__file__).resolve().parents[2]


def _fail(s, *nodes):
    for n in nodes:
        assert not s.submit(f"ksandbox fail node {n}").error


def _banner(app) -> str:
    from textual.widgets import Static
    w = app.screen.query_one("#explain-banner", Static)
    return str(w.render()) if w.display else ""


def test_zone_name_reads_without_the_key_separator():
    assert zone_name(":\x00:zone-a") == "zone-a"
    assert zone_name("eu:\x00:zone-a") == "eu/zone-a"
    assert zone_name("") == "<no zone>"


async def test_banner_follows_the_zone_states(make):
    s = Session.from_files([ROOT / "sample_clusters/spread.yaml"], seed=3)
    s.run_for(30)
    app = make(s)
    async with app.run_test(size=(160, 48)) as pilot:
        pod = next(p for p in s.store.list("Pod") if p.spec.node_name == "node-3")
        app.open_explain(pod.metadata.namespace, pod.metadata.name)
        await settle(pilot)
        assert _banner(app) == "" and "disrupted" not in screen_text(app)

        # Both nodes of zone-a silent: zone-a is FullDisruption, the others Normal.
        _fail(s, "node-1", "node-2")
        s.run_for(120)
        app.screen.action_reload()
        await settle(pilot)
        text = screen_text(app)
        assert "zone zone-a fully disrupted" in text
        assert "evictions there continue at the normal rate" in text
        assert "stopped evicting" not in text and "\x00" not in _banner(app)

        # Every node silent: every zone fully disrupted, nobody is evicted.
        _fail(s, "node-3", "node-4", "node-5", "node-6")
        s.run_for(120)
        app.screen.action_reload()
        await settle(pilot)
        text = screen_text(app)
        assert "every zone fully disrupted" in text and "stopped evicting" in text
        assert "zone zone-a fully disrupted" not in text


def test_the_banner_says_what_the_controller_does():
    """The two sentences hold in the simulation: a dead zone among healthy ones has its pods
    evicted after tolerationSeconds; with every zone dead nobody is evicted and the NoExecute
    taints are gone (handleDisruption marks every node reachable)."""
    one = Session.from_files([ROOT / "sample_clusters/spread.yaml"], seed=3)
    one.run_for(30)
    _fail(one, "node-1", "node-2")
    one.run_for(450)
    on_a = [p for p in one.store.list("Pod") if p.spec.node_name in ("node-1", "node-2")]
    assert on_a and all(p.metadata.deletion_timestamp for p in on_a)

    every = Session.from_files([ROOT / "sample_clusters/spread.yaml"], seed=3)
    every.run_for(30)
    _fail(every, *(f"node-{i}" for i in range(1, 7)))
    every.run_for(450)
    assert not any(p.metadata.deletion_timestamp for p in every.store.list("Pod"))
    assert not any(t.effect == "NoExecute" for n in every.store.list("Node")
                   for t in n.spec.taints)
