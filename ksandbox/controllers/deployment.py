"""The Deployment controller: rolls a pod template out through ReplicaSets.

A Deployment owns ReplicaSets named ``<deployment>-<pod-template-hash>``; the one whose template
equals the Deployment's is the new one, the rest are old. RollingUpdate grows the new one while
the total stays within replicas + maxSurge, and shrinks the old ones while at least
replicas − maxUnavailable pods stay available; Recreate scales every old one to zero, waits for
their pods to be gone, then creates the new one at full size. A change of ``spec.replicas``
alone (``kubectl scale``, the HPA) is a scaling event: the sizes change in proportion, without a
rollout.

Ported from upstream ``pkg/controller/deployment/`` — ``deployment_controller.go``
(syncDeployment, the handlers), ``sync.go`` (getNewReplicaSet, scale, cleanupDeployment,
syncDeploymentStatus) — in our own words; ``rolling.go`` and ``recreate.go`` are in
``deployment_rollout.py``, the arithmetic in ``deployment_util.py``. Events:
``ScalingReplicaSet`` with upstream's wording.

The Available and Progressing conditions (with ProgressDeadlineExceeded) are
``deployment_progress.py``'s. Not here: rollback (``kubectl rollout undo``).
Cascading deletion of a deleted Deployment's ReplicaSets is the garbage collector's business
(the ``kubectl delete`` command does it when no garbage collector runs).
"""

from __future__ import annotations

from typing import Any, Collection, Sequence

from ..api.apps import DeploymentStatus, ReplicaSet, ReplicaSetSpec
from ..api.codec import FrozenDict
from ..api.errors import ApiError
from ..api.evolve import evolve, replacer
from ..api.meta import ObjectMeta, owner_ref_for
from ..api.selectors import LabelSelector
from ..apiserver.informers import Informers
from ..apiserver.store import DELETED, WatchEvent
from . import deployment_progress as dp
from . import deployment_util as du
from .base import Controller
from .controller_utils import compute_hash, server_message
from .deployment_rollout import Rollout

COMPONENT = "deployment-controller"
# How many names a hash collision may burn before the controller gives up for this sync.
_MAX_COLLISIONS = 8

# evolve(...) of the objects a rollout step rebuilds, each built once (every step resizes two
# ReplicaSets and writes three statuses; evolve's keyword dict, key and star call cost about as
# much as the build: e2e11, ~6-10k instructions a call): a ReplicaSet's spec with its size, a
# ReplicaSet with its metadata and spec, a Deployment's status with its counts and extra.
_SIZED: Any = replacer(ReplicaSetSpec, ("replicas",))
_RESIZED: Any = replacer(ReplicaSet, ("metadata", "spec"))
_STATUS_FIELDS = ("replicas", "updated_replicas", "ready_replicas", "available_replicas",
                  "unavailable_replicas", "observed_generation", "extra")
_STATUS: Any = replacer(DeploymentStatus, _STATUS_FIELDS)
assert _SIZED is not None and _RESIZED is not None and _STATUS is not None
# LabelSelector.empty's getter, called as a function: every sync asks, and reading the
# property is a call from C into a new interpreter frame (codec.cached_getter's reason)
_SELECTS_ALL: Any = LabelSelector.__dict__["empty"].fget


class _Family:
    """What a sync derives from its Deployment's spec and its ReplicaSets' labels, annotations
    and templates — which of them is new (FindNewReplicaSet), the revision getNewReplicaSet
    gives it, whose desired-replicas annotation differs from the replicas (isScalingEvent) —
    kept for the next syncs: a rollout step resizes a ReplicaSet and writes statuses, and
    keeps every one of those objects, while each sync derived the same facts again (claiming,
    sorting, comparing templates, reading revisions: about a fifth of its work).
    ``parts``: per ReplicaSet of the index, in order, its labels, annotations and template
    objects and its uid — what the facts are made of (DeploymentController._family);
    ``seen``: the version of each last found with those parts."""

    __slots__ = ("spec", "parts", "seen", "new", "revision", "revision_kept", "differs")

    def __init__(self, d: Any, rs_list: list[Any], new_rs: Any) -> None:
        self.spec = d.spec
        self.parts: tuple[tuple[Any, Any, Any, str], ...] = ()
        self.seen: list[Any] = []
        # the new ReplicaSet's place in rs_list, or None
        self.new = next((i for i, rs in enumerate(rs_list) if rs is new_rs), None)
        # _new_rs: no revision to write when the new one's is at least the old ones' next
        old_rss = [rs for rs in rs_list if rs is not new_rs]
        self.revision_kept = new_rs is not None and \
            du.revision(new_rs) >= du.max_revision(old_rss) + 1
        self.revision = new_rs.metadata.annotations.get(du.REVISION, "") \
            if new_rs is not None else ""
        # per ReplicaSet of rs_list: a desired-replicas annotation other than the replicas
        # (None: no such one)
        want = du.facts(d).desired_text
        differs = tuple(rs.metadata.annotations.get(du.DESIRED_REPLICAS, want) != want
                        for rs in rs_list)
        self.differs = differs if any(differs) else None


class DeploymentController(Controller):
    name = "deployment"
    # False: no _Family is kept, every sync derives everything (what the tests compare with)
    memo = True

    def __init__(self, informers: Informers) -> None:
        self.rss = informers.replicasets   # shared: ReplicaSets by controller uid, orphans
        self.pods = informers.pods         # shared: pods by controller (a ReplicaSet's pods)
        self.rollout = Rollout(self)     # rolling.go / recreate.go

    def start(self, cp: Any) -> None:
        self.deployments: dict[str, dict[str, Any]] = {}
        self._read_rv = -1   # the store's resourceVersion when sync read its Deployment
        # namespace -> names of its Recreate Deployments: only those listen for pods going.
        self._recreate: dict[str, set[str]] = {}
        self.templates = du.TemplateKeys()
        # Deployment uid -> its _Family (see _family)
        self._families: dict[str, _Family] = {}
        # The store's live Deployment table (Store.table: the same dict for the store's life),
        # keyed (namespace, name) as the queue's keys are: store.get's lookup without its
        # frame, every sync (~3 a rolling pod's life)
        self._table = cp.store.table("Deployment")
        self._rs_table = cp.store.table("ReplicaSet")   # (the same: _fresh's reads)
        # The Deployment the sync read and its stored Progressing condition (its pause
        # check's), for _new_rs_found while nothing is written (the same object then)
        self._read: Any = None
        self._read_progressing: Any = None
        super().start(cp)

    def watch(self) -> None:
        # Only ReplicaSets a Deployment controls, or orphans it may adopt (OwnerHandler.owners)
        rss = self.rss.handler("Deployment", self._rs_changed)
        self.store.subscribe("ReplicaSet", rss, owners=rss.owners)
        self.store.subscribe("Deployment", self._deployment_event)
        # _pod_event returns at once unless the pod is deleted
        self.store.subscribe("Pod", self._pod_event, types=(DELETED,))

    # -- watch handlers: they only enqueue ---------------------------------------------------
    def _deployment_event(self, ev: WatchEvent) -> None:
        d = ev.obj
        meta = d.metadata
        ns, name = meta.namespace, meta.name
        if ev.type == DELETED:
            self.deployments.get(ns, {}).pop(name, None)
            self._recreate.get(ns, set()).discard(name)
            return
        known = self.deployments.get(ns)
        if known is None:
            known = self.deployments[ns] = {}
        known[name] = d
        old = ev.old
        if old is None or old.spec is not d.spec:
            # (a write that kept the spec kept its strategy: _recreate holds it already)
            if d.spec.strategy.type != du.RECREATE:   # du.is_rolling(d), inline
                recreate = self._recreate.get(ns)
                if recreate:
                    recreate.discard(name)
            else:
                self._recreate.setdefault(ns, set()).add(name)
        # Upstream's updateDeployment resyncs on every update. A write that only changed the
        # status (ours) matters just once: when it completes a rollout, whose next sync
        # cleans up the revision history.
        if old is not None and old.spec is d.spec:
            was = old.metadata
            if was.annotations is meta.annotations and was.labels is meta.labels and \
                    was.deletion_timestamp == meta.deletion_timestamp:
                # du.deployment_complete of each side, inline (every status write of a
                # rollout comes here: four calls less); one spec, so one replicas
                r = d.spec.replicas
                want = 1 if r is None else r
                st, was_st = d.status, old.status
                if not (st.updated_replicas == want and st.replicas == want
                        and st.available_replicas == want
                        and st.observed_generation >= meta.generation) or \
                        (was_st.updated_replicas == want and was_st.replicas == want
                         and was_st.available_replicas == want
                         and was_st.observed_generation >= was.generation):
                    return
        self.queue.add((ns, name))

    def _rs_changed(self, ns: str, owner: str | None, ev: WatchEvent) -> None:
        if owner is not None:
            key = (ns, owner)
            if key not in self.queue._pending:   # (else add returns at once: no call)
                self.queue.add(key)
            return
        if ev.type == DELETED:
            return
        labels = ev.obj.metadata.labels
        for d in self.deployments.get(ns, {}).values():
            sel = d.spec.selector
            if sel is not None and not sel.empty and sel.matches(labels):
                self.queue.add((ns, d.metadata.name))

    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The pod watch hears deletions only: a load (creates) has nothing for it."""
        return [("Pod", self._pod_event)]

    def load_done(self) -> None:
        pass

    def _pod_event(self, ev: WatchEvent) -> None:
        # Recreate waits for the old pods to be gone: hear them go (upstream's deletePod).
        if ev.type != DELETED or not self._recreate.get(ev.obj.metadata.namespace):
            return
        ref = ev.obj.metadata.controller_ref()
        if ref is None or ref.kind != "ReplicaSet":
            return
        rs = self.store.get("ReplicaSet", ref.name, ev.obj.metadata.namespace)
        parent = rs.metadata.controller_ref() if rs is not None else None
        if parent is not None and parent.kind == "Deployment":
            d = self.deployments.get(rs.metadata.namespace, {}).get(parent.name)
            if d is not None and not du.is_rolling(d):
                self.queue.add((rs.metadata.namespace, parent.name))

    # -- syncDeployment ----------------------------------------------------------------------
    def sync(self, key: tuple[str, str]) -> None:
        d = self._table.get(key)   # (store.get's: the key is the table's)
        if d is None or d.metadata.deletion_timestamp is not None:
            return
        # (what _sync_status compares: while it stands, nothing was written since d was read)
        self._read_rv = self.store.resource_version
        sel = d.spec.selector
        if sel is None or _SELECTS_ALL(sel):
            self.store.record_event(d, "Warning", "SelectingAll", "This deployment is selecting "
                                    "all pods. A non-empty selector is required.", COMPONENT)
            return
        # (paused_conditions answers None for a Deployment not paused whose Progressing
        # condition is not the pause's: every sync of a rollout, asked without its call)
        progressing = dp.stored_progressing(d)
        if d.spec.paused:
            paused = dp.paused_conditions(d, self.clock.now)
        else:
            paused = dp.paused_conditions(d, self.clock.now) if progressing is not None and \
                progressing.get("reason") == dp.PAUSED else None
        if paused is not None:
            d = self._write(d, status=self._with_conditions(d.status, paused)) or d
            self._read = None
        else:
            self._read, self._read_progressing = d, progressing
        if not self.memo:
            fam, rs_list = None, self._claim(d)
        else:
            fam = self._family(d)
            if fam is not None:
                rs_list = list(fam.seen)   # (the index's, as _family found them)
            else:
                rs_list = self._claim(d)
                fam = self._remember(d, rs_list)
        # (_is_scaling_event's answer for a family with no desired-replicas annotation that
        # differs, and du.is_rolling, inline: every sync asks both)
        if d.spec.paused or (fam is None or fam.differs is not None) and \
                self._is_scaling_event(d, rs_list, fam):
            self._sync(d, rs_list, fam)
        elif d.spec.strategy.type != du.RECREATE:
            self.rollout.rolling(d, rs_list, fam)
        else:
            self.rollout.recreate(d, rs_list, fam)

    # -- what a sync derives from the ReplicaSets' labels, annotations and templates ---------
    def _family(self, d: Any) -> _Family | None:
        """The Deployment's remembered _Family, if it still holds: the same spec object, no
        orphan in the namespace (none to adopt), and the same ReplicaSets in the index —
        each with its uid and its labels, annotations and template objects, which a resize
        or a status write keeps (they are what the facts are made of); else None."""
        meta = d.metadata
        fam = self._families.get(meta.uid)
        if fam is None or fam.spec is not d.spec or self.rss.orphans(meta.namespace):
            return None
        seen = fam.seen
        owned = self.rss.owned(meta.uid)
        if len(owned) != len(seen):
            return None
        i = 0
        for rs in owned.values():
            if rs is not seen[i]:   # (a ReplicaSet not written since: nothing to compare)
                m = rs.metadata
                labels, annotations, template, uid = fam.parts[i]
                if m.labels is not labels or m.annotations is not annotations or \
                        rs.spec.template is not template or m.uid != uid:
                    return None
                seen[i] = rs
            i += 1
        return fam

    def _remember(self, d: Any, rs_list: list[Any]) -> _Family | None:
        """A _Family for ``rs_list``, the ReplicaSets _claim just returned, when they are the
        index's every one of the Deployment's, in its order, and there is no orphan: what a
        later sync finds there, unchanged, without claiming again; else None."""
        owned = self.rss.owned(d.metadata.uid)
        if len(owned) != len(rs_list) or self.rss.orphans(d.metadata.namespace):
            return None
        for rs, cur in zip(rs_list, owned.values()):
            if rs is not cur:
                return None
        fam = _Family(d, rs_list, self._find_new(d, rs_list))
        fam.parts = tuple((rs.metadata.labels, rs.metadata.annotations, rs.spec.template,
                           rs.metadata.uid) for rs in rs_list)
        fam.seen = list(rs_list)
        if len(self._families) >= 4096:
            self._families.clear()
        self._families[d.metadata.uid] = fam
        return fam

    def _claim(self, d: Any) -> list[Any]:
        """ClaimReplicaSets, simply: adopt matching orphans, release those that stopped matching."""
        sel = d.spec.selector
        mine = self.rss.owned(d.metadata.uid)
        owned = [rs for rs in mine.values() if sel.matches(rs.metadata.labels)]
        if len(owned) != len(mine):
            # Some stopped matching: release them (a write changes the index: iterate a copy).
            owned = []
            for rs in list(mine.values()):
                if sel.matches(rs.metadata.labels):
                    owned.append(rs)
                else:
                    refs = tuple(r for r in rs.metadata.owner_references
                                 if r.uid != d.metadata.uid)
                    self._write(rs, metadata=evolve(rs.metadata, owner_references=refs))
        orphans = self.rss.orphans(d.metadata.namespace)
        if not orphans:
            return owned
        ref = owner_ref_for(d, "apps/v1")
        for rs in list(orphans.values()):
            if rs.metadata.deletion_timestamp is None and sel.matches(rs.metadata.labels):
                adopted = self._write(rs, metadata=evolve(
                    rs.metadata, owner_references=rs.metadata.owner_references + (ref,)))
                if adopted is not None:
                    owned.append(adopted)
        return owned

    def _is_scaling_event(self, d: Any, rs_list: list[Any], fam: _Family | None = None
                          ) -> bool:
        """isScalingEvent: an active ReplicaSet was sized for a different replica count.
        ``fam``: the sync's _Family, which knows whose desired-replicas differ."""
        if fam is not None:
            differs = fam.differs
            if differs is None:
                return False
            for rs, differ in zip(rs_list, differs):
                if differ and (rs.spec.replicas is None or rs.spec.replicas > 0):
                    return True
            return False
        want = None   # str(replicas(d)), once there is an annotation to compare
        for rs in du.filter_active(rs_list):
            desired = rs.metadata.annotations.get(du.DESIRED_REPLICAS)
            if desired is not None:
                if want is None:
                    want = du.facts(d).desired_text
                if desired != want:
                    return True
        return False

    # -- the new and the old ReplicaSets (sync.go) -------------------------------------------
    def _all_rss(self, d: Any, rs_list: list[Any], create: bool,
                 fam: _Family | None = None) -> tuple[Any, list[Any]]:
        """getAllReplicaSetsAndSyncRevision: (new or None, every old one). ``fam``: the
        sync's _Family of ``rs_list``, which knows the new one and its revision."""
        if fam is not None:
            i = fam.new
            if i is not None:
                # (the others, by place: what the filter below gives, without its frame)
                new_rs, old_rss = rs_list[i], rs_list[:i] + rs_list[i + 1:]
            else:
                new_rs, old_rss = None, list(rs_list)
        else:
            new_rs = self._find_new(d, rs_list)
            old_rss = [rs for rs in rs_list if rs is not new_rs]
        if fam is not None and new_rs is not None and fam.revision_kept and \
                new_rs.spec.min_ready_seconds == d.spec.min_ready_seconds:
            # _new_rs of an existing new ReplicaSet that needs no write
            rev = fam.revision
            if d is self._read and self._read_progressing is not None and \
                    self.store.resource_version == self._read_rv and \
                    (not rev or d.metadata.annotations.get(du.REVISION) == rev):
                # _new_rs_found's answer without its call: nothing written since the sync
                # read d (the stored one then), its revision already rev, a Progressing
                # condition stored — every sync of a rollout under way
                return new_rs, old_rss
            self._new_rs_found(d, rev, new_rs.metadata.name, created=False)
            return new_rs, old_rss
        return self._new_rs(d, old_rss, new_rs, create), old_rss

    def _find_new(self, d: Any, rs_list: list[Any]) -> Any:
        """FindNewReplicaSet: the oldest whose template equals the Deployment's (ignoring the
        hash label), or None."""
        for rs in du.by_creation(rs_list):
            if self.templates.equal_ignore_hash(rs.spec.template, d.spec.template):
                return rs
        return None

    def _new_rs(self, d: Any, old_rss: list[Any], existing: Any, create: bool) -> Any:
        new_revision = str(du.max_revision(old_rss) + 1)
        if existing is not None:
            rs = existing
            meta, spec = rs.metadata, rs.spec
            if du.revision(rs) < int(new_revision):
                meta = evolve(meta, annotations=meta.annotations.set(du.REVISION,
                                                                     new_revision))
            if spec.min_ready_seconds != d.spec.min_ready_seconds:
                spec = evolve(spec, min_ready_seconds=d.spec.min_ready_seconds)
            if meta is not rs.metadata or spec is not rs.spec:
                rs = self._write(rs, metadata=meta, spec=spec) or rs
            self._new_rs_found(d, rs.metadata.annotations.get(du.REVISION, ""),
                               rs.metadata.name, created=False)
            return rs
        if not create:
            return None
        collisions = int(d.status.extra.get("collisionCount", 0) or 0)
        for _ in range(_MAX_COLLISIONS):
            rs, clash = self._create_rs(d, old_rss, new_revision, collisions)
            if not clash:
                break
            collisions += 1
        else:
            return None
        if collisions != int(d.status.extra.get("collisionCount", 0) or 0):
            fresh = self.store.get("Deployment", d.metadata.name, d.metadata.namespace) or d
            self._write(fresh, status=evolve(fresh.status, extra=fresh.status.extra.set(
                "collisionCount", collisions)))
        if rs is not None:
            self._new_rs_found(d, new_revision, rs.metadata.name, created=True)
        return rs

    def _new_rs_found(self, d: Any, rev: str, rs_name: str, created: bool) -> None:
        """The Deployment takes its new ReplicaSet's revision, then the Progressing condition
        that says the ReplicaSet was created or found — each on the stored Deployment, read
        once when the revision needs no write (every sync of a rollout under way)."""
        store, ns, name = self.store, d.metadata.namespace, d.metadata.name
        # (nothing written since the sync read d — every rollout step's first look — leaves
        # d the stored one)
        fresh = d if store.resource_version == self._read_rv else \
            store.get("Deployment", name, ns)
        if fresh is not None and rev and fresh.metadata.annotations.get(du.REVISION) != rev:
            self._write(fresh, metadata=evolve(
                fresh.metadata, annotations=fresh.metadata.annotations.set(du.REVISION, rev)))
            fresh = store.get("Deployment", name, ns)
        if fresh is None:
            return
        if not created and (self._read_progressing if fresh is self._read else
                            dp.stored_progressing(fresh)) is not None:
            # new_rs_condition's answer for a ReplicaSet found while a Progressing condition
            # is stored (every sync of a rollout under way), without its call
            return
        conds = dp.new_rs_condition(fresh, rs_name, created, self.clock.now)
        if conds is not None:
            self._write(fresh, status=self._with_conditions(fresh.status, conds))

    @staticmethod
    def _with_conditions(status: Any, conds: list[Any]) -> Any:
        return evolve(status, extra=status.extra.set("conditions", tuple(conds)))

    def _create_rs(self, d: Any, old_rss: list[Any], new_revision: str,
                   collisions: int) -> tuple[Any, bool]:
        """Create ``<deployment>-<hash>``; (rs, clash) where clash means the name was taken by a
        ReplicaSet with another template (a hash collision)."""
        template = d.spec.template
        pod_hash = compute_hash(template, collisions)
        labels = FrozenDict({**template.metadata.labels, du.POD_TEMPLATE_HASH: pod_hash})
        new_template = evolve(template, metadata=evolve(template.metadata,
                                                        labels=labels))
        sel = d.spec.selector
        selector = evolve(sel, match_labels=FrozenDict(
            {**sel.match_labels, du.POD_TEMPLATE_HASH: pod_hash}))
        name = f"{d.metadata.name}-{pod_hash}"
        annotations = FrozenDict({du.REVISION: new_revision,
                                  du.DESIRED_REPLICAS: str(du.replicas(d)),
                                  du.MAX_REPLICAS: str(du.replicas(d) + du.max_surge(d))})
        rs = ReplicaSet(
            metadata=ObjectMeta(name=name, namespace=d.metadata.namespace, labels=labels,
                                annotations=annotations,
                                owner_references=(owner_ref_for(d, "apps/v1"),)),
            spec=ReplicaSetSpec(replicas=0, selector=selector, template=new_template,
                                min_ready_seconds=d.spec.min_ready_seconds))
        size = du.new_rs_new_replicas(d, old_rss + [rs], rs)
        rs = evolve(rs, spec=evolve(rs.spec, replicas=size))
        try:
            created = self.store.create(rs)
        except ApiError as err:
            if err.reason != "AlreadyExists":
                self.store.record_event(d, "Warning", "FailedCreate", "Failed to create new "
                                        f"replica set \"{name}\": {server_message(err)}",
                                        COMPONENT)
                return None, False
            other = self.store.get("ReplicaSet", name, d.metadata.namespace)
            ref = other.metadata.controller_ref() if other is not None else None
            if ref is not None and ref.uid == d.metadata.uid and \
                    self.templates.equal_ignore_hash(other.spec.template, template):
                return other, False
            return None, True
        if size > 0:
            self._scaled_event(d, created, 0, size)
        return created, False

    # -- scaling -----------------------------------------------------------------------------
    def _scale_rs(self, rs: Any, size: int, d: Any, f: Any = None) -> bool:
        """scaleReplicaSet: set the size and the desired/max-replicas annotations. ``f``:
        du.facts(d), when the caller has it."""
        size = max(0, size)
        if f is None:
            f = du.facts(d)
        want_desired, want_max = f.desired_text, f.max_text
        ann = rs.metadata.annotations
        r = rs.spec.replicas
        old_size = 1 if r is None else r   # du.replicas(rs)
        resize = old_size != size
        annotated = ann.get(du.DESIRED_REPLICAS) == want_desired and \
            ann.get(du.MAX_REPLICAS) == want_max
        if not resize and annotated:
            return False
        if annotated:
            meta = rs.metadata   # the same annotations, in the same order: keep the object
        else:
            meta = evolve(rs.metadata, annotations=FrozenDict(
                {**ann, du.DESIRED_REPLICAS: want_desired, du.MAX_REPLICAS: want_max}))
        spec = rs.spec
        if resize:
            spec = _SIZED(spec, size) if type(spec) is ReplicaSetSpec else \
                evolve(spec, replicas=size)
        resized = _RESIZED(rs, meta, spec) if type(rs) is ReplicaSet else \
            evolve(rs, metadata=meta, spec=spec)
        try:   # self._update(resized), inline (two rollout steps of three resize)
            self.store.update(resized)
        except ApiError:
            return False
        if resize:   # self._scaled_event(d, rs, old_size, size), inline
            self.store.record_event(d, "Normal", "ScalingReplicaSet",
                                    f"Scaled {'up' if size > old_size else 'down'} replica set "
                                    f"{rs.metadata.name} from {old_size} to {size}", COMPONENT)
        return resize

    def _scale_rs_and_event(self, rs: Any, size: int, d: Any) -> bool:
        """scaleReplicaSetAndRecordEvent: nothing to do at the right size."""
        if du.replicas(rs) == size:
            return False
        return self._scale_rs(rs, size, d)

    def _scaled_event(self, d: Any, rs: Any, old: int, new: int) -> None:
        direction = "up" if new > old else "down"
        self.store.record_event(d, "Normal", "ScalingReplicaSet",
                                f"Scaled {direction} replica set {rs.metadata.name} "
                                f"from {old} to {new}", COMPONENT)

    def _sync(self, d: Any, rs_list: list[Any], fam: _Family | None = None) -> None:
        """sync: a paused Deployment or a scaling event — resize, no rollout."""
        new_rs, old_rss = self._all_rss(d, rs_list, False, fam)
        self._scale(d, new_rs, old_rss)
        if d.spec.paused:
            self._cleanup(d, self._fresh(old_rss))
        self._sync_status(d, progress=False)

    def _scale(self, d: Any, new_rs: Any, old_rss: list[Any]) -> None:
        """scale: one active ReplicaSet takes the new size; a saturated new one empties the old
        ones; otherwise (mid-rollout) every active one grows or shrinks in proportion."""
        target = du.find_active_or_latest(new_rs, old_rss)
        if target is not None:
            self._scale_rs_and_event(target, du.replicas(d), d)
            return
        if du.is_saturated(d, new_rs):
            for rs in du.filter_active(old_rss):
                self._scale_rs_and_event(rs, 0, d)
            return
        if not du.is_rolling(d):
            return
        active = du.filter_active(old_rss + ([new_rs] if new_rs is not None else []))
        allowed = du.replicas(d) + du.max_surge(d) if du.replicas(d) > 0 else 0
        to_add = allowed - du.total_replicas(active)
        if to_add > 0:
            active = du.by_size_newer(active)
        elif to_add < 0:
            active = du.by_size_older(active)
        sizes: dict[str, int] = {}
        added = 0
        for rs in active:
            share = du.proportion(rs, d, to_add, added) if to_add else 0
            sizes[rs.metadata.name] = du.replicas(rs) + share
            added += share
        if to_add and active:
            first = active[0].metadata.name
            sizes[first] = max(0, sizes[first] + to_add - added)
        for rs in active:
            self._scale_rs(rs, sizes[rs.metadata.name], d)

    # -- cleanup and status ------------------------------------------------------------------
    def _cleanup(self, d: Any, old_rss: list[Any]) -> None:
        """cleanupDeployment: keep revisionHistoryLimit old ReplicaSets, deleting the oldest
        revisions among those that are empty and settled."""
        limit = d.spec.revision_history_limit
        if limit is None:
            return
        alive = [rs for rs in old_rss if rs.metadata.deletion_timestamp is None]
        diff = len(alive) - limit
        if diff <= 0:
            return
        for rs in du.by_revision(alive)[:diff]:
            if rs.status.replicas != 0 or du.replicas(rs) != 0 or \
                    rs.metadata.generation > rs.status.observed_generation:
                continue
            self._delete_rs(rs)

    def _sync_status(self, d: Any, progress: bool = True,
                     known: tuple[list[Any], Any] | None = None) -> None:
        """syncDeploymentStatus (``progress=False``: a paused Deployment or a scaling event)
        or syncRolloutStatus: the counts, Available, and the Progressing estimate; a rollout
        that may get stuck is looked at again when its deadline could pass. ``known``: the
        ReplicaSets the sync claimed and the new one it found (see _status_rss)."""
        if progress and self.memo:
            self._rollout_status(d, known)
            return
        found = self._status_rss(d, known)
        if found is None:
            return
        fresh, rss, new_rs = found
        want = du.calculate_status(fresh, rss, new_rs)
        conds, after = dp.status_conditions(fresh, want, new_rs, self.clock.now, progress)
        if after is not None:
            # Background: a stuck rollout alone does not keep a headless run going.
            self.queue.add_after((fresh.metadata.namespace, fresh.metadata.name), after,
                                 background=True)
        st = fresh.status
        if st.replicas == want["replicas"] and \
                st.updated_replicas == want["updated_replicas"] and \
                st.ready_replicas == want["ready_replicas"] and \
                st.available_replicas == want["available_replicas"] and \
                st.unavailable_replicas == want["unavailable_replicas"] and \
                st.observed_generation == want["observed_generation"] and \
                list(st.extra.get("conditions") or ()) == conds:
            return
        # one new status (the counts and the conditions together), not one for each
        extra = st.extra.set("conditions", tuple(conds))
        if type(st) is DeploymentStatus:
            status = _STATUS(st, want["replicas"], want["updated_replicas"],
                             want["ready_replicas"], want["available_replicas"],
                             want["unavailable_replicas"], want["observed_generation"], extra)
        else:
            status = evolve(st, extra=extra, **want)
        try:   # self._write(fresh, status=status), without its keyword dict
            self.store.write_status(fresh, status)
        except ApiError:
            pass

    def _rollout_status(self, d: Any, known: tuple[list[Any], Any] | None = None,
                        f: Any = None) -> None:
        """_sync_status for a rollout (``progress``, with ``memo``), over dp.rollout_status —
        the counts and conditions in one pass — and, when it writes, with the view of the
        conditions it wrote remembered (dp.remember_view): the next sync reads them first
        (its pause check), and used to gather their Available and Progressing again.
        ``f``: du.facts of the Deployment the sync read, when the caller has it."""
        found = self._status_rss(d, known)
        if found is None:
            return
        d, rss, new_rs = found
        counts, conds, after, view = dp.rollout_status(
            d, rss, new_rs, self.clock.now, f if f is not None and f.spec is d.spec else None)
        if after is not None:
            # Background: a stuck rollout alone does not keep a headless run going.
            self.queue.add_after((d.metadata.namespace, d.metadata.name), after,
                                 background=True)
        replicas, updated, ready, available, unavailable, generation = counts
        st = d.status
        if st.replicas == replicas and st.updated_replicas == updated and \
                st.ready_replicas == ready and st.available_replicas == available and \
                st.unavailable_replicas == unavailable and \
                st.observed_generation == generation and \
                list(st.extra.get("conditions") or ()) == conds:
            return
        written = tuple(conds)
        extra = st.extra.set("conditions", written)
        if type(st) is DeploymentStatus:
            status = _STATUS(st, replicas, updated, ready, available, unavailable, generation,
                             extra)
        else:
            status = evolve(st, replicas=replicas, updated_replicas=updated,
                            ready_replicas=ready, available_replicas=available,
                            unavailable_replicas=unavailable, observed_generation=generation,
                            extra=extra)
        try:
            self.store.write_status(d, status)
        except ApiError:
            return
        if view is not None:
            dp.remember_view(written, view)

    def _status_rss(self, d: Any, known: tuple[list[Any], Any] | None
                    ) -> tuple[Any, list[Any], Any] | None:
        """The stored Deployment, its ReplicaSets and its new one, after the sync's writes
        (None when it is gone): what _stored_rss finds, without finding it again when
        ``known`` — the sync's claimed ReplicaSets and the new one — provably still holds.

        * Nothing written since the sync read ``d`` (the store's resourceVersion unchanged:
          a third of a rollout's syncs, its new pod came): ``d`` and ``known`` are the
          stored ones.
        * Else, with the Deployment's spec unchanged (its own writes are status and
          annotations), the controller index holds the claimed ReplicaSets by name, no
          other, each with its labels and template objects (a resize or a status write
          keeps them): all still selected, in the index's order, and the same one is new
          (creation times and names do not change)."""
        store = self.store
        if known is not None and store.resource_version == self._read_rv:
            return d, known[0], known[1]
        meta = d.metadata
        fresh = self._table.get((meta.namespace, meta.name))   # (store.get's)
        if fresh is None:
            return None
        if known is not None and fresh.spec is d.spec:
            claimed, new = known
            owned = self.rss.owned(fresh.metadata.uid)
            if len(owned) == len(claimed):
                for rs in claimed:
                    cur = owned.get(rs.metadata.name)
                    if cur is None or cur.metadata.labels is not rs.metadata.labels or \
                            cur.spec.template is not rs.spec.template:
                        break
                else:
                    return fresh, list(owned.values()), \
                        owned[new.metadata.name] if new is not None else None
        rss, new_rs = self._stored_rss(fresh)
        return fresh, rss, new_rs

    def _stored_rss(self, d: Any) -> tuple[list[Any], Any]:
        """The stored Deployment's ReplicaSets (owned and selected) and its new one, found
        again after the sync's writes."""
        sel = d.spec.selector
        rss = [rs for rs in self.rss.owned(d.metadata.uid).values()
               if sel.matches(rs.metadata.labels)]
        for rs in du.by_creation(rss):
            if self.templates.equal_ignore_hash(rs.spec.template, d.spec.template):
                return rss, rs
        return rss, None

    # -- writes ------------------------------------------------------------------------------
    def _fresh(self, rss: list[Any]) -> list[Any]:
        """The stored versions of the sync's ReplicaSets (each as read when gone). With
        nothing written since the sync read its Deployment (the store's resourceVersion
        unchanged), every ReplicaSet it read since is the stored one (most rollout steps
        read them again before they write)."""
        if self.store.resource_version == self._read_rv:
            return list(rss)
        out = []
        table = self._rs_table
        for rs in rss:
            meta = rs.metadata
            cur = table.get((meta.namespace, meta.name))   # (store.get's)
            out.append(cur if cur is not None else rs)
        return out

    def _write(self, obj: Any, **changes: Any) -> Any:
        """Update ``obj`` with ``changes``; None when it has gone meanwhile. A change of status
        alone goes through the status subresource, anything else through a validated update."""
        if len(changes) == 1 and "status" in changes:
            try:
                return self.store.write_status(obj, changes["status"])
            except ApiError:
                return None
        return self._update(evolve(obj, **changes))

    def _update(self, obj: Any) -> Any:
        """A validated update of ``obj`` (built from the stored one); None when it has gone
        meanwhile."""
        try:
            return self.store.update(obj)
        except ApiError:
            return None

    def _delete_rs(self, rs: Any) -> None:
        try:
            self.store.delete("ReplicaSet", rs.metadata.name, rs.metadata.namespace)
        except ApiError:
            pass
