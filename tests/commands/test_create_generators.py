"""kubectl create deployment|job|namespace, traced to kubectl's ``pkg/cmd/create``
(create_deployment_test.go TestCreateDeployment / TestCreateDeploymentWithPort / the
buildPodSpec container names; create_job_test.go TestCreateJobValidation and
TestCreateJobFromCronJob; create_namespace_test.go)."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401
from ksandbox.commands.create import container_name
from ksandbox.sim.rand import SimRandom


def test_create_deployment_labels_selects_and_names_containers_after_images(session):
    r = run(session, "kubectl create deployment frontend --image=nginx:1.25 --replicas=3 --port=80")
    assert (r.output, r.error) == ("deployment.apps/frontend created\n", "")
    d = session.store.get("Deployment", "frontend", "default")
    assert dict(d.metadata.labels) == {"app": "frontend"} and d.spec.replicas == 3
    assert dict(d.spec.selector.match_labels) == {"app": "frontend"}
    (c,) = d.spec.template.spec.containers
    assert (c.name, c.image, c.ports[0].container_port) == ("nginx", "nginx:1.25", 80)
    r = run(session, "kubectl create deploy two -n kube-system --image=busybox "
                     "--image=registry.k8s.io/pause:3.9")
    names = [c.name for c in session.store.get("Deployment", "two", "kube-system")
             .spec.template.spec.containers]
    assert names == ["busybox", "pause"]


def test_container_names_are_sanitized_with_a_suffix():
    """buildPodSpec: last path part, no tag or digest; '_' and '.' become '-' plus 5 random
    letters."""
    rand = SimRandom(1)
    assert container_name("ghcr.io/acme/web:1.2", rand) == "web"
    assert container_name("nginx@sha256:" + "a" * 64, rand) == "nginx"
    name = container_name("my_app.v2:1", rand)
    assert name.startswith("my-app-v2-") and len(name) == len("my-app-v2-") + 5


def test_create_job_from_an_image_and_from_a_cronjob(session):
    r = run(session, "kubectl create job pi --image=perl:5.34 -- perl -Mbignum=bpi -wle 'print 1'")
    assert r.output == "job.batch/pi created\n"
    job = session.store.get("Job", "pi", "default")
    (c,) = job.spec.template.spec.containers
    assert (c.name, c.image, job.spec.template.spec.restart_policy) == ("pi", "perl:5.34",
                                                                         "Never")
    assert c.extra["command"] == ("perl", "-Mbignum=bpi", "-wle", "print 1")
    run(session, "kubectl apply -f -", """
apiVersion: batch/v1
kind: CronJob
metadata: {name: hello}
spec:
  schedule: "0 * * * *"
  jobTemplate:
    metadata: {labels: {team: a}, annotations: {note: x}}
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: hello, image: busybox}]
""")
    assert run(session, "kubectl create job manual --from=cronjob/hello").output == \
        "job.batch/manual created\n"
    job = session.store.get("Job", "manual", "default")
    assert job.metadata.annotations["cronjob.kubernetes.io/instantiate"] == "manual"
    assert job.metadata.annotations["note"] == "x" and job.metadata.labels["team"] == "a"
    ref = job.metadata.controller_ref()
    assert (ref.kind, ref.name) == ("CronJob", "hello")


def test_create_namespace(session):
    assert run(session, "kubectl create namespace shop").output == "namespace/shop created\n"
    assert session.store.get("Namespace", "shop") is not None


@pytest.mark.parametrize("line,error", [
    ("kubectl create deployment", "error: NAME is required\n"
                                  "See 'kubectl create deployment -h' for help and examples\n"),
    ("kubectl create deployment web", 'error: required flag(s) "image" not set\n'),
    ("kubectl create deployment web --image=a --image=b -- sleep 1",
     "error: cannot specify multiple --image options and command\n"),
    ("kubectl create deployment web --image=UPPER", 'error: invalid image name "UPPER": '
                                                    'invalid reference format\n'),
    ("kubectl create deployment web --image=nginx --replicas=x",
     'error: invalid argument "x" for "--replicas" flag: strconv.ParseInt: parsing "x": '
     'invalid syntax\n'),
    ("kubectl create job x", "error: either --image or --from must be specified\n"),
    ("kubectl create job x --image=a --from=cronjob/c",
     "error: either --image or --from must be specified\n"),
    ("kubectl create job x --from=cronjob/c -- echo", "error: cannot specify --from and command\n"),
    ("kubectl create job x --from=cronjob/nope",
     'Error from server (NotFound): cronjobs.batch "nope" not found\n'),
    ("kubectl create job x --from=deployment/web", "error: from must be an existing cronjob\n"),
])
def test_bad_generator_input_is_kubectls_error_and_changes_nothing(session, line, error):
    assert fails_without_change(session, line) == error


def test_an_existing_name_is_the_servers_answer_wrapped_as_kubectl_does(session):
    assert fails_without_change(session, "kubectl create deployment web --image=nginx") == \
        'error: failed to create deployment: deployments.apps "web" already exists\n'
    assert fails_without_change(session, "kubectl create namespace default") == \
        'Error from server (AlreadyExists): namespaces "default" already exists\n'


LAST = "kubectl.kubernetes.io/last-applied-configuration"


def test_save_config_keeps_the_generated_object_as_kubectl_encodes_it(session):
    """create_deployment.go (create_job, create_namespace): CreateOrUpdateAnnotation on the
    typed object before the dry run is looked at — the annotation is on a client dry run's
    print too; the namespace in it only when -n sets it (EnforceNamespace)."""
    run(session, "create deployment d1 --image=nginx --save-config")
    assert session.store.get("Deployment", "d1", "default").metadata.annotations[LAST] == (
        '{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d1","labels":'
        '{"app":"d1"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d1"}},'
        '"template":{"metadata":{"labels":{"app":"d1"}},"spec":{"containers":[{"name":'
        '"nginx","image":"nginx","resources":{}}]}},"strategy":{}},"status":{}}\n')
    run(session, "create job j1 --image=busybox --save-config -n team-a")
    assert session.store.get("Job", "j1", "team-a").metadata.annotations[LAST] == (
        '{"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"j1","namespace":"team-a"},'
        '"spec":{"template":{"metadata":{},"spec":{"containers":[{"name":"j1","image":'
        '"busybox","resources":{}}],"restartPolicy":"Never"}}},"status":{}}\n')
    run(session, "create namespace n1 --save-config")
    assert session.store.get("Namespace", "n1").metadata.annotations[LAST] == (
        '{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"n1"},"spec":{},'
        '"status":{}}\n')
    out = run(session, "create deployment d2 --image=nginx --save-config --dry-run=client "
                       "-o yaml").output
    assert LAST in out
    run(session, "create deployment d3 --image=nginx")
    assert LAST not in session.store.get("Deployment", "d3", "default").metadata.annotations
