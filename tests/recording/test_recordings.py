"""Recordings: the shipped demos play headless and deterministically; a session's own steps
written as a recording replay to the same state; a corrupt recording is one clear error."""

from __future__ import annotations

import json

import pytest

from ksandbox.cli import main
from ksandbox.recording.player import dump_recording, load_recording_session, play_headless
from ksandbox.resources import data_path
from ksandbox.session import Session

DEMOS = sorted(p.name for p in data_path("sample_clusters").glob("*.recording.yaml"))


@pytest.mark.parametrize("name", DEMOS)
def test_every_demo_plays_headless_the_same_twice(capsys, name):
    path = str(data_path("sample_clusters") / name)
    assert main(["play", path, "--headless", "-o", "json"]) == 0, capsys.readouterr().err
    first = capsys.readouterr().out
    assert main(["play", path, "--headless", "-o", "json"]) == 0
    assert capsys.readouterr().out == first
    assert json.loads(first)["pods"]


def test_the_gpu_demo_tells_the_classic_story(capsys):
    path = str(data_path("sample_clusters") / "gpu-node.recording.yaml")
    assert main(["play", path, "--headless", "-o", "json"]) == 0
    pods = {p["name"]: p for p in json.loads(capsys.readouterr().out)["pods"]}
    assert pods["ml-server"]["node"] == "node-2"            # nodeSelector after the label
    assert pods["busybox"]["node"] is None                   # no toleration: kept out
    assert "untolerated taint" in pods["busybox"]["message"]
    assert pods["trainer"]["node"] in ("node-2", "gpu-1")    # tolerates: allowed in


def test_a_session_recorded_and_replayed_reaches_the_same_state(tmp_path):
    s = Session.from_files([str(data_path("sample_clusters") / "default.yaml")], seed=3)
    s.run_until(5)
    assert s.submit("kubectl cordon node-1").ok
    s.run_until(20)
    assert s.submit("kubectl scale deployment web --replicas=5").ok
    s.run_until(40)
    assert s.submit("kubectl apply -f -", "apiVersion: v1\nkind: Pod\nmetadata: {name: extra}\n"
                    "spec: {containers: [{name: a, image: busybox}]}\n").ok
    s.run_until(90)
    text = dump_recording(s, title="t")
    path = tmp_path / "r.recording.yaml"
    path.write_text(text)
    rec, replay = load_recording_session(path)
    play_headless_until = 90
    from ksandbox.recording.script import run_script

    run_script(replay, rec)
    replay.run_until(play_headless_until)
    assert replay.view() == s.view()


@pytest.mark.parametrize("body,needle", [
    ("apiVersion: ksandbox/v1alpha1\nkind: Recording\nseed: 1\ncluster: nowhere\nsteps: []\n",
     'no sample cluster named "nowhere"'),
    ("apiVersion: ksandbox/v9\nkind: Recording\ncluster: default\nsteps: []\n",
     "apiVersion: Unsupported value"),
    ("apiVersion: ksandbox/v1alpha1\nkind: Recording\ncluster: default\nsteps:\n  - at: x\n",
     "steps[0].at"),
    ("apiVersion: ksandbox/v1alpha1\nkind: Recording\ncluster: [{kind: Pod}]\nsteps: []\n",
     "apiVersion not set"),
    ("apiVersion: ksandbox/v1alpha1\nkind: Recording\ncluster: default\nseed: many\nsteps: []\n",
     "seed: Invalid value"),
    ("{{{ not yaml", "error converting YAML to JSON"),
])
def test_a_corrupt_recording_is_one_error_line(tmp_path, capsys, body, needle):
    path = tmp_path / "bad.recording.yaml"
    path.write_text(body)
    assert main(["play", str(path), "--headless"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1
    assert needle in err


STORM = """\
apiVersion: ksandbox/v1alpha2
kind: Recording
title: storm
seed: 1
cluster: default
end: 40
steps:
  - at: 5
    command: kubectl apply -f -
    stdin: |
      apiVersion: batch/v1
      kind: CronJob
      metadata: {name: storm}
      spec:
        schedule: "* * * * *"
        jobTemplate:
          spec:
            template:
              spec:
                restartPolicy: Never
                containers: [{name: c, image: busybox}]
  - at: 10
    command: kubectl scale deployment web --replicas=6
"""


def test_headless_play_stops_at_the_recordings_end(tmp_path, capsys):
    """end: is where the user stopped recording and where the player stops; headless play
    stops there too. A cluster that never settles (a CronJob every minute) ran on to the
    horizon: the state printed was at 3,640 s. Without end:, it still settles."""
    path = tmp_path / "storm.recording.yaml"
    path.write_text(STORM)
    assert main(["play", str(path), "--headless", "-o", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["time"] == 40.0
    assert not any(e["time"] > 40.0 for e in state["events"])
    path.write_text(STORM.replace("end: 40\n", ""))
    rec, session = load_recording_session(path)
    play_headless(session, rec)
    assert session.now > 60.0   # no end: the cluster ran on (to settle, or the horizon)
