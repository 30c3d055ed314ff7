"""batch/v1 Job and CronJob.

Their controllers are ``controllers/job.py`` and ``controllers/cronjob.py``. A simulated pod
has no process to run, so how long a Job's pod runs is read from the annotation
``ksandbox.io/run-seconds`` on the pod template, else from a ``sleep N`` in the first
container's command/args, else a default (the kubelet's rule: kubelet/pod_completion.py).
"""

from __future__ import annotations

from typing import Any

from .codec import FrozenDict, Int32, api_type, extra_field, j
from .core import PodTemplateSpec
from .meta import ObjectMeta
from .selectors import LabelSelector

COMPLETION_MODES = ("Indexed", "NonIndexed")
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
# pkg/apis/batch/v1/defaults.go
DEFAULT_BACKOFF_LIMIT = 6
DEFAULT_SUCCESSFUL_JOBS_HISTORY = 3
DEFAULT_FAILED_JOBS_HISTORY = 1
# The labels the API server puts on a Job's pods (batch/v1 types.go, JobNameLabel and
# ControllerUidLabel; the legacy unprefixed pair is still written).
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"
JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"


@api_type
class JobSpec:
    parallelism: Int32 | None = j("parallelism", None, pointer=True)
    completions: Int32 | None = j("completions", None, pointer=True)
    active_deadline_seconds: int | None = j("activeDeadlineSeconds", None)
    backoff_limit: Int32 | None = j("backoffLimit", None, pointer=True)
    selector: LabelSelector | None = j("selector", None)
    manual_selector: bool | None = j("manualSelector", None)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    ttl_seconds_after_finished: Int32 | None = j("ttlSecondsAfterFinished", None)
    completion_mode: str = j("completionMode", "")
    suspend: bool | None = j("suspend", None)
    pod_replacement_policy: str = j("podReplacementPolicy", "")
    pod_failure_policy: Any = j("podFailurePolicy", None)
    extra: FrozenDict = extra_field()


@api_type
class JobCondition:
    type: str = j("type", "")
    status: str = j("status", "")
    reason: str = j("reason", "")
    message: str = j("message", "")
    last_probe_time: Any = j("lastProbeTime", None)
    last_transition_time: Any = j("lastTransitionTime", None)
    extra: FrozenDict = extra_field()


@api_type
class JobStatus:
    conditions: tuple[JobCondition, ...] = j("conditions", ())
    start_time: Any = j("startTime", None)
    completion_time: Any = j("completionTime", None)
    active: Int32 = j("active", 0)
    succeeded: Int32 = j("succeeded", 0)
    failed: Int32 = j("failed", 0)
    ready: Int32 | None = j("ready", None)
    terminating: Int32 | None = j("terminating", None)
    completed_indexes: str = j("completedIndexes", "")
    extra: FrozenDict = extra_field()

    def condition(self, type_: str) -> JobCondition | None:
        for c in self.conditions:
            if c.type == type_:
                return c
        return None

    def finished(self) -> str | None:
        """``Complete`` or ``Failed`` when that condition is True (IsJobFinished)."""
        for c in self.conditions:
            if c.type in ("Complete", "Failed") and c.status == "True":
                return c.type
        return None


@api_type
class Job:
    api_version: str = j("apiVersion", "batch/v1")
    kind: str = j("kind", "Job")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: JobSpec = j("spec", JobSpec())
    status: JobStatus = j("status", JobStatus())
    extra: FrozenDict = extra_field()


@api_type
class JobTemplateSpec:
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: JobSpec = j("spec", JobSpec())
    extra: FrozenDict = extra_field()


@api_type
class CronJobSpec:
    schedule: str = j("schedule", "")
    time_zone: str | None = j("timeZone", None)
    starting_deadline_seconds: int | None = j("startingDeadlineSeconds", None)
    concurrency_policy: str = j("concurrencyPolicy", "")
    suspend: bool | None = j("suspend", None)
    job_template: JobTemplateSpec = j("jobTemplate", JobTemplateSpec())
    successful_jobs_history_limit: Int32 | None = j("successfulJobsHistoryLimit", None)
    failed_jobs_history_limit: Int32 | None = j("failedJobsHistoryLimit", None)
    extra: FrozenDict = extra_field()


@api_type
class CronJobStatus:
    active: tuple[Any, ...] = j("active", ())
    last_schedule_time: Any = j("lastScheduleTime", None)
    last_successful_time: Any = j("lastSuccessfulTime", None)
    extra: FrozenDict = extra_field()


@api_type
class CronJob:
    api_version: str = j("apiVersion", "batch/v1")
    kind: str = j("kind", "CronJob")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: CronJobSpec = j("spec", CronJobSpec())
    status: CronJobStatus = j("status", CronJobStatus())
    extra: FrozenDict = extra_field()
