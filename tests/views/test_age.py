"""Ages: apimachinery's HumanDuration and ShortHumanDuration, ported tables.

From ``staging/src/k8s.io/apimachinery/pkg/util/duration/duration_test.go``
(TestHumanDuration, TestHumanDurationBoundaries, TestShortHumanDurationBoundaries).
Durations are given in nanoseconds, as Go's ``time.Duration``.
"""

from __future__ import annotations

import pytest

from ksandbox.views.age import age, human_duration, human_duration_ns, short_human_duration_ns
from ksandbox.views.timefmt import rfc1123z, rfc3339

MS = 1_000_000
S = 1_000 * MS
M = 60 * S
H = 60 * M
D = 24 * H
Y = 365 * D

HUMAN = [
    (S, "1s"), (70 * S, "70s"), (190 * S, "3m10s"), (70 * M, "70m"), (47 * H, "47h"),
    (49 * H, "2d1h"), ((8 * 24 + 2) * H, "8d"), (367 * D, "367d"), (2 * Y + 25 * H, "2y1d"),
    (8 * Y + 2 * H, "8y"),
]

HUMAN_BOUNDARIES = [
    (-2 * S, "<invalid>"), (-2 * S + 1, "0s"), (0, "0s"), (S - MS, "0s"),
    (2 * M - MS, "119s"), (2 * M, "2m"), (2 * M + S, "2m1s"), (10 * M - MS, "9m59s"),
    (10 * M, "10m"), (10 * M + S, "10m"), (3 * H - MS, "179m"), (3 * H, "3h"),
    (3 * H + M, "3h1m"), (8 * H - MS, "7h59m"), (8 * H, "8h"), (8 * H + 59 * M, "8h"),
    (2 * D - MS, "47h"), (2 * D, "2d"), (2 * D + H, "2d1h"), (8 * D - MS, "7d23h"),
    (8 * D, "8d"), (8 * D + 23 * H, "8d"), (2 * Y - MS, "729d"), (2 * Y, "2y"),
    (2 * Y + 23 * H, "2y"), (2 * Y + 23 * H + 59 * M, "2y"), (2 * Y + D - MS, "2y"),
    (2 * Y + D, "2y1d"), (3 * Y, "3y"), (4 * Y, "4y"), (5 * Y, "5y"), (6 * Y, "6y"),
    (7 * Y, "7y"), (8 * Y - MS, "7y364d"), (8 * Y, "8y"), (8 * Y + 364 * D, "8y"),
    (9 * Y, "9y"),
]

SHORT_BOUNDARIES = [
    (-2 * S, "<invalid>"), (-2 * S + 1, "0s"), (0, "0s"), (S - MS, "0s"), (S, "1s"),
    (2 * S - MS, "1s"), (M - MS, "59s"), (M, "1m"), (2 * M - MS, "1m"), (H - MS, "59m"),
    (H, "1h"), (2 * H - MS, "1h"), (D - MS, "23h"), (D, "1d"), (2 * D - MS, "1d"),
    (Y - MS, "364d"), (Y, "1y"), (2 * Y - MS, "1y"), (2 * Y, "2y"),
]


@pytest.mark.parametrize("ns,want", HUMAN + HUMAN_BOUNDARIES, ids=lambda v: str(v))
def test_human_duration(ns, want):
    assert human_duration_ns(ns) == want


@pytest.mark.parametrize("ns,want", SHORT_BOUNDARIES, ids=lambda v: str(v))
def test_short_human_duration(ns, want):
    assert short_human_duration_ns(ns) == want


@pytest.mark.parametrize("seconds,want", [(95, "95s"), (330, "5m30s"), (2700, "45m"),
                                          (11100, "3h5m"), (36 * 3600, "36h"),
                                          (3 * 86400 + 4 * 3600, "3d4h"), (400 * 86400, "400d"),
                                          (2 * 365 * 86400 + 30 * 86400, "2y30d")])
def test_human_duration_in_seconds_matches_the_conventions_examples(seconds, want):
    assert human_duration(seconds) == want


def test_age_of_an_unset_time_is_unknown():
    assert age(None, 10.0) == "<unknown>"
    assert age(5.0, 100.0) == "95s"


def test_timestamps_count_from_the_fixed_epoch():
    assert rfc3339(0) == "2026-01-01T00:00:00Z"
    assert rfc3339(412.7) == "2026-01-01T00:06:52Z"
    assert rfc1123z(0) == "Thu, 01 Jan 2026 00:00:00 +0000"
    assert rfc1123z(86400 * 31 + 3661) == "Sun, 01 Feb 2026 01:01:01 +0000"
