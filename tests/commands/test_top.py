"""kubectl top nodes|pods from the simulated metrics server, traced to kubectl's
``pkg/cmd/top`` (top_node_test.go, top_pod_test.go: the columns, -A, --sort-by, a missing pod)
and ``pkg/metricsutil/metrics_printer.go`` (millicores, MiB, percent of allocatable, nodes
without metrics as <unknown>)."""

from __future__ import annotations

from ksandbox.session import Session

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: api}}, topologyKey: kubernetes.io/hostname}
      containers: [{name: a, image: nginx, resources: {requests: {cpu: 500m, memory: 256Mi}}}]
"""


def started() -> Session:
    s = Session.from_text(CLUSTER)
    s.run_until(30)
    s.submit("ksandbox load deployment/api 80")
    s.run_until(40)
    return s


def test_top_pods_prints_millicores_and_mebibytes():
    s = started()
    lines = s.submit("kubectl top pods").output.splitlines()
    assert lines[0].split() == ["NAME", "CPU(cores)", "MEMORY(bytes)"]
    assert [ln.split()[1:] for ln in lines[1:]] == [["400m", "256Mi"], ["400m", "256Mi"]]
    assert s.submit("kubectl top pods -A --no-headers").output.split()[0] == "default"
    assert s.submit("kubectl top pods -n kube-system").output == \
        "No resources found in kube-system namespace.\n"
    assert s.submit("kubectl top pod nope").error == \
        'Error from server (NotFound): podmetrics.metrics.k8s.io "default/nope" not found\n'


def test_top_nodes_sums_pods_against_allocatable_and_marks_silent_nodes():
    s = started()
    out = s.submit("kubectl top nodes").output.splitlines()
    assert out[0].split() == ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    assert out[1].split() == ["node-1", "400m", "5%", "256Mi", "1%"]
    s.submit("ksandbox fail node node-2")
    s.run_until(120)
    out = s.submit("kubectl top nodes").output.splitlines()
    assert out[2].split() == ["node-2"] + ["<unknown>"] * 4


def test_top_refuses_what_it_does_not_model():
    s = started()
    assert s.submit("kubectl top pods --containers").error.startswith("error: kubectl top pod "
                                                                      "--containers is not")
    assert s.submit("kubectl top services").error.startswith(
        'error: unknown command "services" for "kubectl top"')
    assert s.submit("kubectl top pods --sort-by=name").error == \
        "error: --sort-by accepts only cpu or memory\n"
