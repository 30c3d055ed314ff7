"""Ages as kubectl prints them: apimachinery's HumanDuration and ShortHumanDuration.

``age(created, now)`` is the AGE column of ``kubectl get`` and the Age of ``describe``'s event
table (kubectl's translateTimestampSince). Both duration functions are ports of
``staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go``: a duration is held as whole
nanoseconds and divided with Go's integer division, so the boundaries (119s → ``119s``, 120s →
``2m``, ``7d23h`` → ``8d``) land exactly where upstream's do.

Not here: absolute timestamps (``ksandbox.views.timefmt``).
"""

from __future__ import annotations

from typing import Any

_NS = 1_000_000_000
_MINUTE = 60 * _NS
_HOUR = 60 * _MINUTE


def _nanos(seconds: float) -> int:
    return int(round(float(seconds) * _NS))


def _seconds_trunc(ns: int) -> int:
    # Go: int(d.Seconds()) truncates toward zero.
    return int(ns / _NS) if ns >= 0 else -int(-ns / _NS)


def human_duration_ns(ns: int) -> str:
    """HumanDuration on a duration in nanoseconds: ~2-3 significant figures."""
    seconds = _seconds_trunc(ns)
    # A deviation of up to 2 s (excluded) counts as "now", for clock skew.
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = ns // _MINUTE
    if minutes < 10:
        s = (ns // _NS) % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = ns // _HOUR
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def short_human_duration_ns(ns: int) -> str:
    """ShortHumanDuration: one unit only (``59s``, ``1m``, ``23h``, ``364d``, ``2y``)."""
    seconds = _seconds_trunc(ns)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60:
        return f"{seconds}s"
    minutes = ns // _MINUTE
    if minutes < 60:
        return f"{minutes}m"
    hours = ns // _HOUR
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{hours // 24 // 365}y"


def human_duration(seconds: float) -> str:
    return human_duration_ns(_nanos(seconds))


def short_human_duration(seconds: float) -> str:
    return short_human_duration_ns(_nanos(seconds))


def age(created: Any, now: float) -> str:
    """kubectl's translateTimestampSince: ``<unknown>`` for an unset time."""
    if created is None or isinstance(created, str):
        return "<unknown>"
    return human_duration(now - float(created))
