"""The node-failure sample, end to end through ``ksandbox sim``: the times its comments promise."""

from __future__ import annotations

import json

from ksandbox.cli import main
from ksandbox.resources import data_path


def test_the_node_failure_story_runs_to_the_second(capsys):
    folder = data_path("sample_clusters")
    code = main(["sim", "-f", str(folder / "node-failure.yaml"),
                 "--script", str(folder / "node-failure.script.yaml"), "--until", "700",
                 "-o", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    state = json.loads(out.out)
    events = state["events"]

    def times(reason, prefix=""):
        return [(e["time"], e["object"]) for e in events
                if e["reason"] == reason and e["message"].startswith(prefix)]

    assert (70.0, "Node/node-2") in times("NodeNotReady")
    marked = times("TaintManagerEviction", "Marking for deletion")
    assert (375.0, "Pod/default/report") in marked
    for t, obj in marked:
        assert t == (105.0 if obj.startswith("Pod/default/checkout-") else 375.0), obj
    assert not any("node-agent" in o or "etcd" in o for _t, o in marked)
    node2 = next(n for n in state["nodes"] if n["name"] == "node-2")
    assert node2["ready"] == "True" and node2["taints"] == []          # recovered at 600
    etcd = [p for p in state["pods"] if p["name"] == "etcd-control-plane"]
    assert etcd and etcd[0]["phase"] == "Running"                       # survived deletion
    cp = next(n for n in state["nodes"] if n["name"] == "control-plane")
    assert cp["allocatable"]["cpu"] == "1800m" and cp["allocatable"]["memory"] == "3484Mi"
