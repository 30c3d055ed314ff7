"""How far and how big a simulation may go: the horizon of simulated time and the object cap.

The sandbox promises bounded time and memory for any input (issue 13), so two limits hold for
every run, headless or not, documented in README "Limits":

- ``horizon``: no simulated moment past it is ever asked for. ``--until``, a script's or a
  recording's ``at:`` (markers and captions included) and ``start.at`` must be finite, 0 or
  more, and at most the horizon — 30 simulated days by default (a default cluster runs a
  simulated day in ~3 s, so the horizon is ~1.5 minutes of work at most); ``--horizon
  SECONDS`` moves it. ``nan``, ``inf``, ``-5`` and ``1e12`` are refused before anything runs,
  where they used to run forever.
- ``max_objects``: the API server refuses a create once the store holds this many objects
  (well above the 150,000 pods of the largest clusters upstream tests), so runaway growth —
  ``replicas: 2147483647`` — is a refused create and a Warning event, never an OOM kill.

Plain data and one checker, so the CLI, the script loader and the session share one rule. The
simulation package imports nothing of ours: the callers turn a problem into their own error.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

DAY = 86_400.0


@attrs.frozen
class SimLimits:
    # 30 simulated days: longer than any story the samples tell (the longest is an hour), short
    # enough that a run to the horizon ends in minutes.
    horizon: float = 30 * DAY
    # Objects the store may hold (pods, events excluded, and everything else).
    max_objects: int = 1_000_000
    # The largest horizon --horizon accepts: 10 years; beyond it a float second loses the
    # millisecond resolution recordings keep.
    max_horizon: float = 3650 * DAY


LIMITS = SimLimits()


def configure(**changes: Any) -> SimLimits:
    """Replace the process-wide limits (the CLI's --horizon and tests use this)."""
    global LIMITS
    LIMITS = attrs.evolve(LIMITS, **changes)
    return LIMITS


def describe_seconds(s: float) -> str:
    """``2592000 s (30 days)``: a horizon as a person reads it."""
    days = s / DAY
    if days >= 1 and days == int(days):
        return f"{s:.0f} s ({int(days)} day{'s' if days != 1 else ''})"
    return f"{s:g} s"


def time_problem(value: Any, horizon: float | None = None) -> str | None:
    """Why ``value`` is not a usable simulated time (None when it is): a real number, finite,
    0 or more, at most the horizon. Never converts a huge integer to float first (a 30-digit
    ``at:`` used to overflow)."""
    horizon = LIMITS.horizon if horizon is None else horizon
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "must be a number of simulated seconds, 0 or more"
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number of simulated seconds, 0 or more"
    if value < 0:
        return "must be a number of simulated seconds, 0 or more"
    if value > horizon:
        return (f"must be at most the horizon of {describe_seconds(horizon)}; "
                f"--horizon SECONDS moves it")
    return None


def horizon_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a horizon (None when it can)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value \
            or value <= 0 or value > LIMITS.max_horizon:
        return (f"must be a number of simulated seconds greater than 0 and at most "
                f"{describe_seconds(LIMITS.max_horizon)}")
    return None


__all__ = ["SimLimits", "LIMITS", "configure", "time_problem", "horizon_problem",
           "describe_seconds", "DAY"]
