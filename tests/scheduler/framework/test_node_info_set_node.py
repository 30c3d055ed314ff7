"""NodeInfo.set_node's short way for a status post that keeps the node's resources and images
equals the full derivation (upstream framework/types.go NodeInfo.SetNode: a node update
replaces the node and its allocatable)."""

from ksandbox.api.codec import decode
from ksandbox.api.core import Node
from ksandbox.api.evolve import evolve
from ksandbox.scheduler.framework.node_info import NodeInfo

DERIVED = ("node", "name", "labels", "alloc_cpu", "alloc_mem", "alloc_eph", "alloc_pods",
           "alloc_scalar", "images")


def _node(**status) -> Node:
    base = {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "30", "nvidia.com/gpu": "2"},
            "allocatable": {"cpu": "3500m", "memory": "7Gi", "pods": "30",
                            "nvidia.com/gpu": "2"},
            "images": [{"names": ["nginx:1", "nginx@sha256:aa"], "sizeBytes": 1000}],
            "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": 1.0}]}
    base.update(status)
    return decode(Node, {"metadata": {"name": "n1", "labels": {"zone": "a"}}, "status": base})


def _same(a: NodeInfo, b: NodeInfo) -> None:
    for name in DERIVED:
        assert getattr(a, name) == getattr(b, name), name


def test_a_heartbeat_post_keeps_what_was_derived_and_moves_the_generation() -> None:
    node = _node()
    ni = NodeInfo(node)
    gen = ni.generation
    beat = evolve(node, status=evolve(node.status, conditions=()))
    ni.set_node(beat)
    _same(ni, NodeInfo(beat))
    assert ni.node is beat and ni.generation == gen + 1
    relabelled = evolve(beat, metadata=evolve(beat.metadata, labels={"zone": "b"}))
    ni.set_node(relabelled)
    _same(ni, NodeInfo(relabelled))


def test_new_resources_or_images_are_derived_again() -> None:
    node = _node()
    ni = NodeInfo(node)
    for changed in (
            evolve(node, status=evolve(node.status, allocatable=_node(
                allocatable={"cpu": "1", "memory": "1Gi", "pods": "5"}).status.allocatable)),
            evolve(node, status=evolve(node.status, capacity=_node(
                allocatable={}, capacity={"cpu": "2", "memory": "2Gi"}).status.capacity,
                allocatable=_node(allocatable={}).status.allocatable)),
            evolve(node, status=evolve(node.status, images=())),
    ):
        ni.set_node(changed)
        _same(ni, NodeInfo(changed))
        ni.set_node(node)
        _same(ni, NodeInfo(node))
