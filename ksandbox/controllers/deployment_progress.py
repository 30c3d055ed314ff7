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
    if type_ == PROGRESSING:
        return _view(d)[2]
    if type_ == AVAILABLE:
        return _view(d)[1]
    return get_condition(_view(d)[0], type_)


def stored_progressing(d: Any) -> FrozenDict | None:
    """stored_condition(d, PROGRESSING), in one frame while _view remembers d's conditions
    (its lookup inline: every sync asks)."""
    raw = d.status.extra.get("conditions") or ()
    hit = _VIEWS.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1][2]
    return _view(d)[2]


def _filtered(d: Any) -> Conditions:
    """The entries of d's conditions that are mappings, shared: read it only."""
    return _view(d)[0]


def _view(d: Any) -> list[Any]:
    """[the entries of d's conditions that are mappings, the Available one, the Progressing
    one] (get_condition of each, None when absent). A sync reads one stored tuple several
    times (the pause check, the new ReplicaSet's condition, the status): the view is kept
    per tuple, by identity (the entry holds the tuple, so the id is not reused), and shared
    — read it only. A sync that writes conditions remembers the view of the tuple it wrote
    (remember_view): the Deployment's next sync starts from that tuple."""
    raw = d.status.extra.get("conditions") or ()
    hit = _VIEWS.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    conds = [c for c in raw if hasattr(c, "get")]
    view = [conds, get_condition(conds, AVAILABLE), get_condition(conds, PROGRESSING)]
    if type(raw) is tuple:   # (only an immutable tuple is remembered)
        remember_view(raw, view)
    return view


def remember_view(raw: tuple, view: list[Any]) -> None:
    """Keep ``view`` as _view's answer for the conditions tuple ``raw``: ``view[0]`` a list
    of raw's entries, every one a mapping, in order; ``view[1]`` and ``view[2]`` the first
    Available and Progressing ones (None when absent)."""
    if len(_VIEWS) >= 4096:
        _VIEWS.clear()
    _VIEWS[id(raw)] = (raw, view)


# id of a conditions tuple -> (the tuple, its _view). Bounded: starts over when full.
_VIEWS: dict[int, tuple[tuple, list[Any]]] = {}


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
    return _with_available(conds, get_condition(conds, AVAILABLE),
                           available >= du.facts(d).min_available, now)


def _with_available(conds: Conditions, cur: FrozenDict | None, ok: bool,
                    now: float) -> Conditions:
    """with_available, given ``cur``, the Available condition of ``conds``, and whether the
    minimum is available."""
    status, reason = ("True", MIN_AVAILABLE) if ok else ("False", MIN_UNAVAILABLE)
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


def status_conditions(d: Any, counts: dict[str, int], new_rs: Any, now: float,
                      progress: bool) -> tuple[Conditions, float | None]:
    """The conditions a status sync writes — a list to read only — and when to look again:
    calculateStatus's Available and — ``progress``: syncRolloutStatus, not a paused
    Deployment or a scaling event — the Progressing estimate and requeueStuckDeployment's
    recheck. One pass over what they read: the stored conditions, the Available and
    Progressing ones, whether the rollout is complete (every status sync of a rollout asked
    each of them two or three times)."""
    view = _view(d)
    f = du.facts(d)
    available = counts["available_replicas"]
    conds = _with_available(view[0], view[1], available >= f.min_available, now)
    if not progress:
        return conds, None
    if f.deadline is None:
        return remove_condition(conds, PROGRESSING), None
    # (with_available replaced Available alone: view[2] is the stored Progressing condition)
    want = f.replicas   # DeploymentComplete over the counts
    complete = counts["updated_replicas"] == want and counts["replicas"] == want and \
        available == want and counts["observed_generation"] >= d.metadata.generation
    conds, cond = _rollout(d, conds, counts, new_rs, now, view[2], complete)
    return conds, _recheck(f.deadline, cond, complete, now)


def rollout_status(d: Any, rss: list[Any], new_rs: Any, now: float, f: Any = None
                   ) -> tuple[tuple[int, int, int, int, int, int], Conditions, float | None,
                              list[Any] | None]:
    """``calculate_status`` and ``status_conditions(progress=True)`` in one pass — what every
    status sync of a rollout asks; their calls, the dict of counts and its lookups were
    about a third of the status path — with the same answers
    (tests/controllers/test_deployment_rollout_status.py):
    ((replicas, updated, ready, available, unavailable, observed generation), the
    conditions — a list to read only —, when to look again, and the conditions' _view when
    it is known here, else None). ``f``: du.facts(d), when the caller has it."""
    # calculate_status's sums: du.rs_totals(rss), inline
    available = total = count = ready = 0
    for rs in rss:
        st = rs.status
        available += st.available_replicas
        count += st.replicas
        ready += st.ready_replicas
        r = rs.spec.replicas
        total += 1 if r is None else r
    updated = new_rs.status.replicas if new_rs is not None else 0
    counts = (count, updated, ready, available, total - available if total > available else 0,
              d.metadata.generation)
    # _view(d), its lookup inline (every sync of a rollout finds the view remembered)
    raw = d.status.extra.get("conditions") or ()
    hit = _VIEWS.get(id(raw))
    view = hit[1] if hit is not None and hit[0] is raw else _view(d)
    if f is None:
        f = du.facts(d)
    # _with_available(view[0], view[1], ok, now), its answer inline when the stored Available
    # condition already says so (every sync but the few that flip it)
    cur = view[1]
    if available >= f.min_available:
        conds = view[0] if cur is not None and cur.get("status") == "True" and \
            cur.get("reason") == MIN_AVAILABLE else _with_available(view[0], cur, True, now)
    else:
        conds = view[0] if cur is not None and cur.get("status") == "False" and \
            cur.get("reason") == MIN_UNAVAILABLE else _with_available(view[0], cur, False, now)
    deadline = f.deadline
    if deadline is None:
        return counts, remove_condition(conds, PROGRESSING), None, None
    want = f.replicas
    # DeploymentComplete over the counts (the observed generation is d's own)
    complete = updated == want and count == want and available == want
    current = view[2]
    old = d.status
    if current is not None and not complete and \
            (count != updated or current.get("reason") != NEW_RS_AVAILABLE) and \
            (updated > old.updated_replicas
             or count - updated < old.replicas - old.updated_replicas
             or ready > old.ready_replicas or available > old.available_replicas):
        # _rollout's progressing branch with a Progressing condition stored (nearly every
        # sync of a rollout under way), and _recheck of the condition it puts last
        name = f'ReplicaSet "{new_rs.metadata.name}"' if new_rs is not None else \
            f'Deployment "{d.metadata.name}"'
        since = current.get("lastTransitionTime") if current.get("status") == "True" else now
        # _condition(PROGRESSING, "True", RS_UPDATED, f"{name} is progressing.", now, since),
        # inline (its key order)
        cond = FrozenDict({"type": PROGRESSING, "status": "True", "lastUpdateTime": now,
                           "lastTransitionTime": since, "reason": RS_UPDATED,
                           "message": f"{name} is progressing."})
        # (removing Progressing keeps the first Available: the one conds had)
        avail = view[1] if conds is view[0] else get_condition(conds, AVAILABLE)
        if len(conds) == 2 and conds[1] is current and conds[0].get("type") != PROGRESSING:
            # (Available, then the Progressing one: what the filter below keeps, without
            # its frame — nearly every sync)
            conds = [conds[0], cond]
        else:
            conds = [c for c in conds if c.get("type") != PROGRESSING] + [cond]
        after = max(float(cond.get("lastUpdateTime") or 0.0) + deadline - now, 0.0) + 1.0
        return counts, conds, after, [conds, avail, cond]
    by_name = {"replicas": count, "updated_replicas": updated, "ready_replicas": ready,
               "available_replicas": available}
    conds, cond = _rollout(d, conds, by_name, new_rs, now, current, complete)
    return counts, conds, _recheck(deadline, cond, complete, now), None


def _rollout(d: Any, conds: Conditions, counts: dict[str, int], new_rs: Any, now: float,
             current: FrozenDict | None, complete: bool) -> tuple[Conditions, Any]:
    """syncRolloutStatus's Progressing estimate over the freshly calculated counts, for a
    Deployment with a deadline: ``current`` is its stored Progressing condition, ``complete``
    whether the counts complete the rollout. (the conditions, their Progressing one)"""
    complete_before = counts["replicas"] == counts["updated_replicas"] and \
        current is not None and current.get("reason") == NEW_RS_AVAILABLE
    if complete_before:
        return conds, current
    name = f'ReplicaSet "{new_rs.metadata.name}"' if new_rs is not None else \
        f'Deployment "{d.metadata.name}"'
    if complete:
        return _set_progressing(conds, current, new_condition(
            PROGRESSING, "True", NEW_RS_AVAILABLE, f"{name} has successfully progressed.", now))
    if _progressing(d.status, counts):
        message = f"{name} is progressing."
        if current is None:
            return _set_progressing(conds, current, new_condition(
                PROGRESSING, "True", RS_UPDATED, message, now))
        # The condition replaced — keeping its transition time while it stays True — and
        # put last: what set_condition does once it is removed, with the condition built
        # once (every sync of a rollout under way comes here: its lastUpdateTime moves).
        since = current.get("lastTransitionTime") if current.get("status") == "True" else now
        cond = _condition(PROGRESSING, "True", RS_UPDATED, message, now, since)
        return remove_condition(conds, PROGRESSING) + [cond], cond
    if _timed_out(d, conds, now):
        return _set_progressing(conds, current, new_condition(
            PROGRESSING, "False", TIMED_OUT, f"{name} has timed out progressing.", now))
    return conds, current


def _set_progressing(conds: Conditions, current: FrozenDict | None,
                     cond: FrozenDict) -> tuple[Conditions, Any]:
    """set_condition of a Progressing ``cond`` over ``conds`` whose Progressing condition is
    ``current``: (the conditions, their Progressing one — last when it changed)."""
    out = set_condition(conds, cond)
    return out, (current if out is conds else out[-1])


def paused_conditions(d: Any, now: float) -> Conditions | None:
    """checkPausedConditions: the new conditions when a pause starts or ends, else None."""
    if du.facts(d).deadline is None:   # not has_deadline(d)
        return None
    cond = _view(d)[2]   # stored_condition(d, PROGRESSING)
    reason = cond.get("reason") if cond is not None else None
    if reason == TIMED_OUT:
        return None
    paused_exists = reason == PAUSED
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
    if du.facts(d).deadline is None:   # not has_deadline(d)
        return None
    if created:
        return set_condition(conditions_of(d), new_condition(
            PROGRESSING, "True", NEW_RS_CREATED, f'Created new replica set "{rs_name}"', now))
    if _view(d)[2] is None:   # stored_condition(d, PROGRESSING)
        return set_condition(conditions_of(d), new_condition(
            PROGRESSING, "True", FOUND_NEW_RS, f'Found new replica set "{rs_name}"', now))
    return None


def _recheck(deadline: int, cond: FrozenDict | None, complete: bool, now: float
             ) -> float | None:
    """requeueStuckDeployment, for a Deployment with a progress ``deadline`` whose
    Progressing condition is ``cond``: seconds until the deadline could pass (plus one, as
    upstream adds against clock skew), or None when there is nothing to watch
    (``complete``: the counts complete the rollout)."""
    if cond is None or complete or cond.get("reason") == TIMED_OUT:
        return None
    after = float(cond.get("lastUpdateTime") or 0.0) + deadline - now
    return max(after, 0.0) + 1.0
