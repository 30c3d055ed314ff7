"""The CronJob controller.

The table is upstream ``pkg/controller/cronjob/cronjob_controllerv2_test.go``
TestControllerV2SyncCronJob (the cases that do not depend on a stale informer cache), moved
onto the sandbox's clock: "the hour" is 10:00 on the simulated epoch's day. The other tests
trace ``cleanupFinishedJobs``/``removeOldestJobs`` (TestControllerV2CleanupFinishedJobs),
``mostRecentScheduleTime`` (utils_test.go TestMostRecentScheduleTime: "with @every schedule",
"rough closest time", "too many missed") and a whole run of ``kubectl get cronjobs,jobs``.
"""

from __future__ import annotations

import attrs
import pytest

from ksandbox.api import cron
from ksandbox.api.batch import (
    CronJob,
    CronJobSpec,
    CronJobStatus,
    Job,
    JobCondition,
    JobStatus,
    JobTemplateSpec,
)
from ksandbox.api.codec import FrozenDict, decode
from ksandbox.api.core import Namespace
from ksandbox.api.meta import ObjectMeta, owner_ref_for
from ksandbox.apiserver.store import Store
from ksandbox.controllers import cronjob as cjc
from ksandbox.session import Session
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom

HOUR = 36000.0                       # 10:00:00 on the simulated epoch's day
JUST_BEFORE_THE_HOUR = HOUR - 60      # 09:59
JUST_AFTER_THE_PRIOR_HOUR = HOUR - 3540   # 09:01
JUST_BEFORE_THE_PRIOR_HOUR = HOUR - 3660  # 08:59
JUST_AFTER_THE_HOUR = HOUR + 60       # 10:01
WEEK_AFTER_THE_HOUR = HOUR + 7 * 86400
SHORT, MEDIUM, LONG, NO = 10, 2 * 3600, 1_000_000, None
ON_THE_HOUR = "0 * * * ?"
ERROR_SCHEDULE = "obvious error schedule"
A, F, R = "Allow", "Forbid", "Replace"

JOB_SPEC = decode(Job, {"spec": {"parallelism": 1, "completions": 1, "template": {
    "metadata": {"labels": {"foo": "bar"}},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "foo/bar"}]}}}}).spec


class Harness:
    """A store and the controller at a chosen instant (the unit test's fake controls)."""

    def __init__(self, now: float) -> None:
        self.t = 0.0
        self.store = Store(lambda: self.t, SimRandom(1))
        self.clock = Clock(now)
        self.store.create(Namespace(metadata=ObjectMeta(name="snazzycats")), admitted=True)
        self.ctl = cjc.CronJobController()
        self.ctl.start(self)
        self.now = now

    def at(self, t: float, fn, *args, **kw):
        self.t = t
        try:
            return fn(*args, **kw)
        finally:
            self.t = self.now

    def sync(self) -> None:
        self.t = self.now
        self.ctl.sync(("snazzycats", "mycronjob"))

    def cronjob(self) -> CronJob:
        return self.store.get("CronJob", "mycronjob", "snazzycats")

    def warnings(self) -> list[str]:
        return [e.reason for e in self.store.events if e.type == "Warning"]

    def requeue_at(self) -> float | None:
        timer = self.ctl.queue._delayed.get(("snazzycats", "mycronjob"))
        return timer.when if timer is not None and not timer.cancelled else None


def make_cronjob(h: Harness, policy: str, suspend: bool, schedule: str, deadline, created: float,
                 last_schedule: float | None) -> CronJob:
    cj = CronJob(
        metadata=ObjectMeta(name="mycronjob", namespace="snazzycats", uid="1a2b3c"),
        spec=CronJobSpec(schedule=schedule, concurrency_policy=policy, suspend=suspend,
                         starting_deadline_seconds=deadline,
                         job_template=JobTemplateSpec(
                             metadata=ObjectMeta(labels=FrozenDict(a="b"),
                                                 annotations=FrozenDict(x="y")),
                             spec=JOB_SPEC)))
    # admitted=True: the invalid-schedule case could not pass validation otherwise.
    cj = h.at(created, h.store.create, cj, admitted=True)
    if last_schedule is not None:
        cj = h.at(created, h.store.update_status,
                  attrs.evolve(cj, status=CronJobStatus(last_schedule_time=last_schedule)))
    return cj


def make_job(h: Harness, cj: CronJob, created: float, active: bool) -> Job:
    job = Job(metadata=ObjectMeta(name=cjc.job_name("mycronjob", created), namespace="snazzycats",
                                  uid="1234", owner_references=(owner_ref_for(cj, "batch/v1"),)),
              spec=JOB_SPEC)
    job = h.at(created, h.store.create, job, admitted=True)
    if not active:
        done = JobStatus(start_time=created, completion_time=created + 10, succeeded=1,
                         conditions=(JobCondition(type="Complete", status="True"),))
        job = h.at(created, h.store.update_status, attrs.evolve(job, status=done))
    else:
        ref = FrozenDict({"apiVersion": "batch/v1", "kind": "Job", "name": job.metadata.name,
                          "namespace": "snazzycats", "uid": "1234"})
        h.at(created, h.store.update_status,
             attrs.evolve(cj, status=attrs.evolve(h.cronjob().status, active=(ref,))))
    return job


# name: (policy, suspend, schedule, deadline, ran previously, still active, job creation time,
#        now, expect create, expect delete, expect active, expected warnings, expect requeue)
CASES = {
    "never ran, not valid schedule, A": (A, False, ERROR_SCHEDULE, NO, False, False,
                                         JUST_AFTER_THE_PRIOR_HOUR, JUST_BEFORE_THE_HOUR,
                                         False, False, 0, 1, False),
    "never ran, not valid schedule, F": (F, False, ERROR_SCHEDULE, NO, False, False,
                                         JUST_AFTER_THE_PRIOR_HOUR, JUST_BEFORE_THE_HOUR,
                                         False, False, 0, 1, False),
    "never ran, not time, A": (A, False, ON_THE_HOUR, NO, False, False, JUST_AFTER_THE_PRIOR_HOUR,
                               JUST_BEFORE_THE_HOUR, False, False, 0, 0, True),
    "never ran, not time, R": (R, False, ON_THE_HOUR, NO, False, False, JUST_AFTER_THE_PRIOR_HOUR,
                               JUST_BEFORE_THE_HOUR, False, False, 0, 0, True),
    "never ran, is time, A": (A, False, ON_THE_HOUR, NO, False, False, JUST_AFTER_THE_PRIOR_HOUR,
                              JUST_AFTER_THE_HOUR, True, False, 1, 0, True),
    "never ran, is time, F": (F, False, ON_THE_HOUR, NO, False, False, JUST_AFTER_THE_PRIOR_HOUR,
                              JUST_AFTER_THE_HOUR, True, False, 1, 0, True),
    "never ran, is time, R": (R, False, ON_THE_HOUR, NO, False, False, JUST_AFTER_THE_PRIOR_HOUR,
                              JUST_AFTER_THE_HOUR, True, False, 1, 0, True),
    "never ran, is time, suspended": (A, True, ON_THE_HOUR, NO, False, False,
                                      JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                      False, False, 0, 0, False),
    "never ran, is time, past deadline": (A, False, ON_THE_HOUR, SHORT, False, False,
                                          JUST_AFTER_THE_PRIOR_HOUR,
                                          JUST_AFTER_THE_HOUR + 60 * (SHORT + 1),
                                          False, False, 0, 0, True),
    "never ran, is time, not past deadline": (A, False, ON_THE_HOUR, LONG, False, False,
                                              JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                              True, False, 1, 0, True),
    "prev ran but done, not time, A": (A, False, ON_THE_HOUR, NO, True, False,
                                       JUST_AFTER_THE_PRIOR_HOUR, JUST_BEFORE_THE_HOUR,
                                       False, False, 0, 0, True),
    "prev ran but done, is time, A": (A, False, ON_THE_HOUR, NO, True, False,
                                      JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                      True, False, 1, 0, True),
    "prev ran but done, is time, F": (F, False, ON_THE_HOUR, NO, True, False,
                                      JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                      True, False, 1, 0, True),
    "prev ran but done, is time, suspended": (A, True, ON_THE_HOUR, NO, True, False,
                                              JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                              False, False, 0, 0, False),
    "prev ran but done, is time, past deadline": (A, False, ON_THE_HOUR, SHORT, True, False,
                                                  JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                                  False, False, 0, 0, True),
    "prev ran but done, is time, not past deadline": (A, False, ON_THE_HOUR, LONG, True, False,
                                                      JUST_AFTER_THE_PRIOR_HOUR,
                                                      JUST_AFTER_THE_HOUR, True, False, 1, 0,
                                                      True),
    "still active, not time, A": (A, False, ON_THE_HOUR, NO, True, True,
                                  JUST_AFTER_THE_PRIOR_HOUR, JUST_BEFORE_THE_HOUR,
                                  False, False, 1, 0, True),
    "still active, not time, R": (R, False, ON_THE_HOUR, NO, True, True,
                                  JUST_AFTER_THE_PRIOR_HOUR, JUST_BEFORE_THE_HOUR,
                                  False, False, 1, 0, True),
    "still active, is time, A": (A, False, ON_THE_HOUR, NO, True, True, JUST_AFTER_THE_PRIOR_HOUR,
                                 JUST_AFTER_THE_HOUR, True, False, 2, 0, True),
    "still active, is time, F": (F, False, ON_THE_HOUR, NO, True, True, JUST_AFTER_THE_PRIOR_HOUR,
                                 JUST_AFTER_THE_HOUR, False, False, 1, 0, True),
    "still active, is time, R": (R, False, ON_THE_HOUR, NO, True, True, JUST_AFTER_THE_PRIOR_HOUR,
                                 JUST_AFTER_THE_HOUR, True, True, 1, 0, True),
    "still active, is time, suspended": (A, True, ON_THE_HOUR, NO, True, True,
                                         JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                         False, False, 1, 0, False),
    "still active, is time, past deadline": (A, False, ON_THE_HOUR, SHORT, True, True,
                                             JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                             False, False, 1, 0, True),
    "still active, is time, not past deadline": (A, False, ON_THE_HOUR, LONG, True, True,
                                                 JUST_AFTER_THE_PRIOR_HOUR, JUST_AFTER_THE_HOUR,
                                                 True, False, 2, 0, True),
    # Too many missed activations and no (or too long a) deadline: warn, still start one.
    "prev ran but done, long overdue, not past deadline, A": (A, False, ON_THE_HOUR, LONG, True,
                                                              False, JUST_AFTER_THE_PRIOR_HOUR,
                                                              WEEK_AFTER_THE_HOUR, True, False,
                                                              1, 1, True),
    "prev ran but done, long overdue, no deadline, F": (F, False, ON_THE_HOUR, NO, True, False,
                                                        JUST_AFTER_THE_PRIOR_HOUR,
                                                        WEEK_AFTER_THE_HOUR, True, False, 1, 1,
                                                        True),
    "prev ran but done, long overdue, past medium deadline, A": (A, False, ON_THE_HOUR, MEDIUM,
                                                                 True, False,
                                                                 JUST_AFTER_THE_PRIOR_HOUR,
                                                                 WEEK_AFTER_THE_HOUR, True,
                                                                 False, 1, 0, True),
    "prev ran but done, long overdue, past short deadline, R": (R, False, ON_THE_HOUR, SHORT,
                                                                True, False,
                                                                JUST_AFTER_THE_PRIOR_HOUR,
                                                                WEEK_AFTER_THE_HOUR, True,
                                                                False, 1, 0, True),
    # Time skew: the Job of a later hour exists, the clock says it is not time yet.
    "this ran but done, time drifted back, F": (F, False, ON_THE_HOUR, NO, True, False,
                                                JUST_AFTER_THE_HOUR, JUST_BEFORE_THE_HOUR,
                                                False, False, 0, 0, True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sync_cronjob(name):
    (policy, suspend, schedule, deadline, ran, active, job_created, now, want_create,
     want_delete, want_active, want_warnings, want_requeue) = CASES[name]
    h = Harness(now)
    if ran:
        cj = make_cronjob(h, policy, suspend, schedule, deadline, JUST_BEFORE_THE_PRIOR_HOUR,
                          JUST_AFTER_THE_PRIOR_HOUR)
        old = make_job(h, cj, job_created, active)
    else:
        make_cronjob(h, policy, suspend, schedule, deadline, JUST_BEFORE_THE_HOUR, None)
        old = None
    h.sync()
    jobs = {j.metadata.name for j in h.store.list("Job", "snazzycats")}
    created = jobs - ({old.metadata.name} if old is not None else set())
    assert bool(created) == want_create, jobs
    if old is not None:
        assert (old.metadata.name not in jobs) == want_delete
    st = h.cronjob().status
    assert len(st.active) == want_active
    assert len(h.warnings()) == want_warnings, h.warnings()
    if want_create:
        (made,) = created
        job = h.store.get("Job", made, "snazzycats")
        assert job.metadata.labels == {"a": "b"}
        assert job.metadata.annotations["x"] == "y"
        assert job.metadata.controller_ref().uid == "1a2b3c"
        assert st.last_schedule_time == (now // 3600) * 3600   # the latest hour
    if want_requeue:
        expected = cron.parse(schedule).next_after(now) + cjc.NEXT_SCHEDULE_DELTA
        assert h.requeue_at() == pytest.approx(expected), name
    else:
        assert h.requeue_at() is None


def test_the_job_is_named_after_the_activation_minute_and_carries_its_timestamp():
    """getJobName (Unix minutes) and getJobFromTemplate2's scheduled-timestamp annotation,
    in the CronJob's time zone (utils_test.go TestGetJobFromTemplate2)."""
    assert cjc.job_name("hello", 300.0) == "hello-29453765"
    assert cjc.scheduled_timestamp(300.0, "") == "2026-01-01T00:05:00Z"
    assert cjc.scheduled_timestamp(300.0, "Asia/Tokyo") == "2026-01-01T09:05:00+09:00"


def test_a_time_zone_is_read_when_first_asked_for():
    """zoneinfo (it reads sysconfig for its search path) is imported by the first CronJob
    with a time zone, not with the controller; the zone's activations and validation are
    as before."""
    import subprocess
    import sys

    probe = """
import sys
from ksandbox.api import cron
from ksandbox.controllers import cronjob
before = "zoneinfo" in sys.modules
at_nine = cron.parse("0 9 * * *")
print(before, at_nine.next_after(0.0, "America/New_York"), at_nine.next_after(0.0),
      cron.check_time_zone("Nowhere/City"), cron.check_time_zone("Europe/Paris"),
      "zoneinfo" in sys.modules)
"""
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # 09:00 in New York on 2026-01-01 is 14:00 UTC (EST); 09:00 UTC is 32,400 s in.
    assert proc.stdout.split() == ["False", "50400.0", "32400.0", "unknown", "time", "zone",
                                   "Nowhere/City", "None", "True"]


def test_most_recent_schedule_time():
    """utils_test.go TestMostRecentScheduleTime: the rough estimate then exact activations;
    @every counts from the last activation; more than 100 missed is MANY."""
    hourly = cron.parse("0 * * * *")
    assert cjc.most_recent_schedule_time(0.0, None, None, 1800.0, hourly) == (0.0, None, 0)
    assert cjc.most_recent_schedule_time(0.0, None, None, 3700.0, hourly) == (0.0, 3600.0, 0)
    _, recent, missed = cjc.most_recent_schedule_time(0.0, None, None, 5 * 3600 + 5, hourly)
    assert (recent, missed) == (5 * 3600.0, cjc.FEW_MISSED)
    _, recent, missed = cjc.most_recent_schedule_time(0.0, None, None, 200 * 3600 + 5, hourly)
    assert (recent, missed) == (200 * 3600.0, cjc.MANY)
    every = cron.parse("@every 1h30m")
    _, recent, _ = cjc.most_recent_schedule_time(100.0, None, None, 100 + 3 * 5400 + 7, every)
    assert recent == 100 + 3 * 5400
    irregular = cron.parse("30 6-16/4 * * 1-5")   # 2026-01-01 is a Thursday
    _, recent, _ = cjc.most_recent_schedule_time(0.0, None, None, 86400 + 3600 * 12, irregular)
    assert recent == 86400 + 10 * 3600 + 1800
    with pytest.raises(cjc.ScheduleError):
        cjc.most_recent_schedule_time(0.0, None, None, 10.0, cron.parse("0 0 30 2 *"))


CRONJOB = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: hello}
spec:
  schedule: "*/5 * * * *"
%s
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: hello, image: busybox, command: ["sh", "-c", "sleep %d"]}]
"""


def test_a_cronjob_runs_a_job_every_five_minutes_and_keeps_three():
    """cleanupFinishedJobs with the default successfulJobsHistoryLimit 3
    (TestControllerV2CleanupFinishedJobs "success. job limit reached")."""
    s = Session.from_text(CRONJOB % ("", 30))
    s.run_until(1300)
    jobs = sorted(j.metadata.name for j in s.store.list("Job", "default"))
    assert jobs == ["hello-29453770", "hello-29453775", "hello-29453780"]
    out = s.submit("kubectl get cronjobs").output.splitlines()
    assert out[1].split() == ["hello", "*/5", "*", "*", "*", "*", "<none>", "False", "0", "100s",
                              "21m"]
    reasons = [e.reason for e in s.store.events if e.involved_object.kind == "CronJob"]
    assert reasons.count("SuccessfulCreate") == 4 and reasons.count("SuccessfulDelete") == 1
    pods = [p for p in s.store.list("Pod", "default")]
    assert len(pods) == 3 and all(p.status.phase == "Succeeded" for p in pods)
    described = s.submit("kubectl describe cronjob hello").output
    assert "Last Schedule Time:  Thu, 01 Jan 2026 00:20:00 +0000" in described
    assert "Created job hello-29453780" in described


def test_forbid_skips_an_activation_while_the_job_runs():
    s = Session.from_text(CRONJOB % ("  concurrencyPolicy: Forbid", 400))
    s.run_until(650)
    assert [j.metadata.name for j in s.store.list("Job", "default")] == ["hello-29453765"]
    assert any(e.reason == "JobAlreadyActive" for e in s.store.events)


def test_replace_deletes_the_running_job():
    s = Session.from_text(CRONJOB % ("  concurrencyPolicy: Replace", 400))
    s.run_until(650)
    assert [j.metadata.name for j in s.store.list("Job", "default")] == ["hello-29453770"]
    assert len(s.store.get("CronJob", "hello", "default").status.active) == 1


def test_suspend_then_resume_starts_the_next_activation_only():
    s = Session.from_text(CRONJOB % ("  suspend: true", 5))
    s.run_until(1000)
    assert s.store.list("Job", "default") == []
    cj = s.store.get("CronJob", "hello", "default")
    s.store.update(attrs.evolve(cj, spec=attrs.evolve(cj.spec, suspend=False)))
    s.run_until(1000.5)
    # The missed activations since creation: only the most recent one starts.
    assert [j.metadata.name for j in s.store.list("Job", "default")] == ["hello-29453775"]
    s.run_until(1250)
    assert len(s.store.list("Job", "default")) == 2


def test_activations_within_one_minute_share_one_job_name():
    """Job names count Unix minutes (getJobName): a sub-minute schedule starts at most one Job
    a minute (the activation's name is already in the active list, or was the last
    scheduled), and the active list never holds a Job twice."""
    s = Session.from_text((CRONJOB % ("", 40)).replace('"*/5 * * * *"', '"@every 20s"'))
    for t in range(5, 200, 5):
        s.run_until(t)
        active = s.store.get("CronJob", "hello", "default").status.active
        uids = [a["uid"] for a in active]
        assert len(uids) == len(set(uids)), (t, uids)
    names = sorted(j.metadata.name for j in s.store.list("Job", "default"))
    assert names == ["hello-29453760", "hello-29453761", "hello-29453762", "hello-29453763"][
        :len(names)] and len(names) >= 3
