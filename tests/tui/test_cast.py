"""``ksandbox play FILE --cast OUT.cast``: the playback as an asciicast v2 file.

The format is checked as asciinema's documentation defines v2 (docs.asciinema.org, "asciicast
v2"): a JSON header line with version 2, width and height, then one JSON array per line —
``[time, code, data]`` with non-decreasing times, "o" for output and "m" for markers. The
frames are replayed through a small terminal model (cursor moves, text; colours dropped), so
the test reads the screens a viewer would see.
"""

from __future__ import annotations

import json
import re

from ksandbox.cli import main

REC = """apiVersion: ksandbox/v1alpha2
kind: Recording
title: cordon and scale
cluster: default
terminal: {cols: 100, rows: 30}
steps:
  - {at: 0, caption: "three workers, nothing cordoned"}
  - {at: 4, command: kubectl cordon node-1}
  - {at: 5, caption: "node-1 takes no new pods"}
  - {at: 10, marker: cordoned}
  - {at: 12, command: kubectl scale deployment web --replicas=5}
  - {at: 20, marker: scaled}
"""

SGR = re.compile(r"\x1b\[[0-9;]*m")
CUP = re.compile(r"\x1b\[(\d+);(\d+)H")


def replay(frames: list[str], width: int, height: int) -> list[str]:
    """The screen after writing ``frames`` to a terminal (cursor moves and text only)."""
    rows = [[" "] * width for _ in range(height)]
    y = x = 0
    for data in frames:
        data = SGR.sub("", data.replace("\x1b[2J", ""))
        pos = 0
        while pos < len(data):
            m = CUP.match(data, pos)
            if m:
                y, x = int(m.group(1)) - 1, int(m.group(2)) - 1
                pos = m.end()
                continue
            if data.startswith("\x1b[H", pos):
                y = x = 0
                pos += 3
                continue
            ch = data[pos]
            pos += 1
            if ch == "\n":
                y, x = y + 1, 0
            elif 0 <= y < height and 0 <= x < width:
                rows[y][x] = ch
                x += 1
    return ["".join(r) for r in rows]


def test_the_cast_is_asciicast_v2_and_its_frames_tell_the_story(tmp_path, capsys):
    rec = tmp_path / "story.recording.yaml"
    rec.write_text(REC)
    out = tmp_path / "story.cast"
    assert main(["play", str(rec), "--cast", str(out), "--speed", "4"]) == 0
    assert "frames to" in capsys.readouterr().err
    lines = out.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    assert head["version"] == 2 and head["width"] == 100 and head["height"] == 30
    assert head["title"] == "cordon and scale"
    events = [json.loads(line) for line in lines[1:]]
    assert all(isinstance(e, list) and len(e) == 3 and isinstance(e[0], (int, float))
               and e[1] in ("o", "m") and isinstance(e[2], str) for e in events)
    times = [e[0] for e in events]
    assert times == sorted(times) and times[0] == 0 and times[-1] == 20 / 4
    # Markers at their times on the cast's clock (recording time / speed).
    assert [(e[0], e[2]) for e in events if e[1] == "m"] == [(2.5, "cordoned"), (5.0, "scaled")]
    outputs = [e for e in events if e[1] == "o"]
    assert outputs[0][2].startswith("\x1b[H\x1b[2J") and len(outputs) > 8

    def screen_at(t: float) -> str:
        return "\n".join(replay([e[2] for e in outputs if e[0] <= t], 100, 30))

    first = screen_at(0)
    assert "T+00:00:00" in first and "“three workers, nothing cordoned”" in first
    assert "⏸ 00:00 / 00:20" in first
    later = screen_at(2.5)
    assert "T+00:00:10" in later and "“node-1 takes no new pods”" in later
    assert "SchedulingDisabled" in later or "cordoned" in later
    last = screen_at(5.0)
    assert "T+00:00:20" in last and "00:20 / 00:20" in last


def test_the_same_recording_gives_the_same_cast(tmp_path, capsys):
    rec = tmp_path / "story.recording.yaml"
    rec.write_text(REC.replace("  - {at: 12, command: kubectl scale deployment web "
                               "--replicas=5}\n  - {at: 20, marker: scaled}\n", ""))
    a, b = tmp_path / "a.cast", tmp_path / "b.cast"
    assert main(["play", str(rec), "--cast", str(a), "--speed", "5"]) == 0
    assert main(["play", str(rec), "--cast", str(b), "--speed", "5"]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_a_cast_into_a_missing_folder_is_one_error_line(tmp_path, capsys):
    rec = tmp_path / "story.recording.yaml"
    rec.write_text(REC)
    assert main(["play", str(rec), "--cast", str(tmp_path / "no" / "x.cast")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --cast") and err.count("\n") == 1
