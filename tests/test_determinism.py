"""Same manifests + same commands at the same simulated times + same seed → the same output,
byte for byte (DESIGN.md §1). Runs every sample cluster through the real CLI twice."""

from __future__ import annotations

import pytest

from ksandbox.cli import main
from ksandbox.resources import data_path, sample_cluster_names


def sim(capsys, *args: str) -> str:
    assert main(["sim", *args]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


@pytest.mark.parametrize("name", sample_cluster_names())
def test_every_sample_runs_the_same_twice(capsys, name):
    path = str(data_path("sample_clusters") / f"{name}.yaml")
    script = data_path("sample_clusters") / f"{name}.script.yaml"
    args = ["-f", path, "--seed", "7", "-o", "json"]
    if script.exists():
        args += ["--script", str(script)]
    first = sim(capsys, *args)
    second = sim(capsys, *args)
    assert first == second


@pytest.mark.parametrize("name", sample_cluster_names())
def test_every_sample_prints_a_readable_wide_view(capsys, name):
    path = str(data_path("sample_clusters") / f"{name}.yaml")
    out = sim(capsys, "-f", path, "--until", "120", "-o", "wide")
    assert "NAME" in out and "STATUS" in out
