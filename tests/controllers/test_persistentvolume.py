"""The PV controller with the scheduler's volume plugins, end to end.

Traced to upstream ``pkg/controller/volume/persistentvolume/binder_test.go``
(TestSync: "1-1 - successful bind with the smallest volume", "1-2 - noop with no volume",
"2-x" pre-bound volumes, "4-x"/"5-x" released volumes with Retain/Delete),
``provision_test.go`` (provisioning an unbound claim of a class), ``delete_test.go``, the
delayed-binding cases of ``pv_controller_test.go`` (TestDelayBinding /
emitEventForUnboundDelayBindingClaim) and the scheduler's ``volume_binding_test.go``
PreBind cases (a matched PV is bound, a provisioned claim gets selected-node).
"""

from __future__ import annotations

from ksandbox.session import Session

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {topology.kubernetes.io/zone: zone-a, kubernetes.io/hostname: node-a}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {topology.kubernetes.io/zone: zone-b, kubernetes.io/hostname: node-b}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def doc(*parts: str) -> str:
    return "\n---\n".join((NODES,) + parts)


def sc(name: str, mode: str, provisioner: str = "ebs.csi.aws.com", reclaim: str = "Delete",
       default: bool = False) -> str:
    ann = ', annotations: {storageclass.kubernetes.io/is-default-class: "true"}' if default \
        else ""
    return (f"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {name}{ann}}}"
            f"\nprovisioner: {provisioner}\nvolumeBindingMode: {mode}\nreclaimPolicy: {reclaim}")


def pvc(name: str, cls: str | None = None, size: str = "1Gi", mode: str = "ReadWriteOnce") -> str:
    c = f"\n  storageClassName: {cls}" if cls is not None else ""
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}}}\nspec:{c}"
            f"\n  accessModes: [{mode}]\n  resources: {{requests: {{storage: {size}}}}}")


def local_pv(name: str, node: str, size: str, cls: str = "local") -> str:
    return f"""apiVersion: v1
kind: PersistentVolume
metadata: {{name: {name}}}
spec:
  capacity: {{storage: {size}}}
  accessModes: [ReadWriteOnce]
  storageClassName: {cls}
  persistentVolumeReclaimPolicy: Retain
  local: {{path: /mnt/disks/{name}}}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{{key: kubernetes.io/hostname, operator: In, values: [{node}]}}]"""


def app(claim: str, node_selector: str = "") -> str:
    sel = f"\n  nodeSelector: {{{node_selector}}}" if node_selector else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: app}}
spec:{sel}
  containers: [{{name: c, image: nginx}}]
  volumes: [{{name: d, persistentVolumeClaim: {{claimName: {claim}}}}}]"""


def claim(s: Session, name: str):
    return s.store.get("PersistentVolumeClaim", name, "default")


def events(s: Session, kind: str, name: str) -> list[tuple[str, str]]:
    return [(e.reason, e.message) for e in s.store.events
            if e.involved_object.kind == kind and e.involved_object.name == name]


def test_wait_for_first_consumer_provisions_in_the_zone_of_the_pods_node():
    s = Session.from_text(doc(sc("standard", "WaitForFirstConsumer", default=True),
                              pvc("data"), app("data", "topology.kubernetes.io/zone: zone-b")))
    s.run_until(5)
    c = claim(s, "data")
    assert c.status.phase == "Bound" and c.spec.storage_class_name == "standard"
    assert c.metadata.annotations["volume.kubernetes.io/selected-node"] == "node-b"
    pv = s.store.get("PersistentVolume", c.spec.volume_name)
    assert pv.metadata.name == f"pvc-{c.metadata.uid}" and pv.status.phase == "Bound"
    term = pv.spec.node_affinity.required.node_selector_terms[0].match_expressions[0]
    assert (term.key, term.values) == ("topology.kubernetes.io/zone", ("zone-b",))
    reasons = [r for r, _ in events(s, "PersistentVolumeClaim", "data")]
    assert reasons == ["WaitForPodScheduled", "ExternalProvisioning", "Provisioning",
                       "ProvisioningSucceeded"]
    assert s.store.get("Pod", "app", "default").spec.node_name == "node-b"


def test_a_claim_waiting_for_its_first_consumer_says_so():
    s = Session.from_text(doc(sc("standard", "WaitForFirstConsumer"), pvc("data", "standard")))
    s.run_until(2)
    assert claim(s, "data").status.phase == "Pending"
    assert events(s, "PersistentVolumeClaim", "data") == [
        ("WaitForFirstConsumer", "waiting for first consumer to be created before binding")]
    out = s.submit("kubectl get pvc").output.splitlines()
    assert out[1].split()[:2] == ["data", "Pending"]


def test_immediate_binding_picks_the_smallest_volume_that_fits():
    """binder_test "1-1 - successful bind with the smallest volume"; the pod then follows its
    local volume to node-b."""
    s = Session.from_text(doc(sc("local", "Immediate", "kubernetes.io/no-provisioner",
                                 reclaim="Retain"),
                              local_pv("big", "node-a", "100Gi"),
                              local_pv("small", "node-b", "10Gi"),
                              local_pv("tiny", "node-a", "1Gi"),
                              pvc("data", "local", size="5Gi"), app("data")))
    s.run_until(5)
    c = claim(s, "data")
    assert c.spec.volume_name == "small" and c.status.phase == "Bound"
    assert str(c.status.capacity["storage"]) == "10Gi"
    pv = s.store.get("PersistentVolume", "small")
    assert pv.spec.claim_ref.name == "data" and pv.status.phase == "Bound"
    assert pv.metadata.annotations["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert s.store.get("PersistentVolume", "big").status.phase == "Available"
    assert s.store.get("Pod", "app", "default").spec.node_name == "node-b"


def test_wait_for_first_consumer_binds_a_local_volume_on_the_chosen_node():
    """The scheduler finds the matching local PV per node and binds it in PreBind."""
    s = Session.from_text(doc(sc("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
                              local_pv("disk-a", "node-a", "10Gi"), pvc("data", "local"),
                              app("data")))
    s.run_until(5)
    assert s.store.get("Pod", "app", "default").spec.node_name == "node-a"
    assert claim(s, "data").spec.volume_name == "disk-a"


def test_no_volume_and_no_provisioner_keeps_the_pod_pending_with_upstreams_words():
    s = Session.from_text(doc(sc("local", "Immediate", "kubernetes.io/no-provisioner"),
                              pvc("data", "local"), app("data")))
    s.run_until(10)
    assert events(s, "PersistentVolumeClaim", "data")[0] == (
        "ProvisioningFailed", "no volume plugin matched name: kubernetes.io/no-provisioner")
    pod = s.store.get("Pod", "app", "default")
    assert pod.spec.node_name == ""
    out = s.submit("kubectl describe pod app").output
    assert "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims." in out


def test_local_volumes_on_the_wrong_nodes_say_so():
    s = Session.from_text(doc(sc("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
                              local_pv("disk-a", "node-a", "10Gi"), pvc("data", "local"),
                              app("data", "kubernetes.io/hostname: node-b")))
    s.run_until(5)
    out = s.submit("kubectl describe pod app").output
    assert ("0/2 nodes are available: 1 node(s) didn't find available persistent volumes to "
            "bind, 1 node(s) didn't match Pod's node affinity/selector.") in out


def test_an_immediate_volume_in_another_zone_is_a_node_affinity_conflict():
    s = Session.from_text(doc(sc("fast", "Immediate"), pvc("data", "fast"), app("data")))
    s.run_until(2)
    pv = s.store.get("PersistentVolume", claim(s, "data").spec.volume_name)
    zone = pv.spec.node_affinity.required.node_selector_terms[0].match_expressions[0].values[0]
    other = "zone-a" if zone == "zone-b" else "zone-b"
    s2 = Session.from_text(doc(sc("fast", "Immediate"), pvc("data", "fast"),
                               app("data", f"topology.kubernetes.io/zone: {other}")))
    s2.run_until(5)
    assert s2.store.get("Pod", "app", "default").spec.node_name == ""
    assert "1 node(s) had volume node affinity conflict" in \
        s2.submit("kubectl describe pod app").output


def test_deleting_the_claim_reclaims_its_volume():
    """delete_test "8-1 - successful delete" (Delete) and binder_test "4-x" (Retain →
    Released)."""
    s = Session.from_text(doc(sc("fast", "Immediate"), pvc("data", "fast"),
                              sc("local", "Immediate", "kubernetes.io/no-provisioner"),
                              local_pv("disk", "node-a", "10Gi"), pvc("keep", "local")))
    s.run_until(2)
    gone = claim(s, "data").spec.volume_name
    assert claim(s, "keep").spec.volume_name == "disk"
    s.submit("kubectl delete pvc data keep")
    s.run_until(4)
    assert s.store.get("PersistentVolume", gone) is None
    assert s.store.get("PersistentVolume", "disk").status.phase == "Released"


def test_a_claim_without_a_class_and_no_volume_fails_binding():
    s = Session.from_text(doc(pvc("data"), app("data")))
    s.run_until(2)
    assert events(s, "PersistentVolumeClaim", "data") == [
        ("FailedBinding", "no persistent volumes available for this claim and no storage "
                          "class is set")]
