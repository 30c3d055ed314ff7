"""The store's named writes as the API's subresources: status, binding, graceful deletion.

After upstream's pod and node strategies (pkg/registry/core/pod/strategy.go
podStatusStrategy.PrepareForUpdate keeps the stored spec; storage.go BindingREST refuses a pod
that already has a node) — the same write path every component and command uses.
"""

from __future__ import annotations

import attrs
import pytest

from ksandbox.api.errors import ApiError
from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver.store import MODIFIED, apply_all

from test_store import NODES, POD, fresh_store


@pytest.fixture
def store():
    s, _clock = fresh_store()
    apply_all(s, load_manifests(NODES + "---" + POD))
    return s


def test_a_status_write_keeps_the_stored_spec_and_metadata(store):
    pod = store.get("Pod", "web", "default")
    stale = attrs.evolve(pod, spec=attrs.evolve(pod.spec, node_name="node-2"),
                         metadata=attrs.evolve(pod.metadata, labels={"x": "y"}))
    seen = []
    store.subscribe("Pod", seen.append)
    out = store.update_status(attrs.evolve(stale, status=attrs.evolve(
        pod.status, phase="Running")))
    assert out.status.phase == "Running"
    assert out.spec is pod.spec and out.metadata.labels == pod.metadata.labels
    assert int(out.metadata.resource_version) > int(pod.metadata.resource_version)
    assert [(e.type, e.obj.status.phase) for e in seen] == [(MODIFIED, "Running")]


def test_a_status_write_of_a_missing_object_is_not_found(store):
    pod = store.get("Pod", "web", "default")
    store.remove("Pod", "web", "default")
    with pytest.raises(ApiError, match='pods "web" not found'):
        store.update_status(pod)


def test_binding_assigns_the_node_once(store):
    pod = store.get("Pod", "web", "default")
    bound = store.bind(pod, "node-1", pod.status)
    assert bound.spec.node_name == "node-1"
    assert store.pods_on_node("node-1") == [bound]
    with pytest.raises(ApiError) as err:
        store.bind(bound, "node-2", bound.status)
    assert err.value.code == 409
    assert "pod web is already assigned to node \"node-1\"" in str(err.value)
    assert store.get("Pod", "web", "default").spec.node_name == "node-1"


def test_graceful_deletion_only_stamps_the_pod(store):
    pod = store.get("Pod", "web", "default")
    bound = store.bind(pod, "node-1", pod.status)
    marked = store.delete("Pod", "web", "default")
    assert marked.metadata.deletion_timestamp == 30.0
    assert marked.spec is bound.spec and marked.status is bound.status
