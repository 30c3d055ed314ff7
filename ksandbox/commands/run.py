"""``kubectl run NAME --image=IMAGE``: create one Pod.

As ``kubernetes/kubectl`` ``pkg/cmd/run/run.go`` (Complete, Validate, createPod): one
container named after the pod, labels ``run=NAME`` unless ``--labels`` gives others,
``--restart`` Always|OnFailure|Never, ``--env``, ``--port``, ``--annotations``, arguments after
``--`` as the container's ``args`` (``command`` with ``--command``), and ``--overrides`` — a
JSON object merged into the generated pod the way a strategic merge patch would (maps merged
key by key, containers matched by name, other lists replaced). The image name is checked
against the docker reference grammar. Attaching (``-i``, ``-t``, ``--rm``) has no meaning in
the sandbox and is not accepted.

``--dry-run=client`` prints only what kubectl generates (run.go createGeneratedObject sends
nothing): no namespace, no admission defaults, ``status: {}``. ``--dry-run=server`` creates on a
throw-away copy of the store, so admission and validation speak.

Output: ``pod/NAME created``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import attrs

from ..api.codec import decode
from ..api.core import Pod
from ..api.errors import CommandError
from ..sim.rand import SimRandom
from .common import check_output, printed
from .parse import (
    ARRAY,
    BOOL,
    DRY_RUN,
    NAMESPACE,
    OUTPUT,
    STR,
    Flag,
    dry_run_strategy,
    namespace_of,
    parse_flags,
)
from .save_config import with_typed_annotation

if TYPE_CHECKING:
    from ..session import Session

FLAGS = (NAMESPACE, OUTPUT, DRY_RUN, Flag("image", STR, "", ""),
         Flag("labels", STR, "l", ""), Flag("restart", STR, "", "Always"),
         Flag("overrides", STR, "", ""), Flag("env", ARRAY, "", ()),
         Flag("annotations", ARRAY, "", ()), Flag("port", STR, "", ""),
         Flag("command", BOOL, "", False), Flag("image-pull-policy", STR, "", ""),
         Flag("save-config", BOOL, "", False))

# github.com/distribution/reference: the grammar of an image reference.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
IMAGE_REFERENCE = re.compile(rf"(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*"
                             rf"(?::{_TAG})?(?:@{_DIGEST})?")


@attrs.frozen
class RunCommand:
    name: str
    image: str
    namespace: str = "default"
    labels: tuple[tuple[str, str], ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    restart: str = "Always"
    port: int | None = None
    args: tuple[str, ...] = ()
    command: bool = False
    image_pull_policy: str = ""
    overrides: str = ""
    dry_run: str = "none"
    output: str = ""
    save_config: bool = False


def _pairs(values: tuple[str, ...], what: str) -> tuple[tuple[str, str], ...]:
    out = []
    for v in values:
        key, eq, val = v.partition("=")
        if not eq or not key:
            raise CommandError(f"invalid {what}: {v}")
        out.append((key, val))
    return tuple(out)


def _labels(spec: str) -> tuple[tuple[str, str], ...]:
    out = []
    for item in spec.split(","):
        if not item:
            continue
        parts = item.split("=")
        if len(parts) != 2:
            raise CommandError(f"unexpected label spec: {item}")
        if not parts[0]:
            raise CommandError("unexpected empty label key")
        out.append((parts[0], parts[1]))
    return tuple(out)


def parse(tokens: list[str]) -> RunCommand:
    a = parse_flags("run", tokens, FLAGS)
    if not a.has("image"):
        raise CommandError('required flag(s) "image" not set')
    check_output("run", a["output"])
    restart = a["restart"] or "Always"
    if restart not in ("Always", "OnFailure", "Never"):
        raise CommandError(f"invalid restart policy: {restart}, valid values are: Always, "
                           "OnFailure, Never")
    if a["image-pull-policy"] not in ("", "Always", "IfNotPresent", "Never"):
        raise CommandError(f"invalid image pull policy: {a['image-pull-policy']}")
    dry_run = dry_run_strategy(a)
    if not a.positionals or a.args_len_at_dash == 0:
        raise CommandError("NAME is required for run")
    image = a["image"]
    if not image:
        raise CommandError("--image is required")
    if IMAGE_REFERENCE.fullmatch(image) is None:
        raise CommandError(f'invalid image name "{image}": invalid reference format')
    port = None
    if a["port"]:
        # kubectl: strconv.Atoi; past int64 it is Atoi's range error (no huge conversion)
        if not re.fullmatch(r"[+-]?[0-9]+", a["port"]):
            raise CommandError("--port must be a number")
        if len(a["port"].lstrip("+-").lstrip("0")) > 19:
            raise CommandError(f'strconv.Atoi: parsing "{a["port"]}": value out of range')
        port = int(a["port"])
    if a["overrides"]:
        _overrides(a["overrides"])
    return RunCommand(a.positionals[0], image, namespace_of(a), _labels(a["labels"]),
                      _pairs(a["annotations"], "annotation"), _pairs(a["env"], "env"), restart,
                      port, tuple(a.positionals[1:]), a["command"], a["image-pull-policy"],
                      a["overrides"], dry_run, a["output"], a["save-config"])


def _overrides(text: str) -> dict:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"--overrides: invalid JSON: {exc.msg} (at character {exc.pos})") \
            from None
    if not isinstance(data, dict):
        raise CommandError("--overrides: must be a JSON object")
    return data


def merge_patch(base: Any, patch: Any) -> Any:
    """A strategic-merge-like patch: maps merged, ``containers`` merged by name."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, v in patch.items():
            if v is None:
                out.pop(k, None)
            elif k in ("containers", "initContainers") and isinstance(v, list) \
                    and isinstance(out.get(k), list):
                merged = {c.get("name"): c for c in out[k] if isinstance(c, dict)}
                order = [c.get("name") for c in out[k] if isinstance(c, dict)]
                for c in v:
                    name = c.get("name") if isinstance(c, dict) else None
                    if name in merged:
                        merged[name] = merge_patch(merged[name], c)
                    else:
                        merged[name] = c
                        order.append(name)
                out[k] = [merged[n] for n in order]
            else:
                out[k] = merge_patch(out.get(k), v)
        return out
    return patch


def build_pod(cmd: RunCommand, with_namespace: bool = True) -> Pod:
    """The pod kubectl's generator makes; ``with_namespace=False`` leaves the namespace out,
    as kubectl prints it for a client dry run (the namespace only goes with the request).
    ``--save-config`` (not on a client dry run: run.go annotates only what it sends) puts
    the generated pod's own JSON, namespace-less as kubectl holds it, in the last-applied
    annotation."""
    data = generated(cmd)
    if cmd.save_config and cmd.dry_run != "client":
        data = with_typed_annotation(data)
    if with_namespace:
        data["metadata"]["namespace"] = cmd.namespace
    return decode(Pod, data)


def generated(cmd: RunCommand) -> dict:
    """The pod's JSON as run.go's generator and --overrides make it (no namespace)."""
    container: dict[str, Any] = {"name": cmd.name, "image": cmd.image}
    if cmd.env:
        container["env"] = [{"name": k, "value": v} for k, v in cmd.env]
    if cmd.port is not None:
        container["ports"] = [{"containerPort": cmd.port}]
    if cmd.image_pull_policy:
        container["imagePullPolicy"] = cmd.image_pull_policy
    if cmd.args:
        container["command" if cmd.command else "args"] = list(cmd.args)
    metadata: dict[str, Any] = {"name": cmd.name,
                                "labels": dict(cmd.labels) or {"run": cmd.name}}
    if cmd.annotations:
        metadata["annotations"] = dict(cmd.annotations)
    data = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
            "spec": {"containers": [container], "dnsPolicy": "ClusterFirst",
                     "restartPolicy": cmd.restart}}
    if cmd.overrides:
        data = merge_patch(data, _overrides(cmd.overrides))
    return data


def run(session: Session, cmd: RunCommand, stdin: str | None) -> str:
    if cmd.dry_run == "client":
        return printed(build_pod(cmd, with_namespace=False), "created", cmd.output, cmd.dry_run)
    pod = build_pod(cmd)
    store = session.store
    if cmd.dry_run == "none":
        stored = store.create(pod)
    else:
        # Admission and validation on a throw-away copy, as a server dry run would.
        stored = store.fork(lambda: session.now, SimRandom(0)).create(pod)
    return printed(stored, "created", cmd.output, cmd.dry_run)
