"""The ReplicaSet controller: keeps ``spec.replicas`` active pods stamped from the template.

Ported from upstream ``pkg/controller/replicaset/replica_set.go`` (syncReplicaSet,
manageReplicas, getPodsToDelete, calculateStatus) and ``pkg/controller/controller_utils.go``
(ActivePodsWithRanks, the order in which surplus pods are deleted). The same class serves
ReplicationControllers (``replicationcontroller.py``), as upstream wraps this controller.

How it differs from a real one, on purpose:

* Pods are indexed by their controller's uid from the store's watch, with running counts
  (active, ready, fully labeled, per node), so a sync is O(1) unless it has to pick pods to
  delete; a real controller lists its informer cache.
* Upstream creates in slow-start batches (1, 2, 4, ...) capped by a burst of 500 per sync;
  creation never fails half-way here, so each sync creates up to 500 at once and requeues —
  as many as the controller's API client may send (20 a second, 30 at once:
  ``base.KUBE_API_QPS``), so 620 replicas take ~30 simulated seconds, as upstream, and a
  ReplicaSet whose pods are rejected as fast as they come (the pod storm) makes 20 a second.
  Deletions are not metered.
* Every pod stamped from one template shares one admitted spec object (the template's spec
  after the API server's pod defaulting), so 15,000 replicas cost 15,000 metadata objects.
* Adoption: orphans whose labels match are adopted; owned pods whose labels stop matching are
  released. Cascading deletion of a deleted ReplicaSet's pods is the garbage collector's
  business (the ``kubectl delete`` command does it when no garbage collector runs).

Not here: Deployments (``deployment.py``); the "more restarts first" rule of the pods to
delete (the kubelet keeps restart counts, but a ReplicaSet's pods restart only when a user
changes one's image, and the rule is not applied).
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..api.apps import ReplicaSetStatus
from ..api.core import Pod
from ..api.errors import ApiError, KsandboxError
from ..api.evolve import evolve, replacer
from ..api.meta import ObjectMeta, owner_ref_for
from ..api.selectors import LabelSelector
from ..apiserver.informers import Informers
from ..apiserver.store import DELETED, WatchEvent
from .activepods import ActivePods, labels_cover
from .base import Controller
from .controller_utils import (
    available_at,
    generate_name,
    pod_active,
    pod_ready,
    server_message,
)

# pkg/controller/replicaset: BurstReplicas, the most pods created or deleted in one sync.
BURST_REPLICAS = 500
# client-go workqueue DefaultControllerRateLimiter: per-item backoff 5 ms doubling to 1000 s.
RETRY_BASE, RETRY_MAX = 0.005, 1000.0

# evolve(status, replicas=..., fully_labeled_replicas=..., ready_replicas=...,
# available_replicas=..., observed_generation=...) of a ReplicaSetStatus (a ReplicationController's
# too), built once: three status writes a pod's life, and evolve's keyword dict, key and star
# call cost about as much as the build (e2e11: ~6-10k instructions a call).
_COUNTS: Any = replacer(ReplicaSetStatus, ("replicas", "fully_labeled_replicas", "ready_replicas",
                                           "available_replicas", "observed_generation"))
assert _COUNTS is not None


class ReplicaSetController(Controller):
    name = "replicaset"
    kind = "ReplicaSet"
    api_version = "apps/v1"
    component = "replicaset-controller"

    def __init__(self, informers: Informers) -> None:
        # The shared pod index: pods by controller uid, orphans by namespace (to adopt from).
        self.pods = informers.pods

    def start(self, cp: Any) -> None:
        self.rand = cp.rand.child(self.name)
        self.counts: dict[str, ActivePods] = {}
        # namespace → name → owner, as of its last write that changed its spec, controller
        # or deletion (_owner_event): the adoption of orphans reads those, its name and uid
        self.owners: dict[str, dict[str, Any]] = {}
        self._parent: dict[str, str] = {}             # owner uid → its own controller's uid
        self._siblings: dict[str, set[str]] = {}      # controller uid → owner uids
        self._family: dict[str, dict[str, int]] = {}  # controller uid → node → active pods
        # controller uid → node → its family count when first touched since the last pick
        # (see _flush_ranks): a pod write is a leave and an enter on the same node, which
        # leaves the count — and so every sibling's standing order — as it was.
        self._touched: dict[str, dict[str, int]] = {}
        # owner uid -> names of its pods relabeled since its last sync, and (below) of the
        # orphans it may adopt, in the order heard: dicts, not sets, whose order follows each
        # process's string hash and made the releases' and adoptions' write order differ
        # between runs of one recording.
        self._relabeled: dict[str, dict[str, None]] = {}
        # Orphans that may be adopted: every orphan of the namespace for a new (or
        # re-selecting) owner, else only those whose change was heard since the last sync.
        self._scan_orphans: set[str] = set()
        self._adoptable: dict[str, dict[str, None]] = {}
        self._templates: dict[int, tuple[Any, Any, Any]] = {}
        self._selectors: dict[int, tuple[Any, LabelSelector]] = {}
        self._retries: dict[tuple[str, str], int] = {}
        # key -> (the stored owner, its counts, active, ready, labeled) after its last sync
        # that left nothing to do (see sync): a sync that finds the same object and counts
        # again would do nothing again — about four of the seven syncs a rolling pod's life
        # brings. An entry is made only while the owner has nothing to claim (no pod
        # relabeled, no orphan heard or to scan for) and dropped when it gets some
        # (_pod_changed, _owner_event): an entry found means there is still nothing.
        self._settled: dict[tuple[str, str], tuple[Any, ActivePods, int, int, int]] = {}
        # The store's live table of this kind (Store.table: the same dict for the store's
        # life), keyed (namespace, name) as the queue's keys are: store.get's lookup without
        # its frame, every sync (~7 a rolling pod's life)
        self._table = cp.store.table(self.kind)
        super().start(cp)

    def watch(self) -> None:
        # Only the pods this kind controls, or orphans it may adopt (OwnerHandler.owners):
        # orphans only while an owner of this kind exists (_hear_orphans)
        self._pod_watch = pods = self.pods.handler(self.kind, self._pod_changed, self._account,
                                                    swap=self._swap)
        self.store.subscribe("Pod", pods, owners=pods.owners)
        self._orphans_heard = True
        self._hear_orphans()
        # A write of an owner's status subresource (its own controller's count of its pods,
        # three a pod's life) keeps its spec, owner references and deletion: what
        # _owner_event acts on (it returns at once for such a write, see there)
        self.store.subscribe(self.kind, self._owner_event, status=False)
        self.store.subscribe("PriorityClass", self._priority_class_event)

    # -- watch handlers: they only enqueue ---------------------------------------------------
    def _owner_event(self, ev: WatchEvent) -> None:
        obj = ev.obj
        old = ev.old
        if old is not None and ev.type != DELETED and old.spec is obj.spec:
            meta, old_meta = obj.metadata, old.metadata
            if (meta.owner_references is old_meta.owner_references
                    or meta.owner_references == old_meta.owner_references) \
                    and meta.deletion_timestamp == old_meta.deletion_timestamp:
                # The same spec, controller and deletion (a status write, the Deployment
                # controller's annotations): nothing to sync, no family to move, no orphans
                # to scan. self.owners keeps the version it holds, whose spec, name, uid and
                # deletion — all that adoption reads of it — are this one's.
                return
        ns, name, uid = obj.metadata.namespace, obj.metadata.name, obj.metadata.uid
        if ev.type == DELETED:
            parent_uid = None
        else:
            last = self.store.last_refs
            # the new side's controller ref, as the store read it for this write (a tracked
            # kind: ReplicaSets are, for the Deployment controller's index), else read here
            parent = last[2] if last[0] is ev else obj.metadata.controller_ref()
            parent_uid = parent.uid if parent is not None else None
        old_parent = self._parent.get(uid)
        if old_parent != parent_uid:
            if old_parent is not None:
                del self._parent[uid]
                self._siblings.get(old_parent, set()).discard(uid)
                self._recount_family(old_parent)
            if parent_uid is not None:
                self._parent[uid] = parent_uid
                self._siblings.setdefault(parent_uid, set()).add(uid)
                self._recount_family(parent_uid)
        if ev.type == DELETED:
            in_ns = self.owners.get(ns, {})
            in_ns.pop(name, None)
            if not in_ns:
                self.owners.pop(ns, None)
                self._hear_orphans()
            self._scan_orphans.discard(uid)
            self._adoptable.pop(uid, None)
            self._settled.pop((ns, name), None)
            if not self.pods.owned(uid):
                self.counts.pop(uid, None)
            return
        self.owners.setdefault(ns, {})[name] = obj
        if not self._orphans_heard:
            self._hear_orphans()
        # (identity first: a status write or a resize keeps the selector object, which then
        # needs no comparison field by field)
        if old is None or old.spec.selector is not obj.spec.selector and \
                old.spec.selector != obj.spec.selector:
            self._scan_orphans.add(uid)
            self._settled.pop((ns, name), None)   # (see start)
        if old is None or old.spec is not obj.spec or \
                old.metadata.deletion_timestamp != obj.metadata.deletion_timestamp:
            self.queue.add((ns, name))

    def _hear_orphans(self) -> None:
        """Orphan pods' writes reach _pod_changed only while an owner of this kind exists:
        with none, its owner-None branch finds no owner in the namespace to adopt for."""
        heard = bool(self.owners)   # namespaces with an owner (emptied ones are dropped)
        if heard != self._orphans_heard:
            self._orphans_heard = heard
            self._pod_watch.hear_orphans(self.store, heard)

    def _priority_class_event(self, ev: WatchEvent) -> None:
        # Admission resolves a pod's priority from the classes: re-admit templates, and retry
        # owners that failed (a missing class is the usual reason).
        self._templates.clear()
        for key in list(self._retries):
            self.queue.add(key)

    def _account(self, uid: str, pod: Pod, sign: int) -> None:
        c = self.counts.get(uid)
        if c is None:
            c = self.counts[uid] = ActivePods()
        if c.account(pod, sign):
            parent = self._parent.get(uid)
            if parent is not None:
                self._family_step(parent, pod.spec.node_name, sign)

    def _swap(self, uid: str, old: Pod, new: Pod) -> None:
        """``_account(uid, old, -1)`` then ``_account(uid, new, 1)`` (OwnerHandler's swap: a
        pod write that keeps its controller). A write that keeps an active pod active on its
        node leaves its family's count there as it was: no step — exact, as a node's first
        count since the last pick (_touched) is the count any later step there finds."""
        c = self.counts.get(uid)
        if c is None:
            c = self.counts[uid] = ActivePods()
        counted = c.swap(old, new)
        if not counted:
            return
        parent = self._parent.get(uid)
        if parent is None:
            return
        if counted == 3:
            node = new.spec.node_name
            left = old.spec.node_name
            if left == node:
                return
            steps: tuple[tuple[str, int], ...] = ((left, -1), (node, 1))
        elif counted == 1:
            steps = ((old.spec.node_name, -1),)
        else:
            steps = ((new.spec.node_name, 1),)
        # self._family_step(parent, node, sign) of each, inline (a pod write that moves
        # its pod's count, ~3 a rolling pod's life)
        family = self._family.get(parent)
        if family is None:
            family = self._family[parent] = {}
        touched = self._touched.get(parent)
        if touched is None:
            touched = self._touched[parent] = {}
        for node, sign in steps:
            before = family.get(node, 0)
            if node not in touched:
                touched[node] = before
            n = before + sign
            if n > 0:
                family[node] = n
            else:
                family.pop(node, None)

    def _family_step(self, parent: str, node: str, sign: int) -> None:
        """An active pod of the family enters (+1) or leaves (-1) ``node``."""
        # (get, then create: setdefault's argument is a dict built and dropped at each call)
        family = self._family.get(parent)
        if family is None:
            family = self._family[parent] = {}
        before = family.get(node, 0)
        touched = self._touched.get(parent)
        if touched is None:
            touched = self._touched[parent] = {}
        if node not in touched:
            touched[node] = before
        n = before + sign
        if n > 0:
            family[node] = n
        else:
            family.pop(node, None)

    def _flush_ranks(self, parent: str) -> None:
        """Tell every ReplicaSet of the family about the nodes whose family count differs
        from what it was when first touched since the last flush. Every pick flushes first,
        so a node left out (its count came back) is one whose count each sibling's standing
        order already holds."""
        touched = self._touched.pop(parent, None)
        if not touched:
            return
        family = self._family.get(parent, {})
        changed = [node for node, before in touched.items() if family.get(node, 0) != before]
        if not changed:
            return
        for member in self._siblings.get(parent, ()):
            sibling = self.counts.get(member)
            if sibling is not None and sibling.nodes:   # (an emptied one has no order to mark)
                sibling.ranks_changed(changed)

    def _recount_family(self, parent: str) -> None:
        """Active pods per node over a Deployment's ReplicaSets (the ranks' "related pods")."""
        family: dict[str, int] = {}
        for member in self._siblings.get(parent, ()):
            c = self.counts.get(member)
            if c is not None:
                for node, on in c.nodes.items():
                    family[node] = family.get(node, 0) + len(on)
        if family or self._siblings.get(parent):
            if self._family.get(parent) == family:
                # The same counts (a new ReplicaSet joins with no pods yet; an emptied one is
                # cleaned up): keep the object, whose identity every sibling's standing order
                # was built against — a new one would make each re-sort all its nodes.
                return
            self._family[parent] = family
        else:
            self._family.pop(parent, None)
            self._siblings.pop(parent, None)
            self._touched.pop(parent, None)

    def _pod_changed(self, ns: str, owner: str | None, ev: WatchEvent) -> None:
        if owner is not None:
            old, new = ev.old, ev.obj
            if ev.type != DELETED and old is not None and \
                    old.metadata.labels is not new.metadata.labels:
                ref = new.metadata.controller_ref()
                if ref is not None:
                    self._relabeled.setdefault(ref.uid, {})[new.metadata.name] = None
                    self._unsettle(ns, ref.name, ref.uid)
            self.queue.add((ns, owner))
            return
        if ev.type == DELETED or not pod_active(ev.obj):
            return
        labels = ev.obj.metadata.labels
        for rs in self.owners.get(ns, {}).values():
            if self._selector(rs).matches(labels) and rs.metadata.deletion_timestamp is None:
                self._adoptable.setdefault(rs.metadata.uid, {})[ev.obj.metadata.name] = None
                self._settled.pop((ns, rs.metadata.name), None)   # (see start)
                self.queue.add((ns, rs.metadata.name))

    def _unsettle(self, ns: str, name: str, uid: str) -> None:
        """Drop the settled entry of the owner ``uid`` (it has a relabeled pod to look at:
        see start): the one at (ns, name) when it is that owner's — a controller reference
        names its owner — else whichever entry holds it (a reference whose name is another's:
        a scan, on a relabel alone)."""
        hit = self._settled.get((ns, name))
        if hit is not None and hit[0].metadata.uid == uid:
            del self._settled[(ns, name)]
            return
        for key in [k for k, v in self._settled.items() if v[0].metadata.uid == uid]:
            del self._settled[key]

    # -- sync --------------------------------------------------------------------------------
    def sync(self, key: tuple[str, str]) -> None:
        rs = self._table.get(key)   # (store.get's: the key is the table's)
        if rs is None:
            return
        settled = self._settled.get(key)
        if settled is not None and settled[0] is rs:
            # The object the last sync settled on (so the same spec, deletion and status,
            # and the same counts object: counts are dropped only with their owner, and its
            # entry here with them), the same counts, no pod relabeled and no orphan to look
            # at since (an entry is dropped when one comes): this sync would claim nothing,
            # create or delete nothing and find the status right.
            c = settled[1]
            if c.active == settled[2] and c.ready == settled[3] and c.labeled == settled[4]:
                return
        ns, name = key
        store = self.store
        rv = store.resource_version
        if rs.metadata.deletion_timestamp is None:
            uid = rs.metadata.uid
            if uid in self._relabeled or uid in self._scan_orphans or uid in self._adoptable:
                # (else _claim has nothing to do: no pod relabeled, no orphan heard — nearly
                # every sync)
                self._claim(rs)
            held = self.counts.get(uid)
            # (else _counts would return it as it is)
            c = held if held is not None and held.labels is rs.spec.template.metadata.labels \
                else self._counts(rs)
            active = c.active
            want = rs.spec.replicas if rs.spec.replicas is not None else 1
            diff = active - want
            if diff < 0:
                # At most a burst per sync, and only as many as the client's rate limiter
                # lets through now; the rest when the next token comes (a pod storm or
                # replicas: 2147483647 advances simulated time instead of stopping it).
                now = self.clock.now
                allowed = min(-diff, BURST_REPLICAS, self.client.available(now))
                ok = allowed == 0 or self._create(rs, allowed)
                if ok and -diff > allowed:
                    if allowed < min(-diff, BURST_REPLICAS):
                        self.queue.add_after(key, self.client.next_token_in(self.clock.now))
                    else:
                        self.queue.add(key)
            elif diff > 0:
                self._delete(rs, min(diff, BURST_REPLICAS))
                if diff > BURST_REPLICAS:
                    self.queue.add(key)
        if store.resource_version != rv:
            # something was written (pods adopted, released, created, deleted): the status
            # goes on the stored ReplicaSet. Nothing written — about half the syncs, a pod
            # write that changes no count — leaves the one read above the stored one.
            rs = store.get(self.kind, name, ns) or rs
        rs, c = self._update_status(rs)
        uid = rs.metadata.uid
        if c.active == (rs.spec.replicas if rs.spec.replicas is not None else 1) and \
                rs.metadata.deletion_timestamp is None and not rs.spec.min_ready_seconds and \
                uid not in self._relabeled and uid not in self._adoptable and \
                uid not in self._scan_orphans:
            # Settled: the right number of active pods now (those it created or deleted
            # counted), the status written for them, nothing to claim. (A minReadySeconds
            # owner's availability moves with the clock: never settled.)
            self._settled[key] = (rs, c, c.active, c.ready, c.labeled)
        else:
            self._settled.pop(key, None)

    def _selector(self, rs: Any) -> LabelSelector:
        sel = rs.spec.selector
        if isinstance(sel, LabelSelector):
            return sel
        hit = self._selectors.get(id(sel))
        if hit is None or hit[0] is not sel:
            hit = (sel, LabelSelector(match_labels=sel))
            self._selectors[id(sel)] = hit
        return hit[1]

    def _counts(self, rs: Any) -> ActivePods:
        uid = rs.metadata.uid
        c = self.counts.get(uid)
        if c is None:
            c = self.counts[uid] = ActivePods()
        labels = rs.spec.template.metadata.labels
        if c.labels is not labels:
            if c.labels is None or c.labels != labels:
                c.labeled = sum(1 for p in c.all() if labels_cover(p.metadata.labels, labels))
            c.labels = labels
        return c

    def _claim(self, rs: Any) -> None:
        """ClaimPods, simply: adopt matching orphans, release owned pods that stopped matching."""
        uid = rs.metadata.uid
        selector = self._selector(rs)
        if selector.empty:
            return  # an empty selector would adopt the whole namespace; upstream refuses too
        owned = self.pods.owned(uid)
        for pod_name in self._relabeled.pop(uid, ()):
            pod = owned.get(pod_name)
            if pod is not None and not selector.matches(pod.metadata.labels):
                refs = tuple(r for r in pod.metadata.owner_references if r.uid != uid)
                self._write_pod(evolve(pod, metadata=evolve(
                    pod.metadata, owner_references=refs)))
        if uid in self._scan_orphans:
            self._scan_orphans.discard(uid)
            self._adoptable.pop(uid, None)
            candidates = list(self.pods.orphans(rs.metadata.namespace).values())
        else:
            names = self._adoptable.pop(uid, None)
            if not names:
                return   # no orphan heard since the last sync (nearly every sync)
            orphans = self.pods.orphans(rs.metadata.namespace)
            candidates = [orphans[n] for n in names if n in orphans]
        if not candidates:
            return
        ref = owner_ref_for(rs, self.api_version)
        for pod in candidates:
            if pod_active(pod) and selector.matches(pod.metadata.labels):
                self._write_pod(evolve(pod, metadata=evolve(
                    pod.metadata, owner_references=pod.metadata.owner_references + (ref,))))

    def _write_pod(self, pod: Pod) -> None:
        """Adopt or release a pod. One deleted meanwhile needs nothing: upstream's
        ControllerRefManager ignores NotFound on adoption and release the same way."""
        with contextlib.suppress(ApiError):
            self.store.update(pod)

    # -- manageReplicas ----------------------------------------------------------------------
    def _admitted(self, rs: Any, meta: ObjectMeta) -> tuple[Any, Any]:
        """The template's spec and status after pod admission, computed once per template
        (admitting the pod with metadata ``meta`` stamped from it)."""
        tspec = rs.spec.template.spec
        hit = self._templates.get(id(tspec))
        if hit is not None and hit[0] is tspec:
            return hit[1], hit[2]
        admitted = self.store.admit(Pod(metadata=meta, spec=tspec))
        self._templates[id(tspec)] = (tspec, admitted.spec, admitted.status)
        return admitted.spec, admitted.status

    def _create(self, rs: Any, count: int) -> bool:
        meta = rs.metadata
        ns = meta.namespace
        tmpl = rs.spec.template
        refs = (owner_ref_for(rs, self.api_version),)
        base = f"{meta.name}-"
        for _ in range(count):
            name = generate_name(base, self.rand)
            while self.store.get("Pod", name, ns) is not None:
                name = generate_name(base, self.rand)
            pod_meta = ObjectMeta(name=name, namespace=ns, labels=tmpl.metadata.labels,
                                  annotations=tmpl.metadata.annotations, owner_references=refs)
            self.client.take(self.clock.now)
            try:
                spec, status = self._admitted(rs, pod_meta)
                # Admitted already: pod admission depends on the template's spec alone, so
                # every pod stamped from it gets the spec and status store.admit gave the first
                # (the pod built once with them: what evolve of the template's pod gives).
                self.store.create(Pod(metadata=pod_meta, spec=spec, status=status),
                                  admitted=True)
            except KsandboxError as err:
                # The API server names a pod from generateName after admission: its errors
                # show the prefix (pods "web-7d9c8-" is forbidden: ...).
                msg = server_message(err).replace(f'"{name}"', f'"{base}"')
                self.store.record_event(rs, "Warning", "FailedCreate", f"Error creating: {msg}",
                                        self.component)
                self._retry((ns, meta.name))
                return False
            self.store.record_event(rs, "Normal", "SuccessfulCreate", f"Created pod: {name}",
                                    self.component)
        self._retries.pop((ns, meta.name), None)
        return True

    def _retry(self, key: tuple[str, str]) -> None:
        n = self._retries.get(key, 0)
        self._retries[key] = n + 1
        self.queue.add_after(key, min(RETRY_BASE * (2 ** n), RETRY_MAX), background=True)

    def _delete(self, rs: Any, count: int) -> None:
        ns = rs.metadata.namespace
        for pod in self.pods_to_delete(rs, count):
            name = pod.metadata.name
            try:
                self.store.delete("Pod", name, ns)
            except ApiError:
                continue
            self.store.record_event(rs, "Normal", "SuccessfulDelete", f"Deleted pod: {name}",
                                    self.component)

    def pods_to_delete(self, rs: Any, count: int) -> list[Any]:
        """getPodsToDelete: the ``count`` active pods ActivePodsWithRanks puts first; a pod's
        rank is how many active pods of its family (the ReplicaSets of one Deployment) share
        its node."""
        c = self._counts(rs)
        parent = self._parent.get(rs.metadata.uid)
        if parent is not None:
            self._flush_ranks(parent)
        ranks = self._family.get(parent) if parent is not None else None
        return c.pick(count, ranks if ranks is not None else c.node_counts, self.clock.now)

    # -- status ------------------------------------------------------------------------------
    def _update_status(self, rs: Any) -> tuple[Any, ActivePods]:
        """Write the counts to the status when they differ; the stored owner after, and its
        counts (the sync reads them next: a status write keeps the spec, so its template's
        labels, which _counts looks at)."""
        c = self.counts.get(rs.metadata.uid)
        if c is None or c.labels is not rs.spec.template.metadata.labels:
            c = self._counts(rs)   # (else _counts would return c as it is)
        available = c.ready
        mrs = rs.spec.min_ready_seconds
        if mrs and c.ready:
            now, available, soonest = self.clock.now, 0, None
            for p in self.pods.owned(rs.metadata.uid).values():
                if pod_active(p) and pod_ready(p):
                    at = available_at(p, mrs)
                    if at is not None and at <= now:
                        available += 1
                    elif at is not None and (soonest is None or at < soonest):
                        soonest = at
            if soonest is not None:
                self.queue.add_after((rs.metadata.namespace, rs.metadata.name), soonest - now)
        st = rs.status
        # (field by field: no two tuples built and compared, three times a pod's life)
        if c.active == st.replicas and c.labeled == st.fully_labeled_replicas and \
                c.ready == st.ready_replicas and available == st.available_replicas and \
                rs.metadata.generation == st.observed_generation:
            return rs, c
        if type(st) is ReplicaSetStatus:
            status = _COUNTS(st, c.active, c.labeled, c.ready, available, rs.metadata.generation)
        else:
            status = evolve(st, replicas=c.active, fully_labeled_replicas=c.labeled,
                            ready_replicas=c.ready, available_replicas=available,
                            observed_generation=rs.metadata.generation)
        return self.store.write_status(rs, status), c

