"""kubectl rollout status|history|undo|restart|pause|resume and kubectl set image.

The status table is kubectl's ``pkg/polymorphichelpers/rollout_status_test.go``
(TestDeploymentStatusViewerStatus, TestDaemonSetStatusViewerStatus); the story follows
``rollback.go`` (deploymentRevision: previous revision, --to-revision, paused refusal),
``history.go``, ``objectrestarter.go``, ``objectpauser.go`` and ``set_image_test.go``.
"""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401
from ksandbox.api.apps import DaemonSet, Deployment
from ksandbox.api.codec import decode
from ksandbox.commands.rollout import status_line
from ksandbox.session import Session

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
"""


def deployment(gen, replicas, observed, updated, total, available):
    return decode(Deployment, {"metadata": {"name": "foo", "generation": gen},
                               "spec": {"replicas": replicas},
                               "status": {"observedGeneration": observed, "replicas": total,
                                          "updatedReplicas": updated,
                                          "availableReplicas": available}})


@pytest.mark.parametrize("args,want", [
    ((0, 1, 1, 0, 1, 1), 'Waiting for deployment "foo" rollout to finish: 0 out of 1 new '
                         'replicas have been updated...\n'),
    ((1, 1, 1, 1, 2, 2), 'Waiting for deployment "foo" rollout to finish: 1 old replicas are '
                         'pending termination...\n'),
    ((1, 2, 1, 2, 2, 1), 'Waiting for deployment "foo" rollout to finish: 1 of 2 updated '
                         'replicas are available...\n'),
    ((1, 2, 1, 2, 2, 2), 'deployment "foo" successfully rolled out\n'),
    ((2, 2, 1, 2, 2, 2), "Waiting for deployment spec update to be observed...\n"),
])
def test_deployment_status_viewer(args, want):
    assert status_line(deployment(*args)) == want


@pytest.mark.parametrize("status,want", [
    ({"desiredNumberScheduled": 2, "updatedNumberScheduled": 0, "numberAvailable": 0},
     'Waiting for daemon set "bar" rollout to finish: 0 out of 2 new pods have been '
     'updated...\n'),
    ({"desiredNumberScheduled": 2, "updatedNumberScheduled": 2, "numberAvailable": 1},
     'Waiting for daemon set "bar" rollout to finish: 1 of 2 updated pods are available...\n'),
    ({"desiredNumberScheduled": 2, "updatedNumberScheduled": 2, "numberAvailable": 2},
     'daemon set "bar" successfully rolled out\n'),
])
def test_daemonset_status_viewer(status, want):
    ds = decode(DaemonSet, {"metadata": {"name": "bar", "generation": 1},
                            "spec": {"updateStrategy": {"type": "RollingUpdate"}},
                            "status": {"observedGeneration": 1, **status}})
    assert status_line(ds) == want


def test_set_image_rolls_out_and_undo_rolls_back():
    s = Session.from_text(NODE)
    run(s, "kubectl create deployment web --image=nginx:1.25 --replicas=3")
    s.run_until(30)
    assert run(s, "kubectl rollout status deployment/web").output == \
        'deployment "web" successfully rolled out\n'
    assert run(s, "kubectl set image deployment/web nginx=nginx:1.26").output == \
        "deployment.apps/web image updated\n"
    s.run_until(30.5)
    assert "rollout to finish" in run(s, "kubectl rollout status deploy web").output
    s.run_until(120)
    assert run(s, "kubectl rollout history deployment/web").output == (
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n")
    shown = run(s, "kubectl rollout history deployment/web --revision=2").output
    assert shown.startswith("deployment.apps/web with revision #2\nPod Template:\n")
    assert "Image:         nginx:1.26" in shown
    assert fails_without_change(s, "kubectl rollout history deployment/web --revision=9") == \
        "error: unable to find the specified revision\n"
    assert run(s, "kubectl rollout undo deployment/web").output == \
        "deployment.apps/web rolled back\n"
    s.run_until(240)
    d = s.store.get("Deployment", "web", "default")
    assert d.spec.template.spec.containers[0].image == "nginx:1.25"
    assert "pod-template-hash" not in d.spec.template.metadata.labels
    # The old ReplicaSet came back as revision 3; revision 1 is gone from the history.
    assert run(s, "kubectl rollout history deployment/web").output.splitlines()[2:4] == [
        "2         <none>", "3         <none>"]
    assert run(s, "kubectl rollout undo deployment/web --to-revision=3").output == \
        "deployment.apps/web skipped rollback (current template already matches revision 3)\n"
    images = {p.spec.containers[0].image for p in s.store.list("Pod", "default")
              if p.metadata.deletion_timestamp is None}
    assert images == {"nginx:1.25"}


def test_pause_resume_and_restart():
    s = Session.from_text(NODE)
    run(s, "kubectl create deployment web --image=nginx --replicas=2")
    s.run_until(30)
    assert run(s, "kubectl rollout pause deployment/web").output == "deployment.apps/web paused\n"
    assert fails_without_change(s, "kubectl rollout pause deployment/web") == \
        'error: deployments.apps "web" is already paused\n'
    assert fails_without_change(s, "kubectl rollout restart deployment/web") == \
        "error: can't restart paused deployment (run rollout resume first)\n"
    assert fails_without_change(s, "kubectl rollout undo deployment/web") == (
        "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout "
        "resume' and try again\n")
    assert run(s, "kubectl rollout resume deployment/web").output == \
        "deployment.apps/web resumed\n"
    assert fails_without_change(s, "kubectl rollout resume deployment/web") == \
        'error: deployments.apps "web" is not paused\n'
    assert run(s, "kubectl rollout restart deployment/web").output == \
        "deployment.apps/web restarted\n"
    d = s.store.get("Deployment", "web", "default")
    assert d.spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"] == \
        "2026-01-01T00:00:30Z"
    s.run_until(120)
    pods = [p for p in s.store.list("Pod", "default") if p.metadata.deletion_timestamp is None]
    assert len(pods) == 2 and all(p.metadata.creation_timestamp >= 30 for p in pods)


@pytest.mark.parametrize("line,error", [
    ("kubectl rollout", "error: Required resource not specified.\n"
                        "See 'kubectl rollout -h' for help and examples\n"),
    ("kubectl rollout bogus deploy/web", 'error: unknown command "bogus" for "kubectl rollout"\n'
                                         "See 'kubectl rollout -h' for help and examples\n"),
    ("kubectl rollout undo deployment/web", 'error: no rollout history found for deployment '
                                            '"web"\n'),
    ("kubectl rollout undo deployment/nope", 'Error from server (NotFound): deployments.apps '
                                             '"nope" not found\n'),
    ("kubectl rollout pause daemonset/web", 'Error from server (NotFound): daemonsets.apps '
                                            '"web" not found\n'),
    ("kubectl set image deployment/web", "error: at least one image update is required\n"),
    ("kubectl set image deployment/web foo=bar", 'error: unable to find container named '
                                                 '"foo"\n'),
    ("kubectl set image nginx=bar", "error: one or more resources must be specified as "
                                    "<resource> <name> or <resource>/<name>\n"),
])
def test_bad_rollout_input_is_kubectls_error(session, line, error):
    assert fails_without_change(session, line) == error


def test_set_image_on_a_pod_and_with_a_wildcard(session):
    assert run(session, "kubectl set image pod/web-1 *=nginx:1.28").output == \
        "pod/web-1 image updated\n"
    assert session.store.get("Pod", "web-1", "default").spec.containers[0].image == "nginx:1.28"


def _two_revisions() -> tuple[Session, str]:
    """web at revision 2 (nginx:1.26), its revision-1 ReplicaSet scaled down; and that one's
    name."""
    s = Session.from_text(NODE)
    run(s, "kubectl create deployment web --image=nginx:1.25 --replicas=2")
    s.run_until(30)
    run(s, "kubectl set image deployment/web nginx=nginx:1.26")
    s.run_until(120)
    (old,) = [rs.metadata.name for rs in s.store.list("ReplicaSet", "default")
              if rs.metadata.annotations.get("deployment.kubernetes.io/revision") == "1"]
    return s, old


def test_a_replicaset_that_lost_the_selectors_labels_is_no_longer_history():
    """kubectl lists a Deployment's ReplicaSets by its selector and keeps those it controls
    (kubectl's util/deployment listReplicaSets, used by history.go and rollback.go's
    deploymentRevision): right after its labels are taken away, before the deployment
    controller has released it, the old ReplicaSet is no revision any more."""
    s, old = _two_revisions()
    assert run(s, f"kubectl label rs {old} app-").output == \
        f"replicaset.apps/{old} unlabeled\n"
    assert run(s, "kubectl rollout history deployment/web").output == (
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n\n")
    assert fails_without_change(s, "kubectl rollout undo deployment/web") == \
        'error: no rollout history found for deployment "web"\n'
    assert fails_without_change(s, "kubectl rollout undo deployment/web --to-revision=1") == \
        "error: unable to find specified revision 1 in history\n"


PAUSED_FROM_THE_START = NODE + """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  paused: true
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"""


def test_history_of_a_deployment_with_no_replicaset_says_so():
    """A Deployment created paused has no ReplicaSet yet: history.go's "No rollout history
    found." behind the name line, with or without --revision."""
    s = Session.from_text(PAUSED_FROM_THE_START)
    s.run_until(10)
    assert run(s, "kubectl rollout history deployment/web").output == \
        "deployment.apps/web \nNo rollout history found.\n"
    assert run(s, "kubectl rollout history deployment/web --revision=1").output == \
        "deployment.apps/web with revision #1\nNo rollout history found.\n"
