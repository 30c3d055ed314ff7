"""The wheel carries the themes and sample clusters, and `ksandbox sim` runs from it.

Builds the wheel, installs it (without dependencies) into a fresh virtual environment that
borrows the test environment's third-party packages through a .pth file, and runs the
installed console script on a shipped sample cluster from outside the checkout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist), str(ROOT)], check=True, capture_output=True)
    (wheel,) = dist.glob("ksandbox-*.whl")
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # Third-party packages come from the test environment; ksandbox itself from the wheel.
    (Path(site) / "zz_borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps",
                    "-q", str(wheel)], check=True, capture_output=True)
    return env_dir, tmp


def test_installed_package_comes_from_the_wheel_with_its_data(installed):
    env_dir, tmp = installed
    out = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c",
         "import ksandbox, ksandbox.resources as r; print(ksandbox.__file__); "
         "print(r.data_path('themes')); print(r.sample_cluster_names())"],
        check=True, capture_output=True, text=True, cwd=tmp).stdout.splitlines()
    assert str(env_dir) in out[0]
    assert str(env_dir) in out[1]
    assert "default" in out[2]


def test_installed_console_script_runs_a_sample(installed):
    env_dir, tmp = installed
    code = ("import ksandbox.resources as r; print(r.sample_cluster_path('default'))")
    sample = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], check=True,
                            capture_output=True, text=True, cwd=tmp).stdout.strip()
    proc = subprocess.run([str(env_dir / "bin" / "ksandbox"), "sim", "-f", sample,
                           "--until", "60", "-o", "json"],
                          capture_output=True, text=True, cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout)
    assert {n["name"] for n in state["nodes"]} >= {"control-plane", "node-1", "gpu-1"}
