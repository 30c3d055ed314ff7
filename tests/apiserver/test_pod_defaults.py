"""API defaulting of pods and workloads (pkg/apis/core/v1/defaults.go, pkg/apis/apps/v1/defaults.go).

Ported from upstream's pkg/apis/core/v1/defaults_test.go (TestSetDefaultRequestsPod,
TestDefaultRequestIsNotSetForReplicationController, TestPodDefaults' expected default list,
TestSetDefaultPodSpecHostNetwork) and pkg/apis/apps/v1/defaults_test.go
(TestSetDefaultDaemonSetSpec, TestSetDefaultDeployment), plus the image pull policy rule of
SetDefaults_Container with pkg/util/parsers.ParseImageName's tag.
"""

from __future__ import annotations

import pytest

from ksandbox.api.codec import decode
from ksandbox.api.core import PodSpec
from ksandbox.apiserver.pod_defaults import default_pod, default_pod_spec, default_pull_policy
from ksandbox.session import Session

NODES = "".join(f"""
apiVersion: v1
kind: Node
metadata: {{name: node-{i}}}
status: {{capacity: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
---""" for i in (1, 2, 3))


def _spec(data: dict) -> PodSpec:
    return decode(PodSpec, data)


def test_requests_default_to_limits_and_an_explicit_zero_request_stays() -> None:
    """TestSetDefaultRequestsPod: limits cpu 100m / memory 1Gi with requests memory 0 give
    requests cpu 100m, memory 0 — for containers and init containers."""
    c = {"name": "c", "image": "x:1", "resources": {"requests": {"memory": "0"},
                                                     "limits": {"cpu": "100m", "memory": "1Gi"}}}
    spec = default_pod(_spec({"containers": [c], "initContainers": [dict(c, name="i")]}))
    for ctr in (spec.containers[0], spec.init_containers[0]):
        assert str(ctr.resources.requests["cpu"]) == "100m"
        assert str(ctr.resources.requests["memory"]) == "0"
    # ... and nothing is invented when no limits are given.
    bare = default_pod(_spec({"containers": [{"name": "c", "image": "x:1"}]}))
    assert not bare.containers[0].resources.requests


def test_templates_do_not_get_requests_from_limits() -> None:
    """TestDefaultRequestIsNotSetForReplicationController: SetDefaults_Pod is a Pod's, never a
    template's (so an API server upgrade does not roll every workload)."""
    c = {"name": "c", "image": "x:1", "resources": {"limits": {"cpu": "100m"}}}
    spec = default_pod_spec(_spec({"containers": [c]}))
    assert not spec.containers[0].resources.requests
    s = Session.from_text(NODES + """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: "x:1", resources: {limits: {cpu: 100m}}}]}
""")
    s.run_for(5)
    d = s.store.get("Deployment", "web", "default")
    assert not d.spec.template.spec.containers[0].resources.requests
    pod = s.store.list("Pod", "default")[0]
    assert str(pod.spec.containers[0].resources.requests["cpu"]) == "100m"
    assert pod.spec.requests["cpu"] == 100


@pytest.mark.parametrize("image,policy", [
    ("nginx", "Always"),                      # untagged means :latest
    ("nginx:latest", "Always"),
    ("nginx:1.27", "IfNotPresent"),
    ("registry:5000/nginx", "Always"),        # a registry port is not a tag
    ("registry:5000/team/nginx:1.0", "IfNotPresent"),
    ("nginx@sha256:" + "a" * 64, "IfNotPresent"),  # pinned by digest: no tag
    ("nginx:latest@sha256:" + "a" * 64, "Always"),
])
def test_image_pull_policy_follows_the_tag(image: str, policy: str) -> None:
    """SetDefaults_Container: Always when ParseImageName's tag is "latest", else
    IfNotPresent; a policy the user gave is kept."""
    assert default_pull_policy(image) == policy
    spec = default_pod_spec(_spec({"containers": [{"name": "c", "image": image}]}))
    assert spec.containers[0].image_pull_policy == policy
    kept = default_pod_spec(_spec({"containers": [{"name": "c", "image": image,
                                                   "imagePullPolicy": "Never"}]}))
    assert kept.containers[0].image_pull_policy == "Never"


def test_a_pod_reads_back_with_upstreams_defaults() -> None:
    """TestPodDefaults' list, the parts the sandbox models: dnsPolicy ClusterFirst,
    enableServiceLinks true, restartPolicy Always, schedulerName, securityContext {},
    terminationGracePeriodSeconds 30, the container's imagePullPolicy and termination message
    path/policy, a port's protocol TCP — as ``kubectl get -o yaml`` prints them."""
    s = Session.from_text(NODES + """
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: "nginx:1.27", ports: [{containerPort: 80}]}]
""")
    out = s.submit("kubectl get pod p -o yaml").output
    for line in ("  dnsPolicy: ClusterFirst\n", "  enableServiceLinks: true\n",
                 "  restartPolicy: Always\n", "  schedulerName: default-scheduler\n",
                 "  securityContext: {}\n", "  terminationGracePeriodSeconds: 30\n",
                 "  priority: 0\n", "    imagePullPolicy: IfNotPresent\n",
                 "    terminationMessagePath: /dev/termination-log\n",
                 "    terminationMessagePolicy: File\n", "      protocol: TCP\n"):
        assert line in out, line


def test_host_network_ports_default_to_host_ports() -> None:
    """TestSetDefaultPodSpecHostNetwork: with hostNetwork a container port is a host port."""
    spec = default_pod(_spec({"hostNetwork": True, "containers": [
        {"name": "c", "image": "x:1", "ports": [{"containerPort": 8080}]}]}))
    assert spec.containers[0].ports[0].host_port == 8080
    assert spec.host_ports == (("0.0.0.0", "TCP", 8080),)


def test_limits_only_pods_are_scheduled_by_their_defaulted_requests() -> None:
    """The issue's case: four ``limits: cpu 3`` pods on three 4-CPU nodes. Each requests 3 CPUs
    once defaulted, so one pod stays Pending with Insufficient cpu (before, all four ran)."""
    pods = "".join(f"""
apiVersion: v1
kind: Pod
metadata: {{name: big-{i}}}
spec: {{containers: [{{name: c, image: "x:1", resources: {{limits: {{cpu: "3"}}}}}}]}}
---""" for i in range(4))
    s = Session.from_text(NODES + pods)
    s.run_for(30)
    phases = sorted(p.status.phase for p in s.store.list("Pod", "default"))
    assert phases == ["Pending", "Running", "Running", "Running"]
    pending = next(p for p in s.store.list("Pod", "default") if p.status.phase == "Pending")
    out = s.submit(f"kubectl describe pod {pending.metadata.name}").output
    assert "Insufficient cpu" in out
    assert "QoS Class:" in out and "Burstable" in out


def test_daemonset_and_deployment_defaults() -> None:
    """TestSetDefaultDaemonSetSpec: RollingUpdate with maxUnavailable 1, maxSurge 0,
    revisionHistoryLimit 10. TestSetDefaultDeployment: replicas 1, RollingUpdate 25%/25%,
    revisionHistoryLimit 10, progressDeadlineSeconds 600."""
    s = Session.from_text(NODES + """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: "agent:1"}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: "web:1"}]}
""")
    ds = s.store.get("DaemonSet", "agent", "default")
    assert ds.spec.update_strategy.type == "RollingUpdate"
    assert dict(ds.spec.update_strategy.rolling_update) == {"maxUnavailable": 1, "maxSurge": 0}
    assert ds.spec.revision_history_limit == 10
    assert ds.spec.template.spec.extra["dnsPolicy"] == "ClusterFirst"
    d = s.store.get("Deployment", "web", "default")
    assert d.spec.replicas == 1
    ru = d.spec.strategy.rolling_update
    assert (d.spec.strategy.type, ru.max_surge, ru.max_unavailable) == \
        ("RollingUpdate", "25%", "25%")
    assert (d.spec.revision_history_limit, d.spec.progress_deadline_seconds) == (10, 600)
    out = s.submit("kubectl get ds agent -o yaml").output
    assert "    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 1\n" in out


def test_workload_templates_are_defaulted_the_same_however_often_their_spec_comes() -> None:
    """Admission defaults a workload's template spec by the spec object's identity
    (admission._admit_replicated, _admit_daemonset): every write that brings one spec object
    again — the same raw spec in two ReplicaSets, a resize that keeps the template — gets
    exactly what default_pod_spec gives, and a resize keeps the stored template object."""
    from ksandbox.api.apps import DaemonSet, ReplicaSet
    from ksandbox.api.evolve import evolve

    s = Session.from_text(NODES)
    raw = {"metadata": {"labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "web:1",
                                    "resources": {"limits": {"cpu": "1"}}}]}}
    template = decode(ReplicaSet, {"spec": {"template": raw}}).spec.template
    want = default_pod_spec(template.spec)
    assert want is not template.spec and want != template.spec
    stored = []
    for name in ("a", "b"):
        rs = decode(ReplicaSet, {"metadata": {"name": name, "namespace": "default"},
                                 "spec": {"replicas": 1,
                                          "selector": {"matchLabels": {"app": "web"}}}})
        stored.append(s.store.create(evolve(rs, spec=evolve(rs.spec, template=template))))
    ds = decode(DaemonSet, {"metadata": {"name": "agent", "namespace": "default"},
                            "spec": {"selector": {"matchLabels": {"app": "web"}}}})
    ds = s.store.create(evolve(ds, spec=evolve(ds.spec, template=template)))
    for obj in (*stored, ds):
        assert obj.spec.template.spec == want
    resized = s.store.update(evolve(stored[0], spec=evolve(stored[0].spec, replicas=3)))
    assert resized.spec.template is stored[0].spec.template
    assert resized.spec.template.spec == want


def test_an_env_var_with_an_empty_value_is_read_back_without_it():
    """v1.EnvVar's value is omitempty: the API server's object has no ``value: ""`` (a pod's
    and a template's alike), while kubectl's last-applied annotation keeps what the file
    said. It was printed in -o yaml as ``value: ""``."""
    s = Session.from_text("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replicas: 0
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
      - {name: c, image: nginx, env: [{name: A, value: ""}, {name: C, value: x}]}
""")
    assert s.submit("kubectl apply -f -", """
apiVersion: v1
kind: Pod
metadata: {name: e}
spec:
  containers:
  - {name: c, image: nginx, env: [{name: A, value: ""}, {name: B}, {name: C, value: x}]}
""").ok
    out = s.submit("kubectl get pod e -o yaml").output
    assert "    - name: A\n    - name: B\n    - name: C\n      value: x\n" in out
    assert '"env":[{"name":"A","value":""},{"name":"B"}' in out   # the annotation's
    out = s.submit("kubectl get deploy d -o yaml").output
    assert "value: \"\"" not in out and "- name: A\n" in out
