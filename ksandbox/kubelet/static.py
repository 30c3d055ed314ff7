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

:class:`StaticPods` is the part of a kubelet that holds its static pods and keeps their mirrors
in the API (upstream's pod manager and mirror client); the pod workers run them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterator

try:
    # CPython's own MD5, as random.py takes _sha512: hashlib loads OpenSSL's bindings
    # (~6 M instructions), and the default sample's static pods are hashed before the TUI's
    # first frame. The same digest either way.
    from _md5 import md5  # type: ignore[import-not-found]  # (no stub: CPython internal)
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import md5

from ..api.codec import FrozenDict, encode
from ..api.core import CONFIG_SOURCE_ANNOTATION, MIRROR_ANNOTATION, Pod, PodStatus
from ..api.errors import KsandboxError
from ..api.evolve import evolve
from ..api.meta import OwnerReference
from ..api.taints import NO_EXECUTE, OP_EXISTS, Toleration
from ..apiserver.pod_defaults import default_pod

if TYPE_CHECKING:
    from .kubelet import Kubelet

# pkg/kubelet/types/pod_update.go: the annotation carrying the manifest's hash.
CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash"
SOURCE_FILE = "file"
_TOLERATE_NO_EXECUTE = Toleration(operator=OP_EXISTS, effect=NO_EXECUTE)


def static_pod_name(name: str, node_name: str) -> str:
    """generatePodName: the manifest's name, a dash, and the node's name in lower case."""
    return f"{name}-{node_name.lower()}"


def manifest_hash(manifest: Pod, node_name: str, source: str) -> str:
    """A stable 32-hex hash of the manifest, as applyDefaults derives the static pod's UID."""
    h = md5()
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
    new_meta = evolve(
        meta, name=static_pod_name(meta.name, node_name), generate_name="",
        namespace=meta.namespace or "default", uid="", resource_version=None,
        creation_timestamp=None, deletion_timestamp=None,
        annotations=FrozenDict(annotations), owner_references=(owner,))
    # The file source decodes the manifest through the API scheme, so v1 defaults apply
    # (pkg/kubelet/config/common.go tryDecodeSinglePod): requests from limits, pull policy.
    spec = evolve(default_pod(manifest.spec), node_name=node_name,
                  tolerations=tolerations)
    return evolve(manifest, metadata=new_meta, spec=spec, status=PodStatus())


def adopt_mirror(pod: Pod) -> Pod:
    """A mirror pod found in the API (a loaded export) as the static pod it stands for.

    Every static pod tolerates every ``NoExecute`` taint (applyDefaults adds it, as
    build_static_pod does), so a mirror written without that toleration (by hand: a real
    export carries it) still stands for a pod with it. Without it, the taint eviction
    controller would delete each mirror the kubelet re-creates, at the same simulated instant
    (the simulation has no API latency): a loop that never let the clock move."""
    meta = evolve(pod.metadata, uid="", resource_version=None, creation_timestamp=None,
                  deletion_timestamp=None, deletion_grace_period_seconds=None)
    tolerations = pod.spec.tolerations
    if _TOLERATE_NO_EXECUTE in tolerations:
        return evolve(pod, metadata=meta, status=PodStatus())
    spec = evolve(pod.spec, tolerations=tolerations + (_TOLERATE_NO_EXECUTE,))
    return evolve(pod, metadata=meta, spec=spec, status=PodStatus())


def mirror_key(pod: Pod) -> tuple[str, str]:
    return (pod.metadata.namespace or "default", pod.metadata.name)


class StaticPods:
    """One kubelet's static pods, by key, and their mirrors in the API."""

    def __init__(self, kubelet: Kubelet) -> None:
        self.kubelet = kubelet
        self.store = kubelet.store
        self.pods: dict[tuple[str, str], Pod] = {}

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self.pods

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.pods)

    def __getitem__(self, key: tuple[str, str]) -> Pod:
        return self.pods[key]

    def load(self) -> list[tuple[str, str]]:
        """The configuration's manifests as static pods of this node (at registration)."""
        kl = self.kubelet
        keys = []
        for manifest in kl.config.static_pods:
            pod = build_static_pod(manifest, kl.name, kl.node_uid,
                                   f"{kl.config.static_pod_path}/{manifest.metadata.name}.yaml")
            self.pods[mirror_key(pod)] = pod
            keys.append(mirror_key(pod))
        return keys

    def put(self, manifest: Pod) -> tuple[tuple[str, str], str]:
        """A manifest written into the staticPodPath while the kubelet runs (the file source
        notices it): ``(key, "created" | "configured" | "unchanged")``. A changed manifest
        replaces the running static pod (its pod worker forgets the old one)."""
        kl = self.kubelet
        pod = build_static_pod(manifest, kl.name, kl.node_uid,
                               f"{self.path()}/{manifest.metadata.name}.yaml")
        key = mirror_key(pod)
        old = self.pods.get(key)
        if old is not None and old.metadata.annotations.get(CONFIG_HASH_ANNOTATION) == \
                pod.metadata.annotations.get(CONFIG_HASH_ANNOTATION):
            return key, "unchanged"
        self.pods[key] = pod
        return key, "created" if old is None else "configured"

    def remove(self, key: tuple[str, str]) -> Pod | None:
        """The manifest's file is gone: the static pod is no longer wanted here."""
        return self.pods.pop(key, None)

    def path(self) -> str:
        return self.kubelet.config.static_pod_path or "/etc/kubernetes/manifests"

    def adopt(self, key: tuple[str, str], mirror: Pod) -> Pod:
        """A mirror pod in the API with no manifest here (a loaded export) becomes ours."""
        self.pods[key] = adopt_mirror(mirror)
        return self.pods[key]

    def sync_mirror(self, key: tuple[str, str], pod: Pod | None) -> Pod | None:
        """Keep the mirror of a static pod in the API: replace it when it is deleted. Returns
        the mirror created now, if one was."""
        if pod is not None and pod.is_mirror and pod.metadata.deletion_timestamp is not None:
            self.store.remove("Pod", key[1], key[0])
            pod = None
        if pod is not None:
            return None
        try:
            return self.store.create(self.pods[key])
        except KsandboxError as exc:
            node = self.store.get("Node", self.kubelet.name)
            if node is not None:
                self.store.record_event(node, "Warning", "FailedCreateMirrorPod",
                                        f'Failed creating a mirror pod for "{key[1]}": {exc}',
                                        "kubelet")
            return None
