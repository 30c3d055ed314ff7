"""kubectl describe texts, whole, on a bare store (pkg/describe/describe.go layouts)."""

from __future__ import annotations

import attrs

from view_helpers import cluster  # noqa: F401

from ksandbox.views.describe import describe


def lines(text: str) -> str:
    """The text with trailing blanks cut (goldens below are written without them)."""
    return "\n".join(line.rstrip() for line in text.split("\n"))

NODE = """
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: {node-role.kubernetes.io/control-plane: "", zone: a}
  annotations: {note: hello}
spec:
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: b, effect: NoExecute}
  - {key: a, effect: NoSchedule}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: 3800m, memory: 7Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: kubelet is posting ready status,
     lastHeartbeatTime: 50, lastTransitionTime: 0}
  addresses: [{type: InternalIP, address: 10.0.0.1}, {type: Hostname, address: node-1}]
  nodeInfo: {kubeletVersion: v1.35.0, osImage: Ubuntu 24.04.1 LTS, kernelVersion: 6.8.0,
             containerRuntimeVersion: containerd://2.0.0, architecture: amd64,
             operatingSystem: linux}
"""
POD = """
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  labels: {app: web}
spec:
  nodeName: node-1
  priorityClassName: high
  nodeSelector: {zone: a}
  tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]
  containers:
  - name: nginx
    image: nginx:1.27
    ports: [{containerPort: 80}]
    resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: 500m, memory: 128Mi}}
"""
PC = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


LEASE = """
apiVersion: v1
kind: Namespace
metadata: {name: kube-node-lease}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: node-1, namespace: kube-node-lease}
spec: {holderIdentity: node-1, leaseDurationSeconds: 40, renewTime: 50}
"""


def test_describe_node(cluster):
    (node,) = cluster.create(NODE)
    cluster.create(LEASE)
    cluster.create(PC)
    (pod,) = cluster.create(POD)
    cluster.store.record_event(node, "Normal", "Starting", "Starting kubelet.", "kubelet")
    cluster.at(120)
    cluster.store.record_event(node, "Normal", "Starting", "Starting kubelet.", "kubelet")
    cluster.at(200)
    node = cluster.store.get("Node", "node-1")
    text = describe(node, cluster.store, cluster.now)
    assert lines(text) == """\
Name:               node-1
Roles:              control-plane
Labels:             kubernetes.io/arch=amd64
                    kubernetes.io/hostname=node-1
                    kubernetes.io/os=linux
                    node-role.kubernetes.io/control-plane=
                    zone=a
Annotations:        note: hello
CreationTimestamp:  Thu, 01 Jan 2026 00:00:00 +0000
Taints:             b:NoExecute
                    a:NoSchedule
                    dedicated=gpu:NoSchedule
Unschedulable:      false
Lease:
  HolderIdentity:  node-1
  AcquireTime:     <unset>
  RenewTime:       Thu, 01 Jan 2026 00:00:50 +0000
Conditions:
  Type    Status  LastHeartbeatTime                 LastTransitionTime                Reason         Message
  ----    ------  -----------------                 ------------------                ------         -------
  Ready   True    Thu, 01 Jan 2026 00:00:50 +0000   Thu, 01 Jan 2026 00:00:00 +0000   KubeletReady   kubelet is posting ready status
Addresses:
  InternalIP:  10.0.0.1
  Hostname:    node-1
Capacity:
  cpu:     4
  memory:  8Gi
  pods:    110
Allocatable:
  cpu:     3800m
  memory:  7Gi
  pods:    110
System Info:
  Machine ID:
  System UUID:
  Boot ID:
  Kernel Version:             6.8.0
  OS Image:                   Ubuntu 24.04.1 LTS
  Operating System:           linux
  Architecture:               amd64
  Container Runtime Version:  containerd://2.0.0
  Kubelet Version:            v1.35.0
  Kube-Proxy Version:
Non-terminated Pods:          (1 in total)
  Namespace                   Name     CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------                   ----     ------------  ----------  ---------------  -------------  ---
  default                     web-1    100m (2%)     500m (13%)  128Mi (1%)       128Mi (1%)     3m20s
Allocated resources:
  (Total limits may be over 100 percent, i.e., overcommitted.)
  Resource           Requests    Limits
  --------           --------    ------
  cpu                100m (2%)   500m (13%)
  memory             128Mi (1%)  128Mi (1%)
  ephemeral-storage  0 (0%)      0 (0%)
Events:
  Type    Reason    Age                  From     Message
  ----    ------    ----                 ----     -------
  Normal  Starting  80s (x2 over 3m20s)  kubelet  Starting kubelet.
"""
    # As kubectl's tabwriter does, an empty last cell still pads the cell before it.
    assert "  Machine ID:                 \n" in text


def test_describe_pod(cluster):
    cluster.create(NODE)
    cluster.create(PC)
    (pod,) = cluster.create(POD)
    cluster.store.record_event(pod, "Normal", "Scheduled",
                               "Successfully assigned default/web-1 to node-1",
                               "default-scheduler")
    cluster.at(65)
    pod = cluster.store.get("Pod", "web-1", "default")
    assert lines(describe(pod, cluster.store, cluster.now)) == """\
Name:                 web-1
Namespace:            default
Priority:             1000
Priority Class Name:  high
Service Account:      default
Node:                 node-1/
Labels:               app=web
Annotations:          <none>
Status:               Pending
IP:
IPs:                  <none>
Containers:
  nginx:
    Image:      nginx:1.27
    Port:       80/TCP
    Host Port:  0/TCP
    Limits:
      cpu:     500m
      memory:  128Mi
    Requests:
      cpu:        100m
      memory:     128Mi
    Environment:  <none>
    Mounts:       <none>
Volumes:          <none>
QoS Class:        Burstable
Node-Selectors:   zone=a
Tolerations:      dedicated=gpu:NoSchedule
                  node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                  node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  65s   default-scheduler  Successfully assigned default/web-1 to node-1
"""


def test_a_terminating_pod_reads_as_kubectl_prints_it(cluster):
    (pod,) = cluster.create(POD.replace("  priorityClassName: high\n", ""))
    marked = attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, deletion_timestamp=30.0,
                                                     deletion_grace_period_seconds=30))
    text = describe(marked, cluster.store, 0.0, show_events=False)
    # kubectl ages the deletion deadline, which lies in the future: "<invalid>".
    assert "Status:                    Terminating (lasts <invalid>)\n" in text
    assert "Termination Grace Period:  30s\n" in text
    assert "Events" not in text


def test_describe_deployment(cluster):
    (d,) = cluster.create("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
""")
    assert describe(d, cluster.store, 10.0) == """\
Name:                   web
Namespace:              default
CreationTimestamp:      Thu, 01 Jan 2026 00:00:00 +0000
Labels:                 app=web
Annotations:            <none>
Selector:               app=web
Replicas:               3 desired | 0 updated | 0 total | 0 available | 0 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:  app=web
  Containers:
   nginx:
    Image:         nginx:1.27
    Port:          <none>
    Host Port:     <none>
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
OldReplicaSets:    <none>
NewReplicaSet:     <none>
Events:            <none>
"""


def test_describe_hpa_and_pdb_and_namespace(cluster):
    hpa, pdb = cluster.create("""
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
""")
    assert describe(hpa, cluster.store, 0.0) == """\
Name:                                                  web
Namespace:                                             default
Labels:                                                <none>
Annotations:                                           <none>
CreationTimestamp:                                     Thu, 01 Jan 2026 00:00:00 +0000
Reference:                                             Deployment/web
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  <unknown> / 80%
Min replicas:                                          1
Max replicas:                                          5
Deployment pods:                                       0 current / 0 desired
Events:                                                <none>
"""
    assert describe(pdb, cluster.store, 0.0) == """\
Name:             web-pdb
Namespace:        default
Max unavailable:  1
Selector:         app=web
Status:
    Allowed disruptions:  0
    Current:              0
    Desired:              0
    Total:                0
Events:                   <none>
"""
    ns = cluster.store.get("Namespace", "default")
    assert describe(ns, cluster.store, 0.0) == """\
Name:         default
Labels:       <none>
Annotations:  <none>
Status:       Active

No resource quota.

No LimitRange resource.
"""


def test_describe_node_without_a_lease_leaves_the_lease_unset(cluster):
    (node,) = cluster.create(NODE)
    text = lines(describe(node, cluster.store, cluster.now))
    assert ("Lease:\n  HolderIdentity:  <unset>\n  AcquireTime:     <unset>\n"
            "  RenewTime:       <unset>\n") in text


def test_describe_node_shows_a_held_lease_with_its_acquire_time(cluster):
    (node,) = cluster.create(NODE)
    cluster.create(LEASE.replace("renewTime: 50", "renewTime: 95.5, acquireTime: 10"))
    text = lines(describe(node, cluster.store, cluster.now))
    assert ("Lease:\n  HolderIdentity:  node-1\n"
            "  AcquireTime:     Thu, 01 Jan 2026 00:00:10 +0000\n"
            "  RenewTime:       Thu, 01 Jan 2026 00:01:35 +0000\n") in text
