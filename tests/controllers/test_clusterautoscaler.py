"""The cluster autoscaler on the clock: scale-up, its limits and refusals, scale-down.

Scans run every 10 s from t=0. A pod the scheduler finds unschedulable at t=0 is seen at the
scan at 10; the node it triggers appears ``provisionSeconds`` (60 s) later, at 70.
"""

from __future__ import annotations

import pytest

from ksandbox.api.errors import ManifestError
from ksandbox.api.quantity import Quantity
from ksandbox.session import Session


def config(groups: str, extra: str = "") -> str:
    return f"""
apiVersion: ksandbox.io/v1alpha1
kind: ClusterAutoscalerConfiguration
{extra}
nodeGroups:
{groups}
"""


WORKERS = """
  - name: workers
    minSize: 1
    maxSize: {max}
    provisionSeconds: 60
"""


def node(name: str, group: str = "workers", cpu: str = "2", labels: str = "") -> str:
    return f"""
---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{ksandbox.io/node-group: {group}{labels}}}}}
status: {{capacity: {{cpu: "{cpu}", memory: 4Gi, pods: "110"}}}}
"""


def deploy(name: str, replicas: int, cpu: str, extra: str = "", annotations: str = "") -> str:
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}{annotations}}}
    spec:
      {extra}
      containers:
      - {{name: app, image: nginx, resources: {{requests: {{cpu: {cpu}, memory: 256Mi}}}}}}
"""


def events(s: Session, reason: str) -> list[tuple[float, str, str]]:
    return [(e.first_timestamp, e.object_path, e.message) for e in s.store.occurrences
            if e.reason == reason]


def group_nodes(s: Session, group: str = "workers") -> list[str]:
    return sorted(n.name for n in s.store.nodes()
                  if n.metadata.labels.get("ksandbox.io/node-group") == group)


def pending(s: Session) -> list[str]:
    return sorted(p.metadata.name for p in s.store.list("Pod") if not p.spec.node_name)


def ca(s: Session):
    return s.cp.clusterautoscaler


# -- scale-up ----------------------------------------------------------------------------------

def test_a_pod_that_fits_nowhere_triggers_a_node_at_the_next_scan():
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1") +
                          deploy("web", 3, "800m"))
    s.run_until(9)
    assert events(s, "TriggeredScaleUp") == [] and len(pending(s)) == 1
    s.run_until(10)
    [(t, obj, msg)] = events(s, "TriggeredScaleUp")
    assert t == 10.0 and obj.startswith("Pod/default/web-")
    assert msg == "pod triggered scale-up: [{workers 1->2 (max: 3)}]"
    # While the node is provisioning it is upcoming, the run stays busy until it is there, and
    # the scans in between ask for nothing more.
    status = ca(s).status()
    assert status["scaleUp"]["status"] == "InProgress"
    [up] = status["nodeGroups"][0]["upcoming"]
    assert (up["requestedAt"], up["readyAt"]) == (10.0, 70.0)
    assert ca(s).busy_until() == 70.0
    s.run_until(69)
    assert group_nodes(s) == ["workers-1"] and len(events(s, "TriggeredScaleUp")) == 1
    s.run_until(70)
    new = [n for n in group_nodes(s) if n != "workers-1"]
    assert len(new) == 1 and new[0].startswith("workers-") and pending(s) == []
    created = s.store.get("Node", new[0])
    assert created.ready == "True" and created.status.capacity["cpu"] == Quantity("2")
    s.settle()
    assert len(events(s, "TriggeredScaleUp")) == 1


def test_pods_that_go_pending_later_are_seen_at_the_following_scan():
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1") +
                          deploy("web", 2, "800m"))
    s.run_until(33)
    s.submit("kubectl scale deployment web --replicas=3")
    s.run_until(70)
    assert [t for t, _o, _m in events(s, "TriggeredScaleUp")] == [40.0]
    s.run_until(100)
    assert len(group_nodes(s)) == 2 and pending(s) == []


def test_max_size_is_respected_and_the_rest_do_not_trigger_a_scale_up():
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1") +
                          deploy("big", 5, "1500m"))
    s.run_until(10)
    msgs = {m for _t, _o, m in events(s, "TriggeredScaleUp")}
    assert msgs == {"pod triggered scale-up: [{workers 1->3 (max: 3)}]"}
    assert len(events(s, "TriggeredScaleUp")) == 2      # two pods, one per new node
    s.settle()
    assert len(group_nodes(s)) == 3
    assert len(pending(s)) == 2
    refused = events(s, "NotTriggerScaleUp")
    assert {m for _t, _o, m in refused} == {
        "pod didn't trigger scale-up: 1 max node group size reached"}
    assert {o for _t, o, _m in refused} == {f"Pod/default/{p}" for p in pending(s)}
    # Like upstream's event recorder, the same event is not repeated within 5 minutes.
    first = min(t for t, _o, _m in refused)
    assert all(t == first for t, _o, _m in refused)


def test_a_pod_no_template_can_hold_does_not_trigger_a_scale_up():
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1") +
                          deploy("gpu", 1, "100m", extra="nodeSelector: {hw-type: gpu}"))
    s.run_until(30)
    assert events(s, "TriggeredScaleUp") == []
    [(t, _obj, msg)] = events(s, "NotTriggerScaleUp")
    assert t == 10.0
    assert msg == ("pod didn't trigger scale-up: 1 node(s) didn't match Pod's node "
                   "affinity/selector")
    assert group_nodes(s) == ["workers-1"]


TWO_GROUPS = """
  - name: small
    minSize: 0
    maxSize: 5
    template:
      labels: {size: small}
      capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  - name: big
    minSize: 0
    maxSize: 5
    template:
      labels: {size: big}
      capacity: {cpu: "8", memory: 16Gi, pods: "110"}
"""


@pytest.mark.parametrize("expander, priorities, chosen, message", [
    ("least-waste", "", "small", "[{small 0->2 (max: 5)}]"),
    ("priority", "priorities: {10: [small], 20: ['^b']}", "big", "[{big 0->1 (max: 5)}]"),
    ("priority,least-waste", "priorities: {10: ['.*']}", "small", "[{small 0->2 (max: 5)}]"),
], ids=["least-waste picks the groups whose nodes stay fullest",
        "priority picks the highest priority matching the group name",
        "a chain falls through a tie to the next expander"])
def test_expanders(expander, priorities, chosen, message):
    s = Session.from_text(config(TWO_GROUPS, f"expander: {expander}\n{priorities}") +
                          node("fixed", group="none", cpu="1") + deploy("web", 4, "900m"))
    s.run_until(10)
    assert {m for _t, _o, m in events(s, "TriggeredScaleUp")} == \
        {f"pod triggered scale-up: {message}"}
    s.run_until(80)
    assert pending(s) == []
    assert all(n.metadata.labels.get("size") == chosen for n in s.store.nodes()
               if n.name != "fixed")


def test_most_pods_picks_the_group_that_helps_the_most_pods():
    s = Session.from_text(config(TWO_GROUPS, "expander: most-pods") +
                          node("fixed", group="none", cpu="1") + deploy("web", 2, "1500m") +
                          deploy("wide", 1, "1500m", extra="nodeSelector: {size: big}"))
    s.run_until(10)
    # small could take the two web pods; big takes those and the one that needs size=big.
    assert {m for _t, _o, m in events(s, "TriggeredScaleUp")} == \
        {"pod triggered scale-up: [{big 0->1 (max: 5)}]"}
    assert len(events(s, "TriggeredScaleUp")) == 3


def test_random_is_the_default_expander_and_draws_from_the_seed():
    picks = set()
    for seed in range(6):
        s = Session.from_text(config(TWO_GROUPS) + node("fixed", group="none", cpu="1") +
                              deploy("web", 1, "1500m"), seed=seed)
        s.run_until(10)
        [(_t, _o, msg)] = events(s, "TriggeredScaleUp")
        picks.add(msg.split("[{")[1].split()[0])
        again = Session.from_text(config(TWO_GROUPS) + node("fixed", group="none", cpu="1") +
                                  deploy("web", 1, "1500m"), seed=seed)
        again.run_until(10)
        assert events(again, "TriggeredScaleUp")[0][2] == msg
    assert picks == {"small", "big"}


def test_a_template_accounts_for_daemonset_pods():
    ds = """
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: a, image: agent, resources: {requests: {cpu: 500m}}}]
"""
    # 1800m fits a 2-CPU node, but not next to the agent's 500m.
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1") + ds +
                          deploy("web", 1, "1800m"))
    s.run_until(30)
    assert events(s, "TriggeredScaleUp") == []
    [(_t, _o, msg)] = events(s, "NotTriggerScaleUp")
    assert msg == "pod didn't trigger scale-up: 1 Insufficient cpu"


def test_a_slow_group_times_out_and_backs_off():
    groups = WORKERS.format(max=3).replace("provisionSeconds: 60", "provisionSeconds: 20m")
    s = Session.from_text(config(groups) + node("workers-1") + deploy("web", 3, "800m"))
    s.run_until(10 + 900)
    st = ca(s).status()["nodeGroups"][0]
    assert st["upcoming"] == [] and st["backoffUntil"] == 910.0 + 300.0
    assert group_nodes(s) == ["workers-1"]
    s.run_until(920)
    assert events(s, "NotTriggerScaleUp")[-1][2] == \
        "pod didn't trigger scale-up: 1 in backoff after failed scale-up"


def test_the_scheduler_checks_a_template_node_with_its_own_filters():
    s = Session.from_text(config(TWO_GROUPS) + node("fixed", group="none", cpu="1") +
                          deploy("web", 1, "3"))
    sched = s.cp.scheduler
    pod = s.store.list("Pod", "default")[0]
    small = ca(s).templates.template(ca(s).config.group("small"), [])
    big = ca(s).templates.template(ca(s).config.group("big"), [])
    assert sched.fit_reasons(pod, small) == ("Insufficient cpu",)
    assert sched.would_fit(pod, big) and not sched.would_fit(pod, big, [pod, pod, pod])
    assert sched.first_fit(pod, ["fixed"]) is None


# -- scale-down --------------------------------------------------------------------------------

def test_an_unneeded_node_goes_after_ten_minutes():
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1") + node("workers-2") +
                          deploy("web", 2, "1200m"))
    s.run_until(30)
    assert sorted(p.spec.node_name for p in s.store.list("Pod", "default")) == \
        ["workers-1", "workers-2"]
    s.submit("kubectl scale deployment web --replicas=1")
    s.settle()
    removed = events(s, "ScaleDown")
    # The surplus pod ends its 30 s of grace at 60, just after that instant's scan; the emptied
    # node is unneeded from the scan at 70 and goes at 670 (nothing to drain: at once).
    assert [(t, o, m) for t, o, m in removed if o.startswith("Node/")] == [
        (670.0, removed[0][1], "marked the node as toBeDeleted/unschedulable"),
        (670.0, removed[0][1], "node removed by cluster autoscaler")]
    assert len(group_nodes(s)) == 1


def test_a_drained_node_moves_its_pods_first():
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1", cpu="4") +
                          node("workers-2", cpu="4") + deploy("web", 2, "1"))
    s.run_until(30)
    assert {p.spec.node_name for p in s.store.list("Pod", "default")} == \
        {"workers-1", "workers-2"}
    s.settle()
    # Both nodes are at 25 %: workers-1 (first by name) is unneeded and its pod fits on
    # workers-2; workers-2's pod would have to go to workers-1, already leaving.
    assert group_nodes(s) == ["workers-2"]
    assert ca(s).status()["unremovable"] == {"workers-2": "NotUnderutilized"}
    by_pod = [(t, m) for t, o, m in events(s, "ScaleDown") if o.startswith("Pod/")]
    assert by_pod == [(600.0, "deleting pod for node scale down")]
    # The pod's 30 s of grace end at 630; the node is checked every 5 s and goes at 635.
    node_events = [(t, m) for t, o, m in events(s, "ScaleDown") if o == "Node/workers-1"]
    assert node_events == [(600.0, "marked the node as toBeDeleted/unschedulable"),
                           (635.0, "node removed by cluster autoscaler")]
    assert {p.spec.node_name for p in s.store.list("Pod", "default")} == {"workers-2"}
    assert len(s.store.list("Pod", "default")) == 2


def test_min_size_is_respected():
    groups = WORKERS.format(max=3).replace("minSize: 1", "minSize: 2")
    s = Session.from_text(config(groups) + node("workers-1") + node("workers-2"))
    s.run_until(1500)
    assert events(s, "ScaleDown") == []
    assert group_nodes(s) == ["workers-1", "workers-2"]
    assert ca(s).status()["unremovable"] == {"workers-1": "NodeGroupMinSizeReached",
                                             "workers-2": "NodeGroupMinSizeReached"}


def test_a_pod_disruption_budget_keeps_the_node():
    pdb = """
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
"""
    s = Session.from_text(config(WORKERS.format(max=3)) + node("workers-1", cpu="4") +
                          node("workers-2", cpu="4") + deploy("web", 1, "500m") + pdb)
    s.run_until(1500)
    host = s.store.list("Pod", "default")[0].spec.node_name
    other = ({"workers-1", "workers-2"} - {host}).pop()
    # The empty node goes; the one with the budgeted pod stays (it could move, but the
    # budget allows no disruption).
    assert group_nodes(s) == [host]
    reasons = ca(s).status()["unremovable"]
    assert other not in reasons
    assert reasons[host].startswith("BlockedByPod (NotEnoughPdb: default/web-")


@pytest.mark.parametrize("pod_extra, annotations, reason", [
    ("volumes: [{name: scratch, emptyDir: {}}]", "", "LocalStorageRequested"),
    ("volumes: [{name: scratch, emptyDir: {}}]",
     ", annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: 'true'}", None),
    ("", ", annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: 'false'}",
     "NotSafeToEvictAnnotation"),
    ("volumes: [{name: cache, emptyDir: {medium: Memory}}]", "", None),
    ("volumes: [{name: logs, hostPath: {path: /var/log}}]", "", "LocalStorageRequested"),
], ids=["an emptyDir on disk blocks scale-down", "safe-to-evict true overrides local storage",
        "safe-to-evict false blocks", "an in-memory emptyDir does not block",
        "a hostPath blocks"])
def test_pods_that_block_scale_down(pod_extra, annotations, reason):
    groups = WORKERS.format(max=3).replace("minSize: 1", "minSize: 0")
    s = Session.from_text(config(groups) + node("workers-1", cpu="4") +
                          deploy("web", 1, "500m", extra=pod_extra, annotations=annotations))
    s.run_until(5)
    s.submit("ksandbox add node spare")          # outside any group: a place to move to
    s.run_until(10)
    status = ca(s).status()
    pod = s.store.list("Pod", "default")[0]
    assert pod.spec.node_name == "workers-1"
    if reason is None:
        assert [u["node"] for u in status["unneeded"]] == ["workers-1"]
    else:
        assert status["unremovable"]["workers-1"] == \
            f"BlockedByPod ({reason}: default/{pod.metadata.name})"


def test_bare_pods_and_kube_system_pods_block_scale_down():
    bare = """
---
apiVersion: v1
kind: Pod
metadata: {name: lonely}
spec:
  nodeName: workers-1
  containers: [{name: a, image: nginx}]
"""
    dns = deploy("coredns", 1, "100m", extra="nodeSelector: {kubernetes.io/hostname: workers-2}")
    dns = dns.replace("metadata: {name: coredns}",
                      "metadata: {name: coredns, namespace: kube-system}")
    groups = WORKERS.format(max=3).replace("minSize: 1", "minSize: 0")
    s = Session.from_text(config(groups) + node("workers-1") + node("workers-2") + bare + dns)
    s.run_until(30)
    dns_pod = s.store.list("Pod", "kube-system")[0].metadata.name
    assert ca(s).status()["unremovable"] == {
        "workers-1": "BlockedByPod (NotReplicated: default/lonely)",
        "workers-2": f"BlockedByPod (UnmovableKubeSystemPod: kube-system/{dns_pod})"}


def test_no_scale_down_within_ten_minutes_of_a_scale_up():
    s = Session.from_text(config(WORKERS.format(max=3), "scaleDownUnneededTime: 1m") +
                          node("workers-1") + deploy("web", 3, "800m"))
    s.run_until(75)
    assert len(group_nodes(s)) == 2
    s.submit("kubectl scale deployment web --replicas=2")
    s.run_until(300)
    # Unneeded from 110 and for longer than the minute asked, but the scale-up at 10 holds
    # every scale-down until 610 (scale-down-delay-after-add).
    status = ca(s).status()
    assert [(u["node"], u["since"], u["removableAt"]) for u in status["unneeded"]] == \
        [("workers-1", 110.0, 610.0)]
    assert status["unremovable"]["workers-1"] == "ScaleDownInCooldown"
    assert status["scaleDown"]["cooldownUntil"] == 610.0
    s.settle()
    assert [(t, o) for t, o, m in events(s, "ScaleDown") if o.startswith("Node/")][0] == \
        (610.0, "Node/workers-1")
    assert len(group_nodes(s)) == 1


def test_unneeded_nodes_carry_the_soft_taint():
    groups = WORKERS.format(max=3).replace("minSize: 1", "minSize: 0")
    s = Session.from_text(config(groups) + node("workers-1"))
    s.run_until(10)
    taints = s.store.get("Node", "workers-1").spec.taints
    assert [(t.key, t.effect) for t in taints] == [
        ("DeletionCandidateOfClusterAutoscaler", "PreferNoSchedule")]
    s.settle()
    assert group_nodes(s) == []      # an empty group of minSize 0 ends empty


# -- configuration -----------------------------------------------------------------------------

@pytest.mark.parametrize("doc, error", [
    (config("  - {name: workers, minSize: 3, maxSize: 2}"),
     "nodeGroups[0].maxSize: Invalid value: 2: must be greater than or equal to minSize (3)"),
    (config("  - {name: workers, maxSize: 2}", "expander: cheapest"),
     'expander: Unsupported value: "cheapest"'),
    (config("  - {name: Workers, maxSize: 2}"), 'nodeGroups[0].name: Invalid value: "Workers"'),
    (config("  - {name: w, maxSize: 2, like: a, template: {capacity: {cpu: 1}}}"),
     "nodeGroups[0].template: give either like or template, not both"),
    (config("  - {name: w, maxSize: 2}", "scanInterval: soon"),
     'scanInterval: time: invalid duration "soon"'),
], ids=["maxSize below minSize", "an unknown expander", "a group name must be a label value",
        "like and template exclude each other", "durations take Go's syntax"])
def test_a_bad_configuration_names_the_file_document_and_field(tmp_path, doc, error):
    path = tmp_path / "ca.yaml"
    path.write_text(doc)
    with pytest.raises(ManifestError) as exc:
        Session.from_files([path])
    assert str(exc.value).startswith(f"{path} (document 1): ")
    assert error in str(exc.value)


def test_without_a_configuration_the_autoscaler_is_idle():
    s = Session.from_text(node("workers-1") + deploy("web", 3, "800m"))
    s.run_until(100)
    assert ca(s).status() is None and ca(s).busy_until() is None
    assert events(s, "TriggeredScaleUp") == [] and events(s, "NotTriggerScaleUp") == []


def test_the_autoscaling_sample_runs_to_the_second(capsys):
    import json

    from ksandbox.cli import main
    from ksandbox.resources import data_path

    folder = data_path("sample_clusters")
    argv = ["sim", "-f", str(folder / "autoscaling.yaml"),
            "--script", str(folder / "autoscaling.script.yaml"), "-o", "json"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first
    state = json.loads(first)

    def times(reason, text=""):
        return [e["time"] for e in state["events"] if e["reason"] == reason and text in
                e["message"]]

    assert times("EvictedByVPA") == [60.0, 120.0]
    assert times("SuccessfulRescale", "New size: 6") == [135.0]
    assert times("TriggeredScaleUp", "[{workers 1->2 (max: 4)}]") == [140.0, 140.0]
    assert times("SuccessfulRescale", "New size: 4") == [915.0]
    assert times("ScaleDown", "marked the node") == [1550.0]
    assert times("ScaleDown", "node removed by cluster autoscaler") == [1585.0]
    assert [n["name"] for n in state["nodes"]] == ["workers-1"]
    assert all(p["node"] == "workers-1" and p["phase"] == "Running" for p in state["pods"])
    hungry = [p for p in state["pods"] if p["name"].startswith("hungry-")]
    assert len(hungry) == 2


def test_a_drain_the_eviction_api_keeps_refusing_is_abandoned_after_two_minutes():
    pdb = """
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
"""
    groups = WORKERS.format(max=3).replace("minSize: 1", "minSize: 0")
    s = Session.from_text(config(groups, "scaleDownEnabled: false") + node("workers-1") +
                          deploy("web", 1, "500m") + pdb)
    s.run_until(20)
    pod = s.store.list("Pod", "default")[0]
    # Start the actuation by hand (the planner itself would not: NotEnoughPdb).
    ca(s).scale_down.start_drain("workers-1", [pod], [])
    assert [t.key for t in s.store.get("Node", "workers-1").spec.taints] == \
        ["ToBeDeletedByClusterAutoscaler"]
    s.run_until(200)
    [(t, obj, msg)] = events(s, "ScaleDownFailed")
    # Retried every 10 s from 20; at 140 maxPodEvictionTime (2 min) is spent: given up.
    assert (t, obj, msg) == (140.0, "Node/workers-1", "failed to drain the node, aborting "
                                                      "ScaleDown")
    assert s.store.get("Node", "workers-1").spec.taints == ()
    assert s.store.get("Pod", pod.metadata.name, "default") is not None
    assert ca(s).status()["deleting"] == []
