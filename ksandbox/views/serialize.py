"""``-o yaml``, ``-o json`` and ``-o name``: objects as kubectl prints them whole.

kubectl turns an object into JSON and JSON into YAML (sigs.k8s.io/yaml), so keys come out
sorted alphabetically at every level; lists of several objects are wrapped in
``{"apiVersion": "v1", "kind": "List", "items": [...], "metadata": {"resourceVersion": ""}}``.
Times — simulated seconds inside the sandbox — are printed as RFC 3339 strings from the fixed
epoch in ``timefmt`` (MicroTime fields such as a Lease's ``renewTime`` with microseconds). JSON is indented by four spaces and escapes ``<``, ``>`` and ``&`` like
Go's encoder (cli-runtime pkg/printers/json.go uses json.MarshalIndent). The name printer
gives ``deployment.apps/web``.

Not here: reading manifests back (``ksandbox.api.manifest``; it accepts these times too).
"""

from __future__ import annotations

import json
from typing import Any, Iterable

import yaml

from ..api.codec import encode
from ..api.kinds import BY_KIND
from .timefmt import rfc3339, rfc3339_micro

# Fields that hold a metav1.Time (simulated seconds inside the sandbox).
TIME_FIELDS = frozenset({
    "creationTimestamp", "deletionTimestamp", "lastHeartbeatTime", "lastTransitionTime",
    "startTime", "timeAdded", "firstTimestamp", "lastTimestamp", "lastScaleTime",
    "lastProbeTime", "lastUpdateTime", "startedAt", "finishedAt",
})
# Fields that hold a metav1.MicroTime (printed with microseconds).
MICRO_TIME_FIELDS = frozenset({"renewTime", "acquireTime", "eventTime"})


def api_times(value: Any) -> Any:
    """Encoded data with its times (simulated seconds) as the API's RFC 3339 strings."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k in TIME_FIELDS:
                out[k] = rfc3339(v)
            elif isinstance(v, (int, float)) and not isinstance(v, bool) \
                    and k in MICRO_TIME_FIELDS:
                out[k] = rfc3339_micro(v)
            else:
                out[k] = api_times(v)
        return out
    if isinstance(value, list):
        return [api_times(v) for v in value]
    return value


def _hpa_version_fields(data: dict) -> dict:
    """An HPA is one stored object served in two versions: ``currentCPUUtilizationPercentage``
    exists only in autoscaling/v1's status (v2 reports ``currentMetrics``), so a v2 object
    does not carry it."""
    if data.get("apiVersion") == "autoscaling/v1":
        return data
    status = data.get("status")
    if isinstance(status, dict) and "currentCPUUtilizationPercentage" in status:
        status = {k: v for k, v in status.items() if k != "currentCPUUtilizationPercentage"}
        data = {**data, "status": status}
    return data


def to_manifest(obj: Any) -> dict:
    """The object as the API would return it: camelCase keys, RFC 3339 times."""
    data = api_times(encode(obj))
    info = BY_KIND.get(obj.kind)
    if info is not None:
        data.setdefault("apiVersion", obj.api_version or info.api_version)
        data.setdefault("kind", obj.kind)
    if obj.kind == "HorizontalPodAutoscaler":
        data = _hpa_version_fields(data)
    return data


def list_of(objects: Iterable[Any]) -> dict:
    return {"apiVersion": "v1", "items": [to_manifest(o) for o in objects], "kind": "List",
            "metadata": {"resourceVersion": ""}}


class _Dumper(yaml.SafeDumper):
    """go-yaml's habits: strings that would read back as another type get double quotes."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    tag = "tag:yaml.org,2002:str"
    if value == "" or dumper.resolve(yaml.ScalarNode, value, (True, False)) != tag:
        return dumper.represent_scalar(tag, value, style='"')
    if "\n" in value:
        return dumper.represent_scalar(tag, value, style="|")
    return dumper.represent_scalar(tag, value)


_Dumper.add_representer(str, _represent_str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=True, default_flow_style=False,
                     allow_unicode=True, width=1 << 30)


def dump_json(data: Any) -> str:
    text = json.dumps(data, indent=4, sort_keys=True, ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text + "\n"


def name_of(obj: Any) -> str:
    """The name printer's ``kind.group/name`` (``pod/web-1``, ``deployment.apps/web``)."""
    return f"{BY_KIND[obj.kind].qualified}/{obj.metadata.name}"


def render(objects: list[Any], output: str, single: bool) -> str:
    """``-o yaml|json|name`` for objects; ``single`` prints one object without a List."""
    if output == "name":
        return "".join(name_of(o) + "\n" for o in objects)
    data = to_manifest(objects[0]) if single and len(objects) == 1 else list_of(objects)
    return dump_yaml(data) if output == "yaml" else dump_json(data)
