"""``--save-config`` on the commands that build an object themselves: ``kubectl run``,
``kubectl create deployment|job|namespace`` and ``kubectl edit`` (``create -f`` saves the file's
own manifest: apply.py).

kubectl's CreateOrUpdateAnnotation (``pkg/cmd/util/apply.go`` GetModifiedConfiguration) puts
the object's own JSON encoding, without the annotation, in
``kubectl.kubernetes.io/last-applied-configuration``, with json.Encoder's final newline. What
that encoding looks like depends on what kubectl holds:

* run and the create generators hold a typed Go object (a ``v1.Pod``, an ``apps/v1``
  Deployment): the JSON has the Go structs' field order (``kind`` and ``apiVersion`` first,
  ``resources: {}`` in each container, ``status: {}``), maps with sorted keys, and an empty
  ``annotations`` left out (``omitempty``);
* edit holds the edited file as unstructured JSON: every key sorted, and ``annotations: {}``
  when the object has no other annotation (last_applied.applied_manifest).

Not here: the field order of types these generators never produce (their keys come after the
known ones, sorted).
"""

from __future__ import annotations

import copy
from typing import Any

from .last_applied import LAST_APPLIED, annotation_text, applied_manifest, go_json

# The Go structs' JSON field order (k8s.io/api core/v1, apps/v1, batch/v1 and apimachinery
# meta/v1 types.go), for the types run and the create generators fill in.
_OBJECT_META = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
                "generation", "creationTimestamp", "deletionTimestamp",
                "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
                "finalizers", "managedFields")
_CONTAINER = ("name", "image", "command", "args", "workingDir", "ports", "envFrom", "env",
              "resources", "resizePolicy", "restartPolicy", "restartPolicyRules",
              "volumeMounts", "volumeDevices", "livenessProbe", "readinessProbe",
              "startupProbe", "lifecycle", "terminationMessagePath",
              "terminationMessagePolicy", "imagePullPolicy", "securityContext", "stdin",
              "stdinOnce", "tty")
_POD_SPEC = ("volumes", "initContainers", "containers", "ephemeralContainers", "restartPolicy",
             "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy",
             "nodeSelector", "serviceAccountName", "serviceAccount",
             "automountServiceAccountToken", "nodeName", "hostNetwork", "hostPID", "hostIPC",
             "shareProcessNamespace", "securityContext", "imagePullSecrets", "hostname",
             "subdomain", "affinity", "schedulerName", "tolerations", "hostAliases",
             "priorityClassName", "priority", "dnsConfig", "readinessGates",
             "runtimeClassName", "enableServiceLinks", "preemptionPolicy", "overhead",
             "topologySpreadConstraints", "setHostnameAsFQDN", "os", "hostUsers",
             "schedulingGates", "resourceClaims", "resources", "hostnameOverride")
_DEPLOYMENT_SPEC = ("replicas", "selector", "template", "strategy", "minReadySeconds",
                    "revisionHistoryLimit", "paused", "progressDeadlineSeconds")
_JOB_SPEC = ("parallelism", "completions", "activeDeadlineSeconds", "podFailurePolicy",
             "successPolicy", "backoffLimit", "backoffLimitPerIndex", "maxFailedIndexes",
             "selector", "manualSelector", "template", "ttlSecondsAfterFinished",
             "completionMode", "suspend", "podReplacementPolicy", "managedBy")

# A type: (its field order, the type of each field that is a struct or a list of structs).
# A field absent from the second map is a scalar, a map (keys sorted) or a list of those.
_Type = tuple[tuple[str, ...], dict[str, Any]]
_META: _Type = (_OBJECT_META, {})
_ENV: _Type = (("name", "value", "valueFrom"), {})
_PORT: _Type = (("name", "hostPort", "containerPort", "protocol", "hostIP"), {})
_CONTAINER_T: _Type = (_CONTAINER, {"env": _ENV, "ports": _PORT})
_POD_SPEC_T: _Type = (_POD_SPEC, {"containers": _CONTAINER_T, "initContainers": _CONTAINER_T})
_TEMPLATE: _Type = (("metadata", "spec"), {"metadata": _META, "spec": _POD_SPEC_T})
_SELECTOR: _Type = (("matchLabels", "matchExpressions"), {})
_TOP = ("kind", "apiVersion", "metadata", "spec", "status")
_SPECS: dict[str, _Type] = {
    "Pod": _POD_SPEC_T,
    "Deployment": (_DEPLOYMENT_SPEC, {"selector": _SELECTOR, "template": _TEMPLATE}),
    "Job": (_JOB_SPEC, {"selector": _SELECTOR, "template": _TEMPLATE}),
    "Namespace": (("finalizers",), {}),
}


def _ordered(value: Any, typ: _Type | None) -> Any:
    """``value`` with each struct's keys in Go's field order (unknown ones after, sorted) and
    every map's sorted, as encoding/json writes a typed object."""
    if isinstance(value, list):
        return [_ordered(v, typ) for v in value]
    if not isinstance(value, dict):
        return value
    if typ is None:
        return {k: _ordered(value[k], None) for k in sorted(value)}
    order, fields = typ
    rank = {k: i for i, k in enumerate(order)}
    keys = sorted(value, key=lambda k: (rank.get(k, len(order)), k))
    return {k: _ordered(value[k], fields.get(k)) for k in keys}


def typed_annotation(data: dict) -> str:
    """The annotation kubectl writes for a typed object whose JSON (as its generator fills it
    in, without defaults) is ``data``: Go's field order, ``resources: {}`` in each container,
    ``status: {}``; an empty ``annotations`` map is left out."""
    data = copy.deepcopy(data)
    meta = data.setdefault("metadata", {})
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items()
                   if k != LAST_APPLIED}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    kind = data.get("kind", "")
    spec = data.get("spec")
    if isinstance(spec, dict):
        for pod_spec in _pod_specs(kind, spec):
            for c in pod_spec.get("containers") or ():
                c.setdefault("resources", {})
                for env in c.get("env") or ():
                    if isinstance(env, dict) and env.get("value") == "":
                        del env["value"]   # EnvVar.value is omitempty
    if kind == "Deployment" and isinstance(spec, dict):
        spec.setdefault("strategy", {})
        spec.get("template", {}).setdefault("metadata", {})
    if kind == "Job" and isinstance(spec, dict):
        spec.get("template", {}).setdefault("metadata", {})
    if kind == "Namespace":
        data.setdefault("spec", {})
    data.setdefault("status", {})
    typ: _Type = (_TOP, {"metadata": _META, "spec": _SPECS.get(kind)})
    return _typed_json(_ordered(data, typ)) + "\n"


def _pod_specs(kind: str, spec: dict) -> list[dict]:
    if kind == "Pod":
        return [spec]
    template = spec.get("template")
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        return [template["spec"]]
    return []


def _typed_json(value: Any) -> str:
    """go_json with the keys in the order given (last_applied.go_json sorts them)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{go_json(str(k))}:{_typed_json(v)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_typed_json(v) for v in value) + "]"
    return go_json(value)


def with_typed_annotation(data: dict) -> dict:
    """``data`` carrying :func:`typed_annotation` of itself."""
    text = typed_annotation(data)
    out = copy.deepcopy(data)
    out.setdefault("metadata", {}).setdefault("annotations", {})[LAST_APPLIED] = text
    return out


def with_edited_annotation(edited: dict) -> dict:
    """kubectl edit --save-config: the edited object (unstructured) carrying its own JSON,
    every key sorted, ``annotations: {}`` when it has no other."""
    text = annotation_text(applied_manifest(edited, None))
    out = copy.deepcopy(edited)
    meta = out.get("metadata")
    if not isinstance(meta, dict):
        meta = out["metadata"] = {}
    annotations = meta.get("annotations")
    meta["annotations"] = {**(annotations if isinstance(annotations, dict) else {}),
                           LAST_APPLIED: text}
    return out
