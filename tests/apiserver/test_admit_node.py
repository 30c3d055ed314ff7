"""A Node's admission (create and update): the kubelet's well-known labels filled in, and
allocatable from capacity when it has none. _admit_node returns the node itself when there is
nothing to fill (a registered node's every update); held here to the rule as written before,
which always built a new node."""

from __future__ import annotations

import attrs
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ksandbox.api.codec import FrozenDict
from ksandbox.api.evolve import evolve
from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver import admission


def plain_admit_node(node):
    meta = node.metadata
    labels = dict(meta.labels)
    labels.setdefault("kubernetes.io/hostname", meta.name)
    labels.setdefault("kubernetes.io/os", "linux")
    labels.setdefault("kubernetes.io/arch", "amd64")
    status = node.status
    if not status.allocatable and status.capacity:
        status = evolve(status, allocatable=status.capacity)
    return evolve(node, metadata=meta.with_labels(labels), status=status)


NODE = load_manifests("""
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "4", memory: 8Gi}}
""")[0]

KEYS = ["kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch",
        "topology.kubernetes.io/zone", "team"]
LABELS = st.builds(lambda keys, value: {k: value for k in sorted(keys)},
                   st.sets(st.sampled_from(KEYS)),
                   st.sampled_from(["n1", "other", "linux", "amd64", ""]))
WELL_KNOWN = {"kubernetes.io/hostname": "n1", "kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64"}


@settings(max_examples=300, deadline=None)
@given(LABELS, st.booleans(), st.booleans(), st.booleans())
@example({k: v for k, v in WELL_KNOWN.items() if k != "kubernetes.io/hostname"}, True, True,
         True)
@example({k: v for k, v in WELL_KNOWN.items() if k != "kubernetes.io/os"}, True, True, True)
@example({k: v for k, v in WELL_KNOWN.items() if k != "kubernetes.io/arch"}, True, True, True)
@example(WELL_KNOWN, True, True, False)
@example(WELL_KNOWN, False, True, True)
def test_node_admission_is_the_plain_rule(labels, frozen, with_capacity, with_allocatable):
    capacity = NODE.status.capacity if with_capacity else FrozenDict()
    allocatable = NODE.status.capacity if with_allocatable else FrozenDict()
    node = attrs.evolve(
        NODE, metadata=attrs.evolve(NODE.metadata,
                                    labels=FrozenDict(labels) if frozen else dict(labels)),
        status=attrs.evolve(NODE.status, capacity=capacity, allocatable=allocatable))
    got = admission._admit_node(None, node)   # type: ignore[arg-type]
    want = plain_admit_node(node)
    assert got == want
    assert list(got.metadata.labels.items()) == list(want.metadata.labels.items())
    assert type(got.metadata.labels) is FrozenDict
    # admitted once, the node has nothing left to fill: an update keeps it as it is
    assert admission._admit_node(None, got) is got   # type: ignore[arg-type]
