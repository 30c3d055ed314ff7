"""Where the shipped data lives: themes and sample clusters.

In a wheel they sit inside the package as ``ksandbox/_data/<name>`` (pyproject's force-include);
in a source checkout they are the repository's top-level ``themes/`` and ``sample_clusters/``.
"""

from __future__ import annotations

from pathlib import Path

from .api.errors import KsandboxError

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_path(name: str) -> Path:
    """The directory of shipped data ``name`` ("themes" or "sample_clusters")."""
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / name


def sample_cluster_names() -> list[str]:
    d = data_path("sample_clusters")
    return sorted(p.name[:-5] for p in d.glob("*.yaml")
                  if not p.name.endswith((".script.yaml", ".recording.yaml")))


def sample_cluster_path(name: str) -> Path:
    """The manifest file of a built-in sample cluster, by name (``default``, ``taints``...)."""
    p = data_path("sample_clusters") / f"{name}.yaml"
    if not p.is_file():
        raise KsandboxError(f'unknown sample cluster "{name}" (known: '
                            f'{", ".join(sample_cluster_names())})')
    return p
