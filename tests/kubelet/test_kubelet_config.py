"""KubeletConfiguration: upstream defaults, the allocatable formula, which nodes a document
applies to, static pod manifests, and the errors for bad documents."""

from __future__ import annotations

import pytest

from ksandbox.api.errors import ManifestError
from ksandbox.api.manifest import ConfigDocument
from ksandbox.api.quantity import Quantity
from ksandbox.kubelet.config import (DEFAULT_CONFIG, config_for, parse_duration, read_config)


def doc(data: dict, n: int = 1) -> ConfigDocument:
    body = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
    body.update(data)
    return ConfigDocument("KubeletConfiguration", body["apiVersion"], body, "nodes.yaml", n)


def caps(**kw: str) -> dict[str, Quantity]:
    return {k.replace("_", "-"): Quantity(v) for k, v in kw.items()}


@pytest.mark.parametrize("text,seconds", [
    ("10s", 10.0), ("5m0s", 300.0), ("1h30m", 5400.0), ("250ms", 0.25), ("1.5m", 90.0),
    ("0", 0.0),
])
def test_durations_parse_as_go_does(text, seconds):
    assert parse_duration(text) == seconds


def test_upstream_defaults():
    c = DEFAULT_CONFIG
    assert (c.node_status_update_frequency, c.node_status_report_frequency,
            c.node_lease_duration_seconds, c.lease_renew_interval,
            c.eviction_pressure_transition_period) == (10.0, 300.0, 40, 10.0, 300.0)
    assert {t.signal: t.text() for t in c.eviction_hard} == {
        "memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%",
        "imagefs.available": "15%", "imagefs.inodesFree": "5%"}


@pytest.mark.parametrize("data,capacity,want", [
    ({}, caps(cpu="4", memory="8Gi", ephemeral_storage="100Gi", pods="110"),
     {"cpu": "4", "memory": "8092Mi", "ephemeral-storage": "90Gi", "pods": "110"}),
    ({"kubeReserved": {"cpu": "100m", "memory": "256Mi"},
      "systemReserved": {"cpu": "100m", "memory": "256Mi"}},
     caps(cpu="4", memory="8Gi", pods="110"),
     {"cpu": "3800m", "memory": "7580Mi", "pods": "110"}),
    ({"evictionHard": {"memory.available": "500Mi"}},
     caps(cpu="2", memory="4Gi", ephemeral_storage="10Gi"),
     {"cpu": "2", "memory": "3596Mi", "ephemeral-storage": "10Gi"}),
    ({"evictionHard": {"memory.available": "5%"}, "mergeDefaultEvictionSettings": True},
     caps(memory="10Gi", ephemeral_storage="100Gi"),
     {"memory": "9728Mi", "ephemeral-storage": "90Gi"}),
    ({"kubeReserved": {"memory": "8Gi"}}, caps(memory="4Gi"), {"memory": "0"}),
], ids=["defaults reserve the eviction thresholds only",
        "kube and system reservations add up with the eviction threshold",
        "an explicit evictionHard replaces the defaults",
        "mergeDefaultEvictionSettings keeps the other defaults",
        "allocatable never goes below zero"])
def test_allocatable_is_capacity_minus_reservations(data, capacity, want):
    config = read_config(doc(data))
    assert {k: str(v) for k, v in config.allocatable(capacity).items()} == want


def test_the_breakdown_names_each_term():
    config = read_config(doc({"kubeReserved": {"memory": "256Mi"},
                              "systemReserved": {"memory": "128Mi"}}))
    parts = config.breakdown(caps(memory="8Gi"))["memory"]
    assert {k: str(v) for k, v in parts.items()} == {
        "capacity": "8Gi", "kubeReserved": "256Mi", "systemReserved": "128Mi",
        "evictionHard": "100Mi", "allocatable": "7708Mi"}


def test_an_explicit_update_frequency_is_also_the_report_frequency():
    c = read_config(doc({"nodeStatusUpdateFrequency": "4s", "nodeLeaseDurationSeconds": 20}))
    assert (c.node_status_update_frequency, c.node_status_report_frequency,
            c.lease_renew_interval) == (4.0, 4.0, 5.0)


def test_a_selector_wins_over_no_selector_and_the_last_match_wins():
    generic = read_config(doc({"maxPods": 50}, 1))
    cp1 = read_config(doc({"maxPods": 60, "ksandbox": {"nodeSelector": {"role": "cp"}}}, 2))
    cp2 = read_config(doc({"maxPods": 70, "ksandbox": {"nodeSelector": {"role": "cp"}}}, 3))
    configs = [cp1, generic, cp2]
    assert config_for(configs, {"role": "cp"}).max_pods == 70
    assert config_for(configs, {"role": "worker"}).max_pods == 50
    assert config_for([cp1], {"role": "worker"}) is DEFAULT_CONFIG


def test_static_pods_are_read_as_pods():
    c = read_config(doc({"ksandbox": {"staticPods": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "etcd"},
         "spec": {"containers": [{"name": "etcd", "image": "etcd"}]}}]}}))
    assert [p.metadata.name for p in c.static_pods] == ["etcd"]
    assert c.static_pod_path == "/etc/kubernetes/manifests"


@pytest.mark.parametrize("data,message", [
    ({"nodeStatusUpdateFrequency": "soon"},
     'nodes.yaml (document 1): nodeStatusUpdateFrequency: time: invalid duration "soon"'),
    ({"kubeReserved": {"memory": "lots"}},
     "nodes.yaml (document 1): kubeReserved.memory: quantities must match the regular "
     "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ({"evictionHard": {"memory.free": "1Gi"}},
     "nodes.yaml (document 1): evictionHard.memory.free: unsupported eviction signal "
     "memory.free"),
    ({"maxPods": 0}, "nodes.yaml (document 1): maxPods: Invalid value: 0: must be a positive "
                     "integer"),
    ({"ksandbox": {"nodeSelecter": {}}},
     "nodes.yaml (document 1): ksandbox.nodeSelecter: unknown field (the sandbox block holds "
     "nodeSelector and staticPods)"),
    ({"ksandbox": {"staticPods": [{"apiVersion": "v1", "kind": "Pod", "metadata": {}}]}},
     "nodes.yaml (document 1): ksandbox.staticPods[0].metadata.name: Required value: name or "
     "generateName is required"),
    ({"ksandbox": {"staticPods": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                   "metadata": {"name": "x"}}]}},
     "nodes.yaml (document 1): ksandbox.staticPods[0]: a static pod manifest must be a v1 Pod"),
])
def test_bad_documents_name_the_field(data, message):
    with pytest.raises(ManifestError) as exc:
        read_config(doc(data))
    assert str(exc.value) == message
