"""kubectl apply -f / create -f: all or nothing, kubectl's result lines (§2.4)."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 0
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: api:1}]}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: solo}
spec: {containers: [{name: c, image: busybox}]}
"""


def test_apply_creates_then_is_unchanged_then_configured(session):
    text = DEPLOY + "---\n" + POD
    assert run(session, "kubectl apply -f -", text).output == \
        "deployment.apps/api created\npod/solo created\n"
    assert run(session, "kubectl apply -f -", text).output == \
        "deployment.apps/api unchanged\npod/solo unchanged\n"
    changed = DEPLOY.replace("api:1", "api:2")
    assert run(session, "apply -f -", changed).output == "deployment.apps/api configured\n"
    d = session.store.get("Deployment", "api", "default")
    assert d.spec.template.spec.containers[0].image == "api:2"


def test_output_follows_input_order_even_when_creation_order_differs(session):
    ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b}\n"
    pod = POD.replace("{name: solo}", "{name: solo, namespace: team-b}")
    assert run(session, "apply -f -", pod + "---\n" + ns).output == \
        "pod/solo created\nnamespace/team-b created\n"


def test_apply_from_a_file_and_a_directory(session, tmp_path):
    (tmp_path / "a.yaml").write_text(POD)
    (tmp_path / "b.yml").write_text(DEPLOY)
    (tmp_path / "notes.txt").write_text("not a manifest")
    assert run(session, f"apply -f {tmp_path / 'a.yaml'}").output == "pod/solo created\n"
    assert run(session, f"apply -f {tmp_path}").output == \
        "pod/solo unchanged\ndeployment.apps/api created\n"


def test_namespace_flag_fills_in_the_namespace(session):
    assert run(session, "apply -n team-a -f -", POD).output == "pod/solo created\n"
    assert session.store.get("Pod", "solo", "team-a") is not None


def test_create_refuses_what_exists(session):
    assert run(session, "create -f -", POD).output == "pod/solo created\n"
    assert fails_without_change(session, "create -f -", POD + "---\n" + DEPLOY) == \
        'Error from server (AlreadyExists): pods "solo" already exists\n'
    assert session.store.get("Deployment", "api", "default") is None


@pytest.mark.parametrize("flag,suffix", [("--dry-run=client", " (dry run)"),
                                         ("--dry-run=server", " (server dry run)")])
def test_dry_run_creates_nothing(session, flag, suffix):
    before = session.store.resource_version
    assert run(session, f"apply -f - {flag}", POD).output == f"pod/solo created{suffix}\n"
    assert session.store.resource_version == before
    assert session.store.get("Pod", "solo", "default") is None


def test_one_bad_document_applies_nothing(session):
    bad = POD.replace("solo", "Bad_Name")
    error = fails_without_change(session, "apply -f -", DEPLOY + "---\n" + bad)
    assert error.startswith('The Pod "Bad_Name" is invalid: metadata.name: Invalid value: '
                            '"Bad_Name"')
    assert session.store.get("Deployment", "api", "default") is None


@pytest.mark.parametrize("line,stdin,error", [
    ("apply", None, "error: must specify one of -f and -k\n"),
    ("apply -f /no/such.yaml", None, 'error: the path "/no/such.yaml" does not exist\n'),
    ("apply -f -", "", "error: no objects passed to apply\n"),
    ("create -f -", "", "error: no objects passed to create\n"),
    ("apply -f - extra", POD, "error: Unexpected args: [extra]\nSee 'kubectl apply -h' for "
                              "help and examples\n"),
    ("create configmap web --from-literal=a=b", None,
     'error: "kubectl create configmap" is not supported by ksandbox; write a manifest and '
     'use "kubectl create -f" or "kubectl apply -f"\n'),
    ("apply -f -", "kind: Pod\nmetadata: {name: x}\n",
     "error: STDIN (document 1): error validating data: [apiVersion not set]\n"),
    ("apply -n team-a -f -", POD.replace("{name: solo}", "{name: solo, namespace: other}"),
     'error: the namespace from the provided object "other" does not match the namespace '
     "\"team-a\". You must pass '--namespace=other' to perform this operation.\n"),
    ("apply -f -", "apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\n",
     'error: resource mapping not found for name: "" namespace: "" from "STDIN": no matches '
     'for kind "KubeSchedulerConfiguration" in version "kubescheduler.config.k8s.io/v1"\n'
     "ensure CRDs are installed first\n"),
    ("apply -f -", POD.replace("{name: solo}", "{name: solo, namespace: nowhere}"),
     'Error from server (NotFound): namespaces "nowhere" not found\n'),
])
def test_errors_change_nothing(session, line, stdin, error):
    assert fails_without_change(session, line, stdin) == error


SEED_DAEMONSET = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: fluentd-elasticsearch, namespace: kube-system}
spec:
  slector: {matchLabels: {name: fluentd-elasticsearch}}
  template:
    metadata: {labels: {name: fluentd-elasticsearch}}
    spec: {containers: [{name: fluentd, image: fluentd:v2.5.1}]}
"""


@pytest.mark.parametrize("verb", ["apply", "create"])
def test_a_misspelt_field_is_the_api_servers_bad_request_when_creating(session, verb, tmp_path):
    """Seed note 004's DaemonSet has `slector`. kubectl asks for strict field validation and
    the API server refuses the create (400): kubectl prints it as `Error from server
    (BadRequest): error when creating "FILE": ...` (create.go / apply.go add the source to
    the error)."""
    f = tmp_path / "ds.yaml"
    f.write_text(SEED_DAEMONSET)
    assert fails_without_change(session, f"{verb} -f {f}") == (
        f'Error from server (BadRequest): error when creating "{f}": DaemonSet in version "v1" '
        'cannot be handled as a DaemonSet: strict decoding error: unknown field '
        '"spec.slector"\n')
    assert fails_without_change(session, f"{verb} -f -", POD.replace("image: busybox}",
                                                                      "image: busybox, x: 1}")) \
        == ('Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" '
            'cannot be handled as a Pod: strict decoding error: unknown field '
            '"spec.containers[0].x"\n')


def test_a_client_dry_run_prints_the_objects_as_given(session):
    out = run(session, "apply -f - --dry-run=client -o yaml", POD).output
    assert out == ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: solo\n  namespace: default\n"
                   "spec:\n  containers:\n  - image: busybox\n    name: c\n"
                   "    resources: {}\nstatus: {}\n")
    assert session.store.get("Pod", "solo", "default") is None


def test_a_client_dry_run_of_an_existing_object_is_configured_and_shows_the_live_one(session):
    run(session, "apply -f -", POD)
    before = session.store.resource_version
    out = run(session, "apply -f - --dry-run=client", POD).output
    assert out == "pod/solo configured (dry run)\n"
    live = run(session, "apply -f - --dry-run=client -o yaml", POD).output
    assert "uid:" in live and "resourceVersion:" in live
    assert session.store.resource_version == before


def test_create_client_dry_run_sends_nothing_so_an_existing_name_is_no_error(session):
    run(session, "create -f -", POD)
    assert run(session, "create -f - --dry-run=client", POD).output == \
        "pod/solo created (dry run)\n"
    out = run(session, "create -f - --dry-run=client -o yaml", POD).output
    assert "uid:" not in out and "tolerations" not in out


def test_a_server_dry_run_still_admits_and_validates(session):
    out = run(session, "apply -f - --dry-run=server -o yaml", POD).output
    assert "tolerations:" in out and "uid:" in out
    bad = POD.replace("solo", "Bad_Name")
    assert fails_without_change(session, "apply -f - --dry-run=server", bad).startswith(
        'The Pod "Bad_Name" is invalid')


def test_a_pod_runs_as_the_default_service_account_and_reapplies_unchanged(session):
    run(session, "apply -f -", POD)
    out = run(session, "get pod solo -o yaml").output
    assert "  serviceAccount: default\n  serviceAccountName: default\n" in out
    assert run(session, "apply -f -", POD).output == "pod/solo unchanged\n"
    # Templates are not pods: the ServiceAccount admission leaves them alone.
    run(session, "apply -f -", DEPLOY)
    assert "serviceAccount" not in run(session, "get deploy api -o yaml").output


def test_a_named_service_account_is_kept(session):
    own = POD.replace("spec: {", "spec: {serviceAccountName: builder, ")
    run(session, "apply -f -", own)
    spec = session.store.get("Pod", "solo", "default").spec
    assert (spec.extra["serviceAccountName"], spec.extra["serviceAccount"]) == ("builder",
                                                                                 "builder")
