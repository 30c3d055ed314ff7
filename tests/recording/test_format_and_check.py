"""The recording format (versions, line-numbered refusals) and `play --headless --check`."""

from __future__ import annotations

import pytest

from ksandbox.api.errors import ManifestError
from ksandbox.cli import main
from ksandbox.recording.script import parse_script

HEAD = "apiVersion: ksandbox/v1alpha2\nkind: Recording\ntitle: t\nseed: 1\ncluster: default\n"


def write(tmp_path, body: str, name: str = "r.recording.yaml") -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def test_a_first_format_recording_still_loads():
    rec = parse_script("apiVersion: ksandbox/v1alpha1\nkind: Recording\ncluster: default\n"
                       "steps:\n  - {at: 1.23456, caption: hi}\n", "old.yaml")
    assert rec.is_recording and rec.steps[0].at == 1.235 and rec.start == 0.0


@pytest.mark.parametrize("body,needle", [
    (HEAD + "colour: red\nsteps: []\n", "old.yaml: line 6: colour: unknown field 'colour'"),
    (HEAD + "steps:\n  - {at: 5, command: kubectl cordon node-1}\n  - {at: 2, caption: x}\n",
     "line 8: steps[1].at: Invalid value: 2: steps must be in time order"),
    (HEAD + "steps:\n  - at: 5\n    command: kubectl frobnicate node-1\n",
     "line 8: steps[0].command:"),
    (HEAD + "steps:\n  - at: 5\n    expect:\n      - pod: web\n        node: node-1\n",
     "line 9: steps[0].expect[0].pod: Invalid value: 'web': must be NAMESPACE/NAME"),
    (HEAD + "steps:\n  - at: 5\n    expect:\n      - node: node-1\n        colour: red\n",
     "line 10: steps[0].expect[0].colour: unknown field 'colour' for a node expectation"),
    (HEAD + "steps:\n  - at: 5\n    expect: [{workload: deployment/web, pods: many}]\n",
     "steps[0].expect[0].pods: Invalid value: 'many'"),
    (HEAD.replace("v1alpha2", "v1alpha1") + "steps:\n  - at: 5\n    expect: [{node: a, "
     "ready: 'True'}]\n", "steps[0].expect: field not supported by apiVersion ksandbox/v1alpha1"),
    (HEAD.replace("v1alpha2", "v3") + "steps: []\n", "line 1: apiVersion: Unsupported value"),
    (HEAD + "start: {at: 10, steps: [{at: 20, command: kubectl cordon node-1}]}\nsteps: []\n",
     "start.steps[0].at: Invalid value: 20"),
    (HEAD + "start: {at: 10}\nsteps:\n  - {at: 5, caption: too early}\n",
     "steps[0].at: Invalid value: 5: steps must be in time order (the step before is at 10)"),
])
def test_a_bad_recording_is_refused_with_file_line_and_field(body, needle):
    with pytest.raises(ManifestError) as exc:
        parse_script(body, "old.yaml")
    assert needle in str(exc.value)


def test_a_bad_recording_changes_nothing_and_says_one_line(tmp_path, capsys):
    path = write(tmp_path, HEAD + "steps:\n  - {at: 1, command: kubectl cordon node-1}\n"
                 "  - {at: 0, command: kubectl cordon node-2}\n")
    assert main(["play", path, "--headless", "--check"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {path}: line 8: steps[1].at")


STORY = HEAD + """steps:
  - at: 2
    command: kubectl label node node-2 hw-type=gpu
  - at: 6
    command: kubectl run ml --image=x --overrides='{"spec":{"nodeSelector":{"hw-type":"gpu"}}}'
  - at: 14
    command: kubectl taint node node-2 hw-type=gpu:NoSchedule
  - at: 20
    expect:
      - {pod: default/ml, node: node-2}
      - {pod: default/ml, phase: Running}
      - {node: node-2, tainted: "hw-type=gpu:NoSchedule", ready: "True"}
      - {node: node-1, untainted: hw-type}
      - {workload: deployment/web, pods: %d, phase: Running}
      - {pod: default/gpu-pod, node: gpu-1}
      - {pod: default/nvme-cache, pending: "didn't match Pod's node affinity/selector"}
      - {pod: "default/m?", phase: Running}
      - {pod: default/ghost, gone: true}
"""


def test_check_passes_when_every_expectation_holds(tmp_path, capsys):
    from ksandbox.recording.player import load_recording_session

    _, s = load_recording_session(write(tmp_path, STORY % 0))
    s.run_until(20)
    from ksandbox.recording.expect import workload_pods

    web = sum(1 for p in workload_pods(s.store, "Deployment", "web", "default")
              if p.status.phase == "Running")
    path = write(tmp_path, STORY % web)
    assert main(["play", path, "--headless", "--check"]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert out == f"{path}: 9 of 9 expectations held\n"


def test_check_names_every_failure_with_what_it_saw(tmp_path, capsys):
    body = HEAD + """steps:
  - at: 10
    command: ksandbox fail node node-3
  - at: 30
    expect:
      - {pod: default/gpu-pod, node: node-1}
      - {node: node-3, ready: "Unknown"}
      - {evicted: "default/web-*", by: 30}
      - {workload: deployment/web, pods: 99}
      - {pod: default/nvme-cache, pending: "Insufficient cpu"}
  - at: 100
    expect:
      - {node: node-3, ready: "Unknown", tainted: "node.kubernetes.io/unreachable:NoExecute"}
"""
    path = write(tmp_path, body)
    assert main(["play", path, "--headless", "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"{path}: 1 of 6 expectations held"
    fails = out[:-1]
    assert len(fails) == 5
    assert fails[0].startswith(f"FAIL {path}: steps[1].expect[0] at 30s: pod default/gpu-pod "
                               f"(node: node-1): saw Running on gpu-1")
    assert "steps[1].expect[1]" in fails[1] and fails[1].endswith("saw Ready=True")
    assert "saw no eviction" in fails[2]
    assert "saw 3 (of its pods:" in fails[3] or "saw " in fails[3]
    assert "saw Pending (not bound): 0/" in fails[4]


def test_check_on_a_recording_without_expectations_says_so(tmp_path, capsys):
    path = write(tmp_path, HEAD + "steps:\n  - {at: 1, caption: hello}\n")
    assert main(["play", path, "--headless", "--check"]) == 1
    assert capsys.readouterr().err == (f"error: {path}: nothing to check: the recording has no "
                                       f"expect: blocks\n")


def test_a_step_failing_at_its_time_is_reported_and_play_goes_on(tmp_path, capsys):
    path = write(tmp_path, HEAD + "steps:\n  - {at: 1, command: kubectl cordon node-9}\n"
                 "  - {at: 2, command: kubectl cordon node-1}\n"
                 "  - {at: 3, expect: [{node: node-1, unschedulable: true}]}\n")
    assert main(["play", path, "--headless", "--check"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("at 1s: kubectl cordon node-9\nError from server (NotFound)")
    assert out.endswith("1 of 1 expectations held\n")
