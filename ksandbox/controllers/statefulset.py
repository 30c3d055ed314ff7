"""The StatefulSet controller: pods with stable names (``<set>-0`` … ``<set>-N-1``), each with
its own PersistentVolumeClaims, created and removed in order.

Ported from upstream ``pkg/controller/statefulset/stateful_set_control.go`` (updateStatefulSet:
the replicas/condemned split, the OrderedReady "wait for the predecessor" rule, scale-down from
the highest ordinal, rolling update in reverse ordinal order above the partition) and
``stateful_set_utils.go`` (getPodName, getPersistentVolumeClaimName, updateIdentity,
updateStorage, the pod-name / pod-index / controller-revision-hash labels), in our own words:

* Each ordinal below ``replicas`` must have a pod. Under ``OrderedReady`` a missing pod is only
  created when every lower ordinal is Running and Ready, and nothing else happens while a pod
  is not; under ``Parallel`` every missing pod is created at once.
* A Failed pod is deleted and recreated under the same name (stable identity).
* Scale down deletes the highest ordinal first; under ``OrderedReady`` one at a time, only when
  every remaining pod is Running and Ready and the previous deletion has finished.
* Each pod gets a claim ``<template>-<set>-<ordinal>`` per ``volumeClaimTemplates`` entry (kept
  after scale-down: the retention policy's default ``Retain``), its volume pointing at it,
  ``hostname`` = pod name and ``subdomain`` = ``serviceName``.
* A template change makes a new ControllerRevision (``<set>-<hash>``); with ``RollingUpdate``
  pods of the old revision are deleted from the highest ordinal down, one at a time, waiting for
  the replacement to be Ready (ordinals below ``partition`` keep the old revision);
  ``OnDelete`` waits for the user to delete them.

Events are upstream's: ``SuccessfulCreate`` "create Pod web-0 in StatefulSet web successful",
"create Claim data-web-0 Pod web-0 in StatefulSet web success", ``SuccessfulDelete`` "delete
Pod web-2 in StatefulSet web successful". Not here: ``maxUnavailable`` rolling updates,
``ordinals.start`` (read but ordinals always start at 0), claim deletion by the retention
policy, adoption of orphan pods.
"""

from __future__ import annotations

from typing import Any

from ..api.apps import POD_INDEX_LABEL, STATEFULSET_POD_NAME_LABEL, ControllerRevision
from ..api.codec import FrozenDict, decode, encode, freeze, thaw
from ..api.core import FAILED, Pod, Volume
from ..api.errors import ApiError, KsandboxError
from ..api.evolve import evolve
from ..api.meta import ObjectMeta, owner_ref_for
from ..apiserver.informers import Informers
from ..apiserver.store import DELETED, WatchEvent
from .base import Controller
from .controller_utils import compute_hash, pod_ready, server_message

COMPONENT = "statefulset-controller"
REVISION_LABEL = "controller-revision-hash"


def ordinal_of(set_name: str, pod_name: str) -> int | None:
    """getParentNameAndOrdinal: the ordinal of ``<set>-<n>``, or None."""
    prefix = set_name + "-"
    if not pod_name.startswith(prefix):
        return None
    rest = pod_name[len(prefix):]
    return int(rest) if rest.isdigit() else None


def claim_name(template_name: str, set_name: str, ordinal: int) -> str:
    return f"{template_name}-{set_name}-{ordinal}"


def _running_and_ready(pod: Pod) -> bool:
    return pod.status.phase == "Running" and pod_ready(pod) and \
        pod.metadata.deletion_timestamp is None


class StatefulSetController(Controller):
    name = "statefulset"

    def __init__(self, informers: Informers) -> None:
        self.pods = informers.pods   # the shared index: pods by controller uid

    def start(self, cp: Any) -> None:
        self._templates: dict[tuple[str, int], tuple[Any, Any, Any]] = {}
        # set uid -> (the template's hash when first seen, the revision name its status gave)
        self._first_revision: dict[str, tuple[str, str]] = {}
        super().start(cp)

    def watch(self) -> None:
        # orphans=False: a StatefulSet adopts no orphan here (_pod_changed ignores owner None);
        # so it hears only the pods a StatefulSet controls (OwnerHandler.owners)
        pods = self.pods.handler("StatefulSet", self._pod_changed, orphans=False)
        self.store.subscribe("Pod", pods, owners=pods.owners)
        self.store.subscribe("StatefulSet", self._set_event)

    def _set_event(self, ev: WatchEvent) -> None:
        if ev.type == DELETED:
            return
        if ev.old is None or ev.old.spec is not ev.obj.spec:
            self.queue.add((ev.obj.metadata.namespace, ev.obj.metadata.name))

    def _pod_changed(self, ns: str, owner: str | None, ev: WatchEvent) -> None:
        if owner is not None:
            self.queue.add((ns, owner))

    # -- sync ------------------------------------------------------------------------------
    def sync(self, key: tuple[str, str]) -> None:
        ns, name = key
        sts = self.store.get("StatefulSet", name, ns)
        if sts is None or sts.metadata.deletion_timestamp is not None:
            return
        revision, rev_number = self._revision(sts)
        spec = sts.spec
        replicas = spec.replicas if spec.replicas is not None else 1
        ordered = not spec.parallel
        by_ordinal: dict[int, Any] = {}
        for pod in self.pods.owned(sts.metadata.uid).values():
            o = ordinal_of(name, pod.metadata.name)
            if o is not None:
                by_ordinal[o] = pod
        # 1. Replace failed pods, create missing ones (in order, or all at once).
        for o in range(replicas):
            pod = by_ordinal.get(o)
            if pod is not None and pod.status.phase == FAILED and \
                    pod.metadata.deletion_timestamp is None:
                if not self._request(key):
                    return self._status(sts, revision)
                self._delete(sts, pod)
                if ordered:
                    return self._status(sts, revision)
                continue
            if pod is None:
                if not self._request(key):
                    return self._status(sts, revision)
                if self._create(sts, o, revision) is None or ordered:
                    return self._status(sts, revision)
                continue
            if ordered and not _running_and_ready(pod):
                # "StatefulSet is waiting for Pod to be Running and Ready".
                return self._status(sts, revision)
        # 2. Condemned pods: highest ordinal first.
        condemned = sorted((o for o in by_ordinal if o >= replicas), reverse=True)
        for o in condemned:
            pod = by_ordinal[o]
            if pod.metadata.deletion_timestamp is not None:
                if ordered:
                    return self._status(sts, revision)
                continue
            if ordered and not all(_running_and_ready(by_ordinal[i]) for i in by_ordinal
                                   if i != o and i < o):
                return self._status(sts, revision)
            self._delete(sts, pod)
            if ordered:
                return self._status(sts, revision)
        # 3. Rolling update, highest ordinal first, down to the partition.
        if spec.update_strategy.type in ("", "RollingUpdate"):
            ru = spec.update_strategy.rolling_update
            partition = int(ru.get("partition", 0) or 0) if isinstance(ru, dict) else 0
            for o in sorted((o for o in by_ordinal if o < replicas), reverse=True):
                if o < partition:
                    break
                pod = by_ordinal[o]
                if pod.metadata.labels.get(REVISION_LABEL) == revision:
                    if not _running_and_ready(pod):
                        break  # wait for the updated pod before the next
                    continue
                if pod.metadata.deletion_timestamp is None and \
                        all(_running_and_ready(p) for i, p in by_ordinal.items()
                            if i != o and i < replicas):
                    self._delete(sts, pod)
                break
        self._status(sts, revision)

    # -- revisions -------------------------------------------------------------------------
    def _revision(self, sts: Any) -> tuple[str, int]:
        """The update revision's name (``<set>-<hash>``, what pods carry in
        ``controller-revision-hash`` and the status names), creating its ControllerRevision
        when new. A set loaded from an export comes without its ControllerRevisions and with
        pods labelled by the real controller's hash, which the sandbox does not reproduce:
        while its template is the one it was loaded with, the revision its status names
        (``updateRevision``) stands for that template, so its pods are not rolled for
        nothing."""
        h = compute_hash(sts.spec.template)
        ns, name = sts.metadata.namespace, sts.metadata.name
        uid = sts.metadata.uid
        owned = [cr for cr in self.store.list("ControllerRevision", ns)
                 if (ref := cr.metadata.controller_ref()) is not None and ref.uid == uid]
        first = self._first_revision.get(uid)
        if first is None:
            exported = sts.status.update_revision or ""
            first = self._first_revision[uid] = (h, exported if not owned else "")
        rev_name = first[1] if first[0] == h and first[1] else f"{name}-{h}"
        existing = self.store.get("ControllerRevision", rev_name, ns)
        if existing is not None:
            return rev_name, existing.revision
        number = max((cr.revision for cr in owned), default=0) + 1
        labels = dict(sts.spec.template.metadata.labels)
        labels[REVISION_LABEL] = rev_name.rpartition("-")[2]
        cr = ControllerRevision(
            metadata=ObjectMeta(name=rev_name, namespace=ns, labels=FrozenDict(labels),
                                owner_references=(owner_ref_for(sts, "apps/v1"),)),
            data=freeze({"spec": {"template": encode(sts.spec.template)}}), revision=number)
        try:
            self.store.create(cr)
        except KsandboxError:
            pass
        return rev_name, number

    # -- pods and claims ---------------------------------------------------------------------
    def _new_pod(self, sts: Any, ordinal: int, revision: str) -> Pod:
        name = f"{sts.metadata.name}-{ordinal}"
        tmpl = sts.spec.template
        labels = dict(tmpl.metadata.labels)
        labels.update({STATEFULSET_POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
                       REVISION_LABEL: revision})
        spec = tmpl.spec
        extra = dict(spec.extra)
        extra["hostname"] = name
        if sts.spec.service_name:
            extra["subdomain"] = sts.spec.service_name
        volumes = [v for v in spec.volumes]
        for t in sts.spec.volume_claim_templates:
            tname = (t.get("metadata") or {}).get("name", "")
            claim = {"claimName": claim_name(tname, sts.metadata.name, ordinal)}
            vol = Volume(name=tname, persistent_volume_claim=freeze(claim))
            volumes = [v for v in volumes if v.name != tname] + [vol]
        spec = evolve(spec, volumes=tuple(volumes), extra=FrozenDict(extra))
        return Pod(metadata=ObjectMeta(name=name, namespace=sts.metadata.namespace,
                                       labels=FrozenDict(labels),
                                       annotations=tmpl.metadata.annotations,
                                       owner_references=(owner_ref_for(sts, "apps/v1"),)),
                   spec=spec)

    def _claims(self, sts: Any, ordinal: int, pod_name: str) -> bool:
        ns, set_name = sts.metadata.namespace, sts.metadata.name
        for t in sts.spec.volume_claim_templates:
            meta = t.get("metadata") or {}
            cname = claim_name(meta.get("name", ""), set_name, ordinal)
            if self.store.get("PersistentVolumeClaim", cname, ns) is not None:
                continue
            labels = dict(meta.get("labels") or {})
            labels.update(sts.spec.selector.match_labels if sts.spec.selector else {})
            # the claim's type loads with the first claim (api/kinds.py), not at start
            from ..api.storage import PersistentVolumeClaim

            try:
                claim = decode(PersistentVolumeClaim, {"apiVersion": "v1",
                                                       "kind": "PersistentVolumeClaim",
                                                       "spec": thaw(t.get("spec") or {})})
                claim = evolve(claim, metadata=ObjectMeta(
                    name=cname, namespace=ns, labels=FrozenDict(labels),
                    annotations=FrozenDict(meta.get("annotations") or {})))
                self.store.create(claim)
            except KsandboxError as err:
                self.store.record_event(sts, "Warning", "FailedCreate",
                                        f"create Claim {cname} for Pod {pod_name} in StatefulSet "
                                        f"{set_name} failed error: {server_message(err)}",
                                        COMPONENT)
                return False
            self.store.record_event(sts, "Normal", "SuccessfulCreate",
                                    f"create Claim {cname} Pod {pod_name} in StatefulSet "
                                    f"{set_name} success", COMPONENT)
        return True

    def _request(self, key: tuple[str, str]) -> bool:
        """Spend a token of the controller's API client for a pod create or delete; without
        one, come back when the next token comes (a StatefulSet whose pods the kubelet
        rejects as fast as they are made replaces them 20 a second, not forever at once)."""
        now = self.clock.now
        if self.client.available(now) < 1:
            self.queue.add_after(key, self.client.next_token_in(now))
            return False
        self.client.take(now)
        return True

    def _create(self, sts: Any, ordinal: int, revision: str) -> Any:
        pod = self._new_pod(sts, ordinal, revision)
        pod_name, set_name = pod.metadata.name, sts.metadata.name
        if not self._claims(sts, ordinal, pod_name):
            self.queue.add_after((sts.metadata.namespace, set_name), 10.0, background=True)
            return None
        if self.store.get("Pod", pod_name, sts.metadata.namespace) is not None:
            return None  # the old pod of this name is still terminating
        try:
            created = self.store.create(pod)
        except KsandboxError as err:
            self.store.record_event(sts, "Warning", "FailedCreate",
                                    f"create Pod {pod_name} in StatefulSet {set_name} failed "
                                    f"error: {server_message(err)}", COMPONENT)
            self.queue.add_after((sts.metadata.namespace, set_name), 10.0, background=True)
            return None
        self.store.record_event(sts, "Normal", "SuccessfulCreate",
                                f"create Pod {pod_name} in StatefulSet {set_name} successful",
                                COMPONENT)
        return created

    def _delete(self, sts: Any, pod: Pod) -> None:
        try:
            self.store.delete("Pod", pod.metadata.name, pod.metadata.namespace)
        except ApiError:
            return
        self.store.record_event(sts, "Normal", "SuccessfulDelete",
                                f"delete Pod {pod.metadata.name} in StatefulSet "
                                f"{sts.metadata.name} successful", COMPONENT)

    # -- status ------------------------------------------------------------------------------
    def _status(self, sts: Any, revision: str) -> None:
        sts = self.store.get("StatefulSet", sts.metadata.name, sts.metadata.namespace) or sts
        pods = [p for p in self.pods.owned(sts.metadata.uid).values()
                if p.metadata.deletion_timestamp is None and not p.is_terminated]
        ready = [p for p in pods if pod_ready(p)]
        updated = [p for p in pods if p.metadata.labels.get(REVISION_LABEL) == revision]
        current_rev = sts.status.current_revision or revision
        if len(updated) == len(pods):
            current_rev = revision
        current = [p for p in pods if p.metadata.labels.get(REVISION_LABEL) == current_rev]
        status = evolve(sts.status, replicas=len(pods), ready_replicas=len(ready),
                        available_replicas=len(ready), updated_replicas=len(updated),
                        current_replicas=len(current), current_revision=current_rev,
                        update_revision=revision,
                        observed_generation=sts.metadata.generation)
        if status != sts.status:
            self.store.update_status(evolve(sts, status=status))
