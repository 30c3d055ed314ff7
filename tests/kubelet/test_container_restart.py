"""A running container whose image an update changed is restarted by its kubelet
(kuberuntime_manager.go computePodActions: "Container app definition changed, will be
restarted"), whatever the pod's restartPolicy: stopped within the pod's grace period (the
sandbox's containers take all of it), its image pulled as its policy says, started again, and
the status posted then shows the new image, one restart more and the old instance as the last
state. ``kubectl get`` shows ``1 (5s ago)`` under RESTARTS and ``describe`` the states."""

from __future__ import annotations

import json

from nodesim import cluster, get_pod, node, play, pod

from ksandbox.views.printers import pod_restarts


def kubelet_events(s, name="web"):
    """Every occurrence the kubelet recorded for the pod, repeats included, in order."""
    return [(e.last_timestamp, e.reason, e.message) for e in s.store.occurrences
            if e.involved_object.name == name and e.source_component == "kubelet"]


def status_of(p, container="app"):
    (cs,) = [c for c in p.status.extra["containerStatuses"] if c["name"] == container]
    return cs


def restarts(s):
    return s.cp.kubelets.kubelets["node-1"].pod_workers.restarts


def test_set_image_restarts_the_running_container_after_its_grace_period():
    s = cluster(node("node-1"), pod("web", grace=10))
    s.run_until(10)
    before = status_of(get_pod(s, "web"))
    ready_since = get_pod(s, "web").status.condition("Ready").last_transition_time
    seen = len(kubelet_events(s))
    play(s, [(12, "kubectl set image pod/web app=nginx:1.27")])
    s.run_until(13)
    assert kubelet_events(s)[seen:] == [
        (12.0, "Killing", "Container app definition changed, will be restarted")]
    # stopping: the stored status still shows the old instance running
    s.run_until(21.9)
    assert status_of(get_pod(s, "web")) == before
    s.run_until(40)
    events = kubelet_events(s)[seen + 1:]
    # the grace period ends at 22: the pull begins then (``nginx:1.27`` has no :latest, but
    # this node never pulled it) and the container starts after the kubelet's start delay
    assert events[0] == (22.0, "Pulling", 'Pulling image "nginx:1.27"')
    started_at = events[1][0]
    assert 23.0 <= started_at <= 25.0
    took = round(started_at - 22.0, 3)
    assert events[1:] == [
        (started_at, "Pulled", f'Successfully pulled image "nginx:1.27" in {took:g}s '
                               f"({took:g}s including waiting)."),
        (started_at, "Created", "Created container: app"),
        (started_at, "Started", "Started container app")]
    web = get_pod(s, "web")
    cs = status_of(web)
    assert cs["image"] == "nginx:1.27"
    assert cs["restartCount"] == 1
    assert cs["state"] == {"running": {"startedAt": started_at}}
    assert cs["lastState"] == {"terminated": {
        "exitCode": 137, "reason": "Error",
        "startedAt": before["state"]["running"]["startedAt"], "finishedAt": 22.0}}
    assert (cs["ready"], cs["started"]) == (True, True)
    # the pod stayed Running and Ready all along, as the posted statuses say
    assert web.status.phase == "Running"
    assert web.status.condition("Ready").last_transition_time == ready_since
    assert (web.metadata.generation, web.status.observed_generation) == (2, 2)
    assert not restarts(s).flagged and not restarts(s).under_way


def test_kubectl_shows_the_restart_and_how_long_ago():
    s = cluster(node("node-1"), pod("web", grace=10))
    play(s, [(12, "kubectl set image pod/web app=nginx:1.27")])
    s.run_until(60)
    out = s.submit("kubectl get pod web").output
    assert out.splitlines()[1].split()[:5] == ["web", "1/1", "Running", "1", "(38s"]
    assert pod_restarts(get_pod(s, "web"), 60.0) == "1 (38s ago)"
    text = s.submit("kubectl describe pod web").output
    assert "    State:          Running\n" in text
    assert "    Last State:     Terminated\n" \
           "      Reason:       Error\n" \
           "      Exit Code:    137\n" in text
    assert "      Finished:     Thu, 01 Jan 2026 00:00:22 +0000\n" in text
    assert "    Ready:          True\n    Restart Count:  1\n" in text


def test_an_image_already_on_the_node_is_not_pulled_again():
    s = cluster(node("node-1"), json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"terminationGracePeriodSeconds": 0,
                 "containers": [{"name": "app", "image": "nginx:1.27"}]}}), json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "other"},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.28"}]}}))
    s.run_until(10)
    seen = len(kubelet_events(s))
    play(s, [(12, "kubectl set image pod/web app=nginx:1.28")])
    s.run_until(20)
    reasons = [(r, m) for _t, r, m in kubelet_events(s)[seen:]]
    assert reasons == [
        ("Killing", "Container app definition changed, will be restarted"),
        ("Pulled", 'Container image "nginx:1.28" already present on machine'),
        ("Created", "Created container: app"), ("Started", "Started container app")]


def test_only_the_changed_container_restarts():
    s = cluster(node("node-1"), pod("web", grace=0, containers=2))
    s.run_until(10)
    untouched = status_of(get_pod(s, "web"), "c1")
    play(s, [(12, "kubectl set image pod/web app=nginx:1.27")])
    s.run_until(20)
    web = get_pod(s, "web")
    assert status_of(web, "c1") == untouched
    assert status_of(web)["restartCount"] == 1
    assert pod_restarts(web, 20.0).startswith("1 (")


def test_an_update_that_changes_no_image_restarts_nothing():
    s = cluster(node("node-1"), pod("web", grace=0))
    s.run_until(10)
    seen = len(kubelet_events(s))
    play(s, [(11, "kubectl set image pod/web app=nginx"),           # the image it runs
             (12, "kubectl label pod web tier=front")])
    s.run_until(13)
    # a new image and back, before the kubelet's sync
    assert s.submit("kubectl set image pod/web app=nginx:1.27").ok
    assert s.submit("kubectl set image pod/web app=nginx").ok
    s.run_until(30)
    assert kubelet_events(s)[seen:] == []
    assert status_of(get_pod(s, "web"))["restartCount"] == 0
    assert not restarts(s).flagged and not restarts(s).under_way


def test_a_pod_deleted_while_it_restarts_just_goes():
    s = cluster(node("node-1"), pod("web", grace=10))
    play(s, [(12, "kubectl set image pod/web app=nginx:1.27"),
             (15, "kubectl delete pod web --wait=false")])
    s.run_until(40)
    assert get_pod(s, "web") is None
    reasons = [r for _t, r, _m in kubelet_events(s)]
    assert reasons.count("Started") == 1 and "Pulling" in reasons
    assert reasons[-2:] == ["Killing", "Killing"]   # definition changed, then the deletion's
    assert not restarts(s).flagged and not restarts(s).under_way


def test_a_restart_cut_short_by_a_node_failure_is_begun_again_after_the_recovery():
    s = cluster(node("node-1"), pod("web", grace=10))
    play(s, [(12, "kubectl set image pod/web app=nginx:1.27"),
             (15, "ksandbox fail node node-1")])
    s.run_until(40)
    # silent: nothing stopped or started
    assert status_of(get_pod(s, "web"))["image"] == "nginx"
    assert [r for _t, r, _m in kubelet_events(s)].count("Killing") == 1
    play(s, [(41, "ksandbox recover node node-1")])
    s.run_until(70)
    web = get_pod(s, "web")
    cs = status_of(web)
    assert (cs["image"], cs["restartCount"]) == ("nginx:1.27", 1)
    kills = [t for t, r, _m in kubelet_events(s) if r == "Killing"]
    assert kills[0] == 12.0 and kills[1] >= 41.0
    assert cs["lastState"]["terminated"]["finishedAt"] == kills[1] + 10


def _failing(policy="OnFailure"):
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "job", "annotations": {"ksandbox.io/run-seconds": "5",
                                                    "ksandbox.io/exit-code": "2"}},
        "spec": {"restartPolicy": policy, "terminationGracePeriodSeconds": 10,
                 "containers": [{"name": "app", "image": "busybox:1.36"}]}})


def test_a_failed_container_restarts_at_once_then_waits_in_crash_loop_back_off():
    s = cluster(node("node-1"), _failing())
    s.run_until(5)
    started = status_of(get_pod(s, "job"))["state"]["running"]["startedAt"]
    first = started + 5
    s.run_until(first + 0.5)
    # the first failure: no back-off yet (doBackOff finds no entry), started again at once
    cs = status_of(get_pod(s, "job"))
    assert cs["state"] == {"running": {"startedAt": first}}
    assert cs["restartCount"] == 1
    assert cs["lastState"] == {"terminated": {"exitCode": 2, "reason": "Error",
                                              "startedAt": started, "finishedAt": first}}
    assert [r for t, r, _m in kubelet_events(s, "job") if t == first] == \
        ["Pulled", "Created", "Started"]
    second = first + 5
    s.run_until(second + 1)
    job = get_pod(s, "job")
    cs = status_of(job)
    # the second: 10 s of back-off; waiting, not ready
    assert cs["state"] == {"waiting": {
        "reason": "CrashLoopBackOff",
        "message": "back-off 10s restarting failed container=app "
                   f"pod=job_default({job.metadata.uid})"}}
    assert cs["lastState"] == {"terminated": {"exitCode": 2, "reason": "Error",
                                              "startedAt": first, "finishedAt": second}}
    assert (cs["ready"], cs["started"], cs["restartCount"]) == (False, False, 1)
    ready = job.status.condition("Ready")
    assert (ready.status, ready.reason, ready.message, ready.last_transition_time) == \
        ("False", "ContainersNotReady", "containers with unready status: [app]", second)
    assert job.status.phase == "Running"
    row = s.submit("kubectl get pod job").output.splitlines()[1].split()
    assert row[1:5] == ["0/1", "CrashLoopBackOff", "1", "(1s"]
    s.run_until(second + 10.5)
    job = get_pod(s, "job")
    cs = status_of(job)
    assert cs["state"] == {"running": {"startedAt": second + 10}}
    assert (cs["ready"], cs["restartCount"]) == (True, 2)
    assert cs["lastState"]["terminated"]["finishedAt"] == second
    ready = job.status.condition("Ready")
    assert (ready.status, ready.last_transition_time) == ("True", second + 10)
    # the third failure waits 20 s
    s.run_until(second + 16)
    assert "back-off 20s" in status_of(get_pod(s, "job"))["state"]["waiting"]["message"]


def test_a_pod_deleted_in_its_back_off_has_nothing_to_stop_and_goes_at_once():
    s = cluster(node("node-1"), _failing())
    s.run_until(14)   # the second failure: in back-off until 24
    assert "CrashLoopBackOff" in s.submit("kubectl get pod job").output
    seen = len(kubelet_events(s, "job"))
    play(s, [(15, "kubectl delete pod job --wait=false")])
    s.run_until(15.5)
    # no container runs: no Killing, no grace period to wait, and no start after
    assert get_pod(s, "job") is None
    s.run_until(30)
    assert kubelet_events(s, "job")[seen:] == []


def test_a_running_pods_deletion_still_stops_its_containers_within_the_grace_period():
    s = cluster(node("node-1"), pod("web", grace=10))
    play(s, [(12, "kubectl delete pod web --wait=false")])
    s.run_until(21.9)
    assert get_pod(s, "web") is not None
    assert [r for t, r, _m in kubelet_events(s) if t == 12] == ["Killing"]
    s.run_until(22.5)
    assert get_pod(s, "web") is None


def test_a_back_off_that_ends_while_the_node_is_down_starts_the_container_after():
    s = cluster(node("node-1"), _failing())
    play(s, [(15, "ksandbox fail node node-1")])   # in back-off until 24
    s.run_until(60)
    assert status_of(get_pod(s, "job"))["restartCount"] == 1
    play(s, [(61, "ksandbox recover node node-1")])
    s.run_until(61.5)
    cs = status_of(get_pod(s, "job"))
    assert (cs["restartCount"], cs["state"]) == (2, {"running": {"startedAt": 61.0}})
    assert cs["lastState"]["terminated"]["exitCode"] == 2
    # and it fails again 5 s later, as before
    s.run_until(67)
    assert "back-off 20s" in status_of(get_pod(s, "job"))["state"]["waiting"]["message"]


def test_a_container_that_exits_while_the_node_is_down_is_seen_to_after_the_recovery():
    s = cluster(node("node-1"), _failing("Never"))
    play(s, [(4, "ksandbox fail node node-1")])     # it exits at ~7-8, unheard
    s.run_until(30)
    assert get_pod(s, "job").status.phase == "Running"
    play(s, [(31, "ksandbox recover node node-1")])
    s.run_until(32)
    job = get_pod(s, "job")
    term = status_of(job)["state"]["terminated"]
    assert job.status.phase == "Failed"
    assert term["exitCode"] == 2 and term["finishedAt"] < 10   # when it exited, not 31


def test_an_image_set_in_the_back_off_is_the_one_that_starts():
    s = cluster(node("node-1"), _failing())
    play(s, [(15, "kubectl set image pod/job app=busybox:1.37")])   # in back-off until 24
    s.run_until(25)
    cs = status_of(get_pod(s, "job"))
    assert (cs["image"], cs["restartCount"]) == ("busybox:1.37", 2)


def test_an_image_restart_takes_over_the_old_instances_run():
    s = cluster(node("node-1"), _failing("Never"))
    play(s, [(4, "kubectl set image pod/job app=busybox:1.37")])   # the old one would exit ~8
    s.run_until(13)
    job = get_pod(s, "job")
    cs = status_of(job)
    # stopped at 14 (grace 10): no exit of the old instance meanwhile
    assert job.status.phase == "Running" and cs["image"] == "busybox:1.36"
    s.run_until(30)
    job = get_pod(s, "job")
    cs = status_of(job)
    # the new instance ran its own 5 s, then failed (restartPolicy Never)
    assert job.status.phase == "Failed"
    assert cs["image"] == "busybox:1.37" and cs["restartCount"] == 1
    term = cs["state"]["terminated"]
    assert round(term["finishedAt"] - term["startedAt"], 6) == 5


def test_an_image_the_node_may_not_pull_leaves_the_container_waiting():
    with_image = json.loads(node("node-1"))
    with_image["status"]["images"] = [{"names": ["nginx:1.27"], "sizeBytes": 1000}]
    s = cluster(json.dumps(with_image), json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"terminationGracePeriodSeconds": 0,
                 "containers": [{"name": "app", "image": "nginx:1.27",
                                 "imagePullPolicy": "Never"}]}}))
    s.run_until(10)
    assert get_pod(s, "web").status.phase == "Running"   # its image is on the node
    play(s, [(12, "kubectl set image pod/web app=nginx:9.99")])
    s.run_until(20)
    web = get_pod(s, "web")
    cs = status_of(web)
    assert cs["state"]["waiting"]["reason"] == "ErrImageNeverPull"
    assert (cs["ready"], cs["restartCount"]) == (False, 0)
    assert cs["lastState"]["terminated"]["exitCode"] == 137
    assert web.status.condition("Ready").status == "False"
    assert s.submit("kubectl get pod web").output.splitlines()[1].split()[1:3] == \
        ["0/1", "ErrImageNeverPull"]


def test_restarts_ago_reads_an_exported_time():
    p = get_pod(_loaded(), "web")
    assert pod_restarts(p, 90.0) == "3 (30s ago)"


def _loaded():
    return cluster(node("node-1"), json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "nginx:1.27"}]},
        "status": {"phase": "Running", "containerStatuses": [{
            "name": "app", "image": "docker.io/library/nginx:1.27", "ready": True,
            "restartCount": 3, "started": True,
            "state": {"running": {"startedAt": "2026-01-01T00:01:00Z"}},
            "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                         "finishedAt": "2026-01-01T00:01:00Z"}}}]}}))


def test_a_loaded_running_pod_keeps_its_containers_through_a_recovery():
    s = _loaded()
    play(s, [(5, "ksandbox fail node node-1"), (120, "ksandbox recover node node-1")])
    s.run_until(130)
    cs = status_of(get_pod(s, "web"))
    # re-posted Running after the recovery: the same instance, its image as the runtime
    # reported it, its restarts, not a restart of its own
    assert (cs["image"], cs["restartCount"]) == ("docker.io/library/nginx:1.27", 3)
    assert cs["state"] == {"running": {"startedAt": "2026-01-01T00:01:00Z"}}
    assert "Killing" not in [r for _t, r, _m in kubelet_events(s)]
