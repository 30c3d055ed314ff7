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
    assert fails_without_change(session, "create -f -", POD + "---\n" + DEPLOY) == (
        'Error from server (AlreadyExists): error when creating "STDIN": pods "solo" already '
        'exists\n')
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
     'Error from server (NotFound): error when creating "STDIN": namespaces "nowhere" not '
     'found\n'),
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


@pytest.mark.parametrize("verb", ["apply", "create"])
@pytest.mark.parametrize("container, go", [
    ("image: 5}",
     "cannot unmarshal number into Go struct field Container.spec.containers.image of type "
     "string"),
    ("image: true}",
     "cannot unmarshal bool into Go struct field Container.spec.containers.image of type string"),
    ('image: busybox, ports: [{containerPort: "80"}]}',
     "cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports."
     "containerPort of type int32"),
])
def test_a_wrong_typed_field_is_the_api_servers_json_decoding_error(session, verb, container,
                                                                    go):
    """A scalar of the wrong JSON type is refused by the API server's decoder (a 400, before
    validation), in encoding/json's words: the struct and the field's path without indexes."""
    assert fails_without_change(session, f"{verb} -f -",
                                POD.replace("image: busybox}", container)) == (
        'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" '
        f"cannot be handled as a Pod: json: {go}\n")
    # a quoted "5" is a string: a fine image name
    assert "created" in run(session, f"{verb} -f -", POD.replace("image: busybox}",
                                                                 'image: "5"}')).output


@pytest.mark.parametrize("container, converter", [
    ("image: 5}", "cannot convert int64 to string"),
    ('image: busybox, ports: "80"}', "cannot restore slice from string"),
    ('image: busybox, resources: [1]}', "cannot restore struct from: slice"),
])
def test_applying_a_wrong_typed_field_to_an_existing_object_is_the_patchs_refusal(
        session, container, converter):
    """apply sends an existing object the three-way patch of the manifest as read (kubectl
    never decodes it into the type); the server cannot convert the patched map, an Invalid
    that names no object, which kubectl prints from its causes alone (the "error when
    applying patch" wrapping is in the message it replaces): the patch map as Go's %+v
    prints it, then the unstructured converter's words. Nothing changes."""
    run(session, "apply -f -", POD)
    error = fails_without_change(session, "apply -f -",
                                 POD.replace("image: busybox}", container))
    assert error.startswith('The request is invalid: patch: Invalid value: "map[metadata:map['
                            "annotations:map[kubectl.kubernetes.io/last-applied-configuration:")
    assert error.endswith(f'": {converter}\n'), error
    # create of the same name still says the create's refusal
    assert fails_without_change(session, "create -f -",
                                POD.replace("image: busybox}", container)).startswith(
        'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1"')


def test_a_client_dry_run_prints_the_objects_as_given(session):
    """... with apply's last-applied annotation, set before the dry run is looked at."""
    out = run(session, "apply -f - --dry-run=client -o yaml", POD).output
    assert out == ("apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n"
                   "    kubectl.kubernetes.io/last-applied-configuration: |\n"
                   '      {"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},'
                   '"name":"solo","namespace":"default"},"spec":{"containers":[{"image":'
                   '"busybox","name":"c"}]}}\n'
                   "  name: solo\n  namespace: default\n"
                   "spec:\n  containers:\n  - image: busybox\n    name: c\n"
                   "    resources: {}\nstatus: {}\n")
    assert "annotations" not in run(session, "create -f - --dry-run=client -o yaml", POD).output
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


# -- client-side apply: the last-applied annotation and the three-way merge ----------------

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels: {app: web, tier: front}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {disk: ssd}
      tolerations:
      - {key: a, operator: Exists, effect: NoSchedule}
      - {key: b, operator: Exists, effect: NoSchedule}
      containers:
      - name: web
        image: nginx:1.27
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
"""
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def test_apply_keeps_the_manifest_in_the_last_applied_annotation(session):
    """GetModifiedConfiguration: the document as read, the namespace kubectl filled in,
    ``annotations: {}``, compact JSON with sorted keys and json.Encoder's newline."""
    run(session, "kubectl apply -f -", POD)
    pod = session.store.get("Pod", "solo", "default")
    assert pod.metadata.annotations[LAST_APPLIED] == (
        '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"solo",'
        '"namespace":"default"},"spec":{"containers":[{"image":"busybox","name":"c"}]}}\n')
    out = run(session, "kubectl get pod solo -o yaml").output
    assert f"    {LAST_APPLIED}: |\n      " in out
    # describe leaves it out, as kubectl describe does
    assert LAST_APPLIED not in run(session, "kubectl describe pod solo").output


def test_apply_is_a_three_way_merge(session):
    """A teacher's flow: apply, kubectl label and scale, edit the file (drop a toleration,
    change the nodeSelector, drop a label and an env entry), apply again: what the file
    dropped since the last apply is gone, what others set is kept."""
    run(session, "kubectl apply -f -", WEB)
    run(session, "kubectl label deploy shop extra=yes")
    run(session, "kubectl scale deploy shop --replicas=5")
    edited = (WEB.replace("labels: {app: web, tier: front}", "labels: {app: web}")
              .replace("{disk: ssd}", "{disk: hdd}")
              .replace("      - {key: b, operator: Exists, effect: NoSchedule}\n", "")
              .replace(', {name: B, value: "2"}', ""))
    assert run(session, "kubectl apply -f -", edited).output == "deployment.apps/shop configured\n"
    d = session.store.get("Deployment", "shop", "default")
    assert dict(d.metadata.labels) == {"app": "web", "extra": "yes"}
    assert d.spec.replicas == 5
    spec = d.spec.template.spec
    assert dict(spec.node_selector) == {"disk": "hdd"}
    assert [t.key for t in spec.tolerations] == ["a"]
    assert [e["name"] for e in spec.containers[0].extra["env"]] == ["A"]
    assert spec.containers[0].image_pull_policy == "IfNotPresent"   # defaulted: kept
    assert run(session, "kubectl apply -f -", edited).output == "deployment.apps/shop unchanged\n"
    # replicas in the manifest: apply sets them back over a scale
    pinned = edited.replace("spec:\n  selector", "spec:\n  replicas: 2\n  selector")
    run(session, "kubectl apply -f -", pinned)
    run(session, "kubectl scale deploy shop --replicas=7")
    assert run(session, "kubectl apply -f -", pinned).output == "deployment.apps/shop configured\n"
    assert session.store.get("Deployment", "shop", "default").spec.replicas == 2


def test_apply_over_an_object_without_the_annotation_warns_and_deletes_nothing(session):
    """apply.go's warning (on stderr upstream, before the result line); with no last applied
    manifest the patch removes nothing; the annotation is patched in, so the next apply can."""
    assert run(session, "kubectl create -f -", WEB).output == "deployment.apps/shop created\n"
    assert LAST_APPLIED not in session.store.get("Deployment", "shop", "default").metadata.annotations
    dropped = WEB.replace("labels: {app: web, tier: front}", "labels: {app: web}")
    assert run(session, "kubectl apply -f -", dropped).output == (
        f"Warning: resource deployments/shop is missing the {LAST_APPLIED} annotation which is "
        "required by kubectl apply. kubectl apply should only be used on resources created "
        "declaratively by either kubectl create --save-config or kubectl apply. The missing "
        "annotation will be patched automatically.\ndeployment.apps/shop configured\n")
    d = session.store.get("Deployment", "shop", "default")
    assert d.metadata.labels["tier"] == "front" and LAST_APPLIED in d.metadata.annotations
    assert run(session, "kubectl apply -f -", WEB).output == "deployment.apps/shop configured\n"
    run(session, "kubectl apply -f -", dropped)
    assert "tier" not in session.store.get("Deployment", "shop", "default").metadata.labels
    # -o yaml/json/name print the object only (the warning is stderr's upstream)
    assert run(session, "kubectl create -f -", POD).ok
    assert run(session, "kubectl apply -f - -o name", POD).output == "pod/solo\n"


def test_create_save_config_writes_the_annotation(session):
    assert run(session, "kubectl create --save-config -f -", POD).output == "pod/solo created\n"
    assert LAST_APPLIED in session.store.get("Pod", "solo", "default").metadata.annotations
    assert run(session, "kubectl apply -f -", POD).output == "pod/solo unchanged\n"
    assert "unknown flag: --save-config" in run(session, "kubectl apply --save-config -f -",
                                                 POD).error


def test_a_changed_selector_is_immutable(session):
    """The apps/v1 strategies' ValidateUpdate, in kubectl's words."""
    run(session, "kubectl apply -f -", WEB)
    moved = WEB.replace("matchLabels: {app: web}", "matchLabels: {app: web2}").replace(
        "metadata: {labels: {app: web}}", "metadata: {labels: {app: web2}}")
    assert fails_without_change(session, "kubectl apply -f -", moved) == (
        'The Deployment "shop" is invalid: spec.selector: Invalid value: v1.LabelSelector{'
        'MatchLabels:map[string]string{"app":"web2"}, MatchExpressions:[]v1.'
        'LabelSelectorRequirement(nil)}: field is immutable\n')


def test_a_strategy_switch_to_recreate_clears_rolling_update(session):
    """DeploymentSpec.strategy is patchStrategy retainKeys: the rollingUpdate defaults do not
    survive into a Recreate strategy (which would be refused)."""
    run(session, "kubectl apply -f -", WEB)
    recreate = WEB.replace("spec:\n  selector", "spec:\n  strategy: {type: Recreate}\n  selector")
    assert run(session, "kubectl apply -f -", recreate).output == "deployment.apps/shop configured\n"
    strategy = session.store.get("Deployment", "shop", "default").spec.strategy
    assert strategy.type == "Recreate" and strategy.rolling_update is None


def test_view_last_applied_prints_the_annotation(session):
    """apply_view_last_applied.go: YAML by default, the annotation's JSON indented by two
    spaces with -o json; kubectl's errors for an object without it and a bad -o."""
    run(session, "kubectl apply -f -", POD)
    assert run(session, "kubectl apply view-last-applied pod/solo").output == (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations: {}\n  name: solo\n"
        "  namespace: default\nspec:\n  containers:\n  - image: busybox\n    name: c\n")
    assert run(session, "kubectl apply view-last-applied pods solo -o json").output == (
        '{\n  "apiVersion": "v1",\n  "kind": "Pod",\n  "metadata": {\n    "annotations": {},\n'
        '    "name": "solo",\n    "namespace": "default"\n  },\n  "spec": {\n'
        '    "containers": [\n      {\n        "image": "busybox",\n        "name": "c"\n'
        '      }\n    ]\n  }\n}\n')
    run(session, "kubectl run plain --image=busybox")
    assert fails_without_change(session, "kubectl apply view-last-applied pod/plain") == \
        "error: no last-applied-configuration annotation found on resource: plain\n"
    assert fails_without_change(session, "kubectl apply view-last-applied pod/solo -o wide") == (
        "error: Unexpected -o output mode: wide, the flag 'output' must be one of yaml|json\n"
        "See 'view-last-applied -h' for help and examples\n")


def test_applying_a_stale_export_conflicts(session):
    """kubectl get -o yaml > file, edit, apply: the file carries the resourceVersion it was
    read at, and apply's patch carries it when the object has moved on since: the API
    server's precondition fails, and kubectl reports the patch it sent (apply.go's
    AddSourceToErr of "applying patch"). Read again, the file applies."""
    run(session, "kubectl apply -f -", DEPLOY)
    export = run(session, "kubectl get deploy api -o yaml").output
    run(session, "kubectl label deploy api team=a")
    live = session.store.get("Deployment", "api", "default").metadata.resource_version
    edited = export.replace("image: api:1", "image: api:2")
    error = fails_without_change(session, "kubectl apply -f -", edited)
    head, _, tail = error.partition("\nto:\n")
    assert head.startswith('Error from server (Conflict): error when applying patch:\n{"metadata":{')
    assert f'"resourceVersion":"{int(live) - 1}"' in head and '"image":"api:2"' in head
    assert tail == (
        'Resource: "apps/v1, Resource=deployments", GroupVersionKind: "apps/v1, Kind=Deployment"\n'
        'Name: "api", Namespace: "default"\n'
        'for: "STDIN": Operation cannot be fulfilled on deployments.apps "api": the object has '
        'been modified; please apply your changes to the latest version and try again\n')
    fresh = run(session, "kubectl get deploy api -o yaml").output
    assert run(session, "kubectl apply -f -", fresh.replace("image: api:1", "image: api:2")
               ).output == "deployment.apps/api configured\n"
    d = session.store.get("Deployment", "api", "default")
    assert d.spec.template.spec.containers[0].image == "api:2" and d.metadata.labels["team"] == "a"


def test_applying_a_node_manifest_resizes_the_node(session):
    """The sandbox's own rule (its nodes are simulated): a Node manifest applied again with
    another capacity gives the node that size (allocatable: the manifest's, or its
    capacity); its conditions stay. kubectl apply and a session's apply_objects share it."""
    node = ("apiVersion: v1\nkind: Node\nmetadata: {name: node-9}\n"
            "status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}\n")
    run(session, "kubectl apply -f -", node)
    session.run_for(15)
    before = session.store.get("Node", "node-9").status.conditions
    assert run(session, "kubectl apply -f -", node.replace("'4'", "'8'")).output == \
        "node/node-9 configured\n"
    status = session.store.get("Node", "node-9").status
    assert str(status.capacity["cpu"]) == str(status.allocatable["cpu"]) == "8"
    assert status.conditions == before


MISSING = (f"Warning: resource {{}} is missing the {LAST_APPLIED} annotation which is required "
           "by kubectl apply. kubectl apply should only be used on resources created "
           "declaratively by either kubectl create --save-config or kubectl apply. The missing "
           "annotation will be patched automatically.\n")


def test_the_missing_annotation_warning_comes_before_a_failure(session):
    """apply.go prints the warning to stderr before it computes and sends the patch, so an
    apply the server then refuses still says it, before the refusal: for every object of
    the file visited (ContinueOnError), whichever one fails."""
    run(session, "kubectl create -f -", WEB)
    run(session, "kubectl create -f -", POD)
    bad = WEB.replace("spec:\n  selector", "spec:\n  replicas: -1\n  selector")
    assert fails_without_change(session, "kubectl apply -f -", POD + "---\n" + bad) == (
        MISSING.format("pods/solo") + MISSING.format("deployments/shop")
        + 'The Deployment "shop" is invalid: spec.replicas: Invalid value: -1: must be '
        "greater than or equal to 0\n")
    # -o name prints the objects alone on success; the warnings are stderr's, so a failure
    # still shows them
    assert fails_without_change(session, "kubectl apply -o name -f -", bad).startswith(
        MISSING.format("deployments/shop") + 'The Deployment "shop" is invalid')
    # an object that has the annotation is not warned about
    run(session, "kubectl apply -f -", WEB)
    assert fails_without_change(session, "kubectl apply -f -", bad).startswith(
        'The Deployment "shop" is invalid')


def test_a_refused_write_names_the_file_as_kubectl_does(session):
    """cmdutil.AddSourceToErr: a create the server refuses is "error when creating FILE",
    a patch it refuses "error when applying patch" with the patch and the object."""
    other = POD.replace("{name: solo}", "{name: solo, namespace: nope}")
    for verb in ("create", "apply"):
        assert fails_without_change(session, f"kubectl {verb} -f -", other) == (
            'Error from server (NotFound): error when creating "STDIN": namespaces "nope" not '
            "found\n")


def test_a_patch_kubectl_cannot_compute_is_its_error(session):
    """A last-applied annotation that is not a JSON object: strategicpatch's ErrBadJSONDoc
    inside patcher.go's "creating patch with" (the three documents) inside apply.go's
    "applying patch" (no patch was made): a client-side error, after the warning-free
    start (the object has the annotation)."""
    run(session, "kubectl apply -f -", POD)
    run(session, "kubectl patch pod solo --type=merge -p "
        f"'{{\"metadata\":{{\"annotations\":{{\"{LAST_APPLIED}\":\"[1]\"}}}}}}'")
    error = fails_without_change(session, "kubectl apply -f -",
                                 POD.replace("busybox", "busybox:2"))
    head, _, rest = error.partition("original:\n[1]\nmodified:\n")
    assert head == (
        'error: error when applying patch:\n\nto:\nResource: "/v1, Resource=pods", '
        'GroupVersionKind: "/v1, Kind=Pod"\nName: "solo", Namespace: "default"\n'
        'for: "STDIN": error when creating patch with:\n')
    modified, _, rest = rest.partition("\n\ncurrent:\n")
    assert modified.startswith('{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{')
    assert '"image":"busybox:2"' in modified
    current, _, tail = rest.partition("\n\nfor: ")
    assert '"uid":' in current and '"image":"busybox"' in current
    assert '"creationTimestamp":"2026-01-01T00:00:00Z"' in current   # as kubectl GETs it
    assert tail == '"STDIN": invalid JSON document\n'
