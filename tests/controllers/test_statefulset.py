"""StatefulSet controller scenarios, traced to upstream
``pkg/controller/statefulset/stateful_set_control_test.go`` (TestStatefulSetControl: CreatesPods,
ScalesUp, ScalesDown, ReplacesPods, RecreatesFailedPod, CreatePodFailure's ordering;
TestStatefulSetControlRollingUpdate) and ``stateful_set_utils_test.go`` (getPodName,
getPersistentVolumeClaimName, identity labels)."""

from __future__ import annotations

import attrs

from ksandbox.api.core import FAILED
from ksandbox.session import Session

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
"""


def sts(policy: str = "OrderedReady", replicas: int = 3, claims: bool = False) -> str:
    text = f"""
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: web}}
spec:
  serviceName: web
  replicas: {replicas}
  podManagementPolicy: {policy}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      terminationGracePeriodSeconds: 5
      containers: [{{name: nginx, image: "nginx:1"}}]
"""
    if claims:
        text += """  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
    return text


def names(s: Session) -> list[str]:
    return sorted(p.metadata.name for p in s.store.list("Pod", "default")
                  if p.metadata.deletion_timestamp is None)


def test_ordered_ready_creates_one_pod_at_a_time_in_ordinal_order():
    s = Session.from_text(NODE + "---" + sts())
    s.run_until(0.5)
    assert names(s) == ["web-0"]  # web-1 waits for web-0 to be Running and Ready
    s.run_until(30)
    assert names(s) == ["web-0", "web-1", "web-2"]
    created = [e.message for e in s.store.events if e.reason == "SuccessfulCreate"]
    assert created == [f"create Pod web-{i} in StatefulSet web successful" for i in range(3)]


def test_parallel_creates_every_pod_at_once():
    s = Session.from_text(NODE + "---" + sts("Parallel"))
    s.run_until(0.5)
    assert names(s) == ["web-0", "web-1", "web-2"]


DEFAULT_CLASS = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
"""


def test_pods_carry_their_identity():
    # The claims are provisioned by the default class when their pod is scheduled.
    s = Session.from_text(NODE + "---" + DEFAULT_CLASS + "---" + sts(claims=True))
    s.run_until(30)
    pod = s.store.get("Pod", "web-1", "default")
    assert pod.metadata.labels["statefulset.kubernetes.io/pod-name"] == "web-1"
    assert pod.metadata.labels["apps.kubernetes.io/pod-index"] == "1"
    assert pod.spec.extra["hostname"] == "web-1" and pod.spec.extra["subdomain"] == "web"
    vol = [v for v in pod.spec.volumes if v.name == "data"][0]
    assert vol.persistent_volume_claim["claimName"] == "data-web-1"
    assert s.store.get("PersistentVolumeClaim", "data-web-1", "default").status.phase == "Bound"


def test_claims_with_no_volume_and_no_class_keep_the_first_pod_pending():
    """Without a StorageClass nothing provisions data-web-0: the PV controller says so on the
    claim and the scheduler refuses web-0 (VolumeBinding), so OrderedReady never starts web-1."""
    s = Session.from_text(NODE + "---" + sts(claims=True))
    s.run_until(30)
    assert names(s) == ["web-0"]
    assert s.store.get("Pod", "web-0", "default").status.phase == "Pending"
    out = s.submit("kubectl describe pod web-0").output
    assert "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims." in out
    assert "no persistent volumes available for this claim and no storage class is set" in \
        s.submit("kubectl describe pvc data-web-0").output


def test_scale_down_removes_the_highest_ordinal_first_one_at_a_time():
    s = Session.from_text(NODE + "---" + sts(replicas=3))
    s.run_until(30)
    s.submit("kubectl scale statefulset web --replicas=1")
    s.run_until(30.5)
    terminating = [p.metadata.name for p in s.store.list("Pod", "default")
                   if p.metadata.deletion_timestamp is not None]
    assert terminating == ["web-2"]
    s.run_until(60)
    assert names(s) == ["web-0"]
    deleted = [e.message for e in s.store.events if e.reason == "SuccessfulDelete"]
    assert deleted == ["delete Pod web-2 in StatefulSet web successful",
                       "delete Pod web-1 in StatefulSet web successful"]


def test_a_deleted_pod_comes_back_under_the_same_name():
    s = Session.from_text(NODE + "---" + sts())
    s.run_until(30)
    old_uid = s.store.get("Pod", "web-1", "default").metadata.uid
    s.submit("kubectl delete pod web-1")
    s.run_until(60)
    pod = s.store.get("Pod", "web-1", "default")
    assert pod is not None and pod.metadata.uid != old_uid and pod.status.phase == "Running"


def test_a_failed_pod_is_deleted_and_recreated():
    s = Session.from_text(NODE + "---" + sts())
    s.run_until(30)
    pod = s.store.get("Pod", "web-0", "default")
    s.store.update_status(attrs.evolve(pod, status=attrs.evolve(pod.status, phase=FAILED)))
    s.run_until(60)
    again = s.store.get("Pod", "web-0", "default")
    assert again.metadata.uid != pod.metadata.uid and again.status.phase == "Running"


def test_a_template_change_rolls_out_from_the_highest_ordinal():
    s = Session.from_text(NODE + "---" + sts())
    s.run_until(30)
    s.submit("kubectl apply -f -", stdin=sts().replace('"nginx:1"', '"nginx:2"'))
    s.run_until(200)
    images = {p.metadata.name: p.spec.containers[0].image for p in s.store.list("Pod", "default")}
    assert images == {"web-0": "nginx:2", "web-1": "nginx:2", "web-2": "nginx:2"}
    deleted = [e.message for e in s.store.events if e.reason == "SuccessfulDelete"]
    assert deleted == [f"delete Pod web-{i} in StatefulSet web successful" for i in (2, 1, 0)]
    st = s.store.get("StatefulSet", "web", "default").status
    assert st.current_revision == st.update_revision and st.updated_replicas == 3
    revisions = sorted(cr.revision for cr in s.store.list("ControllerRevision", "default"))
    assert revisions == [1, 2]


def test_get_statefulset_shows_ready_over_desired():
    s = Session.from_text(NODE + "---" + sts())
    s.run_until(30)
    out = s.submit("kubectl get statefulsets").output.splitlines()
    assert out[0].split() == ["NAME", "READY", "AGE"]
    assert out[1].split()[:2] == ["web", "3/3"]
