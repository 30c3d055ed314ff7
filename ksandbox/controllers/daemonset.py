"""The DaemonSet controller: one pod on every node that should run one.

A node should run the DaemonSet's pod when the pod template's nodeSelector and required node
affinity match it and it has no NoSchedule/NoExecute taint the pod (with the automatic
DaemonSet tolerations) does not tolerate; a pod already there may keep running on a node whose
only untolerated taints are NoSchedule. Pods are created for their node but placed by the
default scheduler (as upstream since 1.12): the template's required node affinity is replaced
by ``matchFields metadata.name In [<node>]``, so each pod's spec names its node. A new node gets
a pod, a node that stops qualifying loses it, a template change rolls out node by node within
maxUnavailable (RollingUpdate; OnDelete waits for the user to delete pods).

Ported from upstream ``pkg/controller/daemon/daemon_controller.go`` (syncDaemonSet, manage,
podsShouldBeOnNode, NodeShouldRunDaemonPod, updateDaemonSetStatus, the node handlers),
``update.go`` (rollingUpdate without surge) and ``util/daemonset_util.go``
(AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName),
in our own words; the pure pieces are in ``daemonset_util.py``.

Not here: maxSurge rolling updates (surge is treated as 0), ControllerRevision objects (the
revision hash is computed, not stored), and deleting pods bound to a node that was deleted —
upstream leaves those to the pod garbage collector (podgc), and so does the sandbox; unbound
pods aimed at a vanished node are deleted here, as upstream does. Cascading deletion of a
deleted DaemonSet's pods is the garbage collector's business (``kubectl delete`` does it when
no garbage collector runs).
"""

from __future__ import annotations

from typing import Any

from ..api.codec import FrozenDict
from ..api.core import Pod
from ..api.errors import ApiError, KsandboxError
from ..api.evolve import evolve
from ..api.meta import ObjectMeta, owner_ref_for
from ..apiserver.informers import Informers
from ..apiserver.store import ADDED, DELETED, WatchEvent
from .base import Controller
from .controller_utils import (
    compute_hash,
    generate_name,
    pod_available,
    pod_ready,
    scaled_value,
    server_message,
)
from .daemonset_util import (
    REVISION_HASH_LABEL,
    TEMPLATE_GENERATION_ANNOTATION,
    TEMPLATE_GENERATION_LABEL,
    daemon_tolerations,
    node_name_affinity,
    should_run,
    target_node,
)

COMPONENT = "daemonset-controller"
# pkg/controller/daemon: BurstReplicas, the most pods created in one sync.
BURST_REPLICAS = 250
# pkg/controller/daemon: failedPodsBackoff, 1 s doubling to 15 min per (DaemonSet, node).
FAILED_BACKOFF_INITIAL, FAILED_BACKOFF_MAX = 1.0, 900.0
# client-go workqueue: retry of a failed create, 5 ms doubling to 1000 s.
RETRY_BASE, RETRY_MAX = 0.005, 1000.0


def _scheduled_then_oldest(pod: Any) -> tuple:
    """podByCreationTimestampAndPhase: bound pods first, then the oldest, then by name."""
    return (0 if pod.spec.node_name else 1, pod.metadata.creation_timestamp or 0.0,
            pod.metadata.name)


class DaemonSetController(Controller):
    name = "daemonset"

    def __init__(self, informers: Informers) -> None:
        self.pods = informers.pods   # the shared index: pods by controller uid, orphans

    def start(self, cp: Any) -> None:
        self.rand = cp.rand.child(self.name)
        self.dss: dict[tuple[str, str], Any] = {}
        self._templates: dict[int, tuple[Any, Any, str]] = {}
        self._failed_backoff: dict[tuple[str, str], tuple[float, float]] = {}
        self._retries: dict[tuple[str, str], int] = {}
        self._scan_orphans: set[str] = set()
        # DaemonSet uid -> names of orphans it may adopt, in the order heard (a set's order
        # follows each process's string hash: adoptions were written in another order per run)
        self._adoptable: dict[str, dict[str, None]] = {}
        # DaemonSet uid -> (the template's hash when first seen, its template generation).
        self._first_template: dict[str, tuple[str, str]] = {}
        super().start(cp)

    def watch(self) -> None:
        # Only pods a DaemonSet controls, or orphans it may adopt (OwnerHandler.owners):
        # orphans only while a DaemonSet exists (_hear_orphans)
        self._pod_watch = pods = self.pods.handler("DaemonSet", self._pod_changed)
        self.store.subscribe("Pod", pods, owners=pods.owners)
        self._orphans_heard = True
        self._hear_orphans()
        self.store.subscribe("DaemonSet", self._ds_event)
        # A status write (a heartbeat) keeps the labels and spec: _node_event returns at once
        self.store.subscribe("Node", self._node_event, status=False)

    # -- watch handlers: they only enqueue ---------------------------------------------------
    def _ds_event(self, ev: WatchEvent) -> None:
        ds = ev.obj
        key = (ds.metadata.namespace, ds.metadata.name)
        if ev.type == DELETED:
            self.dss.pop(key, None)
            self._hear_orphans()
            self._scan_orphans.discard(ds.metadata.uid)
            self._adoptable.pop(ds.metadata.uid, None)
            return
        self.dss[key] = ds
        if not self._orphans_heard:
            self._hear_orphans()
        if ev.old is None or ev.old.spec.selector != ds.spec.selector:
            self._scan_orphans.add(ds.metadata.uid)
        if ev.old is None or ev.old.spec is not ds.spec:
            self.queue.add(key)

    def _hear_orphans(self) -> None:
        """Orphan pods' writes reach _pod_changed only while a DaemonSet exists: with none,
        its owner-None branch loops over no DaemonSet."""
        heard = bool(self.dss)
        if heard != self._orphans_heard:
            self._orphans_heard = heard
            self._pod_watch.hear_orphans(self.store, heard)

    def _pod_changed(self, ns: str, owner: str | None, ev: WatchEvent) -> None:
        if owner is not None:
            self.queue.add((ns, owner))
            return
        if ev.type == DELETED:
            return
        labels = ev.obj.metadata.labels
        for (dns, name), ds in self.dss.items():
            sel = ds.spec.selector
            if dns == ns and sel is not None and not sel.empty and sel.matches(labels):
                self._adoptable.setdefault(ds.metadata.uid, {})[ev.obj.metadata.name] = None
                self.queue.add((ns, name))

    def _node_event(self, ev: WatchEvent) -> None:
        node, old = ev.obj, ev.old
        if ev.type == DELETED:
            for key in self.dss:
                self.queue.add(key)
            return
        if ev.type == ADDED or old is None:
            for key, ds in self.dss.items():
                if should_run(node, ds.spec.template.spec, self._template(ds)[0])[0]:
                    self.queue.add(key)
            return
        # Heartbeats change only the status: nothing a DaemonSet looks at (shouldIgnoreNodeUpdate).
        if old.metadata.labels is node.metadata.labels and old.spec is node.spec:
            return
        for key, ds in self.dss.items():
            tspec, dspec = ds.spec.template.spec, self._template(ds)[0]
            if should_run(old, tspec, dspec) != should_run(node, tspec, dspec):
                self.queue.add(key)

    # -- sync --------------------------------------------------------------------------------
    def _template(self, ds: Any) -> tuple[Any, str]:
        """(the template's spec with the daemon tolerations, the revision hash)."""
        tmpl = ds.spec.template
        hit = self._templates.get(id(tmpl))
        if hit is None or hit[0] is not tmpl:
            if len(self._templates) > 1024:
                self._templates.clear()
            spec = evolve(tmpl.spec, tolerations=daemon_tolerations(tmpl.spec))
            hit = (tmpl, spec, compute_hash(tmpl))
            self._templates[id(tmpl)] = hit
        return hit[1], hit[2]

    def _is_updated(self, ds: Any, pod: Any, pod_hash: str) -> bool:
        """util.IsPodUpdated: the pod carries the template's revision hash, or its
        ``pod-template-generation`` is the DaemonSet's template generation (the
        ``deprecated.daemonset.template.generation`` annotation, which the API server bumps
        when the template changes). A DaemonSet loaded from an export brings pods labelled by
        the real controller's hash, which this sandbox does not reproduce: their template
        generation keeps them current until the template changes here."""
        labels = pod.metadata.labels
        if labels.get(REVISION_HASH_LABEL) == pod_hash:
            return True
        first = self._first_template.setdefault(ds.metadata.uid, (
            pod_hash, ds.metadata.annotations.get(TEMPLATE_GENERATION_ANNOTATION, "")))
        return first[0] == pod_hash and bool(first[1]) and \
            labels.get(TEMPLATE_GENERATION_LABEL) == first[1]

    def _node_to_pods(self, ds: Any) -> dict[str, list[Any]]:
        """getNodesToDaemonPods: the pods by the node they are (or will be) on, leaving out
        pods both finished and being deleted."""
        out: dict[str, list[Any]] = {}
        for pod in self.pods.owned(ds.metadata.uid).values():
            if pod.is_terminated and pod.metadata.deletion_timestamp is not None:
                continue
            node = target_node(pod)
            if node:
                out.setdefault(node, []).append(pod)
        return out

    def sync(self, key: tuple[str, str]) -> None:
        ns, name = key
        ds = self.store.get("DaemonSet", name, ns)
        if ds is None or ds.metadata.deletion_timestamp is not None:
            return
        sel = ds.spec.selector
        if sel is None or sel.empty:
            return
        self._claim(ds)
        nodes = self.store.nodes()
        dspec, pod_hash = self._template(ds)
        tspec = ds.spec.template.spec
        verdicts = {n.name: should_run(n, tspec, dspec) for n in nodes}
        self._manage(ds, nodes, verdicts, pod_hash)
        if ds.spec.update_strategy.type != "OnDelete":
            self._rolling_update(ds, verdicts, pod_hash)
        self._update_status(ds, nodes, verdicts, pod_hash)

    def _claim(self, ds: Any) -> None:
        """Adopt matching orphans: all of them for a new selector, else those heard of."""
        orphans = self.pods.orphans(ds.metadata.namespace)
        uid = ds.metadata.uid
        if uid in self._scan_orphans:
            self._scan_orphans.discard(uid)
            self._adoptable.pop(uid, None)
            candidates = list(orphans.values())
        else:
            candidates = [orphans[n] for n in self._adoptable.pop(uid, ()) if n in orphans]
        sel = ds.spec.selector
        ref = owner_ref_for(ds, "apps/v1")
        for pod in candidates:
            if pod.metadata.deletion_timestamp is None and not pod.is_terminated and \
                    sel.matches(pod.metadata.labels):
                self._write_pod(evolve(pod, metadata=evolve(
                    pod.metadata, owner_references=pod.metadata.owner_references + (ref,))))

    def _manage(self, ds: Any, nodes: list[Any], verdicts: dict, pod_hash: str) -> None:
        """manage + podsShouldBeOnNode: which nodes need a pod, which pods must go."""
        node_to_pods = self._node_to_pods(ds)
        now = self.clock.now
        to_create: list[str] = []
        to_delete: list[Any] = []
        for node in nodes:
            run, keep = verdicts[node.name]
            pods = node_to_pods.get(node.name, ())
            if run and not pods:
                to_create.append(node.name)
            elif keep:
                running = []
                for pod in pods:
                    if pod.metadata.deletion_timestamp is not None:
                        continue
                    if pod.status.phase == "Failed":
                        bkey = (ds.metadata.uid, node.name)
                        last, delay = self._failed_backoff.get(bkey, (None, 0.0))
                        if last is not None and now - last < delay:
                            self.queue.add_after((ds.metadata.namespace, ds.metadata.name),
                                                 last + delay - now, background=True)
                            continue
                        delay = FAILED_BACKOFF_INITIAL if last is None else \
                            min(delay * 2, FAILED_BACKOFF_MAX)
                        self._failed_backoff[bkey] = (now, delay)
                        self.store.record_event(
                            ds, "Warning", "FailedDaemonPod",
                            f"Found failed daemon pod {pod.metadata.namespace}/"
                            f"{pod.metadata.name} on node {node.name}, will try to kill it",
                            COMPONENT)
                        to_delete.append(pod)
                    elif pod.status.phase == "Succeeded":
                        to_delete.append(pod)
                    else:
                        running.append(pod)
                if len(running) > 1:
                    to_delete.extend(sorted(running, key=_scheduled_then_oldest)[1:])
            elif pods:
                to_delete.extend(p for p in pods if p.metadata.deletion_timestamp is None)
        for target, pods in node_to_pods.items():
            if target not in verdicts:
                to_delete.extend(p for p in pods if not p.spec.node_name
                                 and p.metadata.deletion_timestamp is None)
        self._sync_nodes(ds, to_delete, to_create, pod_hash)

    def _rolling_update(self, ds: Any, verdicts: dict, pod_hash: str) -> None:
        """rollingUpdate without surge: replace old pods, at most maxUnavailable down at once."""
        desired = sum(1 for run, _ in verdicts.values() if run)
        ru = ds.spec.update_strategy.rolling_update or FrozenDict()
        max_unavailable = scaled_value(ru.get("maxUnavailable", 1), desired, True)
        max_unavailable = max_unavailable or 1  # unavailable 0 and surge 0 would never finish
        now, mrs = self.clock.now, ds.spec.min_ready_seconds
        unavailable = 0
        replace: list[Any] = []
        candidates: list[Any] = []
        node_to_pods = self._node_to_pods(ds)
        for node in sorted(node_to_pods):
            # findUpdatedPodsOnNode: at most one new and one old pod, or leave it to manage.
            live = [p for p in node_to_pods[node] if p.metadata.deletion_timestamp is None]
            news = [p for p in live if self._is_updated(ds, p, pod_hash)]
            olds = [p for p in live if not self._is_updated(ds, p, pod_hash)]
            new = news[0] if len(news) == 1 else None
            old = olds[0] if len(olds) == 1 else None
            if len(news) > 1 or len(olds) > 1 or (new is None) == (old is None):
                unavailable += 1
            elif new is not None:
                if not pod_available(new, mrs, now):
                    unavailable += 1
            elif old is not None and not pod_available(old, mrs, now):
                replace.append(old)
                unavailable += 1
            elif unavailable < max_unavailable:
                candidates.append(old)
        room = min(max(0, max_unavailable - unavailable), len(candidates))
        if replace or room:
            self._sync_nodes(ds, replace + candidates[:room], [], pod_hash)

    def _sync_nodes(self, ds: Any, to_delete: list[Any], to_create: list[str],
                    pod_hash: str) -> None:
        key = (ds.metadata.namespace, ds.metadata.name)
        for node_name in to_create[:BURST_REPLICAS]:
            if not self._create(ds, node_name, pod_hash):
                break
        else:
            self._retries.pop(key, None)
            if len(to_create) > BURST_REPLICAS:
                self.queue.add(key)
        for pod in to_delete:
            try:
                self.store.delete("Pod", pod.metadata.name, pod.metadata.namespace)
            except ApiError:
                continue
            self.store.record_event(ds, "Normal", "SuccessfulDelete",
                                    f"Deleted pod: {pod.metadata.name}", COMPONENT)

    def _create(self, ds: Any, node_name: str, pod_hash: str) -> bool:
        dspec, _ = self._template(ds)
        tmpl = ds.spec.template
        ns = ds.metadata.namespace
        labels = FrozenDict({**tmpl.metadata.labels, REVISION_HASH_LABEL: pod_hash,
                             TEMPLATE_GENERATION_LABEL: str(ds.metadata.generation)})
        name = generate_name(f"{ds.metadata.name}-", self.rand)
        while self.store.get("Pod", name, ns) is not None:
            name = generate_name(f"{ds.metadata.name}-", self.rand)
        spec = evolve(dspec, affinity=node_name_affinity(dspec.affinity, node_name))
        pod = Pod(metadata=ObjectMeta(name=name, namespace=ns, labels=labels,
                                      annotations=tmpl.metadata.annotations,
                                      owner_references=(owner_ref_for(ds, "apps/v1"),)),
                  spec=spec)
        try:
            self.store.create(pod)
        except KsandboxError as err:
            msg = server_message(err).replace(f'"{name}"', f'"{ds.metadata.name}-"')
            self.store.record_event(ds, "Warning", "FailedCreate", f"Error creating: {msg}",
                                    COMPONENT)
            key = (ns, ds.metadata.name)
            n = self._retries.get(key, 0)
            self._retries[key] = n + 1
            self.queue.add_after(key, min(RETRY_BASE * 2 ** n, RETRY_MAX), background=True)
            return False
        self.store.record_event(ds, "Normal", "SuccessfulCreate", f"Created pod: {name}",
                                COMPONENT)
        return True

    def _update_status(self, ds: Any, nodes: list[Any], verdicts: dict, pod_hash: str) -> None:
        """updateDaemonSetStatus: counted over nodes, looking at each node's oldest pod."""
        ds = self.store.get("DaemonSet", ds.metadata.name, ds.metadata.namespace) or ds
        node_to_pods = self._node_to_pods(ds)
        now, mrs = self.clock.now, ds.spec.min_ready_seconds
        desired = current = ready = available = updated = misscheduled = 0
        for node in nodes:
            pods = node_to_pods.get(node.name)
            if verdicts[node.name][0]:
                desired += 1
                if not pods:
                    continue
                current += 1
                pod = min(pods, key=_scheduled_then_oldest)
                if pod_ready(pod):
                    ready += 1
                    if pod_available(pod, mrs, now):
                        available += 1
                if self._is_updated(ds, pod, pod_hash):
                    updated += 1
            elif pods:
                misscheduled += 1
        if mrs and ready != available:
            self.queue.add_after((ds.metadata.namespace, ds.metadata.name), mrs)
        st = ds.status
        extra = st.extra.without("numberUnavailable")
        if desired - available:
            extra = extra.set("numberUnavailable", desired - available)
        new = evolve(st, desired_number_scheduled=desired,
                     current_number_scheduled=current, number_ready=ready,
                     number_available=available, updated_number_scheduled=updated,
                     number_misscheduled=misscheduled,
                     observed_generation=ds.metadata.generation, extra=extra)
        if new != st or extra != st.extra:
            try:
                self.store.update_status(evolve(ds, status=new))
            except ApiError:
                pass

    # -- writes ------------------------------------------------------------------------------
    def _write_pod(self, pod: Any) -> None:
        try:
            self.store.update(pod)
        except ApiError:
            pass
