"""A Deployment's Available and Progressing conditions, and the progress deadline.

Ported from upstream ``pkg/controller/deployment/progress.go`` (syncRolloutStatus,
requeueStuckDeployment), ``sync.go`` (calculateStatus's Available condition,
checkPausedConditions, getNewReplicaSet's NewReplicaSetCreated / FoundNewReplicaSet) and
``util/deployment_util.go`` (NewDeploymentCondition, SetDeploymentCondition,
DeploymentProgressing, DeploymentTimedOut), in our own words. Pure functions over a
Deployment's conditions — kept as dicts in ``status.extra["conditions"]``, as the HPA keeps its
own — which ``deployment.py`` calls while it syncs.

* Available: True ``MinimumReplicasAvailable`` while at least replicas − maxUnavailable pods
  are available, else False ``MinimumReplicasUnavailable``.
* Progressing: True ``NewReplicaSetCreated`` / ``FoundNewReplicaSet`` when the rollout starts,
  ``ReplicaSetUpdated`` each time it makes progress (lastUpdateTime moves),
  ``NewReplicaSetAvailable`` when it completes; False ``ProgressDeadlineExceeded`` when no
  progress was seen for ``progressDeadlineSeconds``; Unknown ``DeploymentPaused`` /
  ``DeploymentResumed`` around a pause.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..api.codec import FrozenDict
from . import deployment_util as du

AVAILABLE, PROGRESSING = "Available", "Progressing"
MIN_AVAILABLE, MIN_UNAVAILABLE = "MinimumReplicasAvailable", "MinimumReplicasUnavailable"
NEW_RS_CREATED, FOUND_NEW_RS = "NewReplicaSetCreated", "FoundNewReplicaSet"
RS_UPDATED, NEW_RS_AVAILABLE = "ReplicaSetUpdated", "NewReplicaSetAvailable"
TIMED_OUT = "ProgressDeadlineExceeded"
PAUSED, RESUMED = "DeploymentPaused", "DeploymentResumed"

Conditions = list[FrozenDict]


def conditions_of(d: Any) -> Conditions:
    """The Deployment's conditions (the entries that are mappings), as a list of its own for
    the caller."""
    return list(_filtered(d))


def stored_condition(d: Any, type_: str) -> FrozenDict | None:
    """get_condition(conditions_of(d), type_) without a list of the caller's own: the checks
    that only look (a sync's pause check, its new ReplicaSet's) make one only to change it."""
    return get_condition(_filtered(d), type_)


def _filtered(d: Any) -> Conditions:
    """The entries of d's conditions that are mappings. A sync reads one stored tuple several
    times (the pause check, the new ReplicaSet's condition, the status): the filtered list is
    kept for the last tuple seen, by identity (the entry holds the tuple, so the id is not
    reused), and shared — read it only."""
    raw = d.status.extra.get("conditions") or ()
    if type(raw) is not tuple:   # (only an immutable tuple is remembered)
        return [c for c in raw if hasattr(c, "get")]
    last = _LAST_CONDITIONS
    if last[0] is not raw:
        last[0], last[1] = raw, [c for c in raw if hasattr(c, "get")]
    return last[1]


# (the conditions tuple last filtered, its filtered entries): conditions_of's one-entry memo
_LAST_CONDITIONS: list[Any] = [None, []]


def get_condition(conds: Sequence[FrozenDict], type_: str) -> FrozenDict | None:
    for c in conds:
        if c.get("type") == type_:
            return c
    return None


def new_condition(type_: str, status: str, reason: str, message: str, now: float) -> FrozenDict:
    return _condition(type_, status, reason, message, now, now)


def _condition(type_: str, status: str, reason: str, message: str, now: float,
               transition: Any) -> FrozenDict:
    """NewDeploymentCondition with its lastTransitionTime given (one kept from the condition
    it replaces), in new_condition's key order."""
    return FrozenDict({"type": type_, "status": status, "lastUpdateTime": now,
                       "lastTransitionTime": transition, "reason": reason, "message": message})


def set_condition(conds: Conditions, cond: FrozenDict) -> Conditions:
    """SetDeploymentCondition: the same status and reason change nothing; the same status keeps
    its transition time; the condition goes to the end of the list."""
    cur = get_condition(conds, cond["type"])
    if cur is not None and cur.get("status") == cond["status"] and \
            cur.get("reason") == cond["reason"]:
        return conds
    if cur is not None and cur.get("status") == cond["status"]:
        cond = cond.set("lastTransitionTime", cur.get("lastTransitionTime"))
    return [c for c in conds if c.get("type") != cond["type"]] + [cond]


def remove_condition(conds: Conditions, type_: str) -> Conditions:
    return [c for c in conds if c.get("type") != type_]


def has_deadline(d: Any) -> bool:
    """HasProgressDeadline: set and not MaxInt32 (the 'never' value)."""
    return du.facts(d).deadline is not None


def with_available(d: Any, conds: Conditions, available: int, now: float) -> Conditions:
    """calculateStatus: Available from the replicas minus maxUnavailable."""
    ok = available >= du.facts(d).min_available
    status, reason = ("True", MIN_AVAILABLE) if ok else ("False", MIN_UNAVAILABLE)
    cur = get_condition(conds, AVAILABLE)
    if cur is not None and cur.get("status") == status and cur.get("reason") == reason:
        return conds   # set_condition would keep it: no need to build the new one
    if ok:
        return set_condition(conds, new_condition(
            AVAILABLE, "True", MIN_AVAILABLE, "Deployment has minimum availability.", now))
    return set_condition(conds, new_condition(
        AVAILABLE, "False", MIN_UNAVAILABLE, "Deployment does not have minimum availability.",
        now))


def _progressing(old: Any, new: dict[str, int]) -> bool:
    """DeploymentProgressing: more updated, fewer old, more ready or more available pods."""
    old_old = old.replicas - old.updated_replicas
    new_old = new["replicas"] - new["updated_replicas"]
    return (new["updated_replicas"] > old.updated_replicas or new_old < old_old
            or new["ready_replicas"] > old.ready_replicas
            or new["available_replicas"] > old.available_replicas)


def _timed_out(d: Any, conds: Conditions, now: float) -> bool:
    """DeploymentTimedOut: no progress since the Progressing condition's lastUpdateTime for
    longer than the deadline (strictly, as upstream's Before)."""
    cond = get_condition(conds, PROGRESSING)
    if cond is None or cond.get("reason") == NEW_RS_AVAILABLE:
        return False
    if cond.get("reason") == TIMED_OUT:
        return True
    return float(cond.get("lastUpdateTime") or 0.0) + d.spec.progress_deadline_seconds < now


class _Counts:
    """A status's counts, as the progress checks read them."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.replicas = counts["replicas"]
        self.updated_replicas = counts["updated_replicas"]
        self.ready_replicas = counts["ready_replicas"]
        self.available_replicas = counts["available_replicas"]
        self.observed_generation = counts["observed_generation"]


def status_conditions(d: Any, counts: dict[str, int], new_rs: Any, now: float,
                      progress: bool) -> tuple[Conditions, float | None]:
    """The conditions a status sync writes and when to look again: calculateStatus's
    Available and — ``progress``: syncRolloutStatus, not a paused Deployment or a scaling
    event — the Progressing estimate and requeueStuckDeployment's recheck. One pass over what
    they read: the stored conditions, the Progressing one, whether the rollout is complete
    (every status sync of a rollout asked each of them two or three times)."""
    conds = with_available(d, conditions_of(d), counts["available_replicas"], now)
    if not progress:
        return conds, None
    if not has_deadline(d):
        return remove_condition(conds, PROGRESSING), None
    # (with_available replaced Available alone: this is the stored Progressing condition)
    current = get_condition(conds, PROGRESSING)
    complete = du.deployment_complete(d, _Counts(counts))
    conds = _rollout(d, conds, counts, new_rs, now, current, complete)
    return conds, _recheck(d, conds, complete, now)


def _rollout(d: Any, conds: Conditions, counts: dict[str, int], new_rs: Any, now: float,
             current: FrozenDict | None, complete: bool) -> Conditions:
    """syncRolloutStatus's Progressing estimate over the freshly calculated counts, for a
    Deployment with a deadline: ``current`` is its stored Progressing condition, ``complete``
    whether the counts complete the rollout."""
    complete_before = counts["replicas"] == counts["updated_replicas"] and \
        current is not None and current.get("reason") == NEW_RS_AVAILABLE
    if complete_before:
        return conds
    name = f'ReplicaSet "{new_rs.metadata.name}"' if new_rs is not None else \
        f'Deployment "{d.metadata.name}"'
    if complete:
        return set_condition(conds, new_condition(
            PROGRESSING, "True", NEW_RS_AVAILABLE, f"{name} has successfully progressed.", now))
    if _progressing(d.status, counts):
        message = f"{name} is progressing."
        if current is None:
            return set_condition(conds, new_condition(PROGRESSING, "True", RS_UPDATED,
                                                      message, now))
        # The condition replaced — keeping its transition time while it stays True — and
        # put last: what set_condition does once it is removed, with the condition built
        # once (every sync of a rollout under way comes here: its lastUpdateTime moves).
        since = current.get("lastTransitionTime") if current.get("status") == "True" else now
        return remove_condition(conds, PROGRESSING) + [
            _condition(PROGRESSING, "True", RS_UPDATED, message, now, since)]
    if _timed_out(d, conds, now):
        return set_condition(conds, new_condition(
            PROGRESSING, "False", TIMED_OUT, f"{name} has timed out progressing.", now))
    return conds


def paused_conditions(d: Any, now: float) -> Conditions | None:
    """checkPausedConditions: the new conditions when a pause starts or ends, else None."""
    if not has_deadline(d):
        return None
    cond = stored_condition(d, PROGRESSING)
    if cond is not None and cond.get("reason") == TIMED_OUT:
        return None
    paused_exists = cond is not None and cond.get("reason") == PAUSED
    if d.spec.paused and not paused_exists:
        return set_condition(conditions_of(d), new_condition(
            PROGRESSING, "Unknown", PAUSED, "Deployment is paused", now))
    if not d.spec.paused and paused_exists:
        return set_condition(conditions_of(d), new_condition(
            PROGRESSING, "Unknown", RESUMED, "Deployment is resumed", now))
    return None


def new_rs_condition(d: Any, rs_name: str, created: bool, now: float) -> Conditions | None:
    """getNewReplicaSet: Progressing NewReplicaSetCreated for a ReplicaSet just created; for
    one found, FoundNewReplicaSet only when no Progressing condition exists yet."""
    if not has_deadline(d):
        return None
    if created:
        return set_condition(conditions_of(d), new_condition(
            PROGRESSING, "True", NEW_RS_CREATED, f'Created new replica set "{rs_name}"', now))
    if stored_condition(d, PROGRESSING) is None:
        return set_condition(conditions_of(d), new_condition(
            PROGRESSING, "True", FOUND_NEW_RS, f'Found new replica set "{rs_name}"', now))
    return None


def _recheck(d: Any, conds: Conditions, complete: bool, now: float) -> float | None:
    """requeueStuckDeployment, for a Deployment with a deadline: seconds until the deadline
    could pass (plus one, as upstream adds against clock skew), or None when there is nothing
    to watch (``complete``: the counts complete the rollout)."""
    cond = get_condition(conds, PROGRESSING)
    if cond is None or complete or cond.get("reason") == TIMED_OUT:
        return None
    after = float(cond.get("lastUpdateTime") or 0.0) + d.spec.progress_deadline_seconds - now
    return max(after, 0.0) + 1.0
