"""kubectl run NAME --image=IMAGE: one Pod (kubectl/pkg/cmd/run run.go, run_test.go)."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401


def pod(session, name="nginx", ns="default"):
    return session.store.get("Pod", name, ns)


def test_run_creates_a_pod_labelled_run_name(session):
    result = run(session, "kubectl run nginx --image=nginx")
    assert (result.output, result.error) == ("pod/nginx created\n", "")
    p = pod(session)
    assert dict(p.metadata.labels) == {"run": "nginx"}
    (c,) = p.spec.containers
    assert (c.name, c.image) == ("nginx", "nginx")
    assert p.spec.restart_policy == "Always"


def test_flags_shape_the_pod(session):
    run(session, "run job --image=busybox:1.36 --restart=Never --labels=app=job,tier=batch "
                 "--env=A=1 --env=B=x,y --port=8080 -n team-a -- sleep 3600")
    p = pod(session, "job", "team-a")
    assert dict(p.metadata.labels) == {"app": "job", "tier": "batch"}
    assert p.spec.restart_policy == "Never"
    (c,) = p.spec.containers
    assert c.extra["args"] == ("sleep", "3600")
    assert [dict(e) for e in c.extra["env"]] == [{"name": "A", "value": "1"},
                                                {"name": "B", "value": "x,y"}]
    assert c.ports[0].container_port == 8080


def test_command_flag_puts_arguments_in_command(session):
    run(session, "run sh --image=busybox --command -- sh -c 'echo hi'")
    assert pod(session, "sh").spec.containers[0].extra["command"] == ("sh", "-c", "echo hi")


def test_overrides_merge_into_the_pod(session):
    overrides = ('{"spec":{"nodeSelector":{"disk":"ssd"},"containers":[{"name":"nginx",'
                 '"resources":{"requests":{"cpu":"250m"}}}]}}')
    run(session, f"run nginx --image=nginx --overrides='{overrides}'")
    p = pod(session)
    assert dict(p.spec.node_selector) == {"disk": "ssd"}
    assert p.spec.requests["cpu"] == 250
    assert p.spec.containers[0].image == "nginx"


def test_dry_run_creates_nothing(session):
    assert run(session, "run nginx --image=nginx --dry-run=client").output == \
        "pod/nginx created (dry run)\n"
    assert pod(session) is None


@pytest.mark.parametrize("line,error", [
    ("run nginx", 'error: required flag(s) "image" not set\n'),
    ("run --image=nginx", "error: NAME is required for run\n"),
    ("run nginx --image=", "error: --image is required\n"),
    ("run nginx --image=Nginx:Latest!", 'error: invalid image name "Nginx:Latest!": invalid '
                                        "reference format\n"),
    ("run nginx --image=nginx --restart=Sometimes",
     "error: invalid restart policy: Sometimes, valid values are: Always, OnFailure, Never\n"),
    ("run nginx --image=nginx --port=http", "error: --port must be a number\n"),
    ("run nginx --image=nginx --labels=a", "error: unexpected label spec: a\n"),
    ("run nginx --image=nginx --overrides='{nope'",
     "error: --overrides: invalid JSON: Expecting property name enclosed in double quotes "
     "(at character 1)\n"),
    ("run web-1 --image=nginx", 'Error from server (AlreadyExists): pods "web-1" already '
                                "exists\n"),
    ("run x --image=nginx -n nowhere",
     'Error from server (NotFound): namespaces "nowhere" not found\n'),
    ("run x --image=nginx -it", "error: unknown shorthand flag: 'i' in -it\nSee 'kubectl run "
                                "--help' for usage.\n"),
])
def test_errors_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error


def test_a_bad_name_is_the_api_servers_validation_error(session):
    error = fails_without_change(session, "run Web --image=nginx")
    # The pod's name and its container's name (the same word) are both refused.
    # kubectl prints several causes one a line (cmdutil MultilineError), each behind '* '.
    assert error.startswith('The Pod "Web" is invalid: \n* metadata.name: Invalid value: "Web": '
                            "a lowercase RFC 1123 subdomain must consist of")
    assert error.count("\n* ") == 2 and "\n* spec.containers[0].name: " in error, error


def test_a_client_dry_run_prints_only_what_kubectl_generates(session):
    # run.go createGeneratedObject with DryRunClient sends nothing: no namespace, no admission
    # (tolerations, schedulerName, priority, qosClass), no uid/resourceVersion/timestamps.
    assert run(session, "run nginx --image=nginx --dry-run=client -o yaml").output == (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  labels:\n"
        "    run: nginx\n"
        "  name: nginx\n"
        "spec:\n"
        "  containers:\n"
        "  - image: nginx\n"
        "    name: nginx\n"
        "    resources: {}\n"
        "  dnsPolicy: ClusterFirst\n"
        "  restartPolicy: Always\n"
        "status: {}\n")
    assert pod(session) is None


def test_a_server_dry_run_shows_the_admitted_pod(session):
    out = run(session, "run nginx --image=nginx --dry-run=server -o yaml").output
    assert "node.kubernetes.io/not-ready" in out and "schedulerName: default-scheduler" in out
    assert "namespace: default" in out and "uid:" in out
    assert pod(session) is None


LAST = "kubectl.kubernetes.io/last-applied-configuration"


def test_save_config_keeps_the_generated_pod_as_kubectl_encodes_it(session):
    """run.go CreateOrUpdateAnnotation: the typed v1.Pod's JSON (Go field order, resources
    {}, status {}, no namespace: it goes with the request, an env's empty value omitted) in
    the last-applied annotation; a later apply then finds it (no missing-annotation
    warning). Not on a client dry run (run.go annotates only what it sends)."""
    run(session, "run x --image=nginx --save-config --env=A=b --env=E= --port=80 -l a=b")
    pod = session.store.get("Pod", "x", "default")
    assert pod.metadata.annotations[LAST] == (
        '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x","labels":{"a":"b"}},'
        '"spec":{"containers":[{"name":"x","image":"nginx","ports":[{"containerPort":80}],'
        '"env":[{"name":"A","value":"b"},{"name":"E"}],"resources":{}}],'
        '"restartPolicy":"Always","dnsPolicy":"ClusterFirst"},"status":{}}\n')
    run(session, "run y --image=nginx")
    assert LAST not in session.store.get("Pod", "y", "default").metadata.annotations
    out = run(session, "run z --image=nginx --save-config --dry-run=client -o yaml").output
    assert "annotations" not in out
