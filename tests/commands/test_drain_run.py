"""kubectl drain on the clock: kubectl's transcript, the filters, the Eviction API and
PodDisruptionBudgets (a blocked eviction retries every 5 s), deletion mode, dry runs, timeouts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kubelet"))

from ksandbox.apiserver.eviction import evict_pod  # noqa: E402
from ksandbox.commands.drain_run import go_duration  # noqa: E402
from nodesim import cluster, get_pod, node, pod  # noqa: E402

DS = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {no-such-label: "x"}
      containers: [{name: a, image: agent}]
"""
PDB = """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
"""


def web(name, node_name, **kw):
    return pod(name, node_name, labels={"app": "web"}, owner="ReplicaSet/web-7d9c", **kw)


def agent(node_name):
    return pod(f"agent-{node_name}", node_name, namespace="kube-system",
               labels={"app": "agent"}, owner="DaemonSet/agent")


def log(s):
    d = s.cp.drain.drains[-1]
    return [(line.time, line.text) for line in d.log]


def test_a_drain_cordons_evicts_and_reports_each_pod_and_the_node():
    s = cluster(node("node-1"), node("node-2"), DS, web("web-1", "node-1", grace=10),
                agent("node-1"))
    s.run_until(10)
    r = s.submit("kubectl drain node-1 --ignore-daemonsets")
    assert (r.output, r.error) == (
        "node/node-1 cordoned\n"
        "Warning: ignoring DaemonSet-managed Pods: kube-system/agent-node-1\n"
        "evicting pod default/web-1\n", "")
    assert s.store.get("Node", "node-1").spec.unschedulable
    cond = get_pod(s, "web-1").status.condition("DisruptionTarget")
    assert (cond.reason, cond.message) == ("EvictionByEvictionAPI", "Eviction API: evicting")
    s.run_until(60)
    assert log(s)[-2:] == [(20.0, "pod/web-1 evicted"), (20.0, "node/node-1 drained")]
    assert get_pod(s, "agent-node-1", "kube-system") is not None
    assert s.cp.drain.drains[-1].state == "drained"


def test_a_drain_blocked_by_a_pod_disruption_budget_retries_every_5_seconds():
    s = cluster(node("node-1"), node("node-2"), PDB,
                web("web-1", "node-1"), web("web-2", "node-1"), web("web-3", "node-2"))
    s.run_until(10)
    r = s.submit("kubectl drain node-1")
    assert r.output == (
        "node/node-1 cordoned\n"
        "evicting pod default/web-1\n"
        "evicting pod default/web-2\n"
        'error when evicting pods/"web-2" -n "default" (will retry after 5s): Cannot evict pod '
        "as it would violate the pod's disruption budget.\n")
    assert r.error == ""
    # A replacement becomes ready on node-2 at about 32; the retry at 35 then succeeds.
    s.run_until(30)
    s.submit("kubectl apply -f -", stdin=web("web-4", "node-2"))
    s.run_until(100)
    retries = [t for t, text in log(s) if text == "evicting pod default/web-2"]
    assert retries == [10.0, 15.0, 20.0, 25.0, 30.0, 35.0]
    assert log(s)[-3:] == [(40.0, "pod/web-1 evicted"), (65.0, "pod/web-2 evicted"),
                           (65.0, "node/node-1 drained")]


@pytest.mark.parametrize("flags,extra,error", [
    ("", pod("bare", "node-1"),
     "cannot delete Pods that declare no controller (use --force to override): default/bare"),
    ("", web("cache", "node-1", volumes=[{"name": "tmp", "emptyDir": {}}]),
     "cannot delete Pods with local storage (use --delete-emptydir-data to override): "
     "default/cache"),
    ("", agent("node-1"),
     "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): "
     "kube-system/agent-node-1"),
], ids=["unmanaged pods need --force", "emptyDir pods need --delete-emptydir-data",
        "DaemonSet pods need --ignore-daemonsets"])
def test_refusals_are_reported_with_kubectls_words(flags, extra, error):
    s = cluster(node("node-1"), DS, extra)
    s.run_until(5)
    r = s.submit(f"kubectl drain node-1 {flags}".strip())
    assert r.output == "node/node-1 cordoned\n"
    assert r.error == (f'error: unable to drain node "node-1" due to error: {error}, '
                       "continuing command...\n"
                       "There are pending nodes to be drained:\n node-1\n"
                       f"{error}\n")
    s.run_until(100)
    assert s.store.list("Pod") and all(p.metadata.deletion_timestamp is None
                                       for p in s.store.list("Pod"))


def test_force_and_delete_emptydir_data_let_the_drain_through_with_warnings():
    s = cluster(node("node-1"), pod("bare", "node-1", volumes=[{"name": "t", "emptyDir": {}}]))
    s.run_until(5)
    r = s.submit("kubectl drain node-1 --force --delete-emptydir-data")
    assert r.output == ("node/node-1 cordoned\n"
                        "Warning: deleting Pods that declare no controller: default/bare\n"
                        "evicting pod default/bare\n")


def test_mirror_pods_are_skipped_silently():
    config = """
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
ksandbox:
  staticPods:
    - {apiVersion: v1, kind: Pod, metadata: {name: etcd, namespace: kube-system},
       spec: {containers: [{name: etcd, image: etcd}]}}
"""
    s = cluster(config, node("node-1"))
    s.run_until(5)
    r = s.submit("kubectl drain node-1")
    assert (r.output, r.error) == ("node/node-1 cordoned\nnode/node-1 drained\n", "")
    assert get_pod(s, "etcd-node-1", "kube-system").metadata.deletion_timestamp is None


def test_disable_eviction_deletes_without_asking_the_budget():
    s = cluster(node("node-1"), PDB, web("web-1", "node-1", grace=5), web("web-2", "node-1",
                                                                         grace=5))
    s.run_until(10)
    r = s.submit("kubectl drain node-1 --disable-eviction")
    assert r.output == "node/node-1 cordoned\n"
    s.run_until(30)
    assert log(s)[1:] == [(15.0, "pod/web-1 deleted"), (15.0, "pod/web-2 deleted"),
                          (15.0, "node/node-1 drained")]


def test_client_dry_run_changes_nothing():
    s = cluster(node("node-1"), web("web-1", "node-1"))
    s.run_until(5)
    r = s.submit("kubectl drain node-1 --dry-run=client")
    assert r.output == ("node/node-1 cordoned (dry run)\n"
                        "evicting pod default/web-1 (dry run)\n"
                        "node/node-1 drained (dry run)\n")
    assert not s.store.get("Node", "node-1").spec.unschedulable
    assert get_pod(s, "web-1").metadata.deletion_timestamp is None


def test_a_timeout_ends_a_blocked_drain_with_kubectls_errors():
    s = cluster(node("node-1"), PDB, web("web-1", "node-1"), web("web-2", "node-1"))
    s.run_until(10)
    s.submit("kubectl drain node-1 --timeout=12s")
    s.run_until(100)
    d = s.cp.drain.drains[-1]
    assert d.state == "failed"
    both = ('[error when evicting pods/"web-1" -n "default": global timeout reached: 12s, '
            'error when evicting pods/"web-2" -n "default": global timeout reached: 12s]')
    # The retries due at 25 come after the 12 s deadline (22): each prints its line, then
    # gives up; the node's drain fails with both errors.
    assert log(s)[-10:] == [
        (25.0, "evicting pod default/web-1"), (25.0, "evicting pod default/web-2"),
        (25.0, f'There are pending pods in node "node-1" when an error occurred: {both}'),
        (25.0, "pod/web-1"), (25.0, "pod/web-2"),
        (25.0, f'error: unable to drain node "node-1" due to error: {both}, '
               "continuing command..."),
        (25.0, "There are pending nodes to be drained:"), (25.0, " node-1"),
        # CheckErr unwraps the one node's aggregate and prints one error a line, no prefix.
        (25.0, 'error when evicting pods/"web-1" -n "default": global timeout reached: 12s'),
        (25.0, 'error when evicting pods/"web-2" -n "default": global timeout reached: 12s')]


def test_the_eviction_api_refuses_two_budgets_and_ignores_them_for_pending_pods():
    second = PDB.replace("name: web}", "name: web-too}")
    s = cluster(node("node-1"), PDB, second, web("web-1", "node-1"))
    s.run_until(10)
    assert evict_pod(s.store, "default", "web-1").code == 500
    s2 = cluster(node("node-1"), PDB, second, web("web-1", "node-1"))
    assert get_pod(s2, "web-1").status.phase == "Pending"
    assert evict_pod(s2.store, "default", "web-1").code == 201
    assert evict_pod(s2.store, "default", "nope").code == 404


@pytest.mark.parametrize("seconds,text", [(5, "5s"), (60, "1m0s"), (90.5, "1m30.5s"),
                                          (3600, "1h0m0s"), (0, "0s")])
def test_go_duration(seconds, text):
    assert go_duration(seconds) == text


def test_a_refused_node_does_not_stop_the_drain_of_the_next_one():
    s = cluster(node("node-1"), node("node-2"), node("node-3"), DS, agent("node-1"),
                pod("bare", "node-3"), web("web-1", "node-2", grace=10))
    s.run_until(10)
    r = s.submit("kubectl drain node-1 node-2 node-3")
    ds_err = ("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): "
              "kube-system/agent-node-1")
    # node-2's eviction is still under way: the command has not failed (yet).
    assert (r.output, r.error) == (
        "node/node-1 cordoned\nnode/node-2 cordoned\nnode/node-3 cordoned\n"
        f'error: unable to drain node "node-1" due to error: {ds_err}, continuing command...\n'
        "evicting pod default/web-1\n", "")
    s.run_until(60)
    d = s.cp.drain.drains[-1]
    bare_err = ("cannot delete Pods that declare no controller (use --force to override): "
                "default/bare")
    assert d.state == "failed"
    assert [text for _t, text in log(s)][3:] == [
        f'error: unable to drain node "node-1" due to error: {ds_err}, continuing command...',
        "evicting pod default/web-1",
        "pod/web-1 evicted",
        "node/node-2 drained",
        f'error: unable to drain node "node-3" due to error: {bare_err}, continuing command...',
        "There are pending nodes to be drained:", " node-1", " node-3",
        ds_err, bare_err]
    assert d.error == (
        f'error: unable to drain node "node-1" due to error: {ds_err}, continuing command...\n'
        f'error: unable to drain node "node-3" due to error: {bare_err}, continuing command...\n'
        f"There are pending nodes to be drained:\n node-1\n node-3\n{ds_err}\n{bare_err}\n")
    assert get_pod(s, "web-1") is None


def test_two_refusals_on_one_node_are_one_aggregate():
    s = cluster(node("node-1"), DS, agent("node-1"), pod("bare", "node-1"))
    s.run_until(5)
    r = s.submit("kubectl drain node-1")
    ds_err = ("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): "
              "kube-system/agent-node-1")
    bare_err = ("cannot delete Pods that declare no controller (use --force to override): "
                "default/bare")
    first, second = bare_err, ds_err       # in the order the pods were listed
    assert r.error == (f'error: unable to drain node "node-1" due to error: [{first}, '
                       f"{second}], continuing command...\n"
                       "There are pending nodes to be drained:\n node-1\n"
                       f"{first}\n{second}\n")
