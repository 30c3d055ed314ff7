"""VolumeZone, VolumeBinding and VolumeRestrictions' ReadWriteOncePod half.

Tables ported from upstream ``plugins/volumezone/volume_zone_test.go`` (TestSingleZone,
TestMultiZone, TestWithBinding), ``plugins/volumebinding/volume_binding_test.go``
(TestVolumeBinding: "pod has not pvcs", "all bound", "PVC does not exist", "immediate claims
not bound", "unbound claims no matches", "bound and unbound unsatisfied", "pv not found") and
``plugins/volumerestrictions/volume_restrictions_test.go`` (TestAccessModeConflicts).
"""

from __future__ import annotations

import pytest
from schedtest import node, pod, run_filter

from ksandbox.api.codec import decode
from ksandbox.api.core import Namespace
from ksandbox.api.meta import ObjectMeta
from ksandbox.api.storage import PersistentVolume, PersistentVolumeClaim, StorageClass
from ksandbox.apiserver.store import Store
from ksandbox.scheduler.plugins import volume_binding as vb
from ksandbox.scheduler.plugins import volume_restrictions as vr
from ksandbox.scheduler.plugins import volume_zone as vz
from ksandbox.sim.rand import SimRandom

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def store_of(*objs) -> Store:
    s = Store(lambda: 0.0, SimRandom(1))
    s.create(Namespace(metadata=ObjectMeta(name="default")), admitted=True)
    for o in objs:
        s.create(o, admitted=True)
    return s


def pv(name, labels=None, **spec) -> PersistentVolume:
    return decode(PersistentVolume, {"metadata": {"name": name, "labels": labels or {}},
                                     "spec": spec, "status": {"phase": spec.pop("_phase", "")}})


def pvc(name, **spec) -> PersistentVolumeClaim:
    ann = spec.pop("_annotations", {})
    return decode(PersistentVolumeClaim, {"metadata": {"name": name, "namespace": "default",
                                                       "annotations": ann}, "spec": spec})


def sc(name, mode="Immediate", provisioner="kubernetes.io/no-provisioner", **extra):
    return decode(StorageClass, {"metadata": {"name": name}, "provisioner": provisioner,
                                 "volumeBindingMode": mode, **extra})


def with_claim(*claims, name="pod_1"):
    return pod(name, volumes=[{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                              for i, c in enumerate(claims)])


def host(**labels):
    return node("host1", labels={**labels, "uselessLabel": "none"})


ZONE_STORE = [
    pv("Vol_1", {BETA_ZONE: "us-west1-a"}), pv("Vol_2", {BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", {ZONE: "us-west1-a"}), pv("Vol_Stable_2", {REGION: "us-west1"}),
    pv("Vol_Stable_3", {ZONE: "us-west1-a", REGION: "us-west1-a"}),
    pv("Vol_Multi", {ZONE: "us-west1-c__us-west1-a"}),
    pvc("PVC_1", volumeName="Vol_1"), pvc("PVC_2", volumeName="Vol_2"),
    pvc("PVC_Stable_1", volumeName="Vol_Stable_1"),
    pvc("PVC_Stable_2", volumeName="Vol_Stable_2"),
    pvc("PVC_Stable_3", volumeName="Vol_Stable_3"), pvc("PVC_Multi", volumeName="Vol_Multi"),
    pvc("PVC_EmptySC"), pvc("PVC_NoSC", storageClassName="Class_0"),
    pvc("PVC_WaitSC", storageClassName="Class_Wait"),
    pvc("PVC_ImmediateSC", storageClassName="Class_Immediate"),
    sc("Class_Wait", "WaitForFirstConsumer"), sc("Class_Immediate"),
]
CONFLICT = vz.ERR_REASON_CONFLICT

ZONE_CASES = {
    # TestSingleZone
    "node without labels": ("PVC_1", {}, None),
    "beta zone label matched": ("PVC_1", {BETA_ZONE: "us-west1-a"}, None),
    "beta region label matched": ("PVC_2", {BETA_REGION: "us-west1"}, None),
    "beta region label doesn't match": ("PVC_2", {BETA_REGION: "no_us-west1"}, CONFLICT),
    "beta zone label doesn't match": ("PVC_1", {BETA_ZONE: "no_us-west1-a"}, CONFLICT),
    "zone label matched": ("PVC_Stable_1", {ZONE: "us-west1-a"}, None),
    "region label matched": ("PVC_Stable_2", {REGION: "us-west1"}, None),
    "region label doesn't match": ("PVC_Stable_2", {REGION: "no_us-west1"}, CONFLICT),
    "zone label doesn't match": ("PVC_Stable_1", {ZONE: "no_us-west1-a"}, CONFLICT),
    "pv with zone and region, node with only zone": ("PVC_Stable_3", {ZONE: "us-west1-a"},
                                                     CONFLICT),
    "pv with zone,node with beta zone": ("PVC_Stable_1", {BETA_ZONE: "us-west1-a"}, CONFLICT),
    "pv with beta label,node with ga label, matched": ("PVC_1", {ZONE: "us-west1-a"}, None),
    "pv with beta label,node with ga label, don't match": ("PVC_1", {ZONE: "us-west1-b"},
                                                           CONFLICT),
    # TestMultiZone: a value listing several zones
    "multi-zone label matched": ("PVC_Multi", {ZONE: "us-west1-a"}, None),
    "multi-zone label doesn't match": ("PVC_Multi", {ZONE: "us-west1-b"}, CONFLICT),
    # TestWithBinding
    "unbound volume empty storage class": (
        "PVC_EmptySC", {BETA_ZONE: "us-west1-a"},
        "PersistentVolumeClaim had no pv name and storageClass name"),
    "unbound volume no storage class": (
        "PVC_NoSC", {BETA_ZONE: "us-west1-a"}, 'storageclass.storage.k8s.io "Class_0" not found'),
    "unbound volume immediate binding mode": ("PVC_ImmediateSC", {BETA_ZONE: "us-west1-a"},
                                              "PersistentVolume had no name"),
    "unbound volume wait binding mode": ("PVC_WaitSC", {BETA_ZONE: "us-west1-a"}, None),
}


@pytest.mark.parametrize("name", list(ZONE_CASES))
def test_volume_zone(name):
    claim, labels, want = ZONE_CASES[name]
    got = run_filter(vz.new, with_claim(claim), [host(**labels)], store=store_of(*ZONE_STORE))
    st = got["host1"]
    if want is None:
        assert st is None, st
    else:
        assert st.code.name == "UNSCHEDULABLE_AND_UNRESOLVABLE" and st.reasons == (want,)


def test_volume_zone_skips_a_pod_without_volumes():
    assert run_filter(vz.new, pod("pod_1"), [host(**{BETA_ZONE: "us-west1-a"})],
                      store=store_of(*ZONE_STORE)) == {"host1": None}


ZONE_A = {ZONE: "zone-a"}
AFFINITY_A = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": ZONE, "operator": "In", "values": ["zone-a"]}]}]}}
BOUND = {"pv.kubernetes.io/bind-completed": "yes"}
BINDING_STORE = [
    sc("wait", "WaitForFirstConsumer"), sc("immediate"),
    sc("wait-provisioned", "WaitForFirstConsumer", provisioner="ebs.csi.aws.com"),
    sc("wait-zone-b", "WaitForFirstConsumer", provisioner="ebs.csi.aws.com",
       allowedTopologies=[{"matchLabelExpressions": [{"key": ZONE, "values": ["zone-b"]}]}]),
    pv("pv-a", nodeAffinity=AFFINITY_A, claimRef={"name": "pvc-a", "namespace": "default"},
       capacity={"storage": "1Gi"}, accessModes=["ReadWriteOnce"], storageClassName="wait",
       _phase="Bound"),
    pvc("pvc-a", volumeName="pv-a", storageClassName="wait", _annotations=BOUND),
    pvc("pvc-gone", volumeName="pv-missing", storageClassName="wait", _annotations=BOUND),
    pvc("immediate-unbound", storageClassName="immediate", accessModes=["ReadWriteOnce"],
        resources={"requests": {"storage": "1Gi"}}),
    pv("pv-free-a", nodeAffinity=AFFINITY_A, capacity={"storage": "5Gi"},
       accessModes=["ReadWriteOnce"], storageClassName="wait", _phase="Available"),
    pvc("wait-small", storageClassName="wait", accessModes=["ReadWriteOnce"],
        resources={"requests": {"storage": "1Gi"}}),
    pvc("wait-huge", storageClassName="wait", accessModes=["ReadWriteOnce"],
        resources={"requests": {"storage": "1Ti"}}),
    pvc("wait-provisioned", storageClassName="wait-provisioned", accessModes=["ReadWriteOnce"],
        resources={"requests": {"storage": "1Ti"}}),
    pvc("wait-zone-b", storageClassName="wait-zone-b", accessModes=["ReadWriteOnce"],
        resources={"requests": {"storage": "1Gi"}}),
]

BINDING_CASES = {
    "all bound": (["pvc-a"], {"node-a": None, "node-b": [vb.ERR_REASON_NODE_CONFLICT]}),
    "PVC does not exist": (["pvc-nope"], {"node-a": ['persistentvolumeclaim "pvc-nope" not '
                                                     'found']}),
    "immediate claims not bound": (["immediate-unbound"], {"node-a": [vb.UNBOUND_IMMEDIATE]}),
    "unbound claim matches a pv in its zone only": (["wait-small"], {
        "node-a": None, "node-b": [vb.ERR_REASON_BIND_CONFLICT]}),
    "unbound claims no matches": (["wait-huge"], {"node-a": [vb.ERR_REASON_BIND_CONFLICT],
                                                  "node-b": [vb.ERR_REASON_BIND_CONFLICT]}),
    "bound and unbound unsatisfied": (["pvc-a", "wait-huge"], {
        "node-b": [vb.ERR_REASON_NODE_CONFLICT, vb.ERR_REASON_BIND_CONFLICT]}),
    "pv not found": (["pvc-gone"], {"node-a": [vb.ERR_REASON_PV_NOT_EXIST]}),
    "a provisioner makes any node fit": (["wait-provisioned"], {"node-a": None, "node-b": None}),
    "allowedTopologies limit provisioning": (["wait-zone-b"], {
        "node-a": [vb.ERR_REASON_BIND_CONFLICT], "node-b": None}),
}


@pytest.mark.parametrize("name", list(BINDING_CASES))
def test_volume_binding(name):
    claims, want = BINDING_CASES[name]
    nodes = [node("node-a", labels=ZONE_A), node("node-b", labels={ZONE: "zone-b"})]
    got = run_filter(vb.new, with_claim(*claims), nodes, store=store_of(*BINDING_STORE))
    for n, reasons in want.items():
        st = got[n]
        assert (list(st.reasons) if st is not None else None) == reasons, (n, st)
        if st is not None:
            assert st.code.name == "UNSCHEDULABLE_AND_UNRESOLVABLE"


def test_volume_binding_skips_a_pod_without_claims():
    """"pod has not pvcs": PreFilter Skip."""
    plugin = vb.new(None, None)
    assert plugin.pre_filter(None, pod("p"), [])[1].is_skip()


RWOP_STORE = [pvc("claim-rwop", accessModes=["ReadWriteOncePod"], volumeName="pv-1",
                  _annotations=BOUND),
              pvc("claim-rwo", accessModes=["ReadWriteOnce"], volumeName="pv-2",
                  _annotations=BOUND)]


def test_read_write_once_pod_conflicts():
    """TestAccessModeConflicts: a claim with ReadWriteOncePod used by a scheduled pod makes
    every node Unschedulable for another pod; ReadWriteOnce does not; a missing claim is
    UnschedulableAndUnresolvable with the API's text."""
    nodes = [node("node-1"), node("node-2")]
    user = pod("user", node_name="node-1", volumes=[
        {"name": "v", "persistentVolumeClaim": {"claimName": "claim-rwop"}},
        {"name": "w", "persistentVolumeClaim": {"claimName": "claim-rwo"}}])
    store = store_of(*RWOP_STORE)
    got = run_filter(vr.new, with_claim("claim-rwop"), nodes, [user], store=store)
    assert {n: (st.code.name, st.reasons) for n, st in got.items()} == {
        n: ("UNSCHEDULABLE", (vr.ERR_REASON_RWOP_CONFLICT,)) for n in ("node-1", "node-2")}
    assert run_filter(vr.new, with_claim("claim-rwo"), nodes, [user], store=store) == {
        "node-1": None, "node-2": None}
    assert run_filter(vr.new, with_claim("claim-rwop"), nodes, [], store=store) == {
        "node-1": None, "node-2": None}
    missing = run_filter(vr.new, with_claim("nope"), nodes, [user], store=store)["node-1"]
    assert missing.reasons == ('persistentvolumeclaim "nope" not found',)
