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
""" + """
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: web}
subsets: [{addresses: [{ip: 10.244.1.5}], ports: [{port: 8080}]}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
---
apiVersion: v1
kind: Secret
metadata: {name: token}
data: {password: aHVudGVyMg==}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder}
---
apiVersion: v1
kind: LimitRange
metadata: {name: limits}
spec:
  limits: [{type: Container, default: {cpu: 500m}, max: {cpu: "2"}}]
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota}
spec: {hard: {pods: "10", limits.cpu: "4"}}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: tmpl}
template:
  metadata: {labels: {app: t}}
  spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules: [{apiGroups: [""], resources: [nodes], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-pods}
subjects: [{kind: ServiceAccount, name: builder, namespace: default}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: read-nodes}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: jane}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reader}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all}
spec: {podSelector: {}, policyTypes: [Ingress]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-abcde, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.244.1.5]}]
ports: [{port: 8080, protocol: TCP}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /data/pv-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: true}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-123}]}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: csi-123}
spec: {attacher: ebs.csi.aws.com, nodeName: node-1, source: {persistentVolumeName: pv-1}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:16}]}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: db-5d8f7c}
data: {spec: {}}
revision: 1
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: busybox, command: [sleep, "5"]}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup}
spec:
  schedule: "*/1 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: b, image: busybox}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: inject}
webhooks: []
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: check}
webhooks: []
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec: {group: example.com, names: {kind: Widget, plural: widgets}, scope: Namespaced}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.apps}
spec: {group: apps, version: v1}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: exempt}
spec: {priorityLevelConfiguration: {name: exempt}, matchingPrecedence: 1}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: exempt}
spec: {type: Exempt}
---
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: node-csr}
spec: {signerName: kubernetes.io/kube-apiserver-client-kubelet, username: system:node:node-1}
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
