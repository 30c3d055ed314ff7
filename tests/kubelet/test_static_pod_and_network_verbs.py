"""The sandbox verbs the seed notes need: a static pod manifest put on and removed from a running
node, and a node's network failed and recovered.

Traced to upstream: the kubelet's file source (``pkg/kubelet/config/file.go``: a new file is an
ADD, a changed one an UPDATE that restarts the pod, a removed one a REMOVE that kills it) with
``config/common.go`` applyDefaults (``NAME-NODE`` names) and the mirror client; the route
controller's NetworkUnavailable condition (``pkg/controller/route/route_controller.go``
updateNetworkingCondition: NoRouteCreated / RouteCreated) and the node lifecycle controller's
condition taint (``node.kubernetes.io/network-unavailable:NoSchedule``).
"""

from __future__ import annotations

from ksandbox.commands import files_read, parse
from ksandbox.session import Session
from ksandbox.tui.commandline import SubmitCommand, parse_command_line

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
MANIFEST = """apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system}
spec:
  terminationGracePeriodSeconds: 10
  containers: [{name: nginx, image: "nginx:%s"}]
"""


def started() -> Session:
    s = Session.from_text(NODES)
    s.run_until(2)
    return s


def put(s: Session, version: str = "1.25", node: str = "node-1"):
    return s.submit(f"ksandbox add static-pod {node} -f -", MANIFEST % version)


def test_a_manifest_put_on_a_running_node_runs_with_a_mirror_pod():
    s = started()
    r = put(s)
    assert r.error == ""
    assert r.output == ("pod/web-node-1 static pod manifest created on node/node-1 "
                        "(/etc/kubernetes/manifests/web.yaml)\n")
    s.run_until(8)
    mirror = s.store.get("Pod", "web-node-1", "kube-system")
    assert mirror.is_mirror and mirror.spec.node_name == "node-1"
    assert mirror.status.phase == "Running"
    assert mirror.metadata.owner_references[0].kind == "Node"
    # The same manifest again changes nothing; a changed one replaces the pod.
    assert "unchanged" in put(s).output
    uid = mirror.metadata.uid
    assert "configured" in put(s, "1.26").output
    s.run_until(14)
    mirror = s.store.get("Pod", "web-node-1", "kube-system")
    assert mirror.metadata.uid != uid and mirror.spec.containers[0].image == "nginx:1.26"
    assert mirror.status.phase == "Running"


def test_deleting_the_mirror_does_not_stop_a_static_pod_but_removing_the_manifest_does():
    s = started()
    put(s)
    s.run_until(8)
    s.submit("kubectl delete pod web-node-1 -n kube-system")
    s.run_until(9)
    assert s.store.get("Pod", "web-node-1", "kube-system") is not None
    r = s.submit("ksandbox remove static-pod node-1 web")
    assert r.output == "pod/web-node-1 static pod manifest removed from node/node-1\n"
    s.run_until(10)
    pod = s.store.get("Pod", "web-node-1", "kube-system")
    assert pod is not None and pod.metadata.deletion_timestamp is not None   # stopping
    s.run_until(30)
    assert s.store.get("Pod", "web-node-1", "kube-system") is None
    assert "No resources found" in s.submit("kubectl get pods -A").output


def test_static_pod_verbs_refuse_bad_input_and_change_nothing():
    s = started()
    cases = {
        "ksandbox add static-pod node-9 -f -": 'Error from server (NotFound): nodes "node-9" '
                                               'not found',
        "ksandbox add static-pod node-1": "error: usage: ksandbox add static-pod NODE -f "
                                          "MANIFEST",
        "ksandbox remove static-pod node-1 nope": 'error: node "node-1" has no static pod '
                                                  '"nope" (its manifests: none)',
        "ksandbox remove static-pod node-1": "error: usage: ksandbox remove static-pod NODE "
                                             "NAME",
    }
    for line, want in cases.items():
        assert s.submit(line, MANIFEST % "1").error.strip() == want, line
    not_pod = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
    assert s.submit("ksandbox add static-pod node-1 -f -", not_pod).error.strip() == \
        "error: <stdin>: a static pod manifest is one Pod document"
    bad = MANIFEST.replace("name: nginx,", "name: Bad_Name,") % "1"
    assert "Invalid value" in s.submit("ksandbox add static-pod node-1 -f -", bad).error
    s.submit("ksandbox fail node node-1")
    assert "cannot read its static pod manifests" in put(s).error
    assert s.store.list("Pod") == []


def test_a_step_reading_a_manifest_file_is_a_file_read():
    """Recordings refuse steps that read the player's files (commands.files_read)."""
    assert files_read(parse("ksandbox add static-pod node-1 -f web.yaml")) == ("web.yaml",)
    assert files_read(parse("ksandbox add static-pod node-1 -f -")) == ()


def test_the_tui_command_line_takes_the_verbs_without_ksandbox():
    assert parse_command_line("remove static-pod node-1 web") == SubmitCommand(
        "ksandbox remove static-pod node-1 web")
    assert parse_command_line("fail node node-2 --network") == SubmitCommand(
        "ksandbox fail node node-2 --network")


def test_a_failed_network_taints_the_node_and_recovering_it_clears_the_taint():
    s = started()
    r = s.submit("ksandbox fail node node-2 --network")
    assert r.output == "node/node-2 network failed (NetworkUnavailable=True)\n"
    s.run_until(3)
    node = s.store.get("Node", "node-2")
    cond = next(c for c in node.status.conditions if c.type == "NetworkUnavailable")
    assert (cond.status, cond.reason, cond.message) == (
        "True", "NoRouteCreated", "RouteController failed to create a route")
    assert [(t.key, t.effect) for t in node.spec.taints] == [
        ("node.kubernetes.io/network-unavailable", "NoSchedule")]
    # The kubelet keeps posting: the node stays Ready, the condition stays.
    s.run_until(60)
    node = s.store.get("Node", "node-2")
    assert any(c.type == "Ready" and c.status == "True" for c in node.status.conditions)
    assert any(c.type == "NetworkUnavailable" and c.status == "True"
               for c in node.status.conditions)
    s.submit("kubectl run app --image=nginx")
    s.run_until(62)
    assert s.store.get("Pod", "app", "default").spec.node_name == "node-1"
    assert s.submit("ksandbox fail node node-2 --network").error.strip() == \
        'error: node "node-2" network has already failed'
    assert s.submit("ksandbox recover node node-2").output == \
        "node/node-2 network recovered (NetworkUnavailable=False)\n"
    s.run_until(63)
    assert s.store.get("Node", "node-2").spec.taints == ()
    assert s.submit("ksandbox fail node node-2 --network --not-ready").error.startswith(
        "error: --not-ready and --network cannot be used together")
