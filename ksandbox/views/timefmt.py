"""Simulated seconds as wall-clock timestamps, for output that kubectl prints as dates.

The sandbox's clock starts at 0 and never reads the real time. Where kubectl shows a timestamp
(``-o yaml``'s ``creationTimestamp``, ``describe``'s ``CreationTimestamp:``), we print the
simulated second as an offset from one fixed epoch, so the same run prints the same text on
every machine and every day.

Not here: ages (``5m30s``), which are durations — see ``ksandbox.views.age``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

# Simulated second 0. Fixed, so recordings and golden files never drift.
EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def to_datetime(t: float) -> datetime:
    return EPOCH + timedelta(seconds=float(t))


def sim_seconds(t: Any) -> float | None:
    """A time as simulated seconds: a number as it is, a loaded export's RFC 3339 string as
    its offset from the epoch; None when unset or unreadable."""
    if t is None or isinstance(t, bool):
        return None
    if isinstance(t, (int, float)):
        return float(t)
    try:
        dt = datetime.fromisoformat(str(t))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return (dt - EPOCH).total_seconds()


def rfc3339(t: Any) -> str:
    """metav1.Time's JSON form: RFC 3339 in UTC at whole seconds (``2026-01-01T00:05:00Z``).

    apimachinery pkg/apis/meta/v1/time.go MarshalJSON formats with ``time.RFC3339`` after
    ``UTC()``, which drops fractions of a second; we truncate the same way.
    """
    if t is None:
        return ""
    dt = EPOCH + timedelta(seconds=int(float(t) // 1))
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def rfc3339_micro(t: Any) -> str:
    """metav1.MicroTime's JSON form (a Lease's ``renewTime``, an Event's ``eventTime``):
    RFC 3339 in UTC with six fractional digits (``2026-01-01T00:01:30.000000Z``;
    apimachinery micro_time.go RFC3339Micro)."""
    if t is None:
        return ""
    micros = int(round(float(t) * 1_000_000))
    dt = EPOCH + timedelta(microseconds=micros)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond:06d}Z"


def rfc1123z(t: Any) -> str:
    """Go's ``time.RFC1123Z`` as ``kubectl describe`` prints times
    (``Thu, 01 Jan 2026 00:00:00 +0000``)."""
    if isinstance(t, str):
        t = sim_seconds(t)   # a loaded export's time
    if t is None:
        # describe prints a zero metav1.Time as Go's zero time.
        return "Mon, 01 Jan 0001 00:00:00 +0000"
    dt = EPOCH + timedelta(seconds=int(float(t) // 1))
    # Spelled out rather than strftime's %a/%b, which follow the process locale.
    return (f"{_DAYS[dt.weekday()]}, {dt.day:02d} {_MONTHS[dt.month - 1]} {dt.year:04d} "
            f"{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d} +0000")
