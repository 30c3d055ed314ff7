"""The classic story, driven by keys: label node-2 ``hw-type=gpu``, taint it ``NoSchedule``,
watch the GPU pod land there and the others stay away; fail a node, watch the unreachable
taints appear, the countdowns run and the pods move.

Run with ``KSANDBOX_STORY_SHOTS=docs/screenshots`` to write an SVG of each step (that is how
the screenshots in docs/ are made).
"""

from __future__ import annotations

import os
from pathlib import Path

from helpers import node, pod, settle, shows
from screen_text import screen_text

SIZE = (160, 48)
SHOTS = os.environ.get("KSANDBOX_STORY_SHOTS")


def shot(app, name: str) -> None:
    if SHOTS:
        folder = Path(SHOTS)
        folder.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(f"story-{name}.svg", str(folder))


def pods_on(app, node_name):
    return {p.metadata.name for p in app.session.store.pods_on_node(node_name)
            if p.metadata.deletion_timestamp is None}


async def test_the_classic_story(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(10)
        await settle(pilot)
        board = app.screen.board
        # 0. The GPU pod waits: no node has the label it selects.
        assert pod(app, "gpu-pod").spec.node_name == ""
        assert "default/gpu-pod 0/4 nodes are available" in screen_text(app)
        shot(app, "1-start")

        # 1. Label node-2 hw-type=gpu (the label dialog is prefilled with it).
        board.selected = "node-2"
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert node(app, "node-2").metadata.labels["hw-type"] == "gpu"

        # 2. Taint it NoSchedule.
        await pilot.press("t")
        await settle(pilot)
        app.screen.query_one("#spec").value = "hw-type=gpu:NoSchedule"
        await settle(pilot)
        shot(app, "2-taint-dialog")
        await pilot.press("enter")
        await settle(pilot)
        assert [t.to_string() for t in node(app, "node-2").spec.taints] == [
            "hw-type=gpu:NoSchedule"]

        # 3. Time runs: the pod with the matching nodeSelector and toleration lands on node-2.
        await pilot.press("full_stop")
        app.advance(10)
        await settle(pilot)
        assert pod(app, "gpu-pod").spec.node_name == "node-2"
        assert "gpu-pod" in screen_text(app)
        # ... and the others stay away: scale web up, none of the new pods goes to node-2.
        before = pods_on(app, "node-2")
        app.submit("kubectl scale deployment/web --replicas=6")
        app.advance(10)
        await settle(pilot)
        web = [p for p in app.session.store.list("Pod", "default")
               if p.metadata.name.startswith("web-")]
        assert len(web) == 6 and all(p.spec.node_name for p in web)
        assert pods_on(app, "node-2") - before == set()
        shot(app, "3-gpu-pod-on-node-2")
        # Why there: explain the GPU pod (only node-2 passes NodeAffinity and TaintToleration).
        from helpers import command

        await command(pilot, "explain default/gpu-pod")
        text = screen_text(app)
        assert "★ node-2" in text and "NodeAffinity: node(s) didn't match" in text
        shot(app, "3b-explain")
        await pilot.press("escape")
        await settle(pilot)

        # 4. Fail node-3: after the grace period it is Unknown, with the unreachable taints.
        board.selected = "node-3"
        await settle(pilot)
        victims = {p for p in pods_on(app, "node-3") if not p.startswith("kube-proxy")}
        await pilot.press("x")
        await settle(pilot)
        app.advance(75)
        await settle(pilot)
        n3 = node(app, "node-3")
        assert n3.ready == "Unknown"
        taints = {t.to_string() for t in n3.spec.taints}
        assert {"node.kubernetes.io/unreachable:NoExecute",
                "node.kubernetes.io/unreachable:NoSchedule"} <= taints
        text = screen_text(app)
        assert "Unknown" in text and "unreachable:NoExecute" in text

        # 5. Countdowns run: quick-evict tolerates 30 s, the others the default 300 s.
        summary = app.screen.board.summaries["node-3"]
        marks = {m.name: m for m in summary.pods}
        assert marks["quick-evict"].toleration_seconds == 30
        assert all(marks[v].deadline is not None for v in victims)
        assert "/30s" in text and "/300s" in text
        shot(app, "4-countdown")
        app.advance(20)
        await settle(pilot)
        assert "quick-evict" not in pods_on(app, "node-3") or \
            pod(app, "quick-evict").metadata.deletion_timestamp is not None

        # 6. After 300 s the rest are evicted and their replacements run elsewhere.
        app.advance(300)
        await settle(pilot)
        left = pods_on(app, "node-3") & victims
        assert not left
        web = [p for p in app.session.store.list("Pod", "default")
               if p.metadata.name.startswith("web-") and p.metadata.deletion_timestamp is None]
        assert len(web) == 6
        assert all(p.spec.node_name not in ("node-3", "node-2", "") or p.metadata.name in before
                   for p in web)
        assert shows(app, "TaintManagerEviction")
        shot(app, "5-pods-moved")
