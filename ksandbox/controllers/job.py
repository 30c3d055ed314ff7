"""The Job controller: runs pods to completion — ``completions`` successes, at most
``parallelism`` at a time — and gives up after ``backoffLimit`` failures or
``activeDeadlineSeconds``.

Ported from upstream ``pkg/controller/job/job_controller.go`` (syncJob, manageJob,
pastBackoffLimitOnFailure, getNewFinishedPods, the wantActive arithmetic, the pod failure
back-off in ``backoff_utils.go``) and the TTL-after-finished controller
(``pkg/controller/ttlafterfinished``), in our own words:

* wantActive: with ``completions`` unset, ``parallelism`` until the first success, then no new
  pods; with ``completions`` set, ``min(completions - succeeded, parallelism)``.
* A finished pod is counted once (upstream tracks that with a finalizer; here a set of counted
  pod uids). ``Indexed`` Jobs give each pod an index (``batch.kubernetes.io/job-completion-index``
  annotation and label, name ``<job>-<index>-<suffix>``) and complete when every index
  0..completions-1 has succeeded.
* Failure: more failed pods than ``backoffLimit`` (with ``restartPolicy: OnFailure`` the
  containers' restarts count too) → conditions FailureTarget and Failed, reason
  ``BackoffLimitExceeded``; running longer than ``activeDeadlineSeconds`` → ``DeadlineExceeded``;
  active pods are deleted. A replacement for a failed pod waits the back-off (10 s doubling,
  at most 6 min) after the last failure.
* Success: conditions SuccessCriteriaMet and Complete, ``completionTime``, event ``Completed``.
* ``suspend: true`` deletes active pods and sets the Suspended condition.
* ``ttlSecondsAfterFinished``: the Job and its pods are deleted that long after it finished.

How long a pod runs is the kubelet's business (``kubelet/pod_completion.py``). Not here:
podFailurePolicy, successPolicy, backoffLimitPerIndex, pod replacement policy ``Failed``,
adoption of orphan pods (Job pods always carry their controller reference).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..api.codec import FrozenDict
from ..api.core import SUCCEEDED, Pod
from ..api.errors import ApiError, KsandboxError
from ..api.evolve import evolve
from ..api.meta import ObjectMeta, owner_ref_for
from ..apiserver.informers import Informers
from ..apiserver.store import DELETED, WatchEvent
from .base import Controller
from .controller_utils import (
    generate_name,
    pod_active,
    pod_ready,
    server_message,
)

if TYPE_CHECKING:
    from ..apiserver.store import Store

COMPONENT = "job-controller"
# api/batch.py (a Job's conditions, the completion index annotation) is imported where a Job
# is synced: it loads with the first Job, and most sandboxes hold none (issue 11 item 5).

# job_controller.go: DefaultJobPodFailureBackOff 10 s, MaxJobPodFailureBackOff 6 min.
POD_FAILURE_BACKOFF, MAX_POD_FAILURE_BACKOFF = 10.0, 360.0
# manageJob: at most this many pods created per sync (MaxPodCreateDeletePerSync).
MAX_PODS_PER_SYNC = 500


class JobController(Controller):
    name = "job"

    def __init__(self, informers: Informers) -> None:
        self.pods = informers.pods   # the shared index: pods by controller uid

    def start(self, cp: Any) -> None:
        self.rand = cp.rand.child(self.name)
        self._counted: dict[str, set[str]] = {}        # job uid → counted finished pod uids
        self._last_failure: dict[str, float] = {}      # job uid → when a pod last failed
        self._templates: dict[str, tuple[Any, Any, Any]] = {}
        super().start(cp)

    def watch(self) -> None:
        # orphans=False: a Job adopts no orphan here (_pod_changed ignores owner None); so it
        # hears only the pods a Job controls (OwnerHandler.owners)
        pods = self.pods.handler("Job", self._pod_changed, orphans=False)
        self.store.subscribe("Pod", pods, owners=pods.owners)
        self.store.subscribe("Job", self._job_event)

    def _job_event(self, ev: WatchEvent) -> None:
        m = ev.obj.metadata
        if ev.type == DELETED:
            self._counted.pop(m.uid, None)
            self._last_failure.pop(m.uid, None)
            return
        if ev.old is None or ev.old.spec is not ev.obj.spec:
            self.queue.add((m.namespace, m.name))

    def _pod_changed(self, ns: str, owner: str | None, ev: WatchEvent) -> None:
        if owner is not None:
            self.queue.add((ns, owner))

    # -- sync ------------------------------------------------------------------------------
    def sync(self, key: tuple[str, str]) -> None:
        ns, name = key
        job = self.store.get("Job", name, ns)
        if job is None or job.metadata.deletion_timestamp is not None:
            return
        now = self.clock.now
        if job.status.finished():
            self._ttl(job, now)
            return
        uid = job.metadata.uid
        pods = list(self.pods.owned(uid).values())
        st = job.status
        counted = self._counted.get(uid)
        if counted is None:
            # First sync (also of a loaded export, whose status already counts its pods).
            finished = {p.metadata.uid for p in pods if p.is_terminated}
            counted = self._counted[uid] = finished if (st.succeeded or st.failed) else set()
        succeeded, failed = st.succeeded, st.failed
        indexes = _completed_indexes(st.completed_indexes)
        for p in sorted(pods, key=lambda p: p.metadata.name):
            if not p.is_terminated or p.metadata.uid in counted:
                continue
            counted.add(p.metadata.uid)
            if p.status.phase == SUCCEEDED:
                succeeded += 1
                idx = _index_of(p)
                if idx is not None:
                    indexes.add(idx)
            else:
                failed += 1
                self._last_failure[uid] = now
        active = [p for p in pods if pod_active(p)]
        spec = job.spec
        start = st.start_time if isinstance(st.start_time, (int, float)) else None
        conditions = list(st.conditions)
        if spec.suspend:
            for p in active:
                self._delete_pod(job, p)
            _set_condition(conditions, "Suspended", "True", "JobSuspended", "Job suspended", now)
            self._write(job, conditions, start, None, 0, succeeded, failed, indexes, pods)
            return
        if _condition_true(conditions, "Suspended"):
            _set_condition(conditions, "Suspended", "False", "JobResumed", "Job resumed", now)
            start = None  # the deadline counts from the resume (upstream resets startTime)
        if start is None:
            start = now
        fail_reason = self._failure(job, failed, active, start, now)
        if fail_reason is not None:
            reason, message = fail_reason
            for p in active:
                self._delete_pod(job, p)
            _set_condition(conditions, "FailureTarget", "True", reason, message, now)
            _set_condition(conditions, "Failed", "True", reason, message, now)
            self.store.record_event(job, "Warning", reason, message, COMPONENT)
            self._write(job, conditions, start, None, 0, succeeded, failed, indexes, pods)
            self._ttl(self.store.get("Job", name, ns), now)
            return
        indexed = spec.completion_mode == "Indexed"
        if _complete(spec, succeeded, indexes, active, indexed):
            for p in active:
                self._delete_pod(job, p)
            _set_condition(conditions, "SuccessCriteriaMet", "True", "CompletionsReached",
                           "Reached expected number of succeeded pods", now)
            _set_condition(conditions, "Complete", "True", "CompletionsReached",
                           "Reached expected number of succeeded pods", now)
            self.store.record_event(job, "Normal", "Completed", "Job completed", COMPONENT)
            self._write(job, conditions, start, now, 0, succeeded, failed, indexes, pods)
            self._ttl(self.store.get("Job", name, ns), now)
            return
        n_active = len(active)
        want = self._want_active(spec, succeeded, n_active, indexes, indexed)
        if want > n_active:
            wait = self._backoff_remaining(uid, failed, now)
            if wait > 0:
                self.queue.add_after(key, wait)
            else:
                created = self._create(job, want - n_active, active, indexes, indexed)
                n_active += created
        elif want < n_active:
            # Too many (parallelism lowered): delete the newest, not-ready first.
            extra = sorted(active, key=lambda p: (pod_ready(p), -(p.metadata.creation_timestamp
                                                                  or 0), p.metadata.name))
            for p in extra[:n_active - want]:
                self._delete_pod(job, p)
                n_active -= 1
        if spec.active_deadline_seconds is not None:
            self.queue.add_after(key, max(0.0, start + spec.active_deadline_seconds - now))
        self._write(job, conditions, start, None, n_active, succeeded, failed, indexes,
                    list(self.pods.owned(uid).values()))

    def _failure(self, job: Any, failed: int, active: list[Any], start: float,
                 now: float) -> tuple[str, str] | None:
        spec = job.spec
        limit = spec.backoff_limit if spec.backoff_limit is not None else 6
        if failed > limit:
            return "BackoffLimitExceeded", "Job has reached the specified backoff limit"
        if spec.template.spec.restart_policy == "OnFailure" and limit >= 0:
            # pastBackoffLimitOnFailure: container restarts of active pods count as failures.
            restarts = sum(restart_count(p) for p in active)
            if restarts and restarts + failed > limit:
                return "BackoffLimitExceeded", "Job has reached the specified backoff limit"
        ads = spec.active_deadline_seconds
        if ads is not None and now - start >= ads:
            return "DeadlineExceeded", "Job was active longer than specified deadline"
        return None

    @staticmethod
    def _want_active(spec: Any, succeeded: int, active: int, indexes: set[int],
                     indexed: bool) -> int:
        parallelism = spec.parallelism if spec.parallelism is not None else 1
        if spec.completions is None:
            return active if succeeded > 0 else parallelism
        done = len(indexes) if indexed else succeeded
        return max(0, min(spec.completions - done, parallelism))

    def _backoff_remaining(self, uid: str, failed: int, now: float) -> float:
        last = self._last_failure.get(uid)
        if not failed or last is None:
            return 0.0
        delay = min(POD_FAILURE_BACKOFF * (2 ** (failed - 1)), MAX_POD_FAILURE_BACKOFF)
        return max(0.0, last + delay - now)

    # -- writes ----------------------------------------------------------------------------
    def _admitted(self, job: Any, pod: Pod) -> tuple[Any, Any]:
        tspec = job.spec.template.spec
        hit = self._templates.get(job.metadata.uid)
        if hit is not None and hit[0] is tspec:
            return hit[1], hit[2]
        admitted = self.store.admit(pod)
        self._templates[job.metadata.uid] = (tspec, admitted.spec, admitted.status)
        return admitted.spec, admitted.status

    def _create(self, job: Any, count: int, active: list[Any], indexes: set[int],
                indexed: bool) -> int:
        from ..api.batch import JOB_COMPLETION_INDEX_ANNOTATION

        meta, tmpl = job.metadata, job.spec.template
        ns = meta.namespace
        refs = (owner_ref_for(job, "batch/v1"),)
        todo: list[int | None]
        if indexed:
            busy = {_index_of(p) for p in active}
            todo = [i for i in range(job.spec.completions or 0)
                    if i not in indexes and i not in busy][:count]
        else:
            todo = [None] * count
        created = 0
        for idx in todo[:MAX_PODS_PER_SYNC]:
            labels, annotations = dict(tmpl.metadata.labels), dict(tmpl.metadata.annotations)
            base = f"{meta.name}-"
            if idx is not None:
                base = f"{meta.name}-{idx}-"
                labels[JOB_COMPLETION_INDEX_ANNOTATION] = str(idx)
                annotations[JOB_COMPLETION_INDEX_ANNOTATION] = str(idx)
            name = generate_name(base, self.rand)
            while self.store.get("Pod", name, ns) is not None:
                name = generate_name(base, self.rand)
            pod = Pod(metadata=ObjectMeta(name=name, namespace=ns, labels=FrozenDict(labels),
                                          annotations=FrozenDict(annotations),
                                          owner_references=refs), spec=tmpl.spec)
            try:
                spec, status = self._admitted(job, pod)
                # Admitted already: pod admission depends on the template's spec alone, so
                # every pod stamped from it gets the spec and status store.admit gave the first.
                self.store.create(evolve(pod, spec=spec, status=status), admitted=True)
            except KsandboxError as err:
                msg = server_message(err).replace(f'"{name}"', f'"{base}"')
                self.store.record_event(job, "Warning", "FailedCreate", f"Error creating: {msg}",
                                        COMPONENT)
                self.queue.add_after((ns, meta.name), 10.0, background=True)
                break
            self.store.record_event(job, "Normal", "SuccessfulCreate", f"Created pod: {name}",
                                    COMPONENT)
            created += 1
        return created

    def _delete_pod(self, job: Any, pod: Pod) -> None:
        try:
            self.store.delete("Pod", pod.metadata.name, pod.metadata.namespace)
        except ApiError:
            return
        self.store.record_event(job, "Normal", "SuccessfulDelete",
                                f"Deleted pod: {pod.metadata.name}", COMPONENT)

    def _write(self, job: Any, conditions: list[Any], start: float | None,
               completion: float | None, active: int, succeeded: int, failed: int,
               indexes: set[int], pods: list[Any]) -> None:
        live = [p for p in pods if pod_active(p)]
        status = evolve(
            job.status, conditions=tuple(conditions), start_time=start,
            completion_time=completion if completion is not None else job.status.completion_time,
            active=active, succeeded=succeeded, failed=failed,
            ready=sum(1 for p in live if pod_ready(p)),
            terminating=sum(1 for p in pods if p.metadata.deletion_timestamp is not None
                            and not p.is_terminated),
            completed_indexes=_format_indexes(indexes)
            if job.spec.completion_mode == "Indexed" else "")
        if status != job.status:
            self.store.update_status(evolve(job, status=status))

    # -- ttl after finished ----------------------------------------------------------------
    def _ttl(self, job: Any, now: float) -> None:
        if job is None or job.spec.ttl_seconds_after_finished is None:
            return
        done = job.status.completion_time
        if not isinstance(done, (int, float)):
            cond = job.status.condition("Failed")
            done = cond.last_transition_time if cond is not None else now
        due = (done if isinstance(done, (int, float)) else now) + \
            job.spec.ttl_seconds_after_finished
        if due > now:
            self.queue.add_after((job.metadata.namespace, job.metadata.name), due - now)
            return
        delete_job(self.store, job)


def delete_job(store: Store, job: Any) -> None:
    """Delete a Job and its pods (background propagation, as the garbage collector would)."""
    uid = job.metadata.uid
    for pod in store.list("Pod", job.metadata.namespace):
        ref = pod.metadata.controller_ref()
        if ref is not None and ref.uid == uid:
            try:
                store.delete("Pod", pod.metadata.name, pod.metadata.namespace)
            except ApiError:
                pass
    try:
        store.delete("Job", job.metadata.name, job.metadata.namespace)
    except ApiError:
        pass


# -- helpers ---------------------------------------------------------------------------------


def restart_count(pod: Pod) -> int:
    """The containers' restarts, as the kubelet reports them in containerStatuses."""
    total = 0
    for s in pod.status.extra.get("containerStatuses") or ():
        try:
            total += int(s.get("restartCount") or 0) if hasattr(s, "get") else 0
        except (TypeError, ValueError):
            pass   # (a loaded export's count of another shape)
    return total


def _condition_true(conditions: list[Any], type_: str) -> bool:
    return any(c.type == type_ and c.status == "True" for c in conditions)


def _set_condition(conditions: list[Any], type_: str, status: str, reason: str, message: str,
                   now: float) -> None:
    from ..api.batch import JobCondition

    for i, c in enumerate(conditions):
        if c.type == type_:
            if c.status != status:
                conditions[i] = JobCondition(type=type_, status=status, reason=reason,
                                             message=message, last_probe_time=now,
                                             last_transition_time=now)
            return
    conditions.append(JobCondition(type=type_, status=status, reason=reason, message=message,
                                   last_probe_time=now, last_transition_time=now))


def _complete(spec: Any, succeeded: int, indexes: set[int], active: list[Any],
              indexed: bool) -> bool:
    if spec.completions is None:
        # Work-queue Jobs: one success and nothing still running.
        return succeeded > 0 and not active
    if indexed:
        return len(indexes) >= spec.completions
    return succeeded >= spec.completions


def _index_of(pod: Pod) -> int | None:
    from ..api.batch import JOB_COMPLETION_INDEX_ANNOTATION

    raw = pod.metadata.annotations.get(JOB_COMPLETION_INDEX_ANNOTATION)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _completed_indexes(text: str) -> set[int]:
    out: set[int] = set()
    for part in (text or "").split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        try:
            out.update(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            continue
    return out


def _format_indexes(indexes: set[int]) -> str:
    """The completedIndexes interval form: ``1,3-5,7``."""
    out, run = [], []
    for i in sorted(indexes):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [i]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(out)
