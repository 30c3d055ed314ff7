"""``ksandbox export RECORDING --kubectl``: the story as a shell script for a real cluster.

What it prints, in order: the recording's cluster as manifests for ``kubectl apply`` (Nodes and
component configurations are not applied — a real cluster registers its own nodes — they
become comments saying what the story expects of them: names, labels, taints, capacity); then
every step at its time, with ``sleep`` between them to keep the recording's pace: kubectl
commands as they are (stdin as a here-document), captions and markers as comments, and the
sandbox's own verbs (``ksandbox fail node ...``) as comments saying what to do to a real
cluster instead — they are things that happen to a cluster, not things kubectl does.

What it is not: a guarantee. A real cluster's nodes, timings and controllers differ; the script
replays what the user did, not what the sandbox's control plane did in response.
"""

from __future__ import annotations

import shlex
from typing import Any

import yaml

from ..api.errors import ManifestError
from .script import Script

CONFIG_KINDS = ("KubeletConfiguration", "KubeSchedulerConfiguration", "Policy",
                "KubeControllerManagerConfiguration")
# What each sandbox verb stands for on a real cluster (by its first two words).
SANDBOX_HINTS = {
    ("fail", "node"): "stop the kubelet on {0} (or power the machine off); with --not-ready, "
                      "stop its container runtime instead",
    ("recover", "node"): "start the kubelet (and runtime) on {0} again",
    ("pressure", "node"): "drive {0} into {1} pressure (or relieve it): the kubelet reports "
                          "the condition itself",
    ("add", "node"): "join a new node {0} to the cluster (kubeadm join, a node pool scale-up)",
    ("add", "scheduler"): "deploy a second scheduler named {0} (a Deployment running "
                          "kube-scheduler with its own profile)",
    ("load",): "drive {0}'s pods to {1}% CPU with a load generator",
}


def _cluster_documents(rec: Script) -> list[dict]:
    cluster = rec.cluster
    if isinstance(cluster, list):
        return [d for d in cluster if isinstance(d, dict)]
    if isinstance(cluster, str):
        from ..api.safeload import load_yaml_documents, read_source
        from ..resources import sample_cluster_path

        try:
            path = sample_cluster_path(cluster)
        except Exception as exc:
            raise ManifestError(rec.source, None, f"cluster: {exc}") from None
        docs = load_yaml_documents(read_source(str(path)), str(path))
        out: list[dict] = []
        for _, doc in docs:
            if isinstance(doc, dict) and doc.get("kind") == "List":
                out.extend(i for i in doc.get("items") or () if isinstance(i, dict))
            elif isinstance(doc, dict):
                out.append(doc)
        return out
    raise ManifestError(rec.source, None, "cluster: Required value: a sample cluster's name "
                                          "or a list of manifests")


def _node_comment(doc: dict) -> list[str]:
    meta = doc.get("metadata") or {}
    name = meta.get("name", "?")
    out = [f"#   node {name}"]
    labels = meta.get("labels") or {}
    if labels:
        out.append(f"#     kubectl label node {name} --overwrite "
                   + " ".join(f"{k}={v}" for k, v in labels.items()))
    for t in (doc.get("spec") or {}).get("taints") or ():
        if isinstance(t, dict):
            value = f"={t['value']}" if t.get("value") else ""
            out.append(f"#     kubectl taint node {name} {t.get('key')}{value}:{t.get('effect')}")
    capacity = (doc.get("status") or {}).get("capacity") or {}
    if capacity:
        out.append("#     capacity: " + ", ".join(f"{k} {v}" for k, v in capacity.items()))
    return out


def _sandbox_comment(command: str) -> str:
    words = shlex.split(command)[1:]
    hint = None
    for key, text in SANDBOX_HINTS.items():
        if tuple(words[:len(key)]) == key:
            args = words[len(key):]
            try:
                hint = text.format(*args)
            except IndexError:
                hint = None
            break
    return f"# {command}" + (f"\n#   (sandbox verb; on a real cluster: {hint})" if hint else
                             "\n#   (sandbox verb: no kubectl equivalent)")


def _heredoc(stdin: str) -> tuple[str, str]:
    tag = "EOF"
    while tag in stdin.splitlines():
        tag += "_"
    return tag, stdin if stdin.endswith("\n") else stdin + "\n"


def _at(t: float) -> str:
    s = int(t)
    return f"{s // 60:02d}:{s % 60:02d}" + (f".{round((t - s) * 1000):03d}" if t != s else "")


def export_kubectl(rec: Script) -> str:
    """The shell script text (see the module's docstring)."""
    lines = ["#!/bin/sh",
             f"# {rec.title or rec.source}",
             f"# Exported from {rec.source} by `ksandbox export --kubectl`: the recording's "
             f"cluster and steps,",
             "# to replay its story on a real cluster (kubectl's current context). Sleeps keep "
             "the recording's pace.",
             ""]
    docs = _cluster_documents(rec)
    nodes = [d for d in docs if d.get("kind") == "Node"]
    configs = [d for d in docs if d.get("kind") in CONFIG_KINDS]
    objects = [d for d in docs if d not in nodes and d not in configs]
    if nodes:
        lines.append("# The nodes this story expects (a real cluster registers its own: "
                     "name, label and taint yours to match):")
        for d in nodes:
            lines.extend(_node_comment(d))
        lines.append("")
    for d in configs:
        lines.append(f"# Component configuration the sandbox ran with ({d.get('kind')}): "
                     f"set it on the real components")
        lines.extend("#   " + ln for ln in yaml.safe_dump(d, sort_keys=False).splitlines())
        lines.append("")
    if objects:
        lines.append("kubectl apply -f - <<'EOF'")
        lines.append(yaml.safe_dump_all(objects, sort_keys=False).rstrip("\n"))
        lines.append("EOF")
        lines.append("")
    now = 0.0
    if rec.prelude or rec.start:
        lines.append(f"# Before the recording started (at {_at(rec.start)}):")
    for step in rec.prelude:
        now = _emit(lines, step, now)
    if rec.prelude or rec.start:
        if rec.start > now:
            lines.append(f"sleep {rec.start - now:g}")
            now = rec.start
        lines.append("# The recording starts here.")
        lines.append("")
    for step in rec.steps:
        now = _emit(lines, step, now)
    if rec.end_at is not None and rec.end_at > now:
        lines.append(f"sleep {rec.end_at - now:g}")
        lines.append(f"# [{_at(rec.end_at)}] the recording ends")
    return "\n".join(lines).rstrip("\n") + "\n"


def _emit(lines: list[str], step: Any, now: float) -> float:
    if step.at > now:
        lines.append(f"sleep {step.at - now:g}")
        now = step.at
    if step.caption:
        lines.append(f"# [{_at(step.at)}] {step.caption}")
    if step.marker:
        lines.append(f"# [{_at(step.at)}] ── {step.marker} ──")
    if step.command:
        command = step.command.strip()
        if command.split()[0] == "ksandbox":
            lines.append(_sandbox_comment(command))
        elif step.stdin is not None:
            tag, body = _heredoc(step.stdin)
            lines.append(f"{command} <<'{tag}'")
            lines.append(body.rstrip("\n"))
            lines.append(tag)
        else:
            lines.append(command)
    for exp in getattr(step, "expect", ()):
        lines.append(f"#   expect: {exp.describe()}")
    return now
