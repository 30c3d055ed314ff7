"""Pure helpers of the Deployment controller: surge and unavailability fenceposts, the size of a
new ReplicaSet, proportional scaling, ReplicaSet orderings, revisions and the status.

Ported from upstream ``pkg/controller/deployment/util/deployment_util.go`` and the sorting
types of ``pkg/controller/controller_utils.go``, in our own words. Everything here reads
values and returns numbers or lists; nothing writes the store (``deployment.py`` does).
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from ..api.core import PodTemplateSpec
from .controller_utils import scaled_value, template_key

# pkg/apis/apps: the annotations and label a Deployment puts on its ReplicaSets.
REVISION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
POD_TEMPLATE_HASH = "pod-template-hash"
RECREATE, ROLLING_UPDATE = "Recreate", "RollingUpdate"


def replicas(obj: Any) -> int:
    """``spec.replicas`` with the API default of 1 for an unset value."""
    r = obj.spec.replicas
    return 1 if r is None else r


def is_rolling(d: Any) -> bool:
    return d.spec.strategy.type != RECREATE


def resolve_fenceposts(max_surge: Any, max_unavailable: Any, desired: int) -> tuple[int, int]:
    """ResolveFenceposts: surge rounds up, unavailability rounds down; both zero would block a
    rollout forever, so unavailability then becomes 1."""
    surge = scaled_value(max_surge, desired, True)
    unavailable = scaled_value(max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def _spec_fenceposts(spec: Any) -> tuple[int, int]:
    ru = spec.strategy.rolling_update
    surge = ru.max_surge if ru is not None else None
    unavailable = ru.max_unavailable if ru is not None else None
    # pkg/apis/apps/v1/defaults.go: 25% each (admission sets them; this covers raw objects).
    return resolve_fenceposts("25%" if surge is None else surge,
                              "25%" if unavailable is None else unavailable,
                              1 if spec.replicas is None else spec.replicas)


class SpecFacts:
    """What a sync reads of a Deployment's (immutable) spec again and again — the replicas,
    the fenceposts and the bounds made of them, the progress deadline — worked out once per
    spec object: a Deployment keeps its spec across its status and annotation writes, and a
    sync asked for each of these several times (each a function call and a memo lookup)."""

    __slots__ = ("spec", "replicas", "rolling", "max_surge", "max_unavailable",
                 "min_available", "max_total", "desired_text", "max_text", "deadline")

    def __init__(self, spec: Any) -> None:
        self.spec = spec
        want = self.replicas = 1 if spec.replicas is None else spec.replicas
        self.rolling = spec.strategy.type != RECREATE
        if self.rolling:
            surge, unavailable = _spec_fenceposts(spec)
            self.max_surge = surge
            self.max_unavailable = 0 if want == 0 else min(unavailable, want)
        else:
            self.max_surge = self.max_unavailable = 0
        self.min_available = want - self.max_unavailable   # minAvailable of rolling.go
        self.max_total = want + self.max_surge               # maxTotalPods of NewRSNewReplicas
        self.desired_text = str(want)                        # the desired-replicas annotation
        self.max_text = str(self.max_total)                  # the max-replicas annotation
        s = spec.progress_deadline_seconds
        # HasProgressDeadline: set and not MaxInt32 (the 'never' value); else None
        self.deadline = s if s is not None and s != 2 ** 31 - 1 else None


_FACTS: dict[int, SpecFacts] = {}


def facts(d: Any) -> SpecFacts:
    """``SpecFacts`` of d's spec, remembered by the spec's identity (the entry holds the spec,
    so its id is not reused while remembered)."""
    spec = d.spec
    last = _LAST_FACTS[0]   # (a sync asks about one spec several times in a row)
    if last.spec is spec:
        return last
    hit = _FACTS.get(id(spec))
    if hit is None or hit.spec is not spec:
        if len(_FACTS) >= 4096:
            _FACTS.clear()
        hit = _FACTS[id(spec)] = SpecFacts(spec)
    _LAST_FACTS[0] = hit
    return hit


# the SpecFacts last asked for (a placeholder's first)
_LAST_FACTS: list[SpecFacts] = [SpecFacts.__new__(SpecFacts)]
_LAST_FACTS[0].spec = None


def max_surge(d: Any) -> int:
    return facts(d).max_surge


def max_unavailable(d: Any) -> int:
    return facts(d).max_unavailable


def total_replicas(rss: Iterable[Any]) -> int:
    """GetReplicaCountForReplicaSets: the sum of spec.replicas."""
    total = 0
    for rs in rss:   # a loop, not sum() over a generator: a sync asks several times
        if rs is not None:
            r = rs.spec.replicas
            total += 1 if r is None else r
    return total


def new_rs_new_replicas(d: Any, all_rss: list[Any], new_rs: Any) -> int:
    """NewRSNewReplicas: how big the new ReplicaSet may be now.

    RollingUpdate: grow until every ReplicaSet together reaches replicas + maxSurge, never past
    the Deployment's replicas. Recreate: the full size at once.
    """
    f = facts(d)
    want = f.replicas
    if not f.rolling:
        return want
    current = total_replicas(all_rss)
    max_total = f.max_total
    have = replicas(new_rs)
    if current >= max_total:
        return have
    return have + min(max_total - current, want - have)


def is_saturated(d: Any, rs: Any) -> bool:
    """IsSaturated: the new ReplicaSet alone runs the Deployment at full size."""
    if rs is None:
        return False
    f = facts(d)
    return (rs.metadata.annotations.get(DESIRED_REPLICAS) == f.desired_text
            and rs.status.available_replicas == f.replicas and replicas(rs) == f.replicas)


def deployment_complete(d: Any, status: Any) -> bool:
    """DeploymentComplete: every replica updated and available, the spec observed."""
    want = replicas(d)
    return (status.updated_replicas == want and status.replicas == want
            and status.available_replicas == want
            and status.observed_generation >= d.metadata.generation)


# -- orderings (controller_utils.go) ---------------------------------------------------------


def _creation_key(rs: Any) -> tuple[float, str]:
    meta = rs.metadata
    return meta.creation_timestamp or 0.0, meta.name


def by_creation(rss: Iterable[Any]) -> list[Any]:
    """ReplicaSetsByCreationTimestamp: oldest first, names breaking ties."""
    out = list(rss)
    if len(out) > 1:   # (most Deployments have one ReplicaSet between rollouts)
        out.sort(key=_creation_key)
    return out


def by_size_older(rss: Iterable[Any]) -> list[Any]:
    """ReplicaSetsBySizeOlder: largest first, then oldest."""
    return sorted(rss, key=lambda rs: (-replicas(rs), rs.metadata.creation_timestamp or 0.0,
                                       rs.metadata.name))


def by_size_newer(rss: Iterable[Any]) -> list[Any]:
    """ReplicaSetsBySizeNewer: largest first, then newest."""
    older = sorted(rss, key=lambda rs: (rs.metadata.creation_timestamp or 0.0, rs.metadata.name),
                   reverse=True)
    return sorted(older, key=lambda rs: -replicas(rs))


def filter_active(rss: Iterable[Any]) -> list[Any]:
    """FilterActiveReplicaSets: those asked to run at least one pod."""
    # replicas(rs) > 0, inline: an unset count is 1
    return [rs for rs in rss if rs is not None and
            (rs.spec.replicas is None or rs.spec.replicas > 0)]


def revision(rs: Any) -> int:
    try:
        return int(rs.metadata.annotations.get(REVISION, "0"))
    except ValueError:
        return 0


def max_revision(rss: Iterable[Any]) -> int:
    """The highest revision (0 for none)."""
    best = None
    for rs in rss:   # max() over a generator cost more than the few revisions it reads
        r = revision(rs)
        if best is None or r > best:
            best = r
    return 0 if best is None else best


def by_revision(rss: Iterable[Any]) -> list[Any]:
    """ReplicaSetsByRevision: oldest revision first, creation time breaking ties."""
    return sorted(rss, key=lambda rs: (revision(rs), rs.metadata.creation_timestamp or 0.0,
                                       rs.metadata.name))


def find_active_or_latest(new_rs: Any, old_rss: list[Any]) -> Any:
    """FindActiveOrLatest: the one ReplicaSet with pods, or the newest when none has any;
    None when several are active (a rollout is under way)."""
    if new_rs is None and not old_rss:
        return None
    old_sorted = by_size_newer(old_rss)
    active = filter_active(old_sorted + ([new_rs] if new_rs is not None else []))
    if not active:
        return new_rs if new_rs is not None else old_sorted[0]
    if len(active) == 1:
        return active[0]
    return None


# -- proportional scaling (sync.go / deployment_util.go) -------------------------------------


def _round(x: float) -> int:
    """integer.RoundToInt32: halves away from zero."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _annotated_max(rs: Any) -> int | None:
    raw = rs.metadata.annotations.get(MAX_REPLICAS)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def rs_fraction(rs: Any, d: Any) -> int:
    """getReplicaSetFraction: this ReplicaSet's share of a resize, from the size the Deployment
    had (max-replicas annotation) to the size it has now."""
    f = facts(d)
    if f.replicas == 0:
        return -replicas(rs)
    deployment_replicas = f.max_total
    annotated = _annotated_max(rs)
    if annotated is None:
        annotated = d.status.replicas
    if annotated <= 0:
        return 0
    return _round(replicas(rs) * deployment_replicas / annotated) - replicas(rs)


def proportion(rs: Any, d: Any, to_add: int, added: int) -> int:
    """GetProportion: the share, bounded by what is left to add (or remove)."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = rs_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


# -- templates -----------------------------------------------------------------------------


class TemplateKeys:
    """EqualIgnoreHash with a cache: templates compared by their encoded form minus the
    pod-template-hash label; the same spec object short-cuts the encoding."""

    def __init__(self) -> None:
        self._keys: dict[int, tuple[Any, str]] = {}
        # (id(a), id(b)) -> (a, b, answer): templates are immutable, and a sync asks about
        # the same pair (a ReplicaSet's template, the Deployment's) several times.
        self._pairs: dict[tuple[int, int], tuple[Any, Any, bool]] = {}

    def key(self, template: PodTemplateSpec) -> str:
        hit = self._keys.get(id(template))
        if hit is not None and hit[0] is template:
            return hit[1]
        if len(self._keys) > 4096:
            self._keys.clear()
        k = template_key(template, POD_TEMPLATE_HASH)
        self._keys[id(template)] = (template, k)
        return k

    def equal_ignore_hash(self, a: PodTemplateSpec, b: PodTemplateSpec) -> bool:
        hit = self._pairs.get((id(a), id(b)))
        if hit is not None and hit[0] is a and hit[1] is b:
            return hit[2]
        answer = self._equal_ignore_hash(a, b)
        if len(self._pairs) > 4096:
            self._pairs.clear()
        self._pairs[(id(a), id(b))] = (a, b, answer)
        return answer

    def _equal_ignore_hash(self, a: PodTemplateSpec, b: PodTemplateSpec) -> bool:
        if a.spec is b.spec:
            la = a.metadata.labels
            if POD_TEMPLATE_HASH in la:
                la = la.without(POD_TEMPLATE_HASH)
            lb = b.metadata.labels
            if POD_TEMPLATE_HASH in lb:
                lb = lb.without(POD_TEMPLATE_HASH)
            if la == lb and a.metadata.annotations == b.metadata.annotations:
                return True
        return self.key(a) == self.key(b)


def new_and_old_replicasets(d: Any, rss: Iterable[Any]) -> tuple[Any, list[Any]]:
    """GetAllReplicaSets as ``kubectl describe`` uses it: the new ReplicaSet (the oldest whose
    template equals the Deployment's, ignoring the hash label) and the old ones that still
    have replicas (FindOldReplicaSets' first list: a finished rollout leaves none)."""
    ordered = by_creation(rss)
    keys = TemplateKeys()
    new = next((rs for rs in ordered
                if keys.equal_ignore_hash(rs.spec.template, d.spec.template)), None)
    old = [rs for rs in ordered if rs is not new and replicas(rs) != 0]
    return new, old


# -- status --------------------------------------------------------------------------------


def rs_totals(rss: Any) -> tuple[int, int, int, int]:
    """(replicas, ready, available, desired) summed over the ReplicaSets (a nil spec.replicas
    wants 1): calculateStatus's sums, for it and the one-pass rollout status."""
    available = total = count = ready = 0
    for rs in rss:   # one pass: these lists hold a few ReplicaSets, read every sync
        st = rs.status
        available += st.available_replicas
        count += st.replicas
        ready += st.ready_replicas
        r = rs.spec.replicas
        total += 1 if r is None else r
    return count, ready, available, total


def calculate_status(d: Any, all_rss: list[Any], new_rs: Any) -> dict[str, int]:
    """calculateStatus: counts summed over the ReplicaSets; unavailable never below zero."""
    count, ready, available, total = rs_totals(all_rss)
    return {
        "replicas": count,
        "updated_replicas": new_rs.status.replicas if new_rs is not None else 0,
        "ready_replicas": ready,
        "available_replicas": available,
        "unavailable_replicas": max(0, total - available),
        "observed_generation": d.metadata.generation,
    }
