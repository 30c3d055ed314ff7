"""Static pods and their mirror pods.

A static pod is a manifest in the kubelet's ``staticPodPath``: the kubelet runs it itself,
without the API server, and publishes a *mirror pod* so the cluster can see it. Following
``pkg/kubelet/config/common.go`` (applyDefaults) and ``pkg/kubelet/pod/mirror_client.go``:

* the pod's name gets the node's name appended (``etcd`` on ``cp-1`` → ``etcd-cp-1``), its
  namespace defaults to ``default`` and ``spec.nodeName`` is the node;
* it tolerates every ``NoExecute`` taint (``operator: Exists``), so node problems never evict it;
* annotations ``kubernetes.io/config.hash`` (a hash of the manifest), ``kubernetes.io/config.source:
  file`` and, on the mirror, ``kubernetes.io/config.mirror`` (the same hash);
* the mirror is owned by the Node (an owner reference with ``controller: true``).

Deleting the mirror through the API does not stop the static pod: the kubelet removes the
deleted mirror and creates a fresh one. Only removing the manifest would stop it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import attrs

from ..api.codec import FrozenDict, encode
from ..api.core import CONFIG_SOURCE_ANNOTATION, MIRROR_ANNOTATION, Pod, PodStatus
from ..api.meta import OwnerReference
from ..api.taints import NO_EXECUTE, OP_EXISTS, Toleration

# pkg/kubelet/types/pod_update.go: the annotation carrying the manifest's hash.
CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash"
SOURCE_FILE = "file"
_TOLERATE_NO_EXECUTE = Toleration(operator=OP_EXISTS, effect=NO_EXECUTE)


def static_pod_name(name: str, node_name: str) -> str:
    """generatePodName: the manifest's name, a dash, and the node's name in lower case."""
    return f"{name}-{node_name.lower()}"


def manifest_hash(manifest: Pod, node_name: str, source: str) -> str:
    """A stable 32-hex hash of the manifest, as applyDefaults derives the static pod's UID."""
    h = hashlib.md5()
    h.update(f"host:{node_name}".encode())
    h.update(f"file:{source}".encode())
    h.update(json.dumps(encode(manifest), sort_keys=True, default=str).encode())
    return h.hexdigest()


def build_static_pod(manifest: Pod, node_name: str, node_uid: str, source: str) -> Pod:
    """The pod the kubelet runs from ``manifest``, shaped as its mirror pod will be."""
    digest = manifest_hash(manifest, node_name, source)
    meta = manifest.metadata
    annotations = dict(meta.annotations)
    annotations[CONFIG_HASH_ANNOTATION] = digest
    annotations[CONFIG_SOURCE_ANNOTATION] = SOURCE_FILE
    annotations[MIRROR_ANNOTATION] = digest
    owner = OwnerReference(api_version="v1", kind="Node", name=node_name, uid=node_uid,
                           controller=True)
    tolerations = manifest.spec.tolerations
    if _TOLERATE_NO_EXECUTE not in tolerations:
        tolerations = tolerations + (_TOLERATE_NO_EXECUTE,)
    new_meta = attrs.evolve(
        meta, name=static_pod_name(meta.name, node_name), generate_name="",
        namespace=meta.namespace or "default", uid="", resource_version=None,
        creation_timestamp=None, deletion_timestamp=None,
        annotations=FrozenDict(annotations), owner_references=(owner,))
    spec = attrs.evolve(manifest.spec, node_name=node_name, tolerations=tolerations)
    return attrs.evolve(manifest, metadata=new_meta, spec=spec, status=PodStatus())


def adopt_mirror(pod: Pod) -> Pod:
    """A mirror pod found in the API (a loaded export) as the static pod it stands for."""
    meta = attrs.evolve(pod.metadata, uid="", resource_version=None, creation_timestamp=None,
                        deletion_timestamp=None, deletion_grace_period_seconds=None)
    return attrs.evolve(pod, metadata=meta, status=PodStatus())


def mirror_key(pod: Any) -> tuple[str, str]:
    return (pod.metadata.namespace or "default", pod.metadata.name)
