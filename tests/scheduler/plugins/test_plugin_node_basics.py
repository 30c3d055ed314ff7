"""NodeUnschedulable, NodeName, NodePorts and VolumeRestrictions: upstream's tables."""

import pytest
from schedtest import code_name, node, pod, run_filter

from ksandbox.scheduler.plugins import (node_name, node_ports, node_unschedulable,
                                        volume_restrictions)

UNSCHED_TOL = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                "effect": "NoSchedule"}]

UNSCHEDULABLE_CASES = [
    ("Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", [], True,
     "node(s) were unschedulable"),
    ("Schedule pod to normal node", [], False, None),
    ("Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
     UNSCHED_TOL, True, None),
    ("Schedule pod with toleration to normal node", UNSCHED_TOL, False, None),
]


@pytest.mark.parametrize("name,tol,unsched,want", UNSCHEDULABLE_CASES,
                         ids=[c[0] for c in UNSCHEDULABLE_CASES])
def test_node_unschedulable(name, tol, unsched, want):
    st = run_filter(node_unschedulable.new, pod(tolerations=tol),
                    [node("n", unschedulable=unsched)])["n"]
    assert (st.reasons[0] if st else None) == want
    if st:
        assert code_name(st) == "UnschedulableAndUnresolvable"


NODE_NAME_CASES = [
    ("no host specified", "", True),
    ("host matches", "foo", True),
    ("host doesn't match", "bar", False),
]


@pytest.mark.parametrize("name,want_node,fits", NODE_NAME_CASES,
                         ids=[c[0] for c in NODE_NAME_CASES])
def test_node_name(name, want_node, fits):
    st = run_filter(node_name.new, pod(node_name=want_node), [node("foo")])["foo"]
    assert (st is None) == fits
    if st:
        assert st.reasons == ("node(s) didn't match the requested node name",)
        assert code_name(st) == "UnschedulableAndUnresolvable"


def hp(port, proto="TCP", ip=""):
    d = {"containerPort": port, "hostPort": port, "protocol": proto}
    if ip:
        d["hostIP"] = ip
    return d


PORT_CASES = [
    ("nothing running", [hp(8080)], [], True),
    ("other port", [hp(8080)], [hp(9090)], True),
    ("same udp port", [hp(8080, "UDP", "127.0.0.1")], [hp(8080, "UDP", "127.0.0.1")], False),
    ("same tcp port", [hp(8080, "TCP", "127.0.0.1")], [hp(8080, "TCP", "127.0.0.1")], False),
    ("different host ip", [hp(8080, "TCP", "127.0.0.1")], [hp(8080, "TCP", "127.0.0.2")], True),
    ("different protocol", [hp(8080, "UDP", "127.0.0.1")], [hp(8080, "TCP", "127.0.0.1")], True),
    ("second udp port conflict", [hp(8000, "UDP", "127.0.0.1"), hp(8080, "UDP", "127.0.0.1")],
     [hp(8001, "UDP", "127.0.0.1"), hp(8080, "UDP", "127.0.0.1")], False),
    ("first tcp port conflict due to 0.0.0.0 hostIP",
     [hp(8001, "TCP", "0.0.0.0")], [hp(8001, "TCP", "127.0.0.1")], False),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", [hp(8001, "TCP", "127.0.0.1")],
     [hp(8001, "TCP", "0.0.0.0")], False),
    ("second different protocol", [hp(8001, "UDP", "0.0.0.0")], [hp(8001, "TCP", "0.0.0.0")],
     True),
]


@pytest.mark.parametrize("name,want,have,fits", PORT_CASES, ids=[c[0] for c in PORT_CASES])
def test_node_ports(name, want, have, fits):
    existing = pod("e", ports=have, node_name="n")
    st = run_filter(node_ports.new, pod(ports=want), [node("n")], [existing])["n"]
    assert (st is None) == fits
    if st:
        assert st.reasons == ("node(s) didn't have free ports for the requested pod ports",)
        assert code_name(st) == "Unschedulable"


def gce(name, ro=False):
    return [{"name": "v", "gcePersistentDisk": {"pdName": name, "readOnly": ro}}]


DISK_CASES = [
    ("nothing", gce("foo"), None, True),
    ("one state", gce("foo"), gce("foo"), False),
    ("another state", gce("foo"), gce("bar"), True),
    ("both read-only", gce("foo", True), gce("foo", True), True),
    ("AWS EBS: same volume conflicts",
     [{"name": "v", "awsElasticBlockStore": {"volumeID": "a"}}],
     [{"name": "v", "awsElasticBlockStore": {"volumeID": "a"}}], False),
]


@pytest.mark.parametrize("name,mine,theirs,fits", DISK_CASES, ids=[c[0] for c in DISK_CASES])
def test_volume_restrictions(name, mine, theirs, fits):
    pods = [pod("e", volumes=theirs, node_name="n")] if theirs else []
    st = run_filter(volume_restrictions.new, pod(volumes=mine), [node("n")], pods)["n"]
    assert (st is None) == fits
    if st:
        assert st.reasons == ("node(s) had no available disk",)


def _init_port_pod(sidecar: bool):
    """st.MakePod().InitContainerPort(sidecar, [8001/TCP host port 8001])."""
    from ksandbox.api.codec import decode
    from ksandbox.api.core import Pod

    init = {"name": "init", "image": "img",
            "ports": [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}]}
    if sidecar:
        init["restartPolicy"] = "Always"
    return decode(Pod, {"metadata": {"name": "p", "namespace": "default"},
                        "spec": {"schedulerName": "default-scheduler", "initContainers": [init],
                                 "containers": [{"name": "c", "image": "img"}]}})


@pytest.mark.parametrize("sidecar,fits", [(False, True), (True, False)],
                         ids=["non-sidecar initContainer using hostPort",
                              "TCP hostPort conflict from sidecar initContainer"])
def test_node_ports_init_containers(sidecar, fits):
    """node_ports_test.go TestNodePorts: a regular init container's host port is not held
    (PreFilter skips: the pod wants no ports), a sidecar's is (pkg/scheduler/util
    GetHostPorts counts restartPolicy: Always init containers only)."""
    existing = pod("e", ports=[hp(8001, "TCP", "0.0.0.0")], node_name="n")
    p = _init_port_pod(sidecar)
    assert bool(p.spec.host_ports) == sidecar
    st = run_filter(node_ports.new, p, [node("n")], [existing])["n"]
    assert (st is None) == fits
    # ... and a running pod's regular init container does not block a newcomer either.
    running = attrs_evolve_node(p, "n")
    st = run_filter(node_ports.new, pod(ports=[hp(8001, "TCP", "0.0.0.0")]), [node("n")],
                    [running])["n"]
    assert (st is None) == fits


def attrs_evolve_node(p, node_name):
    import attrs

    return attrs.evolve(p, spec=attrs.evolve(p.spec, node_name=node_name))
