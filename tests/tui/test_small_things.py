"""Issue 9 item 5: the smaller things a person trips over — a pod deleted while it counts down,
the order of `:ev`, the countdown column of `:po`."""

from __future__ import annotations

from pathlib import Path

from helpers import settle
from screen_text import screen_lines

from ksandbox.session import Session
from ksandbox.tui.cards import summarize
from ksandbox.tui.rows import spec_for

ROOT = Path(__file__).resolve().parents[2]


def _failing():
    """node-failure with node-2 unreachable and its pods counting down (t=130)."""
    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.run_for(30)
    s.submit("ksandbox fail node node-2")
    s.run_for(100)
    return s


def _countdown_pod(s):
    marks = summarize(s, s.store.get("Node", "node-2")).pods
    return next(m for m in marks if m.deadline is not None)


def test_a_pod_deleted_while_counting_down_switches_to_terminating():
    s = _failing()
    mark = _countdown_pod(s)
    pod = s.store.get("Pod", mark.name, mark.namespace)
    spec = spec_for("Pod")
    cols = spec.columns()
    assert dict(zip(cols, spec.cells(pod, s.now, s)))["EVICTION"] == \
        f"{int(mark.deadline - s.now) // 60}:{int(mark.deadline - s.now) % 60:02d}"
    s.submit(f"kubectl delete pod {mark.name} -n {mark.namespace} --wait=false")
    after = {m.name: m for m in summarize(s, s.store.get("Node", "node-2")).pods}
    assert after[mark.name].state == "terminating" and after[mark.name].deadline is None
    pod = s.store.get("Pod", mark.name, mark.namespace)
    cells = dict(zip(cols, spec.cells(pod, s.now, s)))
    assert cells["STATUS"] in ("Terminating", "Unknown") and cells["EVICTION"] == ""


async def test_events_open_newest_first_and_same_second_in_order(make):
    """k9s's events view: LAST SEEN ascending age, so the newest are at the top; events of one
    second keep the order they were written (the cause above its effect)."""
    s = _failing()
    app = make(s)
    async with app.run_test(size=(160, 40)) as pilot:
        app.open_view("Event")
        await settle(pilot)
        table = app.screen.table
        rows = [table.object_at(i) for i in range(table.row_count())]
        times = [e.last_timestamp for e in rows]
        assert times == sorted(times, reverse=True)
        assert table.cursor == 0 and rows[0].last_timestamp == max(times)
        for a, b in zip(rows, rows[1:]):
            if a.last_timestamp == b.last_timestamp:
                assert int(a.metadata.resource_version) < int(b.metadata.resource_version)
        same = [t for t in set(times) if times.count(t) > 1]
        assert same, "the story has same-second events"


async def test_explain_tells_the_truth_about_a_pod_bound_by_hand(make, tmp_path):
    """Issue 9 item 3: a pod placed through spec.nodeName on a node that does not exist — the
    explain view says the scheduler was bypassed and no kubelet will run it, before any
    what-if; its panel lists what the pod asks for; d describes the pod."""
    from screen_text import screen_text

    s = Session.from_files([ROOT / "sample_clusters/spread.yaml"], seed=3)
    f = tmp_path / "ghost.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: ghost}\nspec:\n"
                 "  nodeName: node-9\n  nodeSelector: {disktype: ssd}\n"
                 "  containers: [{name: c, image: nginx}]\n")
    assert not s.submit(f"kubectl apply -f {f}").error
    app = make(s)
    async with app.run_test(size=(160, 48)) as pilot:
        app.open_explain("default", "ghost")
        await settle(pilot)
        text = screen_text(app)
        assert "the scheduler was bypassed" in text and "node node-9 does not exist" in text
        assert "nodeSelector: disktype=ssd" in text
        assert "✗ label disktype missing (wants ssd)" in text
        await pilot.press("d")
        await settle(pilot)
        assert "Name:" in screen_text(app) and "ghost" in screen_text(app)


async def test_a_daemonset_pod_on_the_pause_image_is_tagged_ds_not_placeholder(make):
    """node-failure's node-agent is a DaemonSet whose pods run registry.k8s.io/pause: the
    card says what the pod is (`ds`, one per node) before what its image suggests; a
    Deployment's pause pods (the overprovisioning placeholders) are still `placeholder`."""
    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.submit("kubectl create deployment holder --image=registry.k8s.io/pause:3.10")
    s.run_for(5)
    app = make(s)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        lines = screen_lines(app)
    agents = [ln for ln in lines if "● node-agent-" in ln]
    holders = [ln for ln in lines if "● holder-" in ln]
    assert len(agents) == 3 and holders, "\n".join(lines)
    for line in agents:
        card = line.split("● node-agent-")[1].split("│")[0].split("┃")[0]
        assert card.rstrip().endswith(" ds") and "placeholder" not in card, line
    card = holders[0].split("● holder-")[1].split("│")[0].split("┃")[0]
    assert card.rstrip().endswith(" placeholder"), holders[0]
