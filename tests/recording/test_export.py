"""``ksandbox export RECORDING --kubectl``: a shell script that replays the story on a real
cluster — manifests for kubectl apply, the commands at their times, sandbox verbs as comments.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from ksandbox.cli import main
from ksandbox.resources import data_path

REC = """apiVersion: ksandbox/v1alpha2
kind: Recording
title: export me
cluster:
  - {apiVersion: v1, kind: Node, metadata: {name: gpu-1, labels: {hw: gpu}},
     spec: {taints: [{key: gpu, value: "true", effect: NoSchedule}]},
     status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}}
  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: web},
     spec: {replicas: 2, selector: {matchLabels: {app: web}},
            template: {metadata: {labels: {app: web}},
                       spec: {containers: [{name: a, image: nginx}]}}}}
start:
  at: 5
  steps:
    - {at: 2, command: kubectl cordon gpu-1}
end: 90
steps:
  - {at: 10, caption: "a pod arrives"}
  - at: 10
    command: kubectl apply -f -
    stdin: |
      apiVersion: v1
      kind: Pod
      metadata: {name: extra}
      spec: {containers: [{name: a, image: busybox}]}
  - {at: 40.5, command: ksandbox fail node gpu-1}
  - {at: 60, marker: after the failure, expect: [{node: gpu-1, ready: "Unknown"}]}
"""


def export(tmp_path, capsys, body: str = REC) -> str:
    path = tmp_path / "e.recording.yaml"
    path.write_text(body)
    assert main(["export", str(path), "--kubectl"]) == 0
    return capsys.readouterr().out


def test_the_export_is_manifests_commands_and_comments_in_time_order(tmp_path, capsys):
    out = export(tmp_path, capsys)
    code = [ln for ln in out.splitlines() if ln and not ln.startswith("#")]
    # The apply of the cluster's objects comes first; Nodes are not applied, only described.
    applied = out.split("kubectl apply -f - <<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0]
    kinds = [d["kind"] for d in yaml.safe_load_all(applied)]
    assert kinds == ["Deployment"]
    assert "#     kubectl label node gpu-1 --overwrite hw=gpu" in out
    assert "#     kubectl taint node gpu-1 gpu=true:NoSchedule" in out
    # The steps, paced by sleeps that add up to the recording's times.
    sleeps = [float(ln.split()[1]) for ln in code if ln.startswith("sleep ")]
    assert sum(sleeps) == 90
    assert code.index("kubectl cordon gpu-1") < code.index("kubectl apply -f - <<'EOF'", 1)
    assert "# [00:10] a pod arrives" in out and "# [01:00] ── after the failure ──" in out
    # A sandbox verb is a comment with what it stands for on a real cluster.
    assert "# ksandbox fail node gpu-1\n#   (sandbox verb; on a real cluster: stop the kubelet " \
           "on gpu-1" in out
    assert not any(ln.startswith("ksandbox") for ln in code)
    assert "#   expect: node gpu-1 (ready: Unknown)" in out


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_the_export_is_a_script_the_shell_accepts(tmp_path, capsys):
    for body in (REC, (data_path("sample_clusters") / "node-failure.recording.yaml").read_text()):
        script = tmp_path / "replay.sh"
        script.write_text(export(tmp_path, capsys, body))
        checked = subprocess.run(["sh", "-n", str(script)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr


def test_a_sample_cluster_by_name_is_exported_as_its_manifests(tmp_path, capsys):
    out = export(tmp_path, capsys, (data_path("sample_clusters") /
                                    "node-failure.recording.yaml").read_text())
    assert re.search(r"^kind: Deployment$", out, re.M)
    assert "#   node node-2" in out and "kind: Node" not in out


def test_export_of_a_bad_recording_is_one_error_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: ksandbox/v1alpha2\nkind: Recording\ncluster: default\n"
                    "steps:\n  - {at: 1, comand: x}\n")
    assert main(["export", str(path), "--kubectl"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 5" in err and "steps[0].comand" in err
