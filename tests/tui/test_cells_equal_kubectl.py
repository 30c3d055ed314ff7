"""Data shown once, computed once: every list view's cells are the cells ``kubectl get`` prints.

For every kind the TUI lists (every kind ``kubectl get`` prints), the test opens the list view
in the app, reads each row's cells from the table widget, and compares them, column by column,
with the text of ``kubectl get <resource> -A`` (and ``-o wide`` with ``ctrl+w``) for the same
object, read back from kubectl's aligned output. Columns kubectl has no equivalent for
(a node's TAINTS count, a pod's EVICTION countdown) are the only ones left out, and they are
named. The cluster has the cases the issue found disagreeing: a node whose Ready condition is
Unknown, a ``kubernetes.io/role`` label, an HPA with a measured CPU utilisation, a pod whose
container restarted.

Upstream: kubernetes/kubernetes pkg/printers/internalversion/printers_test.go (TestPrintNode*,
TestPrintPod*, TestPrintHPA) holds the printers; this test holds the TUI to them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ksandbox.session import Session
from ksandbox.tui.commandline import VIEW_KINDS
from ksandbox.tui.rows import NAMESPACE, spec_for

ROOT = Path(__file__).resolve().parents[2]

EXTRA = """
apiVersion: v1
kind: Node
metadata:
  name: legacy-1
  labels: {kubernetes.io/role: worker, kubernetes.io/hostname: legacy-1}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "20"}
---
apiVersion: v1
kind: Pod
metadata:
  name: flaky
  annotations: {ksandbox.io/run-seconds: "5", ksandbox.io/exit-code: "1"}
spec:
  restartPolicy: OnFailure
  nodeName: legacy-1
  containers: [{name: c, image: busybox, resources: {requests: {cpu: 10m}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, protocol: TCP}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: "1"}
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    extra = tmp_path_factory.mktemp("cells") / "extra.yaml"
    extra.write_text(EXTRA)
    session = Session.from_files([ROOT / "sample_clusters/autoscaling.yaml",
                                  ROOT / "sample_clusters/node-failure.yaml", extra], seed=3)
    session.submit("kubectl autoscale deployment my-ap --max 6 --min 2 --cpu-percent 50")
    session.submit("ksandbox load deployment/my-ap 90")
    session.submit("ksandbox fail node node-2")
    session.run_for(200)
    return session


def kubectl_rows(session, resource: str, wide: bool) -> tuple[list[str], list[list[str]]]:
    """kubectl's header and rows, cut at the columns' start positions in its aligned output."""
    text = session.submit(f"kubectl get {resource} -A" + (" -o wide" if wide else "")).output
    lines = text.rstrip("\n").split("\n")
    if len(lines) < 2:
        return [], []
    header = lines[0]
    names, starts, pos = [], [], 0
    # Column names are separated by at least three spaces (kubectl's tabwriter padding).
    for part in [p for p in header.split("   ") if p.strip()]:
        name = part.strip()
        at = header.index(name, pos)
        names.append(name)
        starts.append(at)
        pos = at + len(name)
    rows = []
    for line in lines[1:]:
        cells = []
        for i, at in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(line)
            cells.append(line[at:end].strip())
        rows.append(cells)
    return names, rows


def _key(kind: str, names: list[str], cells: list[str]) -> tuple[str, str]:
    col = dict(zip(names, cells))
    if kind == "Event":
        return col.get(NAMESPACE, ""), col.get("NAME", "")
    return col.get(NAMESPACE, ""), col["NAME"]


def test_the_cluster_has_the_cases_that_disagreed(cluster):
    st = cluster.store
    assert st.get("Node", "node-2").status.condition("Ready").status == "Unknown"
    hpa = st.get("HorizontalPodAutoscaler", "my-ap", "default")
    assert hpa.status.current_cpu_utilization_percentage is not None or \
        hpa.status.extra.get("currentMetrics")
    statuses = st.get("Pod", "flaky", "default").status.extra.get("containerStatuses")
    assert statuses and statuses[0]["restartCount"] > 0


@pytest.mark.parametrize("wide", [False, True], ids=["plain", "wide"])
async def test_every_list_shows_kubectls_cells(cluster, make, wide):
    app = make(cluster)
    checked: dict[str, int] = {}
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        for kind in VIEW_KINDS:
            spec = spec_for(kind)
            # The reference is `-o wide` (it has every column, and NAME for events); the
            # columns on screen must include the ones kubectl prints in the same mode.
            names, rows = kubectl_rows(cluster, spec.resource, True)
            mode_names, _ = kubectl_rows(cluster, spec.resource, wide)
            app.open_view(kind)
            await pilot.pause()
            table = app.screen.table
            if table.wide != wide:
                table.toggle_wide()
            assert table.row_count() == len(rows), kind
            if not rows:
                continue
            want = {_key(kind, names, r): dict(zip(names, r)) for r in rows}
            columns = table._columns()
            for i in range(table.row_count()):
                obj = table.object_at(i)
                got = dict(zip(columns, table._cells(obj)))
                key = (obj.metadata.namespace if spec.namespaced else "", obj.metadata.name)
                kube = want[key]
                for col, cell in got.items():
                    if spec.is_extra(col):
                        continue
                    assert col in kube, (kind, col)
                    # kubectl's last column keeps no trailing spaces; ours are cut the same.
                    assert cell.strip() == kube[col], (kind, key, col)
                assert set(mode_names) <= set(got), (kind, set(mode_names) - set(got))
            checked[kind] = table.row_count()
    assert checked.keys() >= {"Node", "Pod", "Deployment", "ReplicaSet", "DaemonSet",
                              "HorizontalPodAutoscaler", "Namespace", "Service", "ConfigMap"}
    assert "Event" in checked


def test_the_issues_cells(cluster):
    """The four disagreements issue 9 named, as kubectl prints them."""
    node = spec_for("Node")
    cells = dict(zip(node.columns(), node.cells(cluster.store.get("Node", "node-2"),
                                                cluster.now, cluster)))
    assert cells["STATUS"] == "NotReady"
    legacy = cluster.store.get("Node", "legacy-1")
    assert dict(zip(node.columns(), node.cells(legacy, cluster.now, cluster)))["ROLES"] == \
        "worker"
    hpa = spec_for("HorizontalPodAutoscaler")
    h = cluster.store.get("HorizontalPodAutoscaler", "my-ap", "default")
    assert dict(zip(hpa.columns(), hpa.cells(h, cluster.now, cluster)))["TARGETS"].startswith(
        "cpu: ")
    pod = spec_for("Pod")
    p = cluster.store.get("Pod", "flaky", "default")
    assert dict(zip(pod.columns(), pod.cells(p, cluster.now, cluster)))["RESTARTS"] != "0"
