"""ksandbox sim -o wide: the header, and the nodes, pods and events tables."""

from __future__ import annotations

from ksandbox.session import Session
from ksandbox.views.simwide import render_sim_wide

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-1}
spec:
  nodeName: node-1
  tolerations: [{key: dedicated, operator: Exists}]
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
"""


def test_sim_wide_has_the_four_parts():
    session = Session.from_text(CLUSTER)
    session.run_until(412)
    text = render_sim_wide(session)
    lines = text.splitlines()
    assert lines[0].startswith("Simulated time: 412s (6m52s)   nodes: 1/1 ready   pods: ")
    assert text.index("\nNODES\n") < text.index("\nPODS\n") < text.index("\nEVENTS\n")
    node_head = text.split("\nNODES\n")[1].splitlines()[0].split()
    assert node_head[:5] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert "TAINTS" in node_head
    node_row = text.split("\nNODES\n")[1].splitlines()[1]
    assert "dedicated=gpu:NoSchedule" in node_row
    assert "500m/" in node_row and "1Gi/" in node_row
    pod_head = text.split("\nPODS\n")[1].splitlines()[0].split()
    assert pod_head[:3] == ["NAMESPACE", "NAME", "READY"] and "EVICTION" in pod_head


def test_an_empty_sandbox_says_so():
    text = render_sim_wide(Session())
    assert "No nodes.\n" in text and "No pods.\n" in text
