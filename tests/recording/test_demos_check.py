"""Every shipped recording tells its story and checks it: ``play --headless --check`` holds.

A demo that drifts (a scheduler or controller change that alters what the story shows) fails
here with the expectation that no longer holds and what was seen instead. The stories and
their upstream rules are in each recording's header comment; README.md lists them.
"""

from __future__ import annotations

import pytest

from ksandbox.cli import main
from ksandbox.recording.script import load_script
from ksandbox.resources import data_path

FOLDER = data_path("sample_clusters")
DEMOS = sorted(p.name for p in FOLDER.glob("*.recording.yaml"))
# One recording per story of the seed notes (shared/seeds/README.md), at least.
STORIES = {"gpu-node", "taint-effects", "node-failure", "memory-pressure", "spread",
           "workloads", "manual-scheduling", "schedulers", "autoscaling", "placeholders"}


def test_every_story_has_its_demo():
    assert STORIES <= {name.removesuffix(".recording.yaml") for name in DEMOS}


@pytest.mark.parametrize("name", DEMOS)
def test_every_demo_is_captioned_and_carries_expectations(name):
    rec = load_script(FOLDER / name)
    assert rec.api_version == "ksandbox/v1alpha2"
    assert any(s.caption for s in rec.steps)
    assert sum(len(s.expect) for s in rec.steps) >= 3


@pytest.mark.parametrize("name", DEMOS)
def test_every_demo_passes_its_check(capsys, name):
    code = main(["play", str(FOLDER / name), "--headless", "--check"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "FAIL" not in out and "expectations held" in out


def test_the_readme_lists_every_demo():
    readme = (data_path("sample_clusters").parent / "README.md")
    if not readme.exists():
        pytest.skip("installed without the README")
    text = readme.read_text(encoding="utf-8")
    for name in DEMOS:
        assert f"`{name}`" in text, name
