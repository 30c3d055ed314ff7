"""Where the files shipped beside the code live: ``themes/`` and ``sample_clusters/``.

In an installed wheel they sit inside the package as ``ksandbox/_data/<name>`` (pyproject's
force-include); in a checkout they are the repository's top-level folders. ``data_path`` tries
the package first, then the checkout, so callers never care which case they are in.
"""

from __future__ import annotations

from pathlib import Path

from .api.errors import KsandboxError


def data_path(name: str) -> Path:
    """The directory (or file) ``name`` of the shipped data, e.g. ``data_path("themes")``.

    Raises FileNotFoundError when neither the package nor the checkout has it.
    """
    # The package's own directory (what importlib.resources.files("ksandbox") names for an
    # installed package; that module costs start-up time and is needed for nothing else).
    packaged = Path(__file__).resolve().parent / "_data" / name
    if packaged.exists():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.exists():
        return checkout
    raise FileNotFoundError(f"ksandbox data {name!r} not found (looked in {packaged} and {checkout})")


class SampleNotFound(KsandboxError, FileNotFoundError):
    """No built-in sample of that name (a KsandboxError, so the CLI prints one line)."""


def sample_cluster_names() -> list[str]:
    """The built-in sample clusters, by name (scripts and recordings beside them excluded)."""
    try:
        folder = data_path("sample_clusters")
    except FileNotFoundError:
        return []
    return sorted(p.name[:-5] for p in folder.glob("*.yaml")
                  if not p.name.endswith((".script.yaml", ".recording.yaml")))


def sample_cluster_path(name: str) -> Path:
    """The file of the built-in sample cluster ``name`` (a bare name, or ``name.yaml``)."""
    stem = name[:-5] if name.endswith(".yaml") else name
    try:
        path: Path | None = data_path("sample_clusters") / f"{stem}.yaml"
    except FileNotFoundError:
        path = None
    if path is None or not path.is_file() or "/" in stem or "\\" in stem \
            or stem not in sample_cluster_names():
        known = ", ".join(sample_cluster_names()) or "none"
        raise SampleNotFound(f'no sample cluster named "{name}" (available: {known})')
    return path
