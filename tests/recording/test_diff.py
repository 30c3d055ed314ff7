"""What-if diff: two futures of one cluster compared at one simulated time (``ksandbox diff``).

The known answer comes from the taint manager's rule (kubernetes
pkg/controller/tainteviction/taint_eviction.go, getMinTolerationTime, and its tests in
taint_eviction_test.go, "NoExecute taint ... tolerationSeconds"): a pod whose toleration of the
NoExecute taint carries tolerationSeconds stays bound that long after the taint, then goes;
DefaultTolerationSeconds admission (plugin/pkg/admission/defaulttolerationseconds) gives a pod
that tolerates nothing 300 s. node-2 fails at 10 s; the unreachable NoExecute taint lands at
75 s (50 s grace + the 5 s monitor period, rounded to its tick), so: evicted at 375 s in
branch A, at 675 s in branch B.
"""

from __future__ import annotations

import json

import pytest

from ksandbox.cli import main
from ksandbox.recording.diff import diff_sessions
from ksandbox.recording.player import dump_recording
from ksandbox.resources import data_path
from ksandbox.session import Session

SAMPLES = data_path("sample_clusters")
CLUSTER = str(SAMPLES / "node-failure.yaml")
A = str(SAMPLES / "node-failure.keeper.script.yaml")
B = str(SAMPLES / "node-failure.keeper-600s.script.yaml")


def diff(capsys, *args: str) -> dict:
    assert main(["diff", *args, "-o", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_a_longer_toleration_keeps_the_pod_on_the_failed_node_only_in_branch_b(capsys):
    d = diff(capsys, "-f", CLUSTER, "--script", A, "--script", B, "--until", "500")
    assert d["time"] == 500.0
    assert d["branches"] == {"a": "node-failure.keeper.script.yaml",
                             "b": "node-failure.keeper-600s.script.yaml"}
    assert not d["identical"]
    # Only keeper differs: the rest of the story (checkout at 105 s, web and report at
    # 375 s) is the same in both branches.
    assert [(p["namespace"], p["name"]) for p in d["pods"]] == [("default", "keeper")]
    keeper = d["pods"][0]
    assert keeper["a"]["node"] == "node-2" and keeper["a"]["reason"] == "Terminating"
    assert keeper["a"]["evictionAt"] is None
    assert keeper["b"] == {"node": "node-2", "phase": "Running", "reason": "", "message": "",
                           "evictionAt": 675.0}
    assert d["evictions"] == [{"pod": "default/keeper", "a": [375.0], "b": []}]
    assert d["events"] == [{"reason": "TaintManagerEviction", "a": 4, "b": 3}]
    assert d["nodes"] == [] and d["workloads"] == []


def test_before_the_300_s_are_up_the_branches_differ_only_in_the_deadline(capsys):
    d = diff(capsys, "-f", CLUSTER, "--script", A, "--script", B, "--until", "200")
    assert [(p["name"], p["difference"], p["a"]["evictionAt"], p["b"]["evictionAt"])
            for p in d["pods"]] == [("keeper", "eviction", 375.0, 675.0)]
    assert d["evictions"] == [] and d["events"] == []


def test_without_until_both_branches_settle_and_are_compared_at_the_later_time(capsys):
    d = diff(capsys, "-f", CLUSTER, "--script", A, "--script", B)
    # B settles last (quiet for 60 s after its 675 s eviction); A is run on to that time.
    assert d["time"] == 735.0
    assert d["evictions"] == [{"pod": "default/keeper", "a": [375.0], "b": [675.0]}]
    assert d["pods"] == []


def test_the_same_script_twice_is_no_difference(capsys):
    """B is a fork of A's session at load: with the same steps it goes on exactly alike."""
    d = diff(capsys, "-f", CLUSTER, "--script", A, "--script", A, "--until", "400")
    assert d["identical"] and d["pods"] == [] and d["events"] == []


def test_one_script_is_compared_with_the_cluster_left_alone(capsys):
    d = diff(capsys, "-f", CLUSTER, "--script", A, "--until", "120")
    assert d["branches"]["a"] == "(no script)"
    nodes = {n["name"]: n for n in d["nodes"]}
    assert nodes["node-2"]["a"]["ready"] == "True"
    assert nodes["node-2"]["b"]["ready"] == "Unknown"
    assert "node.kubernetes.io/unreachable:NoExecute" in nodes["node-2"]["b"]["taints"]
    assert {"ready", "conditions", "taints"} <= set(nodes["node-2"]["differences"])
    # checkout tolerates unreachable for 30 s: evicted at 105 s and replaced elsewhere only
    # in B — one of its pods is on node-2 in A and nowhere on node-2 in B.
    checkout = next(w for w in d["workloads"] if w["owner"].startswith("ReplicaSet/checkout"))
    assert checkout["a"].get("node-2") == 1 and "node-2" not in checkout["b"]
    assert sum(checkout["a"].values()) == sum(checkout["b"].values()) == 3
    only_b = [p for p in d["pods"] if p["difference"] == "only-b"]
    assert only_b and only_b[0]["a"] is None and only_b[0]["b"]["node"] != "node-2"
    # NodeNotReady: once for node-2 and once for each of its five pods (upstream's
    # MarkPodsNotReady records it on every pod of the node), only in B.
    assert {"reason": "NodeNotReady", "a": 0, "b": 6} in d["events"]


def test_wide_output_puts_the_branches_side_by_side(capsys):
    assert main(["diff", "-f", CLUSTER, "--script", A, "--script", B, "--until", "500",
                 "-o", "wide"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("Simulated time: 500s (8m20s)")
    keeper = next(line for line in lines if line.startswith("default") and "keeper" in line)
    assert "node-2 Running (Terminating)" in keeper
    assert "eviction in 2m55s (at 675s)" in keeper
    assert any(line.split() == ["default/keeper", "375s", "-"] for line in lines)
    assert any(line.split() == ["TaintManagerEviction", "4", "3"] for line in lines)


def test_two_recordings_are_two_branches(tmp_path, capsys):
    paths = []
    for name, seconds in (("a", None), ("b", 600)):
        s = Session.from_files([CLUSTER], seed=1)
        tol = "" if seconds is None else (
            "  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, "
            f"effect: NoExecute, tolerationSeconds: {seconds}}}]\n")
        s.run_until(1)
        assert s.submit("kubectl apply -f -", "apiVersion: v1\nkind: Pod\n"
                        "metadata: {name: keeper}\nspec:\n  nodeName: node-2\n" + tol +
                        "  containers: [{name: a, image: nginx}]\n").ok
        s.run_until(10)
        assert s.submit("ksandbox fail node node-2").ok
        path = tmp_path / f"{name}.recording.yaml"
        path.write_text(dump_recording(s, title=name, cluster="node-failure"))
        paths.append(str(path))
    d = diff(capsys, *paths, "--until", "500")
    assert d["branches"] == {"a": "a.recording.yaml", "b": "b.recording.yaml"}
    assert d["evictions"] == [{"pod": "default/keeper", "a": [375.0], "b": []}]


def test_diff_sessions_compares_one_instant_only():
    a = Session.from_files([CLUSTER])
    b = a.fork()
    b.run_until(5)
    with pytest.raises(ValueError, match="different times"):
        diff_sessions(a, b)


@pytest.mark.parametrize("args,needle", [
    (["-f", CLUSTER], "one or two --script files, got 0"),
    (["-f", CLUSTER, "--script", A, "--script", A, "--script", A], "got 3"),
    (["--script", A, "--script", B], "needs -f FILE"),
    (["x.recording.yaml"], "two recordings, got 1"),
    (["a.yaml", "b.yaml", "-f", CLUSTER], "not both"),
    (["-f", CLUSTER, "--script", A, "--until", "-5"], "--until"),
    (["-f", CLUSTER, "--script", "/nonexistent/s.yaml"], "/nonexistent/s.yaml"),
])
def test_bad_input_is_one_error_line(capsys, args, needle):
    assert main(["diff", *args]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and needle in err
