"""The persistent-volume controller: binds claims to volumes, and stands in for the external
provisioner of each StorageClass.

Ported from upstream ``pkg/controller/volume/persistentvolume/pv_controller.go`` (syncClaim,
syncUnboundClaim, syncBoundClaim, syncVolume, bind, provisionClaim,
emitEventForUnboundDelayBindingClaim) in our own words, with the matching rules of
``api/volume_helpers.py`` (shared with the scheduler's VolumeBinding):

* An unbound claim binds to a volume pre-bound to it, else to the smallest Available volume
  that fits (class, capacity, access modes, volume mode, selector). Binding writes the PV's
  ``claimRef`` and phase Bound, and the claim's ``volumeName``, ``pv.kubernetes.io/
  bind-completed``, phase Bound, capacity and access modes.
* A WaitForFirstConsumer claim is left to the scheduler: Normal event
  ``WaitForFirstConsumer`` "waiting for first consumer to be created before binding" (or
  ``WaitForPodScheduled`` "waiting for pod NAME to be scheduled" once a pod uses it) until the
  scheduler writes ``volume.kubernetes.io/selected-node`` or binds a volume to it.
* No volume fits: a claim with a class is provisioned (Normal ``ExternalProvisioning``
  "Waiting for a volume to be created either by the external provisioner 'P' or manually by
  the system administrator. ..."), except for ``kubernetes.io/no-provisioner`` (Warning
  ``ProvisioningFailed`` "no volume plugin matched name: kubernetes.io/no-provisioner") or a
  missing class; a claim without a class waits: ``FailedBinding`` "no persistent volumes
  available for this claim and no storage class is set".
* The external provisioner (a CSI driver's sidecar upstream) is simulated here: events
  ``Provisioning`` and ``ProvisioningSucceeded`` from the provisioner, a PV
  ``pvc-<claim uid>`` of the requested size, pre-bound to the claim, with the class's reclaim
  policy. Its node affinity pins it to a zone (``topology.kubernetes.io/zone``): the selected
  node's zone for WaitForFirstConsumer, else the first zone of ``allowedTopologies``, else a
  seeded pick among the nodes' zones — an Immediate volume lands in some zone before any pod
  exists, which is what makes WaitForFirstConsumer worth teaching. No zones: no affinity.
* A volume whose claim is gone: reclaim policy Delete removes it, Retain leaves it Released.
  A new volume with no claim becomes Available.

Not here: the periodic resync (every change is watched), volume expansion, recycling, the
protection finalizers, claim selectors on provisioning, data sources.
"""

from __future__ import annotations

from typing import Any, Collection, Sequence

from ..api.codec import FrozenDict
from ..api.core import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from ..api.errors import ApiError, KsandboxError
from ..api.evolve import evolve
from ..api.meta import ObjectMeta
from ..api.storage_names import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    BINDING_WAIT,
    CLAIM_BOUND,
    CLAIM_LOST,
    CLAIM_PENDING,
    PV_AVAILABLE,
    PV_BOUND,
    PV_RELEASED,
)
from ..api.volume_helpers import (
    NOT_SUPPORTED_PROVISIONER,
    STORAGE,
    claim_class,
    find_matching_volume,
    is_bound_to_claim,
    pod_claim_names,
)
from ..apiserver.store import ADDED, DELETED, WatchEvent
from .base import Controller

COMPONENT = "persistentvolume-controller"
ZONE_LABEL = "topology.kubernetes.io/zone"
BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
EXTERNAL_WAIT = ("Waiting for a volume to be created either by the external provisioner '{}' "
                 "or manually by the system administrator. If volume creation is delayed, "
                 "please verify that the provisioner is running and correctly registered.")


# The storage types (api/storage.py) are imported where a volume is bound or made: they load
# with the first storage object (api/kinds.py), and most sandboxes hold none.


class PersistentVolumeController(Controller):
    name = "persistentvolume"

    def start(self, cp: Any) -> None:
        self.rand = cp.rand.child(self.name)
        super().start(cp)

    def watch(self) -> None:
        self.store.subscribe("PersistentVolumeClaim", self._claim_event)
        self.store.subscribe("PersistentVolume", self._volume_event)
        self.store.subscribe("StorageClass", self._class_event)
        # _pod_event acts on a new pod only (ev.old None: only ADDED has none; a pod's
        # MODIFIED always carries its old version)
        self.store.subscribe("Pod", self._pod_event, types=(ADDED,))

    # -- a Session's load (bulk start: session.py) ---------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The pod watch, for a load none of whose pods names a claim: it would queue
        nothing (and arm no drain timer) for any of them."""
        if "Pod" not in kinds:
            return []
        # (a pod without volumes names no claim: pod_claim_names is asked only of the others)
        if any(pod_claim_names(o) for o in objects if o.kind == "Pod" and o.spec.volumes):
            return []
        return [("Pod", self._pod_event)]

    def load_done(self) -> None:
        pass   # nothing was missed (muted_for_load)

    # -- handlers: only enqueue ------------------------------------------------------------
    def _claim_event(self, ev: WatchEvent) -> None:
        m = ev.obj.metadata
        if ev.type == DELETED:
            # A volume bound to it is released (or deleted).
            name = ev.obj.spec.volume_name
            if name:
                self.queue.add(("volume", "", name))
            return
        self.queue.add(("claim", m.namespace, m.name))

    def _volume_event(self, ev: WatchEvent) -> None:
        if ev.type == DELETED:
            ref = ev.obj.spec.claim_ref
            if ref is not None:
                self.queue.add(("claim", ref.namespace, ref.name))
            return
        self.queue.add(("volume", "", ev.obj.metadata.name))
        # A new or freed volume may fit a waiting claim.
        for pvc in self.store.list("PersistentVolumeClaim"):
            if not pvc.spec.volume_name:
                self.queue.add(("claim", pvc.metadata.namespace, pvc.metadata.name))

    def _class_event(self, ev: WatchEvent) -> None:
        if ev.type == DELETED:
            return
        for pvc in self.store.list("PersistentVolumeClaim"):
            if not pvc.spec.volume_name and claim_class(pvc) == ev.obj.metadata.name:
                self.queue.add(("claim", pvc.metadata.namespace, pvc.metadata.name))

    def _pod_event(self, ev: WatchEvent) -> None:
        # A pod that names an unbound WaitForFirstConsumer claim changes its event's wording.
        if ev.old is not None or ev.type == DELETED:
            return
        for name in pod_claim_names(ev.obj):
            self.queue.add(("claim", ev.obj.metadata.namespace, name))

    # -- sync ------------------------------------------------------------------------------
    def sync(self, key: tuple[str, str, str]) -> None:
        what, ns, name = key
        if what == "claim":
            pvc = self.store.get("PersistentVolumeClaim", name, ns)
            if pvc is not None and pvc.metadata.deletion_timestamp is None:
                self._sync_claim(pvc)
        else:
            pv = self.store.get("PersistentVolume", name)
            if pv is not None and pv.metadata.deletion_timestamp is None:
                self._sync_volume(pv)

    def _sync_claim(self, pvc: Any) -> None:
        if pvc.spec.volume_name:
            self._sync_bound_claim(pvc)
            return
        classes = {sc.metadata.name: sc for sc in self.store.list("StorageClass")}
        cls_name = claim_class(pvc)
        sc = classes.get(cls_name) if cls_name else None
        delay = sc is not None and sc.binding_mode == BINDING_WAIT
        pv = find_matching_volume(pvc, self.store.list("PersistentVolume"),
                                  delay_binding=delay)
        if pv is not None:
            self._bind(pv, pvc)
            return
        selected = pvc.metadata.annotations.get(ANN_SELECTED_NODE)
        if delay and selected is None:
            self._wait_for_consumer(pvc)
        elif cls_name:
            self._provision(pvc, sc)
        else:
            self._event(pvc, "Normal", "FailedBinding",
                        "no persistent volumes available for this claim and no storage class "
                        "is set")
        self._claim_phase(pvc, CLAIM_PENDING)

    def _sync_bound_claim(self, pvc: Any) -> None:
        pv = self.store.get("PersistentVolume", pvc.spec.volume_name)
        if pv is None:
            if pvc.status.phase == CLAIM_BOUND:
                self._event(pvc, "Warning", "ClaimLost",
                            "Bound claim has lost its PersistentVolume. Data on the volume is "
                            "lost!")
                self._claim_phase(pvc, CLAIM_LOST)
            return
        if pv.spec.claim_ref is None or is_bound_to_claim(pv, pvc):
            self._bind(pv, pvc)
        elif pvc.status.phase != CLAIM_BOUND:
            self._event(pvc, "Warning", "FailedBinding",
                        f"volume \"{pv.metadata.name}\" already bound to a different claim.")

    def _sync_volume(self, pv: Any) -> None:
        ref = pv.spec.claim_ref
        phase = pv.status.phase
        if ref is None:
            if phase != PV_AVAILABLE:
                self._volume_phase(pv, PV_AVAILABLE)
            return
        pvc = self.store.get("PersistentVolumeClaim", ref.name, ref.namespace)
        if pvc is not None and ref.uid and ref.uid != pvc.metadata.uid:
            pvc = None   # a new claim of the same name is not this volume's claim
        if pvc is None:
            if not ref.uid:
                # Pre-bound by name to a claim not created yet: Available for it.
                if phase != PV_AVAILABLE:
                    self._volume_phase(pv, PV_AVAILABLE)
                return
            # Its claim is gone: reclaim (Delete removes the volume, Retain keeps it).
            if pv.spec.persistent_volume_reclaim_policy == "Delete":
                try:
                    self.store.delete("PersistentVolume", pv.metadata.name)
                except ApiError:
                    pass
            elif phase != PV_RELEASED:
                self._volume_phase(pv, PV_RELEASED)
            return
        if not pvc.spec.volume_name:
            self.queue.add(("claim", pvc.metadata.namespace, pvc.metadata.name))

    # -- writes ----------------------------------------------------------------------------
    def _bind(self, pv: Any, pvc: Any) -> None:
        """bind: the volume to the claim, then the claim to the volume."""
        from ..api.storage import ObjectRef

        ref = ObjectRef(kind="PersistentVolumeClaim", namespace=pvc.metadata.namespace,
                        name=pvc.metadata.name, uid=pvc.metadata.uid, api_version="v1",
                        resource_version=pvc.metadata.resource_version)
        if pv.spec.claim_ref != ref or pv.status.phase != PV_BOUND:
            ann = dict(pv.metadata.annotations)
            if pv.spec.claim_ref is None:
                ann[ANN_BOUND_BY_CONTROLLER] = "yes"
            pv = self.store.update(evolve(
                pv, metadata=evolve(pv.metadata, annotations=FrozenDict(ann)),
                spec=evolve(pv.spec, claim_ref=ref)))
            pv = self.store.update_status(evolve(pv, status=evolve(
                pv.status, phase=PV_BOUND)))
        ann = dict(pvc.metadata.annotations)
        changed = False
        if pvc.spec.volume_name != pv.metadata.name:
            ann[ANN_BOUND_BY_CONTROLLER] = "yes"
            changed = True
        if ANN_BIND_COMPLETED not in ann:
            ann[ANN_BIND_COMPLETED] = "yes"
            changed = True
        if changed:
            pvc = self.store.update(evolve(
                pvc, metadata=evolve(pvc.metadata, annotations=FrozenDict(ann)),
                spec=evolve(pvc.spec, volume_name=pv.metadata.name)))
        status = evolve(pvc.status, phase=CLAIM_BOUND, access_modes=pv.spec.access_modes,
                        capacity=pv.spec.capacity)
        if status != pvc.status:
            self.store.update_status(evolve(pvc, status=status))

    def _claim_phase(self, pvc: Any, phase: str) -> None:
        cur = self.store.get("PersistentVolumeClaim", pvc.metadata.name, pvc.metadata.namespace)
        if cur is not None and cur.status.phase != phase:
            self.store.update_status(evolve(cur, status=evolve(cur.status,
                                                               phase=phase)))

    def _volume_phase(self, pv: Any, phase: str) -> None:
        self.store.update_status(evolve(pv, status=evolve(pv.status, phase=phase)))

    def _event(self, obj: Any, type_: str, reason: str, message: str,
               component: str = COMPONENT) -> None:
        self.store.record_event(obj, type_, reason, message, component)

    def _wait_for_consumer(self, pvc: Any) -> None:
        ns = pvc.metadata.namespace
        waiting = sorted(p.metadata.name for p in self.store.list("Pod", ns)
                         if not p.spec.node_name and pvc.metadata.name in pod_claim_names(p))
        if len(waiting) > 1:
            self._event(pvc, "Normal", "WaitForPodScheduled",
                        f"waiting for pods {','.join(waiting)} to be scheduled")
        elif waiting:
            self._event(pvc, "Normal", "WaitForPodScheduled",
                        f"waiting for pod {waiting[0]} to be scheduled")
        else:
            self._event(pvc, "Normal", "WaitForFirstConsumer",
                        "waiting for first consumer to be created before binding")

    def _provision(self, pvc: Any, sc: Any) -> None:
        cls_name = claim_class(pvc)
        if sc is None:
            self._event(pvc, "Warning", "ProvisioningFailed",
                        f'storageclass.storage.k8s.io "{cls_name}" not found')
            return
        provisioner = sc.provisioner
        if provisioner == NOT_SUPPORTED_PROVISIONER or not provisioner:
            self._event(pvc, "Warning", "ProvisioningFailed",
                        f"no volume plugin matched name: {provisioner}")
            return
        if pvc.metadata.annotations.get(ANN_STORAGE_PROVISIONER) != provisioner:
            ann = dict(pvc.metadata.annotations)
            ann[ANN_STORAGE_PROVISIONER] = provisioner
            ann[BETA_STORAGE_PROVISIONER] = provisioner
            pvc = self.store.update(evolve(pvc, metadata=evolve(
                pvc.metadata, annotations=FrozenDict(ann))))
            self._event(pvc, "Normal", "ExternalProvisioning", EXTERNAL_WAIT.format(provisioner))
        self._external_provision(pvc, sc)

    def _external_provision(self, pvc: Any, sc: Any) -> None:
        """What the class's external provisioner does: make the volume, pre-bound."""
        from ..api.storage import (
            ObjectRef,
            PersistentVolume,
            PersistentVolumeSpec,
            VolumeNodeAffinity,
        )

        name = f"pvc-{pvc.metadata.uid}"
        if self.store.get("PersistentVolume", name) is not None:
            return
        ns = pvc.metadata.namespace
        self._event(pvc, "Normal", "Provisioning",
                    f'External provisioner is provisioning volume for claim "{ns}/'
                    f'{pvc.metadata.name}"', sc.provisioner)
        requested = pvc.spec.resources.requests.get(STORAGE)
        zone = self._zone_for(pvc, sc)
        affinity = None
        if zone is not None:
            affinity = VolumeNodeAffinity(required=NodeSelector(node_selector_terms=(
                NodeSelectorTerm(match_expressions=(NodeSelectorRequirement(
                    key=ZONE_LABEL, operator="In", values=(zone,)),)),)))
        ref = ObjectRef(kind="PersistentVolumeClaim", namespace=ns, name=pvc.metadata.name,
                        uid=pvc.metadata.uid, api_version="v1",
                        resource_version=pvc.metadata.resource_version)
        pv = PersistentVolume(
            metadata=ObjectMeta(name=name, annotations=FrozenDict(
                {ANN_PROVISIONED_BY: sc.provisioner})),
            spec=PersistentVolumeSpec(
                capacity=FrozenDict({STORAGE: requested}) if requested is not None
                else FrozenDict(),
                access_modes=pvc.spec.access_modes, claim_ref=ref,
                persistent_volume_reclaim_policy=sc.reclaim_policy or "Delete",
                storage_class_name=sc.metadata.name, volume_mode=pvc.spec.volume_mode,
                node_affinity=affinity,
                extra=FrozenDict({"csi": FrozenDict({"driver": sc.provisioner,
                                                     "volumeHandle": name})})))
        try:
            self.store.create(pv)
        except KsandboxError as err:
            self._event(pvc, "Warning", "ProvisioningFailed", str(err), sc.provisioner)
            return
        self._event(pvc, "Normal", "ProvisioningSucceeded",
                    f"Successfully provisioned volume {name}", sc.provisioner)

    def _zone_for(self, pvc: Any, sc: Any) -> str | None:
        selected = pvc.metadata.annotations.get(ANN_SELECTED_NODE)
        if selected is not None:
            node = self.store.get("Node", selected)
            return node.metadata.labels.get(ZONE_LABEL) if node is not None else None
        for term in sc.allowed_topologies:
            for e in (term.get("matchLabelExpressions") or ()) if hasattr(term, "get") else ():
                if hasattr(e, "get") and e.get("key") == ZONE_LABEL and e.get("values"):
                    return str(e["values"][0])
        zones = sorted({z for n in self.store.nodes()
                        if (z := n.metadata.labels.get(ZONE_LABEL))})
        if not zones:
            return None
        return zones[int(self.rand.random() * len(zones)) % len(zones)]
