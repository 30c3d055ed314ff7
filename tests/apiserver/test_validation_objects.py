"""The API server's refusals for the kinds a real cluster's export holds, in upstream's words.

Cases traced to ``pkg/apis/core/validation/validation_test.go`` (TestValidateService,
TestValidateConfigMap, TestValidateSecret, TestValidatePersistentVolumes,
TestValidatePersistentVolumeClaim), ``pkg/apis/rbac/validation/validation_test.go``,
``pkg/apis/networking/validation/validation_test.go`` (TestValidateIngress),
``pkg/apis/discovery/validation/validation_test.go``, ``pkg/apis/storage/validation``,
``pkg/apis/apps/validation`` (TestValidateStatefulSet) and ``pkg/apis/batch/validation``
(TestValidateJob, TestValidateCronJob): one row per common mistake, with the message a user
sees.
"""

from __future__ import annotations

import pytest

from ksandbox.api.kinds import stored_only_warning
from ksandbox.api.manifest import load_manifests
from ksandbox.session import Session

CASES = [
    ("service without ports", """
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}}
""", 'The Service "web" is invalid: spec.ports: Required value'),
    ("service name must be a DNS-1035 label", """
apiVersion: v1
kind: Service
metadata: {name: 1web}
spec: {ports: [{port: 80}]}
""", 'metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case'),
    ("service with a bad type", """
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {type: Public, ports: [{port: 80}]}
""", 'spec.type: Unsupported value: "Public": supported values: "ClusterIP", "ExternalName", '
     '"LoadBalancer", "NodePort"'),
    ("several service ports need names", """
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}, {port: 443}]}
""", "spec.ports[1].name: Required value"),
    ("a ClusterIP service with a nodePort", """
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80, nodePort: 30080}]}
""", "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"),
    ("configmap key with a slash", """
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {"a/b": "x"}
""", 'data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric '
     "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex "
     "used for validation is '[-._a-zA-Z0-9]+')"),
    ("tls secret without its key", """
apiVersion: v1
kind: Secret
metadata: {name: tls}
type: kubernetes.io/tls
data: {tls.crt: Y2VydA==}
""", "data[tls.key]: Required value"),
    ("rbac rule without verbs", """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r}
rules: [{apiGroups: [""], resources: [pods]}]
""", "rules[0].verbs: Required value: verbs must contain at least one value"),
    ("namespaced rule on a non-resource URL", """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r}
rules: [{nonResourceURLs: [/healthz], verbs: [get]}]
""", 'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to '
     "non-resource URLs"),
    ("role name with a slash", """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: a/b}
rules: []
""", "metadata.name: Invalid value: \"a/b\": may not contain '/'"),
    ("cluster role binding to a Role", """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects: [{kind: ServiceAccount, name: sa}]
""", 'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'),
    ("service account subject of a cluster binding needs a namespace", """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}
subjects: [{kind: ServiceAccount, name: sa}]
""", "subjects[0].namespace: Required value"),
    ("ingress path without pathType", """
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i}
spec:
  rules:
  - http:
      paths: [{path: /, backend: {service: {name: web, port: {number: 80}}}}]
""", "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"),
    ("ingress backend port name and number", """
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i}
spec:
  defaultBackend: {service: {name: web, port: {name: http, number: 80}}}
""", "spec.defaultBackend.service.port: Invalid value"),
    ("endpointslice without addressType", """
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: e}
endpoints: [{addresses: [10.0.0.1]}]
""", "addressType: Required value"),
    ("endpointslice with a bad IPv4 address", """
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: e}
addressType: IPv4
endpoints: [{addresses: [10.0.0.300]}]
""", 'endpoints[0].addresses[0]: Invalid value: "10.0.0.300": must be a valid IPv4 address'),
    ("pv without a volume source", """
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}
""", "spec: Required value: must specify a volume type"),
    ("local pv without node affinity", """
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], local: {path: /mnt}}
""", "spec.nodeAffinity: Required value: Local volume requires node affinity"),
    ("pvc without access modes", """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {resources: {requests: {storage: 1Gi}}}
""", "spec.accessModes: Required value: at least 1 access mode is required"),
    ("pvc without a storage request", """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteOnce]}
""", "spec.resources[storage]: Required value"),
    ("ReadWriteOncePod with another mode", """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteOncePod, ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
""", "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"),
    ("storage class binding mode", """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc}
provisioner: example.com/x
volumeBindingMode: Lazy
""", 'volumeBindingMode: Unsupported value: "Lazy": supported values: "Immediate", '
     '"WaitForFirstConsumer"'),
    ("statefulset pod management policy", """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  podManagementPolicy: Random
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
""", "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or "
     "'Parallel'"),
    ("statefulset selector must match", """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: db, image: postgres}]}
""", "spec.template.metadata.labels: Invalid value: {\"app\": \"web\"}: `selector` does not "
     "match template `labels`"),
    ("job with the default restart policy", """
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec: {containers: [{name: c, image: busybox}]}
""", 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'),
    ("job with a negative backoff limit", """
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  backoffLimit: -1
  template:
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
""", "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"),
    ("cronjob schedule", """
apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  schedule: "every minute"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
""", 'spec.schedule: Invalid value: "every minute": expected exactly 5 fields, found 2: '
     '[every minute]'),
    ("cronjob name longer than 52", """
apiVersion: batch/v1
kind: CronJob
metadata: {name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
""", "must be no more than 52 characters"),
    ("cronjob concurrency policy", """
apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  schedule: "@hourly"
  concurrencyPolicy: Sometimes
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
""", 'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", '
     '"Forbid", "Replace"'),
]


@pytest.mark.parametrize("yaml_text,message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_object_is_refused_with_the_api_servers_words(yaml_text, message):
    s = Session.from_text("")
    result = s.submit("kubectl apply -f -", stdin=yaml_text)
    assert message in result.error
    assert result.output == ""


def test_a_secret_with_string_data_is_stored_base64_encoded():
    s = Session.from_text("")
    s.submit("kubectl apply -f -", stdin="apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n"
                                         "stringData: {user: admin}\n")
    out = s.submit("kubectl get secret x -o yaml").output
    assert "user: YWRtaW4=" in out and "\nstringData:" not in out and "type: Opaque" in out
    # ... but kubectl apply's last-applied annotation keeps the manifest as written, the
    # plain text included, as upstream's does (why the docs warn against applying Secrets
    # with stringData).
    assert '"stringData":{"user":"admin"}' in out


def test_a_pvc_without_a_class_gets_the_default_class():
    s = Session.from_text("""
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: example.com/fast
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
""")
    assert s.store.get("PersistentVolumeClaim", "c", "default").spec.storage_class_name == "fast"


def test_an_exported_job_selector_is_regenerated_for_the_new_uid():
    """Re-applying an export's Job fails on a real cluster ("`selector` not auto-generated");
    the sandbox regenerates the generated selector instead, so the export loads."""
    s = Session.from_text("""
apiVersion: batch/v1
kind: Job
metadata: {name: j, uid: 11111111-2222-3333-4444-555555555555}
spec:
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: 99999999-2222-3333-4444-555555555555}}
  template:
    metadata:
      labels: {batch.kubernetes.io/controller-uid: 99999999-2222-3333-4444-555555555555,
               job-name: j}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
""")
    job = s.store.get("Job", "j", "default")
    uid = job.metadata.uid
    assert dict(job.spec.selector.match_labels) == {"batch.kubernetes.io/controller-uid": uid}
    assert job.spec.template.metadata.labels["controller-uid"] == uid


def test_the_stored_only_warning_names_each_kind_once():
    objs = load_manifests("""
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: c}
---
apiVersion: v1
kind: Namespace
metadata: {name: d}
""")
    assert stored_only_warning(o.kind for o in objs) == (
        "stored but not simulated: ConfigMap, ServiceAccount (kept, listed and described; no "
        "component acts on them)")
    assert stored_only_warning(["Pod", "Node"]) is None


def test_sim_loads_a_service_account_and_says_once_it_is_stored_only(tmp_path, capsys):
    """Never "no matches for kind ServiceAccount": the kind loads, and one Warning line says
    what the sandbox does not simulate."""
    from ksandbox.cli import main

    p = tmp_path / "export.yaml"
    p.write_text("apiVersion: v1\nkind: List\nitems:\n"
                 "- {apiVersion: v1, kind: ServiceAccount, metadata: {name: a, namespace: default}}\n"
                 "- {apiVersion: v1, kind: ServiceAccount, metadata: {name: b, namespace: default}}\n"
                 "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: default}}\n")
    assert main(["sim", "-f", str(p), "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert err.count("Warning:") == 1
    assert "stored but not simulated: ConfigMap, ServiceAccount" in err
    assert "no matches for kind" not in err


_WORKLOADS = [
    # (kind, apiVersion, selector, template labels, containers)
    ("ReplicaSet", "apps/v1", {"matchLabels": {"app": "a"}}, {"app": "a"}, [{"name": "c", "image": "i"}]),
    ("ReplicaSet", "apps/v1", {"matchLabels": {"app": "a"}}, {"app": "b"}, [{"name": "c", "image": "i"}]),
    ("Deployment", "apps/v1", None, {"app": "a"}, [{"name": "c", "image": "i"}]),
    ("Deployment", "apps/v1", {"matchLabels": {"app": "a"}}, {"app": "a", "bad key!": "x"},
     [{"name": "C_bad", "image": ""}]),
    ("ReplicationController", "v1", {"app": "a"}, {"app": "b"}, [{"name": "c", "image": "i"}]),
    ("DaemonSet", "apps/v1", {"matchLabels": {"app": "a"}}, {"app": "a"}, []),
]


@pytest.mark.parametrize("kind,api,selector,labels,containers", _WORKLOADS)
def test_a_template_kept_by_a_write_is_judged_as_a_fresh_one(kind, api, selector, labels,
                                                            containers):
    """The template's errors are remembered by the identity of the template and selector (a
    scale keeps both): a second validation of the same objects, and of an equal but freshly
    decoded workload, give the same errors in the same order (apiserver validation of
    apps/v1 workloads: ValidatePodTemplateSpecForReplicaSet and friends)."""
    import attrs

    from ksandbox.api.codec import decode
    from ksandbox.api.errors import ValidationError
    from ksandbox.api.kinds import BY_KIND
    from ksandbox.apiserver.validation import validate

    def make():
        spec = {"template": {"metadata": {"labels": labels}, "spec": {"containers": containers}}}
        if kind != "DaemonSet":
            spec["replicas"] = 2
        if selector is not None:
            spec["selector"] = selector
        return decode(BY_KIND[kind].type, {"apiVersion": api, "kind": kind,
                                           "metadata": {"name": "w", "namespace": "default"},
                                           "spec": spec})

    def errors(obj):
        try:
            validate(None, obj)
        except ValidationError as exc:
            return str(exc)
        return ""

    first = make()
    seen = errors(first)
    change = {} if kind == "DaemonSet" else {"replicas": 5}
    scaled = attrs.evolve(first, spec=attrs.evolve(first.spec, **change))
    assert errors(scaled) == seen          # same template and selector objects: remembered
    assert errors(make()) == seen          # equal objects, new identities: computed afresh
    if kind == "DaemonSet":
        return
    bad = attrs.evolve(first, spec=attrs.evolve(first.spec, replicas=-1))
    assert "spec.replicas" in errors(bad) and errors(bad).count("template") == seen.count(
        "template")


def test_a_new_selector_on_a_kept_template_is_judged_again():
    """The remembered template errors are keyed by the selector too: the same template
    under a selector it does not match is refused."""
    import attrs

    from ksandbox.api.codec import decode
    from ksandbox.api.errors import ValidationError
    from ksandbox.api.kinds import BY_KIND
    from ksandbox.apiserver.validation import validate

    rs = decode(BY_KIND["ReplicaSet"].type, {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "a"}},
                 "template": {"metadata": {"labels": {"app": "a"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
    validate(None, rs)   # fine, and remembered
    other = decode(BY_KIND["ReplicaSet"].type, {
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "x"},
        "spec": {"selector": {"matchLabels": {"app": "b"}}}}).spec.selector
    moved = attrs.evolve(rs, spec=attrs.evolve(rs.spec, selector=other))
    with pytest.raises(ValidationError, match="does not match template"):
        validate(None, moved)
