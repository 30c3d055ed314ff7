"""The CronJob controller: a Job per activation of ``spec.schedule``, with the concurrency
policy, ``suspend``, ``startingDeadlineSeconds`` and the history limits.

Ported from upstream ``pkg/controller/cronjob/cronjob_controllerv2.go`` (sync, syncCronJob,
cleanupFinishedJobs, removeOldestJobs, deleteJob, updateCronJob) and ``utils.go``
(mostRecentScheduleTime, nextScheduleTime, nextScheduleTimeDuration, getJobFromTemplate2,
byJobStartTime), in our own words. One sync of a CronJob:

1. Finished Jobs beyond ``successfulJobsHistoryLimit`` / ``failedJobsHistoryLimit`` are
   deleted, oldest start first (event ``SuccessfulDelete`` "Deleted job NAME").
2. Finished Jobs leave ``status.active`` (``SawCompletedJob``), a succeeded one moves
   ``lastSuccessfulTime``; an active reference whose Job is gone leaves too (``MissingJob``); an
   unfinished Job the CronJob controls but does not list is reported (``UnexpectedJob``).
3. Suspended, or an unknown time zone: nothing is started (and nothing requeued: an update of
   the CronJob wakes it).
4. The most recent unmet activation after ``lastScheduleTime`` (else the creation time), or
   after ``now - startingDeadlineSeconds`` when that is later: none → wait for the next. One
   older than the deadline → ``MissSchedule``. More than 100 missed → ``TooManyMissedTimes``,
   but the most recent still starts. ``Forbid`` with a Job active → ``JobAlreadyActive``;
   ``Replace`` deletes the active Jobs first; ``Allow`` runs them side by side.
5. The Job is named ``<cronjob>-<scheduled time in Unix minutes>`` (so an activation can only
   start one Job), carries the template's labels and annotations plus
   ``batch.kubernetes.io/cronjob-scheduled-timestamp``, and is controlled by the CronJob;
   ``lastScheduleTime`` becomes the activation. The key is requeued 100 ms after the next
   activation (a background timer: a cron schedule recurs forever, so it never keeps a
   headless run from settling).

Times from a loaded export's status (RFC 3339 strings of another clock) are not this
sandbox's simulated seconds: they count as unset, as the export's creationTimestamp does.
Not here: CRON_TZ/TZ prefixes in the schedule (validation refuses them), the
``UnsupportedSchedule`` event, the creation-skew metric.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..api.codec import FrozenDict
from ..api.errors import ApiError, KsandboxError
from ..api.evolve import evolve
from ..api.meta import ObjectMeta, owner_ref_for
from ..apiserver.store import DELETED, WatchEvent
from .base import Controller
from .controller_utils import server_message
from .job import delete_job

if TYPE_CHECKING:
    from ..api import cron

# The schedule parser (api/cron.py, with datetime) and the Job type (api/batch.py) are
# imported where a CronJob is read or a Job made: they load with the first CronJob, and most
# sandboxes hold none (issue 11 item 5).

COMPONENT = "cronjob-controller"
# utils.go: requeue this long after the next activation, so the sync sees it as due.
NEXT_SCHEDULE_DELTA = 0.1
# utils.go mostRecentScheduleTime: more missed activations than this is "many".
MANY_MISSED = 100
SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"

NONE_MISSED, FEW_MISSED, MANY = 0, 1, 2


class ScheduleError(ValueError):
    """mostRecentScheduleTime's error: the schedule never fires twice a second apart."""


def _next(sched: cron.Schedule, t: float, tz: str) -> float | None:
    return sched.next_after(t, tz)


def most_recent_schedule_time(created: float, last_schedule: float | None,
                              deadline: int | None, now: float, sched: cron.Schedule,
                              tz: str = "", include_deadline: bool = True,
                              ) -> tuple[float, float | None, int]:
    """utils.go mostRecentScheduleTime: (earliest time considered, the most recent activation
    at or before ``now`` after it or None, NONE_MISSED | FEW_MISSED | MANY). Raises
    ScheduleError for a schedule whose two next activations are under a second apart (or that
    never comes: robfig returns the zero time, and the difference is 0)."""
    earliest = last_schedule if last_schedule is not None else created
    if include_deadline and deadline is not None:
        earliest = max(earliest, now - deadline)
    t1 = _next(sched, earliest, tz)
    t2 = _next(sched, t1, tz) if t1 is not None else None
    if t1 is None or t2 is None:
        raise ScheduleError("time difference between two schedules is less than 1 second")
    if now < t1:
        return earliest, None, NONE_MISSED
    if now < t2:
        return earliest, t1, NONE_MISSED
    between = int(round(t2 - t1))
    if between < 1:
        raise ScheduleError("time difference between two schedules is less than 1 second")
    missed = int(now - t1) // between + 1
    # Step back from the approximation by one interval and let the schedule find the exact
    # activations (irregular schedules such as "30 6-16/4 * * 1-5").
    most_recent: float | None = None
    t: float | None = _next(sched, t1 + (missed - 2) * between, tz)
    steps = 0
    while t is not None and t <= now and steps <= 2 * MANY_MISSED:
        most_recent = t
        t = _next(sched, t, tz)
        steps += 1
    return earliest, most_recent, MANY if missed > MANY_MISSED else FEW_MISSED


def next_schedule_delay(created: float, last_schedule: float | None, now: float,
                        sched: cron.Schedule, tz: str = "") -> float | None:
    """utils.go nextScheduleTimeDuration: seconds from ``now`` until the requeue (100 ms after
    the next activation); None when the schedule never fires again."""
    try:
        earliest, most_recent, missed = most_recent_schedule_time(
            created, last_schedule, None, now, sched, tz, include_deadline=False)
        base = most_recent if most_recent is not None else (
            earliest if missed == NONE_MISSED else now)
    except ScheduleError:
        base = now
    nxt = _next(sched, base, tz)
    if nxt is None:
        return None
    return max(0.0, nxt + NEXT_SCHEDULE_DELTA - now)


def job_name(cronjob_name: str, scheduled: float) -> str:
    """getJobName: ``<cronjob>-<scheduled time in whole Unix minutes>``."""
    from ..api import cron

    return f"{cronjob_name}-{(int(cron.EPOCH.timestamp()) + int(scheduled // 1)) // 60}"


def scheduled_timestamp(scheduled: float, tz: str) -> str:
    """The scheduled time in RFC 3339 in the CronJob's zone (UTC when it has none)."""
    import datetime as dt

    from ..api import cron

    when = cron.EPOCH + dt.timedelta(seconds=int(scheduled // 1))
    if not tz:
        return when.strftime("%Y-%m-%dT%H:%M:%SZ")
    local = when.astimezone(cron.time_zone(tz))
    if local.utcoffset() == dt.timedelta(0):
        return local.strftime("%Y-%m-%dT%H:%M:%SZ")
    text = local.strftime("%Y-%m-%dT%H:%M:%S%z")
    return text[:-2] + ":" + text[-2:]


def rfc1123z(t: float) -> str:
    """Go's time.RFC1123Z in UTC (``Thu, 01 Jan 2026 00:05:00 +0000``), as MissSchedule
    prints the activation (spelled out: strftime's names follow the process locale)."""
    import datetime as dt

    from ..api import cron

    when = cron.EPOCH + dt.timedelta(seconds=int(t // 1))
    day = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[when.weekday()]
    month = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
             "Dec")[when.month - 1]
    return f"{day}, {when.day:02d} {month} {when:%Y %H:%M:%S} +0000"


def _seconds(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _finished(job: Any) -> str | None:
    return job.status.finished()


def _start_key(job: Any) -> tuple[int, float, str]:
    """byJobStartTime: by status.startTime, Jobs without one last, names breaking ties."""
    start = _seconds(job.status.start_time)
    return (1, 0.0, job.metadata.name) if start is None else (0, start, job.metadata.name)


class CronJobController(Controller):
    name = "cronjob"

    def watch(self) -> None:
        self.store.subscribe("CronJob", self._cronjob_event)
        self.store.subscribe("Job", self._job_event)

    # -- handlers: only enqueue ------------------------------------------------------------
    def _cronjob_event(self, ev: WatchEvent) -> None:
        from ..api import cron

        if ev.type == DELETED:
            return
        cj = ev.obj
        key = (cj.metadata.namespace, cj.metadata.name)
        old = ev.old
        if old is None:
            self.queue.add(key)
            return
        if old.spec is cj.spec:
            return  # a status write (ours); nothing the sync reads has changed
        if old.spec.schedule != cj.spec.schedule or old.spec.time_zone != cj.spec.time_zone:
            # updateCronJob: a new schedule requeues for its next activation.
            try:
                sched = cron.parse(cj.spec.schedule)
            except cron.CronError:
                self.store.record_event(cj, "Warning", "UnParseableCronJobSchedule",
                                        f"unparseable schedule for cronjob: {cj.spec.schedule}",
                                        COMPONENT)
                return
            delay = next_schedule_delay(
                _seconds(cj.metadata.creation_timestamp) or 0.0,
                _seconds(cj.status.last_schedule_time), self.clock.now, sched,
                cj.spec.time_zone or "")
            if delay is not None:
                self.queue.add_after(key, delay, background=True)
            return
        self.queue.add(key)

    def _job_event(self, ev: WatchEvent) -> None:
        ref = ev.obj.metadata.controller_ref()
        if ref is not None and ref.kind == "CronJob":
            self.queue.add((ev.obj.metadata.namespace, ref.name))
        if ev.old is not None:
            old_ref = ev.old.metadata.controller_ref()
            if old_ref is not None and old_ref.kind == "CronJob" and old_ref != ref:
                self.queue.add((ev.old.metadata.namespace, old_ref.name))

    # -- sync ------------------------------------------------------------------------------
    def sync(self, key: tuple[str, str]) -> None:
        ns, name = key
        cj = self.store.get("CronJob", name, ns)
        if cj is None:
            return
        # getJobsToBeReconciled: every Job whose controller reference names this CronJob.
        jobs = [j for j in self.store.list("Job", ns)
                if (r := j.metadata.controller_ref()) is not None and r.kind == "CronJob"
                and r.name == name]
        st = _Status(cj)
        self._cleanup_finished(cj, jobs, st)
        requeue = self._sync_cronjob(cj, jobs, st)
        if st.changed:
            cur = self.store.get("CronJob", name, ns)
            if cur is not None:
                status = evolve(cur.status, active=tuple(st.active),
                                last_schedule_time=st.last_schedule,
                                last_successful_time=st.last_successful)
                if status != cur.status:
                    self.store.update_status(evolve(cur, status=status))
        if requeue is not None:
            self.queue.forget(key)
            self.queue.add_after(key, requeue, background=True)

    def _cleanup_finished(self, cj: Any, jobs: list[Any], st: "_Status") -> None:
        spec = cj.spec
        if spec.successful_jobs_history_limit is None and spec.failed_jobs_history_limit is None:
            return
        done = [j for j in jobs if _finished(j) == "Complete"]
        failed = [j for j in jobs if _finished(j) == "Failed"]
        for group, limit in ((done, spec.successful_jobs_history_limit),
                             (failed, spec.failed_jobs_history_limit)):
            if limit is None or len(group) <= limit:
                continue
            for job in sorted(group, key=_start_key)[:len(group) - limit]:
                self._delete_job(cj, job, st)

    def _delete_job(self, cj: Any, job: Any, st: "_Status") -> None:
        """deleteJob: the Job (its pods with it, as background propagation would) and its
        active reference."""
        delete_job(self.store, job)
        st.remove_active(job.metadata.uid)
        self.store.record_event(cj, "Normal", "SuccessfulDelete",
                                f"Deleted job {job.metadata.name}", COMPONENT)

    def _sync_cronjob(self, cj: Any, jobs: list[Any], st: "_Status") -> float | None:
        from ..api import cron

        now = self.clock.now
        children = set()
        for j in jobs:
            uid = j.metadata.uid
            children.add(uid)
            found = st.has_active(uid)
            cond = _finished(j)
            if not found and cond is None:
                self.store.record_event(
                    cj, "Warning", "UnexpectedJob",
                    f"Saw a job that the controller did not create or forgot: {j.metadata.name}",
                    COMPONENT)
            elif cond is not None:
                if found:
                    st.remove_active(uid)
                    self.store.record_event(
                        cj, "Normal", "SawCompletedJob",
                        f"Saw completed job: {j.metadata.name}, condition: {cond}", COMPONENT)
                done_at = _seconds(j.status.completion_time)
                if cond == "Complete" and done_at is not None and (
                        st.last_successful is None or done_at > st.last_successful):
                    st.last_successful = done_at
                    st.changed = True
        for ref in list(st.active):
            if ref.get("uid") in children:
                continue
            if self.store.get("Job", ref.get("name", ""), ref.get("namespace") or
                              cj.metadata.namespace) is None:
                self.store.record_event(cj, "Normal", "MissingJob",
                                        f"Active job went missing: {ref.get('name', '')}",
                                        COMPONENT)
                st.remove_active(ref.get("uid"))
        if cj.metadata.deletion_timestamp is not None:
            return None
        spec = cj.spec
        tz = spec.time_zone or ""
        if spec.time_zone is not None:
            problem = cron.check_time_zone(spec.time_zone)
            if problem is not None:
                self.store.record_event(cj, "Warning", "UnknownTimeZone",
                                        f'invalid timeZone: "{spec.time_zone}": {problem}',
                                        COMPONENT)
                return None
        if spec.suspend:
            return None
        try:
            sched = cron.parse(spec.schedule)
        except cron.CronError as err:
            self.store.record_event(cj, "Warning", "UnparseableSchedule",
                                    f'unparseable schedule: "{spec.schedule}" : {err}',
                                    COMPONENT)
            return None
        created = _seconds(cj.metadata.creation_timestamp) or 0.0
        try:
            _, scheduled, missed = most_recent_schedule_time(
                created, st.last_schedule, spec.starting_deadline_seconds, now, sched, tz)
        except ScheduleError as err:
            self.store.record_event(cj, "Warning", "InvalidSchedule",
                                    f"invalid schedule: {spec.schedule} : {err}", COMPONENT)
            return None
        if scheduled is not None and missed == MANY:
            self.store.record_event(
                cj, "Warning", "TooManyMissedTimes",
                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or "
                "check clock skew", COMPONENT)

        def requeue() -> float | None:
            return next_schedule_delay(created, st.last_schedule, now, sched, tz)

        if scheduled is None:
            return requeue()
        deadline = spec.starting_deadline_seconds
        if deadline is not None and scheduled + deadline < now:
            self.store.record_event(cj, "Warning", "MissSchedule",
                                    f"Missed scheduled time to start a job: "
                                    f"{rfc1123z(scheduled)}", COMPONENT)
            return requeue()
        name = job_name(cj.metadata.name, scheduled)
        if st.has_active_name(name) or st.last_schedule == scheduled:
            return requeue()
        if spec.concurrency_policy == "Forbid" and st.active:
            self.store.record_event(cj, "Normal", "JobAlreadyActive",
                                    "Not starting job because prior execution is running and "
                                    "concurrency policy is Forbid", COMPONENT)
            return requeue()
        if spec.concurrency_policy == "Replace":
            for ref in list(st.active):
                job = self.store.get("Job", ref.get("name", ""), ref.get("namespace") or
                                     cj.metadata.namespace)
                if job is None:
                    self.store.record_event(
                        cj, "Warning", "FailedGet",
                        f'Get job: jobs.batch "{ref.get("name", "")}" not found', COMPONENT)
                    self.queue.add_rate_limited((cj.metadata.namespace, cj.metadata.name))
                    return None
                self._delete_job(cj, job, st)
        created_job = self._create_job(cj, name, scheduled, tz)
        if created_job is None:
            return None
        st.add_active(created_job)
        st.last_schedule = scheduled
        st.changed = True
        return requeue()

    def _create_job(self, cj: Any, name: str, scheduled: float, tz: str) -> Any | None:
        from ..api.batch import Job

        tmpl = cj.spec.job_template
        ns = cj.metadata.namespace
        annotations = dict(tmpl.metadata.annotations)
        annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = scheduled_timestamp(scheduled, tz)
        job = Job(metadata=ObjectMeta(name=name, namespace=ns, labels=tmpl.metadata.labels,
                                      annotations=FrozenDict(annotations),
                                      owner_references=(owner_ref_for(cj, "batch/v1"),)),
                  spec=tmpl.spec)
        try:
            made = self.store.create(job)
        except ApiError as err:
            if err.reason == "AlreadyExists":
                existing = self.store.get("Job", name, ns)
                ref = existing.metadata.controller_ref() if existing is not None else None
                if existing is None or ref is None or ref.uid != cj.metadata.uid:
                    return None  # another actor made it: assume it keeps the status
                return existing
            self._failed_create(cj, err)
            return None
        except KsandboxError as err:
            self._failed_create(cj, err)
            return None
        self.store.record_event(cj, "Normal", "SuccessfulCreate", f"Created job {name}",
                                COMPONENT)
        return made

    def _failed_create(self, cj: Any, err: Exception) -> None:
        self.store.record_event(cj, "Warning", "FailedCreate",
                                f"Error creating job: {server_message(err)}", COMPONENT)
        self.queue.add_rate_limited((cj.metadata.namespace, cj.metadata.name))


class _Status:
    """The CronJob status the sync edits (upstream's cronJobCopy), written once at the end."""

    def __init__(self, cj: Any) -> None:
        self.active: list[Any] = [a for a in cj.status.active if hasattr(a, "get")]
        self.last_schedule = _seconds(cj.status.last_schedule_time)
        self.last_successful = _seconds(cj.status.last_successful_time)
        self.changed = False

    def has_active(self, uid: str) -> bool:
        return any(a.get("uid") == uid for a in self.active)

    def has_active_name(self, name: str) -> bool:
        return any(a.get("name") == name for a in self.active)

    def remove_active(self, uid: Any) -> None:
        keep = [a for a in self.active if a.get("uid") != uid]
        if len(keep) != len(self.active):
            self.active = keep
            self.changed = True

    def add_active(self, job: Any) -> None:
        m = job.metadata
        self.active.append(FrozenDict({"apiVersion": "batch/v1", "kind": "Job",
                                       "name": m.name, "namespace": m.namespace, "uid": m.uid,
                                       "resourceVersion": m.resource_version}))
        self.changed = True
