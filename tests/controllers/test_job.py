"""Job and pod-completion scenarios, traced to upstream
``pkg/controller/job/job_controller_test.go`` (TestControllerSyncJob: "job start" — parallelism
pods; "WQ job finishing"/"WQ job all finished"; "too many job failures" via backoffLimit;
"indexed job completes"; TestSyncJobPastDeadline "activeDeadlineSeconds less than single pod
execution"; "suspending a job with satisfied expectations") and the printers'
printJob cases (``pkg/printers/internalversion/printers_test.go`` TestPrintJob)."""

from __future__ import annotations

from ksandbox.session import Session

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
"""


def job(spec: str = "", annotations: str = "", command: str = '["sh", "-c", "sleep 20"]',
        restart: str = "Never") -> str:
    return f"""
apiVersion: batch/v1
kind: Job
metadata: {{name: pi}}
spec:
{spec}
  template:
    metadata: {{annotations: {{{annotations}}}}}
    spec:
      restartPolicy: {restart}
      containers: [{{name: pi, image: perl, command: {command}}}]
"""


def status(s: Session):
    return s.store.get("Job", "pi", "default").status


def test_completions_and_parallelism():
    s = Session.from_text(NODE + "---" + job("  completions: 4\n  parallelism: 2"))
    s.run_until(1)
    assert status(s).active == 2
    s.run_until(200)
    st = status(s)
    assert st.succeeded == 4 and st.active == 0 and st.finished() == "Complete"
    assert isinstance(st.completion_time, float)
    assert sum(1 for p in s.store.list("Pod", "default") if p.status.phase == "Succeeded") == 4
    out = s.submit("kubectl get jobs").output.splitlines()
    assert out[0].split() == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert out[1].split()[:3] == ["pi", "Complete", "4/4"]
    assert [e.reason for e in s.store.events if e.reason == "Completed"] == ["Completed"]


def test_a_pod_runs_for_its_sleep_then_succeeds():
    s = Session.from_text(NODE + "---" + job())
    s.run_until(60)
    pod = s.store.list("Pod", "default")[0]
    started = pod.status.start_time
    terminated = pod.status.extra["containerStatuses"][0]["state"]["terminated"]
    assert terminated["exitCode"] == 0 and terminated["reason"] == "Completed"
    assert terminated["finishedAt"] - terminated["startedAt"] == 20.0
    assert started is not None
    assert "Completed" in s.submit("kubectl get pods").output


def test_the_run_time_annotation_wins_over_the_command():
    s = Session.from_text(NODE + "---" + job(annotations='ksandbox.io/run-seconds: "3"'))
    s.run_until(8)
    assert status(s).finished() == "Complete"


def test_too_many_failures_fail_the_job_with_backoff_limit_exceeded():
    s = Session.from_text(NODE + "---" + job("  backoffLimit: 2",
                                             'ksandbox.io/exit-code: "1", '
                                             'ksandbox.io/run-seconds: "5"'))
    s.run_until(300)
    st = status(s)
    assert st.failed == 3 and st.finished() == "Failed"
    cond = st.condition("Failed")
    assert cond.reason == "BackoffLimitExceeded"
    assert cond.message == "Job has reached the specified backoff limit"
    pods = sorted(s.store.list("Pod", "default"), key=lambda p: p.metadata.creation_timestamp)
    # Replacements wait the pod failure back-off: 10 s, then 20 s after each failure.
    starts = [p.metadata.creation_timestamp for p in pods]
    assert starts[1] - starts[0] >= 10 + 5 and starts[2] - starts[1] >= 20 + 5
    assert "Error" in s.submit("kubectl get pods").output


def test_on_failure_restarts_count_against_the_backoff_limit():
    s = Session.from_text(NODE + "---" + job("  backoffLimit: 1",
                                             'ksandbox.io/exit-code: "1", '
                                             'ksandbox.io/run-seconds: "2"',
                                             restart="OnFailure"))
    s.run_until(120)
    st = status(s)
    assert st.finished() == "Failed"
    assert len(s.store.list("Pod", "default")) in (0, 1)


def test_active_deadline_seconds_fails_a_slow_job():
    s = Session.from_text(NODE + "---" + job("  activeDeadlineSeconds: 10",
                                             command='["sleep", "100"]'))
    s.run_until(30)
    cond = status(s).condition("Failed")
    assert cond is not None and cond.reason == "DeadlineExceeded"
    assert cond.message == "Job was active longer than specified deadline"
    assert all(p.metadata.deletion_timestamp is not None or p.is_terminated
               for p in s.store.list("Pod", "default"))


def test_work_queue_job_completes_after_the_first_success_and_no_active_pods():
    s = Session.from_text(NODE + "---" + job("  parallelism: 3"))
    s.run_until(200)
    st = status(s)
    assert st.finished() == "Complete" and st.succeeded == 3
    assert s.submit("kubectl get jobs").output.splitlines()[1].split()[2] == "3/1"


def test_indexed_job_runs_each_index_once():
    s = Session.from_text(NODE + "---" + job("  completions: 3\n  parallelism: 3\n"
                                             "  completionMode: Indexed"))
    s.run_until(100)
    st = status(s)
    assert st.finished() == "Complete" and st.completed_indexes == "0-2"
    indexes = sorted(p.metadata.annotations["batch.kubernetes.io/job-completion-index"]
                     for p in s.store.list("Pod", "default"))
    assert indexes == ["0", "1", "2"]
    assert all(p.metadata.name.startswith(f"pi-{p.metadata.annotations['batch.kubernetes.io/job-completion-index']}-")
               for p in s.store.list("Pod", "default"))


def test_suspended_job_creates_nothing_until_resumed():
    s = Session.from_text(NODE + "---" + job("  suspend: true"))
    s.run_until(30)
    assert s.store.list("Pod", "default") == []
    assert status(s).condition("Suspended").status == "True"
    assert s.submit("kubectl get jobs").output.splitlines()[1].split()[1] == "Suspended"


def test_ttl_after_finished_deletes_the_job_and_its_pods():
    s = Session.from_text(NODE + "---" + job("  ttlSecondsAfterFinished: 30"))
    s.run_until(40)
    assert s.store.get("Job", "pi", "default") is not None
    s.run_until(100)
    assert s.store.get("Job", "pi", "default") is None
    assert s.store.list("Pod", "default") == []


def test_a_bare_pod_with_restart_policy_always_never_finishes():
    s = Session.from_text(NODE + """---
apiVersion: v1
kind: Pod
metadata: {name: server}
spec:
  containers: [{name: c, image: nginx, command: [sleep, "5"]}]
""")
    s.run_until(60)
    assert s.store.get("Pod", "server", "default").status.phase == "Running"
