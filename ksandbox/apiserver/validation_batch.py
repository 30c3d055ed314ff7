"""Validation of StatefulSets, Jobs and CronJobs, in upstream's words.

Ported from ``pkg/apis/apps/validation/validation.go`` (ValidateStatefulSetSpec) and
``pkg/apis/batch/validation/validation.go`` (validateJobSpec, ValidatePodTemplateSpecForJob,
validateCronJobSpec, validateScheduleFormat): selectors that must match the template, the
restart policies each kind allows, non-negative counts, the enums, CronJob's 52-character name
limit, a parsable schedule and a known time zone. Not ported: podFailurePolicy rules, the
update rules that make most of a StatefulSet's spec immutable.
"""

from __future__ import annotations

from typing import Any, Callable

from ..api import validation as v
from ..api.apps import POD_MANAGEMENT_POLICIES, STATEFULSET_UPDATE_STRATEGIES
from ..api.codec import decode, thaw
from ..api.errors import FieldError
from .validation_pod import validate_pod_spec

# The batch, cron and storage modules are imported inside the functions below that use them:
# they then load when a Job, a CronJob or a claim template is first validated, not when the
# sandbox starts (api/kinds.py, KindInfo.type).

Errors = list[FieldError]
# batch validation: a CronJob's name leaves room for the 11-character Job suffix.
CRONJOB_NAME_MAX = 52


def _selector(sel: Any, labels: Any, path: str, errs: Errors) -> None:
    if sel is None or (not sel.match_labels and not sel.match_expressions):
        errs.append(FieldError.required(f"{path}.selector"))
        return
    errs.extend(sel.validate(f"{path}.selector"))
    if not sel.matches(labels):
        errs.append(FieldError(f"{path}.template.metadata.labels", dict(labels),
                               "`selector` does not match template `labels`"))


def _nonneg(value: Any, path: str, errs: Errors) -> None:
    if value is not None and value < 0:
        errs.append(FieldError(path, value, "must be greater than or equal to 0"))


def _statefulset(sts: Any, errs: Errors) -> None:
    s = sts.spec
    if s.pod_management_policy and s.pod_management_policy not in POD_MANAGEMENT_POLICIES:
        errs.append(FieldError("spec.podManagementPolicy", s.pod_management_policy,
                               "must be 'OrderedReady' or 'Parallel'"))
    t = s.update_strategy.type
    if t and t not in STATEFULSET_UPDATE_STRATEGIES:
        errs.append(FieldError("spec.updateStrategy", t, "must be 'RollingUpdate' or 'OnDelete'"))
    _nonneg(s.replicas, "spec.replicas", errs)
    _nonneg(s.min_ready_seconds, "spec.minReadySeconds", errs)
    labels = s.template.metadata.labels
    errs.extend(v.validate_labels(labels, "spec.template.metadata.labels"))
    _selector(s.selector, labels, "spec", errs)
    validate_pod_spec(s.template.spec, "spec.template.spec", errs)
    rp = s.template.spec.restart_policy
    if rp and rp != "Always":
        errs.append(FieldError.not_supported("spec.template.spec.restartPolicy", rp, ("Always",)))
    if s.service_name:
        for msg in v.is_dns1123_label(s.service_name):
            errs.append(FieldError("spec.serviceName", s.service_name, msg))
    _claim_templates(s.volume_claim_templates, errs)


def _claim_templates(templates: Any, errs: Errors) -> None:
    from .validation_objects import validate_claim_spec

    names: set[str] = set()
    for i, t in enumerate(templates):
        p = f"spec.volumeClaimTemplates[{i}]"
        meta = t.get("metadata") if isinstance(t, dict) else None
        name = meta.get("name", "") if isinstance(meta, dict) else ""
        if not name:
            errs.append(FieldError.required(f"{p}.metadata.name", "name or generateName is "
                                                                   "required"))
        elif name in names:
            errs.append(FieldError.duplicate(f"{p}.metadata.name", name))
        names.add(name)
        from ..api.storage import PersistentVolumeClaimSpec

        try:
            spec = decode(PersistentVolumeClaimSpec, thaw(t.get("spec") or {}) if
                          isinstance(t, dict) else {}, f"{p}.spec")
        except FieldError as exc:
            errs.append(exc)
            continue
        validate_claim_spec(spec, f"{p}.spec", errs)


def validate_job_spec(s: Any, path: str, errs: Errors, manual_or_generated: bool) -> None:
    from ..api.batch import COMPLETION_MODES

    """validateJobSpec + ValidatePodTemplateSpecForJob under ``path`` (``spec`` or
    ``spec.jobTemplate.spec``)."""
    _nonneg(s.parallelism, f"{path}.parallelism", errs)
    _nonneg(s.completions, f"{path}.completions", errs)
    _nonneg(s.backoff_limit, f"{path}.backoffLimit", errs)
    if s.active_deadline_seconds is not None and s.active_deadline_seconds <= 0:
        errs.append(FieldError(f"{path}.activeDeadlineSeconds", s.active_deadline_seconds,
                               "must be greater than 0"))
    _nonneg(s.ttl_seconds_after_finished, f"{path}.ttlSecondsAfterFinished", errs)
    if s.completion_mode and s.completion_mode not in COMPLETION_MODES:
        errs.append(FieldError.not_supported(f"{path}.completionMode", s.completion_mode,
                                             COMPLETION_MODES))
    if s.completion_mode == "Indexed" and s.completions is None:
        errs.append(FieldError.required(f"{path}.completions",
                                        "when completion mode is Indexed"))
    labels = s.template.metadata.labels
    errs.extend(v.validate_labels(labels, f"{path}.template.metadata.labels"))
    if manual_or_generated:
        _selector(s.selector, labels, path, errs)
    validate_pod_spec(s.template.spec, f"{path}.template.spec", errs)
    rp = s.template.spec.restart_policy
    if rp in ("", "Always"):
        errs.append(FieldError.required(f"{path}.template.spec.restartPolicy",
                                        'valid values: "OnFailure", "Never"'))
    elif rp not in ("OnFailure", "Never"):
        errs.append(FieldError.not_supported(f"{path}.template.spec.restartPolicy", rp,
                                             ("OnFailure", "Never")))


def _job(job: Any, errs: Errors) -> None:
    validate_job_spec(job.spec, "spec", errs, True)


def _cronjob(cj: Any, errs: Errors) -> None:
    from ..api import cron
    from ..api.batch import CONCURRENCY_POLICIES

    name = cj.metadata.name
    if len(name) > CRONJOB_NAME_MAX:
        errs.append(FieldError("metadata.name", name,
                               f"must be no more than {CRONJOB_NAME_MAX} characters"))
    s = cj.spec
    if not s.schedule:
        errs.append(FieldError.required("spec.schedule"))
    elif "TZ" in s.schedule:
        errs.append(FieldError("spec.schedule", s.schedule, "cannot use TZ or CRON_TZ in "
                                                            "schedule, use timeZone field "
                                                            "instead"))
    else:
        try:
            cron.parse(s.schedule)
        except cron.CronError as exc:
            errs.append(FieldError("spec.schedule", s.schedule, str(exc)))
    if s.time_zone is not None:
        msg = cron.check_time_zone(s.time_zone)
        if msg:
            errs.append(FieldError("spec.timeZone", s.time_zone, msg))
    if s.concurrency_policy and s.concurrency_policy not in CONCURRENCY_POLICIES:
        errs.append(FieldError.not_supported("spec.concurrencyPolicy", s.concurrency_policy,
                                             CONCURRENCY_POLICIES))
    _nonneg(s.starting_deadline_seconds, "spec.startingDeadlineSeconds", errs)
    _nonneg(s.successful_jobs_history_limit, "spec.successfulJobsHistoryLimit", errs)
    _nonneg(s.failed_jobs_history_limit, "spec.failedJobsHistoryLimit", errs)
    js = s.job_template.spec
    validate_job_spec(js, "spec.jobTemplate.spec", errs, js.selector is not None)


VALIDATORS: dict[str, Callable[[Any, Errors], None]] = {
    "StatefulSet": _statefulset, "Job": _job, "CronJob": _cronjob,
}
