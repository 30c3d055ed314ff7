"""What an HPA's proposal becomes: ``pkg/controller/podautoscaler/horizontal.go``
normalizeDesiredReplicas[WithBehaviors], stabilizeRecommendation[WithBehaviors],
convertDesiredReplicasWithBehaviorRate and calculateScaleUp/DownLimit[WithScalingRules], in our
own words. Pure functions over the per-autoscaler memory (:class:`State`): they set the
``AbleToScale`` / ``ScalingLimited`` conditions and how long a headless run must wait.
"""

from __future__ import annotations

import math
from typing import Any

# kube-controller-manager defaults: --horizontal-pod-autoscaler-sync-period 15 s,
# --horizontal-pod-autoscaler-downscale-stabilization 5 min.
SYNC_PERIOD = 15.0
DOWNSCALE_STABILIZATION = 300.0
# horizontal.go: scaleUpLimitFactor and scaleUpLimitMinimum (the plain path's rate limit).
SCALE_UP_LIMIT_FACTOR = 2.0
SCALE_UP_LIMIT_MINIMUM = 4
# pkg/apis/autoscaling/v2/defaults.go: GenerateHPAScaleUpRules / GenerateHPAScaleDownRules.
DEFAULT_SCALE_UP = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                    "policies": ({"type": "Pods", "value": 4, "periodSeconds": 15},
                                 {"type": "Percent", "value": 100, "periodSeconds": 15})}
DEFAULT_SCALE_DOWN = {"stabilizationWindowSeconds": None, "selectPolicy": "Max",
                      "policies": ({"type": "Percent", "value": 100, "periodSeconds": 15},)}



def _rules(behavior: Any, direction: str) -> dict:
    defaults = DEFAULT_SCALE_UP if direction == "scaleUp" else DEFAULT_SCALE_DOWN
    given = (behavior or {}).get(direction) or {}
    rules = {k: given.get(k) if given.get(k) is not None else v for k, v in defaults.items()}
    if rules["stabilizationWindowSeconds"] is None:
        rules["stabilizationWindowSeconds"] = DOWNSCALE_STABILIZATION
    return rules


def _change_in_period(events: list[tuple[float, int]], period: float, now: float) -> int:
    """getReplicasChangePerPeriod: replicas added (or removed) within the last period."""
    return sum(n for t, n in events if t > now - period)


def scale_up_limit(current: int, ups: list, downs: list, rules: dict, now: float) -> int:
    """calculateScaleUpLimitWithScalingRules: the most replicas the policies allow now."""
    select = rules["selectPolicy"]
    if select == "Disabled":
        return current
    pick, result = (min, math.inf) if select == "Min" else (max, -math.inf)
    for p in rules["policies"]:
        period = float(p.get("periodSeconds", 15))
        start = current - _change_in_period(ups, period, now) + _change_in_period(downs, period,
                                                                                  now)
        if p.get("type") == "Pods":
            proposed = start + int(p.get("value", 0))
        else:
            proposed = math.ceil(start * (1 + int(p.get("value", 0)) / 100))
        result = pick(result, proposed)
    return int(result) if result not in (math.inf, -math.inf) else current


def scale_down_limit(current: int, ups: list, downs: list, rules: dict, now: float) -> int:
    """calculateScaleDownLimitWithBehaviors: the fewest replicas the policies allow now."""
    select = rules["selectPolicy"]
    if select == "Disabled":
        return current
    pick, result = (max, -math.inf) if select == "Min" else (min, math.inf)
    for p in rules["policies"]:
        period = float(p.get("periodSeconds", 15))
        start = current - _change_in_period(ups, period, now) + _change_in_period(downs, period,
                                                                                  now)
        if p.get("type") == "Pods":
            proposed = start - int(p.get("value", 0))
        else:
            proposed = int(start * (1 - int(p.get("value", 0)) / 100))
        result = pick(result, proposed)
    return int(result) if result not in (math.inf, -math.inf) else current


class State:
    """What upstream keeps per autoscaler in memory: recent recommendations, scale events."""

    __slots__ = ("recommendations", "ups", "downs", "timer", "busy_until", "conditions")

    def __init__(self) -> None:
        self.recommendations: list[tuple[float, int]] = []
        self.ups: list[tuple[float, int]] = []
        self.downs: list[tuple[float, int]] = []
        self.timer: Any = None
        self.busy_until: float | None = None
        # type → (status, reason, message) set during one reconcile
        self.conditions: dict[str, tuple[str, str, str]] = {}



def normalize(state: State, current: int, proposal: int, lo: int, hi: int,
               now: float) -> int:
    """normalizeDesiredReplicas: the highest recommendation of the last 5 minutes, then
    [minReplicas, min(maxReplicas, max(2 × current, 4))]."""
    cutoff = now - DOWNSCALE_STABILIZATION
    recent = [r for r in state.recommendations if r[0] >= cutoff]  # upstream: !Before
    stabilized = max([proposal] + [n for _, n in recent])
    state.recommendations = recent + [(now, proposal)]
    if stabilized > proposal:
        held = max(t for t, n in recent if n > proposal)
        state.busy_until = held + DOWNSCALE_STABILIZATION + SYNC_PERIOD
        state.conditions["AbleToScale"] = (
            "True", "ScaleDownStabilized", "recent recommendations were higher than "
            "current one, applying the highest recent recommendation")
    else:
        state.conditions["AbleToScale"] = ("True", "ReadyForNewScale",
                                           "recommended size matches current size")
    limit = max(int(SCALE_UP_LIMIT_FACTOR * current), SCALE_UP_LIMIT_MINIMUM)
    top = min(hi, limit)
    if stabilized < lo:
        return _limited(state, lo, "TooFewReplicas",
                        "the desired replica count is less than the minimum replica count")
    if stabilized > top:
        state.busy_until = now + SYNC_PERIOD * 2
        if top == hi:
            return _limited(state, top, "TooManyReplicas", "the desired replica count is "
                            "more than the maximum replica count")
        return _limited(state, top, "ScaleUpLimit", "the desired replica count is "
                        "increasing faster than the maximum scale rate")
    return _limited(state, stabilized, "", "")

def normalize_with_behavior(behavior: Any, state: State, current: int, proposal: int,
                            lo: int, hi: int, now: float) -> int:
    """normalizeDesiredReplicasWithBehaviors: stabilize between the lowest recent
    recommendation (up window) and the highest (down window), then apply the policies'
    rate limits within [minReplicas, maxReplicas]."""
    up, down = _rules(behavior, "scaleUp"), _rules(behavior, "scaleDown")
    up_cut = now - float(up["stabilizationWindowSeconds"])
    down_cut = now - float(down["stabilizationWindowSeconds"])
    up_rec = down_rec = proposal
    for t, n in state.recommendations:
        if t > up_cut:
            up_rec = min(up_rec, n)
        if t > down_cut:
            down_rec = max(down_rec, n)
    horizon = min(up_cut, down_cut)
    state.recommendations = [r for r in state.recommendations if r[0] >= horizon]
    state.recommendations.append((now, proposal))
    desired = min(max(current, up_rec), down_rec)
    if desired != proposal:
        state.busy_until = now + max(float(up["stabilizationWindowSeconds"]),
                                     float(down["stabilizationWindowSeconds"])) + SYNC_PERIOD
        state.conditions["AbleToScale"] = ("True", "ScaleDownStabilized" if desired > proposal
                                           else "ScaleUpStabilized",
                                           "recent recommendations were "
                                           f"{'higher' if desired > proposal else 'lower'} "
                                           "than current one, applying the "
                                           f"{'highest' if desired > proposal else 'lowest'}"
                                           " recent recommendation")
    else:
        state.conditions["AbleToScale"] = ("True", "ReadyForNewScale",
                                           "recommended size matches current size")
    if desired > current:
        limit = max(current, scale_up_limit(current, state.ups, state.downs, up, now))
        if hi <= limit and desired > hi:
            return _limited(state, hi, "TooManyReplicas", "the desired replica count is "
                            "more than the maximum replica count")
        if desired > limit:
            state.busy_until = now + SYNC_PERIOD * 2
            return _limited(state, limit, "ScaleUpLimit", "the desired replica count is "
                            "increasing faster than the maximum scale rate")
    elif desired < current:
        limit = min(current, scale_down_limit(current, state.ups, state.downs, down, now))
        if lo >= limit and desired < lo:
            return _limited(state, lo, "TooFewReplicas", "the desired replica count is "
                            "less than the minimum replica count")
        if desired < limit:
            state.busy_until = now + SYNC_PERIOD * 2
            return _limited(state, limit, "ScaleDownLimit", "the desired replica count is "
                            "decreasing faster than the maximum scale rate")
    return _limited(state, desired, "", "")


def _limited(state: State, replicas: int, reason: str, message: str) -> int:
    """Record the ScalingLimited condition: True with the limit's reason, or in range."""
    if reason:
        state.conditions["ScalingLimited"] = ("True", reason, message)
    else:
        state.conditions["ScalingLimited"] = ("False", "DesiredWithinRange",
                                              "the desired count is within the acceptable range")
    return replicas
