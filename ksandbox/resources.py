"""Where the files shipped beside the code live: ``themes/`` and ``sample_clusters/``.

In an installed wheel they sit inside the package as ``ksandbox/_data/<name>`` (pyproject's
force-include); in a checkout they are the repository's top-level folders. ``data_path`` tries
the package first, then the checkout, so callers never care which case they are in.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_path(name: str) -> Path:
    """The directory (or file) ``name`` of the shipped data, e.g. ``data_path("themes")``.

    Raises FileNotFoundError when neither the package nor the checkout has it.
    """
    packaged = Path(str(resources.files("ksandbox"))) / "_data" / name
    if packaged.exists():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.exists():
        return checkout
    raise FileNotFoundError(f"ksandbox data {name!r} not found (looked in {packaged} and {checkout})")


def sample_cluster_names() -> list[str]:
    """The built-in sample clusters (scripts and recordings beside them are not clusters)."""
    d = data_path("sample_clusters")
    return sorted(p.name[:-5] for p in d.glob("*.yaml")
                  if not p.name.endswith((".script.yaml", ".recording.yaml")))


def sample_cluster_path(name: str) -> Path:
    """The manifest file of a built-in sample cluster, by name (``default``, ``taints``...)."""
    from .api.errors import KsandboxError

    p = data_path("sample_clusters") / f"{name}.yaml"
    if not p.is_file():
        raise KsandboxError(f'unknown sample cluster "{name}" (known: '
                            f'{", ".join(sample_cluster_names())})')
    return p


def sample_cluster_names() -> list[str]:
    """The built-in sample clusters, by name (``default``, ``taints`` …)."""
    try:
        folder = data_path("sample_clusters")
    except FileNotFoundError:
        return []
    return sorted(p.stem for p in folder.glob("*.yaml"))


def sample_cluster_path(name: str) -> Path:
    """The file of the built-in sample cluster ``name`` (a bare name, or ``name.yaml``).

    Raises FileNotFoundError naming the samples that exist when there is no such sample.
    """
    stem = name[:-5] if name.endswith(".yaml") else name
    try:
        path = data_path("sample_clusters") / f"{stem}.yaml"
    except FileNotFoundError:
        path = None
    if path is None or not path.is_file() or "/" in stem or "\\" in stem:
        known = ", ".join(sample_cluster_names()) or "none"
        raise FileNotFoundError(f'no sample cluster named "{name}" (available: {known})')
    return path
