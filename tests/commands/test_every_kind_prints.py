"""Every kind the sandbox knows can be listed and described: no `kubectl get <resource>` or
`kubectl describe <resource>` may end in an internal error (a missing printer or describer)."""

from __future__ import annotations

import pytest

from ksandbox.api.kinds import KINDS
from ksandbox.session import Session

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {zone: a}}
spec: {podCIDR: 10.244.1.0/24}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx, resources: {requests: {cpu: 100m}}}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  replicas: 1
  selector: {app: legacy}
  template:
    metadata: {labels: {app: legacy}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: a, image: agent}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: legacy}
spec:
  scaleTargetRef: {apiVersion: v1, kind: ReplicationController, name: legacy}
  maxReplicas: 2
  targetCPUUtilizationPercentage: 80
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: web}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  updatePolicy: {updateMode: "Off"}
"""


@pytest.fixture(scope="module")
def cluster():
    s = Session.from_text(CLUSTER)
    s.run_for(120)
    return s


def test_the_cluster_has_an_object_of_every_kind(cluster):
    missing = [k.kind for k in KINDS if not cluster.store.list(k.kind)]
    assert missing == []


def _words(info):
    return sorted({info.resource, info.singular, *info.short_names,
                   f"{info.resource}.{info.group}" if info.group else info.resource})


@pytest.mark.parametrize("info", KINDS, ids=[k.kind for k in KINDS])
def test_every_get_and_describe_of_every_kind_answers_without_an_internal_error(cluster,
                                                                                info):
    lines = []
    for word in _words(info):
        lines += [f"kubectl get {word}", f"kubectl get {word} -A",
                  f"kubectl describe {word}", f"kubectl describe {word} -A"]
    lines += [f"kubectl get {info.resource} -A -o {fmt}"
              for fmt in ("wide", "yaml", "json", "name")]
    lines += [f"kubectl get {info.resource} -A --show-labels",
              f"kubectl get {info.resource},nodes -A"]
    for obj in cluster.store.list(info.kind)[:3]:
        ns = f" -n {obj.metadata.namespace}" if obj.metadata.namespace else ""
        name = obj.metadata.name
        lines += [f"kubectl get {info.resource} {name}{ns}",
                  f"kubectl get {info.resource} {name}{ns} -o yaml",
                  f"kubectl describe {info.resource} {name}{ns}"]
    for line in lines:
        result = cluster.submit(line, record=False)
        assert "internal:" not in result.error, (line, result.error)
        assert result.ok, (line, result.error)


def test_leases_list_with_their_holders(cluster):
    out = cluster.submit("kubectl get leases -n kube-node-lease").output
    assert out.splitlines()[0].split() == ["NAME", "HOLDER", "AGE"]
    assert out.splitlines()[1].split() == ["node-1", "node-1", "2m"]


def test_a_lease_prints_its_times_as_micro_time(cluster):
    out = cluster.submit("kubectl get lease node-1 -n kube-node-lease -o yaml").output
    assert 'renewTime: "2026-01-01T00:02:00.000000Z"' in out
    text = cluster.submit("kubectl describe lease node-1 -n kube-node-lease").output
    assert "Renew Time:              2026-01-01T00:02:00.000000Z" in text
    assert "Holder Identity:         node-1" in text


def test_describe_node_reads_the_nodes_lease_and_pod_cidrs(cluster):
    text = cluster.submit("kubectl describe node node-1").output
    assert ("Lease:\n  HolderIdentity:  node-1\n  AcquireTime:     <unset>\n"
            "  RenewTime:       Thu, 01 Jan 2026 00:02:00 +0000\n") in text
    assert ("PodCIDR:                      10.244.1.0/24\n"
            "PodCIDRs:                     10.244.1.0/24\n") in text
