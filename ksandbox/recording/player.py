"""Recordings: write a session's steps as a versioned YAML log, and play one back.

A recording stores what the user did — commands at simulated seconds — never what the screen
drew, so playback re-runs the control plane and a recording doubles as a regression test
(DESIGN.md §4). The cluster is either the name of a built-in sample or inline manifests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..api.codec import encode
from ..api.errors import ManifestError
from ..api.manifest import decode_object, load_file
from .script import RECORDING_API_VERSION, Script, load_script, run_script


def load_recording_session(path: str | Path) -> tuple[Script, Any]:
    """Read a recording and build the session it starts from (at t=0, nothing run yet)."""
    from ..resources import sample_cluster_path
    from ..session import Session

    rec = load_script(path)
    source = str(path)
    if not rec.is_recording:
        raise ManifestError(source, None, f'kind: expected "Recording" with apiVersion '
                                          f'{RECORDING_API_VERSION}')
    cluster = rec.cluster
    if isinstance(cluster, str):
        try:
            docs = load_file(sample_cluster_path(cluster))
        except ManifestError:
            raise
        except Exception as exc:  # an unknown sample name
            raise ManifestError(source, None, f"cluster: {exc}") from None
        name = cluster
    elif isinstance(cluster, list):
        docs = [decode_object(d, source, None, f"cluster[{i}]") for i, d in enumerate(cluster)]
        name = rec.title or Path(source).stem
    else:
        raise ManifestError(source, None, "cluster: Required value: a sample cluster's name "
                                          "or a list of manifests")
    session = Session.from_documents(docs, seed=rec.seed or 0, name=name)
    return rec, session


def play_headless(session: Any, recording: Script) -> None:
    """Run every step at its time, then let the cluster settle."""
    run_script(session, recording)
    session.settle()


def dump_recording(session: Any, *, title: str = "", cluster: str | None = None,
                   terminal: tuple[int, int] | None = None,
                   captions: list[tuple[float, str]] = ()) -> str:
    """The YAML text of a recording of ``session``'s steps so far.

    ``cluster`` names a built-in sample; without it the session's initial objects are written
    inline, so the recording is self-contained.
    """
    steps: list[dict] = []
    for step in session.history:
        item: dict[str, Any] = {"at": step.at, "command": step.command}
        if step.stdin is not None:
            item["stdin"] = step.stdin
        steps.append(item)
    for at, text in captions:
        steps.append({"at": at, "caption": text})
    steps.sort(key=lambda s: s["at"])
    doc: dict[str, Any] = {
        "apiVersion": RECORDING_API_VERSION,
        "kind": "Recording",
        "title": title or session.name,
        "seed": session.seed,
        # Inline: the initial objects and the component configurations loaded with them
        # (KubeletConfiguration, KubeSchedulerConfiguration, ...), so a replay starts the same.
        "cluster": cluster if cluster is not None
        else [c.data for c in session.cp.configs] + [encode(o) for o in session.initial_objects],
    }
    if terminal is not None:
        doc["terminal"] = {"cols": terminal[0], "rows": terminal[1]}
    doc["steps"] = steps
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
