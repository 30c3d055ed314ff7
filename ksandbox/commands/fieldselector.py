"""``--field-selector``: the fields the API server lets a list filter on, per kind.

As apimachinery ``pkg/fields`` (ParseSelector: ``k=v``, ``k==v``, ``k!=v`` joined by commas)
and each registry's field set (``pkg/registry/core/pod/strategy.go`` PodToSelectableFields,
``node/strategy.go`` NodeToSelectableFields, ``event/strategy.go``, ``namespace``, ``secret``,
``replicaset``, ``job``): every kind has ``metadata.name`` (and ``metadata.namespace`` when
namespaced); a field the kind does not offer is the API server's 400, ``field label not
supported: spec.foo``.
"""

from __future__ import annotations

from typing import Any, Callable

from ..api.errors import ApiError, CommandError

Getter = Callable[[Any], str]


def _bool(v: Any) -> str:
    return "true" if v else "false"


_POD: dict[str, Getter] = {
    "spec.nodeName": lambda p: p.spec.node_name or "",
    "spec.restartPolicy": lambda p: p.spec.restart_policy or "",
    "spec.schedulerName": lambda p: p.spec.scheduler_name or "",
    "spec.serviceAccountName": lambda p: str(p.spec.extra.get("serviceAccountName") or ""),
    "spec.hostNetwork": lambda p: _bool(p.spec.extra.get("hostNetwork")),
    "status.phase": lambda p: p.status.phase or "",
    "status.podIP": lambda p: str(p.status.extra.get("podIP") or ""),
    "status.nominatedNodeName": lambda p: p.status.nominated_node_name or "",
}
_FIELDS: dict[str, dict[str, Getter]] = {
    "Pod": _POD,
    "Node": {"spec.unschedulable": lambda n: _bool(n.spec.unschedulable)},
    "Namespace": {"status.phase": lambda n: getattr(n.status, "phase", "") or "Active"},
    "ReplicaSet": {"status.replicas": lambda r: str(r.status.replicas or 0)},
    "ReplicationController": {"status.replicas": lambda r: str(r.status.replicas or 0)},
    "Job": {"status.successful": lambda j: str(j.status.succeeded or 0)},
    "Secret": {"type": lambda s: str(getattr(s, "type", "") or "")},
    "Event": {
        "involvedObject.kind": lambda e: e.involved_object.kind,
        "involvedObject.namespace": lambda e: e.involved_object.namespace,
        "involvedObject.name": lambda e: e.involved_object.name,
        "involvedObject.uid": lambda e: e.involved_object.uid,
        "involvedObject.apiVersion": lambda e: e.involved_object.api_version,
        "reason": lambda e: e.reason, "type": lambda e: e.type,
        "source": lambda e: e.source_component,
    },
}


def parse(text: str) -> tuple[tuple[str, str, str], ...]:
    """fields.ParseSelector: (field, operator, value) terms; ``""`` selects everything."""
    out = []
    for term in (t for t in text.split(",") if t):
        for op in ("!=", "==", "="):
            key, sep, value = term.partition(op)
            if sep:
                out.append((key.strip(), "!=" if op == "!=" else "=", value))
                break
        else:
            raise CommandError(f'invalid field selector: "{text}": invalid selector: '
                               f"'{term}'; can't understand '{term}'")
    return tuple(out)


def getter(kind: str, namespaced: bool, field: str) -> Getter | None:
    if field == "metadata.name":
        return lambda o: o.metadata.name
    if field == "metadata.namespace" and namespaced:
        return lambda o: o.metadata.namespace
    return _FIELDS.get(kind, {}).get(field)


def filter_objects(objs: list[Any], info: Any, terms: tuple[tuple[str, str, str], ...],
                   text: str) -> list[Any]:
    if not terms:
        return objs
    checks = []
    group, _, version = info.api_version.rpartition("/")
    resource = f"{group}/{version}, Resource={info.resource}"
    for field, op, value in terms:
        get = getter(info.kind, info.namespaced, field)
        if get is None:
            raise ApiError("BadRequest", f'Unable to find "{resource}" that match label '
                           f'selector "", field selector "{text}": field label not '
                           f"supported: {field}", 400)
        checks.append((get, op, value))
    return [o for o in objs
            if all((g(o) == v) == (op == "=") for g, op, v in checks)]
