"""sample_clusters/export.yaml: a real cluster's multi-namespace export loads, says once which of
its kinds are stored only, and runs — the exported pods keep running where they were (no
controller replaces them for a revision hash it cannot reproduce), the postgres claim stays
bound to its zone's volume, the CronJob fires on its schedule in its time zone.

Upstream behaviour traced: the DaemonSet controller's util.IsPodUpdated (pod-template-generation
against the template generation), the StatefulSet controller's revision by status name
(stateful_set_control.go getStatefulSetRevisions), the CronJob controller
(cronjob_controllerv2.go) and VolumeBinding's bound-claim node affinity check.
"""

from __future__ import annotations

import json

from ksandbox.cli import main
from ksandbox.resources import data_path
from ksandbox.session import Session

EXPORT = str(data_path("sample_clusters") / "export.yaml")
EXPORTED_PODS = {
    ("kube-system", "coredns-5b9dfbf96-7xkqp"), ("kube-system", "coredns-5b9dfbf96-nd2ws"),
    ("kube-system", "kube-proxy-4tq9z"), ("kube-system", "kube-proxy-h8vnm"),
    ("kube-system", "kube-proxy-x2lcr"), ("monitoring", "node-exporter-9fbcx"),
    ("monitoring", "node-exporter-kq4rd"), ("monitoring", "node-exporter-zt7mp"),
    ("shop", "nightly-report-29146920-x7kfd"), ("shop", "postgres-0"),
    ("shop", "web-6f8d9c7b54-2jxkd"), ("shop", "web-6f8d9c7b54-8qwlt"),
    ("shop", "web-6f8d9c7b54-v5nzh"),
}


def test_the_export_loads_warns_once_and_keeps_its_pods(capsys):
    assert main(["sim", "-f", EXPORT, "--until", "300", "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "Warning: stored but not simulated: ConfigMap, Ingress, ServiceAccount (kept, listed "
        "and described; no component acts on them)"]
    state = json.loads(out)
    pods = {(p["namespace"], p["name"]) for p in state["pods"]}
    assert pods == EXPORTED_PODS
    assert all(p["phase"] in ("Running", "Succeeded") for p in state["pods"])
    deletes = [e for e in state["events"] if e["reason"] in ("SuccessfulDelete", "Killing")]
    assert deletes == []


def test_every_exported_kind_is_listed_by_kubectl():
    s = Session.from_files([EXPORT])
    s.run_until(10)
    out = s.submit("kubectl get all,cm,sa,pv,pvc,sc,ing -A").output
    for needle in ("service/kube-dns", "daemonset.apps/kube-proxy", "deployment.apps/web",
                   "replicaset.apps/coredns-5b9dfbf96", "statefulset.apps/postgres",
                   "cronjob.batch/nightly-report", "job.batch/nightly-report-29146920",
                   "horizontalpodautoscaler.autoscaling/web", "configmap/coredns",
                   "serviceaccount/node-exporter", "storageclass.storage.k8s.io/gp3",
                   "persistentvolumeclaim/data-postgres-0", "ingress.networking.k8s.io/web"):
        assert needle in out, needle
    pvc = s.store.get("PersistentVolumeClaim", "data-postgres-0", "shop")
    assert pvc.status.phase == "Bound"
    assert s.store.get("Pod", "postgres-0", "shop").spec.node_name == \
        "ip-10-0-2-41.ec2.internal"


def test_the_exported_workloads_behave_after_loading():
    s = Session.from_files([EXPORT])
    # postgres-0's volume lives in us-east-1b: deleted, it comes back to that zone's node.
    s.submit("kubectl delete pod postgres-0 -n shop")
    s.run_until(120)
    pod = s.store.get("Pod", "postgres-0", "shop")
    assert pod.spec.node_name == "ip-10-0-2-41.ec2.internal" and pod.status.phase == "Running"
    # The nightly report runs at 02:00 New York time: 07:00 UTC on the simulated epoch's day.
    s.run_until(7 * 3600 + 30)
    jobs = sorted(j.metadata.name for j in s.store.list("Job", "shop"))
    assert jobs == ["nightly-report-29146920", "nightly-report-29454180"]
    job = s.store.get("Job", "nightly-report-29454180", "shop")
    assert job.metadata.annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] == \
        "2026-01-01T02:00:00-05:00"



def test_a_template_change_still_rolls_the_exported_daemonset():
    import attrs

    s = Session.from_files([EXPORT])
    s.run_until(5)
    ds = s.store.get("DaemonSet", "node-exporter", "monitoring")
    c = ds.spec.template.spec.containers[0]
    spec = attrs.evolve(ds.spec.template.spec,
                        containers=(attrs.evolve(c, image="quay.io/prometheus/node-exporter:v1.9.0"),))
    s.store.update(attrs.evolve(ds, spec=attrs.evolve(ds.spec, template=attrs.evolve(
        ds.spec.template, spec=spec))))
    s.run_until(300)
    pods = [p for p in s.store.list("Pod", "monitoring") if p.metadata.deletion_timestamp is None]
    assert len(pods) == 3
    assert {p.spec.containers[0].image for p in pods} == {"quay.io/prometheus/node-exporter:v1.9.0"}


def test_an_export_without_its_namespaces_loads_them_implied(tmp_path, capsys):
    """`kubectl get all -A -o yaml` lists no Namespaces: a `kind: List` export's namespaces are
    made (and said so once); a lone manifest in a missing namespace stays NotFound
    (test_cli_bad_input)."""
    import yaml

    data = yaml.safe_load(open(EXPORT))
    data["items"] = [i for i in data["items"] if i["kind"] != "Namespace"]
    path = tmp_path / "bare.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["sim", "-f", str(path), "--until", "60", "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines()[1] == (
        "Warning: created namespaces monitoring, shop: the export's objects are in them but it "
        "does not list them (kubectl get all -A leaves Namespaces out)")
    pods = {(p["namespace"], p["name"]) for p in json.loads(out)["pods"]}
    assert pods == EXPORTED_PODS
    s = Session.from_files([str(path)])
    assert [o.metadata.name for o in s.initial_objects[:2]] == ["monitoring", "shop"]
