"""Whole scheduling cycles through a Session: the classic documents' examples.

Every test runs with ``explain_checked``: before each attempt the pod is explained, and the
attempt must pick the node explain selected (or fail with explain's message).
"""


from ksandbox.session import Session

NODE = """
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {labels}
spec:
  taints: {taints}
status:
  capacity: {capacity}
"""


def node(name, labels=None, taints=None, cpu="4", memory="8Gi", extra=None):
    cap = {"cpu": cpu, "memory": memory, "pods": "110", **(extra or {})}
    return NODE.format(name=name, labels=labels or {}, taints=taints or [], capacity=cap)


def pod_yaml(name, cpu="100m", extra_spec="", labels=None, priority_class=""):
    pc = f"\n  priorityClassName: {priority_class}" if priority_class else ""
    # an extra_spec with its own containers replaces the default one (a key written twice
    # is refused by the loader, as a strict decoder does)
    containers = ("" if "\n  containers:" in "\n" + extra_spec else
                  f'  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: "{cpu}"}}}}}}]')
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {labels or {}}}}
spec:{pc}
{containers}
{extra_spec}
"""


def session(*docs, seed=1):
    s = Session.from_text("---".join(docs), seed=seed)
    s.settle(120)
    return s


def placed(s):
    return {p.metadata.name: p.spec.node_name or None for p in s.store.list("Pod")}


def events(s, reason):
    return [e for e in s.store.events if e.reason == reason]


def test_gpu_pod_with_node_selector_lands_on_the_gpu_node(explain_checked):
    s = session(node("gpu-1", {"accelerator": "nvidia"}, extra={"nvidia.com/gpu": "2"}),
                node("cpu-1"), node("cpu-2"),
                pod_yaml("train", extra_spec="""  nodeSelector: {accelerator: nvidia}
  containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: "1"}, requests: {nvidia.com/gpu: "1"}}}]"""),
                pod_yaml("big", extra_spec="""  nodeSelector: {accelerator: nvidia}
  containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: "3"}}}]"""))
    assert placed(s) == {"train": "gpu-1", "big": None}
    [fail] = events(s, "FailedScheduling")
    assert fail.message == (
        "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's "
        "node affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims "
        "found for incoming pod, 2 Preemption is not helpful for scheduling.")
    cond = s.store.get("Pod", "big", "default").status.condition("PodScheduled")
    assert (cond.status, cond.reason, cond.message) == ("False", "Unschedulable", fail.message)
    [ok] = events(s, "Scheduled")
    assert ok.message == "Successfully assigned default/train to gpu-1"
    assert ok.source_component == "default-scheduler"


TAINT = [{"key": "key1", "value": "value1", "effect": "NoSchedule"}]


def test_taint_repels_pods_without_the_matching_toleration(explain_checked):
    tol = """  tolerations: [{key: key1, operator: Equal, value: value1, effect: NoSchedule}]"""
    s = session(node("node-1", taints=TAINT), node("node-2", taints=TAINT),
                pod_yaml("plain"), pod_yaml("tolerant", extra_spec=tol))
    assert placed(s)["plain"] is None
    assert placed(s)["tolerant"] in ("node-1", "node-2")
    [fail] = events(s, "FailedScheduling")
    assert fail.message.startswith("0/2 nodes are available: 2 node(s) had untolerated taint(s).")


def test_prefer_no_schedule_is_avoided_but_no_schedule_is_refused(explain_checked):
    soft = [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]
    s = session(node("soft-1", taints=soft), node("soft-2", taints=soft), node("plain"),
                *[pod_yaml(f"p{i}") for i in range(3)])
    assert set(placed(s).values()) == {"plain"}
    s = session(node("soft-1", taints=soft), node("hard", taints=TAINT), pod_yaml("p"))
    assert placed(s) == {"p": "soft-1"}


def test_a_second_profile_serves_its_pods_and_an_unknown_scheduler_name_waits(explain_checked):
    config = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: no-scoring-scheduler
  plugins:
    preScore: {disabled: [{name: '*'}]}
    score: {disabled: [{name: '*'}]}
"""
    s = session(config, node("node-1"), node("node-2"),
                pod_yaml("a", extra_spec="  schedulerName: no-scoring-scheduler"),
                pod_yaml("b", extra_spec="  schedulerName: my-scheduler"))
    assert placed(s)["a"] is not None and placed(s)["b"] is None
    [ok] = events(s, "Scheduled")
    assert ok.source_component == "no-scoring-scheduler"
    assert not events(s, "FailedScheduling")
    b = s.store.get("Pod", "b", "default")
    assert b.status.condition("PodScheduled") is None
    ex = s.explain("default", "b")
    assert ex.selected is None and 'no scheduler named "my-scheduler"' in ex.message
    assert [n["name"] for n in ex.to_dict()["nodes"]] == ["node-1", "node-2"]


def test_manual_scheduling_by_node_name_bypasses_the_scheduler(explain_checked):
    s = session(node("node-1", taints=TAINT), node("node-2"),
                pod_yaml("manual", extra_spec="  nodeName: node-1"))
    assert placed(s) == {"manual": "node-1"}
    assert not events(s, "Scheduled") and not explain_checked


def test_topology_spread_across_zones(explain_checked):
    spread = """  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {app: web}}}"""
    zone = "topology.kubernetes.io/zone"
    s = session(node("a1", {zone: "a"}), node("a2", {zone: "a"}), node("b1", {zone: "b"}),
                *[pod_yaml(f"web-{i}", labels={"app": "web"}, extra_spec=spread)
                  for i in range(4)])
    zones = [s.store.get("Node", n).metadata.labels[zone] for n in placed(s).values()]
    assert sorted(zones) == ["a", "a", "b", "b"]


PRIORITY = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: %s}
value: %d
"""


def test_preemption_evicts_the_lower_priority_pod_and_nominates_the_node(explain_checked):
    s = session(PRIORITY % ("low", 10), PRIORITY % ("high", 1000), node("node-1", cpu="1"),
                pod_yaml("victim", cpu="800m", priority_class="low"))
    assert placed(s) == {"victim": "node-1"}
    from ksandbox.api.manifest import load_manifests

    s.apply_objects(load_manifests(pod_yaml("vip", cpu="800m", priority_class="high")))
    s.run_for(1)
    vip = s.store.get("Pod", "vip", "default")
    assert vip.status.nominated_node_name == "node-1" and not vip.spec.node_name
    [pre] = events(s, "Preempted")
    assert pre.involved_object.name == "victim"
    assert pre.message == f"Preempted by pod {vip.metadata.uid} on node node-1"
    # the victim's DisruptionTarget is of the generation the scheduler saw (KEP 5067)
    victim = s.store.get("Pod", "victim", "default")
    target = victim.status.condition("DisruptionTarget")
    assert (target.reason, target.observed_generation) == ("PreemptionByScheduler", 1)
    assert victim.metadata.generation == 2    # its graceful deletion moved it one up
    fail = events(s, "FailedScheduling")[-1]
    assert fail.message == "0/1 nodes are available: 1 Insufficient cpu."
    s.settle(120)
    assert placed(s) == {"vip": "node-1"}


def test_overprovisioning_placeholders_make_room_for_real_pods(explain_checked):
    s = session(PRIORITY % ("overprovisioning", -10), node("node-1", cpu="2"),
                *[pod_yaml(f"pause-{i}", cpu="1", priority_class="overprovisioning")
                  for i in range(2)])
    assert all(placed(s).values())
    from ksandbox.api.manifest import load_manifests

    s.apply_objects(load_manifests(pod_yaml("app", cpu="1")))
    s.settle(120)
    p = placed(s)
    assert p["app"] == "node-1" and list(p.values()).count("node-1") == 2
    assert len(events(s, "Preempted")) == 1


def test_preemption_never_policy_is_not_eligible(explain_checked):
    pc = PRIORITY % ("high", 1000) + "preemptionPolicy: Never\n"
    s = session(PRIORITY % ("low", 10), pc, node("node-1", cpu="1"),
                pod_yaml("victim", cpu="800m", priority_class="low"))
    from ksandbox.api.manifest import load_manifests

    s.apply_objects(load_manifests(pod_yaml("vip", cpu="800m", priority_class="high")))
    s.run_for(1)
    assert events(s, "FailedScheduling")[-1].message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
        "preemptionPolicy=Never.")
    assert not events(s, "Preempted")


def test_pending_pod_is_scheduled_when_a_node_is_added(explain_checked):
    s = session(node("node-1", cpu="1"), pod_yaml("big", cpu="2"))
    assert placed(s) == {"big": None}
    from ksandbox.api.manifest import load_manifests

    s.apply_objects(load_manifests(node("node-2", cpu="4")))
    s.run_for(5)
    assert placed(s) == {"big": "node-2"}


def test_untainting_a_node_requeues_the_pod(explain_checked):
    s = session(node("node-1", taints=TAINT), pod_yaml("p"))
    assert placed(s) == {"p": None}
    r = s.submit("kubectl taint nodes node-1 key1=value1:NoSchedule-")
    assert r.ok, r.error
    s.run_for(5)
    assert placed(s) == {"p": "node-1"}


def test_explain_json_shape(explain_checked):
    s = session(node("node-1", taints=[{"key": "dedicated", "value": "gpu",
                                        "effect": "NoSchedule"}]),
                node("node-2"), node("node-3", cpu="8"), pod_yaml("web-1"))
    d = s.explain("default", "web-1").to_dict()
    assert set(d) == {"pod", "scheduler", "selected", "message", "nodes"}
    assert d["pod"] == "default/web-1" and d["scheduler"] == "default-scheduler"
    by = {n["name"]: n for n in d["nodes"]}
    assert by["node-1"]["feasible"] is False and by["node-1"]["scores"] == {}
    assert by["node-1"]["filters"][-1] == {
        "plugin": "TaintToleration", "status": "UnschedulableAndUnresolvable",
        "reason": "node(s) had untolerated taint {dedicated: gpu}"}
    assert by["node-3"]["feasible"] is True
    assert set(by["node-3"]["scores"]) == {
        "TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread",
        "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality"}
    weights = {"TaintToleration": 3, "NodeAffinity": 2, "PodTopologySpread": 2,
               "InterPodAffinity": 2}
    assert by["node-3"]["total"] == sum(v * weights.get(k, 1)
                                        for k, v in by["node-3"]["scores"].items())
    assert d["selected"] == placed(s)["web-1"]


SEED_POLICY = """
apiVersion: v1
kind: Policy
predicates:
  - {name: PodFitsHostPorts}
  - {name: PodFitsResources}
  - {name: NoDiskConflict}
  - {name: NoVolumeZoneConflict}
  - {name: MatchNodeSelector}
  - {name: HostName}
priorities:
  - {name: LeastRequestedPriority, weight: 2}
  - {name: BalancedResourceAllocation, weight: 1}
  - {name: ServiceSpreadingPriority, weight: 2}
  - {name: EqualPriority, weight: 1}
"""


def test_a_legacy_policy_still_honours_taints_and_cordons(explain_checked):
    # legacy_registry.go: PodToleratesNodeTaints and CheckNodeUnschedulable are mandatory,
    # whatever predicates the Policy lists (the seed note's Policy lists neither).
    s = session(SEED_POLICY, node("node-1", taints=TAINT), node("node-2"), node("node-3"))
    assert s.submit("kubectl cordon node-3").ok
    s.apply_objects(__import__("ksandbox.api.manifest", fromlist=["x"]).load_manifests(
        pod_yaml("p1")))
    s.run_for(5)
    assert placed(s) == {"p1": "node-2"}
    warnings = s.cp.scheduler.warnings
    assert any("removed upstream in Kubernetes 1.23" in w for w in warnings)
    assert any("priority EqualPriority" in w for w in warnings)


def test_explaining_a_bound_pod_names_the_node_it_is_on_even_after_a_tie():
    three = "---".join(node(n) for n in ("node-1", "node-2", "node-3"))
    for seed in range(6):
        s = session(three, pod_yaml("p1"), seed=seed)
        actual = s.store.get("Pod", "p1", "default").spec.node_name
        d = s.explain("default", "p1").to_dict()
        assert d["selected"] == actual
        assert d["message"].startswith(f"Successfully assigned default/p1 to {actual} (tied")


def test_explaining_a_bound_pod_says_when_it_would_now_go_elsewhere():
    s = session(node("node-1"), pod_yaml("p1"))
    assert s.store.get("Pod", "p1", "default").spec.node_name == "node-1"
    assert s.submit("kubectl taint nodes node-1 k=v:NoSchedule").ok
    assert s.submit("kubectl apply -f -", stdin=node("node-2")).ok
    d = s.explain("default", "p1").to_dict()
    assert d["selected"] == "node-2"
    assert d["message"] == "default/p1 is bound to node-1; scheduled now it would go to node-2"
    assert s.explain("default", "p1").bound.by_scheduler is True


def test_explaining_a_pod_placed_by_node_name_says_the_scheduler_was_bypassed():
    """A pod with spec.nodeName never met the scheduler: explain says so, whether the node
    exists and what its kubelet did — never 'Successfully assigned' — then, as a what-if,
    where the scheduler would put it with nodeName cleared."""
    s = session(node("node-1"), pod_yaml("p1", extra_spec="  nodeName: node-1"), node("node-2"))
    s.run_for(5)
    assert s.submit("kubectl taint nodes node-1 k=v:NoSchedule").ok
    d = s.explain("default", "p1").to_dict()
    assert d["selected"] == "node-2"
    assert "Successfully assigned" not in d["message"]
    assert d["message"] == (
        "default/p1 names node-1 in spec.nodeName: the scheduler was bypassed (NodeName passes "
        "only there); its kubelet admitted it. What-if with nodeName cleared: it would go to "
        "node-2")
    assert s.explain("default", "p1").bound.to_dict() == {
        "node": "node-1", "byScheduler": False, "nodeExists": True, "kubelet": "admitted",
        "reason": "", "message": ""}
    from ksandbox.views.explain import render_explain_wide
    text = render_explain_wide(s.explain("default", "p1"))
    assert "Bound:      node-1 (spec.nodeName: the scheduler was bypassed)\n" in text
    assert "Kubelet:    admitted it\n" in text


def test_explaining_a_rejected_or_nodeless_bound_pod():
    s = session(node("node-1", labels={"zone": "a"}), pod_yaml(
        "p1", extra_spec="  nodeName: node-1\n  nodeSelector: {zone: b}"),
        )
    # A pod naming a node that does not exist (PodGC soon collects such an orphan).
    from ksandbox.api.codec import decode
    from ksandbox.api.core import Pod
    from ksandbox.scheduler.explain import bound_facts
    ghost = decode(Pod, {"metadata": {"name": "p2", "namespace": "default"},
                         "spec": {"nodeName": "ghost", "containers": [{"name": "c",
                                                                       "image": "x:1"}]}})
    facts = bound_facts(s.store, ghost)
    assert (facts.node_exists, facts.kubelet) == (False, "no-node")
    assert facts.summary("default/p2").endswith(
        "node ghost does not exist, so no kubelet will run it")
    s.run_for(5)
    b = s.explain("default", "p1").bound
    assert b.kubelet == "rejected" and b.reason == "NodeAffinity"
    d = s.explain("default", "p1").to_dict()
    assert ("its kubelet rejected it: NodeAffinity: Predicate NodeAffinity failed: node(s) "
            "didn't match Pod's node affinity/selector. What-if with nodeName cleared: it would "
            "not fit: 0/1 nodes are available") in d["message"]
