"""Cron schedules as a CronJob's ``spec.schedule`` takes them, and their next activation.

The CronJob controller parses schedules with ``github.com/robfig/cron/v3`` ``ParseStandard``:
five fields (minute, hour, day of month, month, day of week), ``*``/``?``, lists, ranges,
steps, month and weekday names, and the descriptors ``@yearly``/``@annually``, ``@monthly``,
``@weekly``, ``@daily``/``@midnight``, ``@hourly`` and ``@every <duration>``. Day of month
and day of week are ORed unless one of them is ``*`` (robfig's dayMatches). Error texts are
robfig's (``expected exactly 5 fields, found 1: [foo]``), which the API server puts after
``spec.schedule: Invalid value: "foo":``.

Times here are simulated seconds; the simulated clock's epoch is 2026-01-01T00:00:00Z
(``views/timefmt.py``). Not here: seconds fields (ParseStandard has none), ``TZ=`` prefixes
(refused by CronJob validation).
"""

from __future__ import annotations

import datetime as dt
import re

import attrs

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug",
                                       "sep", "oct", "nov", "dec"), start=1)}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (min, max, names) per field, robfig's bounds.
_FIELDS = ((0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, _MONTHS), (0, 6, _DAYS))
_DESCRIPTORS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
                "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
                "@hourly": "0 * * * *"}
_DURATION_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(h|ms|m|s)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


class CronError(ValueError):
    """A schedule robfig/cron would refuse; ``str()`` is its message."""


@attrs.frozen
class Schedule:
    minutes: frozenset[int]
    hours: frozenset[int]
    dom: frozenset[int]
    months: frozenset[int]
    dow: frozenset[int]
    dom_star: bool
    dow_star: bool
    every: float | None = None     # @every DURATION (a fixed period)

    def _day_matches(self, d: dt.datetime) -> bool:
        dom_ok = d.day in self.dom
        dow_ok = (d.isoweekday() % 7) in self.dow
        if self.dom_star or self.dow_star:
            return dom_ok and dow_ok
        return dom_ok or dow_ok

    def next_after(self, t: float, tz: str = "") -> float | None:
        """The first activation strictly after simulated second ``t`` (None within 5 years)."""
        if self.every is not None:
            # ConstantDelaySchedule: t + period, rounded down to the second.
            return float(int(t + self.every))
        zone = time_zone(tz) if tz else dt.timezone.utc
        now = (EPOCH + dt.timedelta(seconds=t)).astimezone(zone)
        cur = now.replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
        limit = cur.year + 5
        while cur.year <= limit:
            if cur.month not in self.months:
                year, month = (cur.year + 1, 1) if cur.month == 12 else (cur.year, cur.month + 1)
                cur = cur.replace(year=year, month=month, day=1, hour=0, minute=0)
                continue
            if not self._day_matches(cur):
                cur = (cur + dt.timedelta(days=1)).replace(hour=0, minute=0)
                continue
            if cur.hour not in self.hours:
                cur = (cur + dt.timedelta(hours=1)).replace(minute=0)
                continue
            if cur.minute not in self.minutes:
                cur = cur + dt.timedelta(minutes=1)
                continue
            return (cur.astimezone(dt.timezone.utc) - EPOCH).total_seconds()
        return None


def _int(text: str, names: dict) -> int:
    low = text.lower()
    if low in names:
        return names[low]
    if not (text.isascii() and text.isdigit()):
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": '
                        f'invalid syntax')
    if len(text.lstrip("0")) > 19:
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": '
                        f'value out of range')
    return int(text)


def _field(spec: str, lo: int, hi: int, names: dict) -> tuple[frozenset[int], bool]:
    out: set[int] = set()
    star = False
    for part in spec.split(","):
        range_and_step = part.split("/")
        if len(range_and_step) > 2:
            raise CronError(f"too many slashes: {part}")
        low_high = range_and_step[0].split("-")
        single = len(low_high) == 1
        if low_high[0] in ("*", "?"):
            start, end = lo, hi
            star = star or len(range_and_step) == 1
        else:
            start = _int(low_high[0], names)
            if len(low_high) == 1:
                end = start
            elif len(low_high) == 2:
                end = _int(low_high[1], names)
            else:
                raise CronError(f"too many hyphens: {part}")
        step = 1
        if len(range_and_step) == 2:
            step = _int(range_and_step[1], {})
            if single and low_high[0] not in ("*", "?"):
                end = hi  # "N/step" means N-max/step
        if start < lo:
            raise CronError(f"beginning of range ({start}) below minimum ({lo}): {part}")
        if end > hi:
            raise CronError(f"end of range ({end}) above maximum ({hi}): {part}")
        if start > end:
            raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {part}")
        if step == 0:
            raise CronError(f"step of range should be a positive number: {part}")
        out.update(range(start, end + 1, step))
    return frozenset(out), star


def parse_duration(text: str) -> float:
    """time.ParseDuration for the units a schedule uses (h, m, s, ms)."""
    pos, total = 0, 0.0
    if not text:
        raise CronError(f'time: invalid duration "{text}"')
    for m in _DURATION_RE.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(text):
        raise CronError(f'time: invalid duration "{text}"')
    return total


def parse(schedule: str) -> Schedule:
    """cron.ParseStandard, raising CronError with robfig's message."""
    text = schedule.strip()
    if text.startswith("@every "):
        period = parse_duration(text[len("@every "):].strip())
        if period < 1:
            period = 1.0  # robfig: at least one second
        empty: frozenset[int] = frozenset()
        return Schedule(empty, empty, empty, empty, empty, False, False, every=period)
    if text.startswith("@"):
        if text not in _DESCRIPTORS:
            raise CronError(f"unrecognized descriptor: {text}")
        text = _DESCRIPTORS[text]
    fields = text.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    parsed = [_field(f, lo, hi, names) for f, (lo, hi, names) in zip(fields, _FIELDS)]
    dow = set(parsed[4][0])
    return Schedule(parsed[0][0], parsed[1][0], parsed[2][0], parsed[3][0], frozenset(dow),
                    parsed[2][1], parsed[4][1])


def time_zone(tz: str) -> dt.tzinfo:
    """The IANA zone ``tz``. zoneinfo is imported by the first CronJob with a time zone: it
    reads sysconfig for its search path (~11 M instructions of the TUI's start, where no
    CronJob has one)."""
    from zoneinfo import ZoneInfo

    return ZoneInfo(tz)


def check_time_zone(tz: str) -> str | None:
    """None when ``tz`` is a known IANA zone, else the message validation gives."""
    from zoneinfo import ZoneInfoNotFoundError

    try:
        time_zone(tz)
    except (ZoneInfoNotFoundError, ValueError):
        return f"unknown time zone {tz}"
    return None
