"""Validation: the API server's refusal of bad objects, in upstream's words.

``validate(store, obj, old=None)`` raises :class:`ValidationError` (``The Pod "x" is invalid:
...``) listing every problem found, as pkg/apis/core/validation and pkg/apis/apps/validation
do. Rules covered: object names, label keys and values, container names and images, requests
not above limits, tolerations and taints, nodeSelector keys, node-affinity operators,
topology spread constraints, host ports, replica counts, selectors matching templates, HPA
bounds, PDB shape, PriorityClass values, VPA enums and bounds.
"""

from __future__ import annotations

from typing import Any, Callable

from ..api import validation as v
from ..api.errors import FieldError, ValidationError
from ..api.taints import validate_taints, validate_tolerations

Errors = list[FieldError]

# pkg/apis/scheduling: user-defined classes may not exceed one billion.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
_NODE_SELECTOR_OPS = ("DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn")
_WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
_POLICIES = ("Honor", "Ignore")


# Pods stamped from one template share their labels, tolerations and containers; validating
# each distinct value once keeps loading 150,000 pods fast. The values are immutable.
_CACHE_LIMIT = 4096
_labels_cache: dict[Any, list[FieldError]] = {}
_tolerations_cache: dict[Any, list[FieldError]] = {}


def _cached(cache: dict, key: Any, compute: Callable[[], list[FieldError]]) -> list[FieldError]:
    try:
        return cache[key]
    except KeyError:
        pass
    except TypeError:  # unhashable (should not happen with frozen values)
        return compute()
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    result = cache[key] = compute()
    return result


def _labels(labels: Any, path: str) -> list[FieldError]:
    if not labels:
        return []
    return _cached(_labels_cache, (labels, path), lambda: v.validate_labels(labels, path))


def validate(store: Any, obj: Any, old: Any = None) -> None:
    errs: Errors = []
    _meta(obj, errs)
    fn = _BY_KIND.get(obj.kind)
    if fn is not None:
        fn(obj, errs)
    if errs:
        raise ValidationError(obj.kind, obj.metadata.name, errs)


def _meta(obj: Any, errs: Errors) -> None:
    name = obj.metadata.name
    if not name:
        errs.append(FieldError.required("metadata.name", "name or generateName is required"))
    else:
        for msg in v.validate_object_name(obj.kind, name):
            errs.append(FieldError("metadata.name", name, msg))
    if obj.metadata.namespace:
        for msg in v.is_dns1123_label(obj.metadata.namespace):
            errs.append(FieldError("metadata.namespace", obj.metadata.namespace, msg))
    errs.extend(_labels(obj.metadata.labels, "metadata.labels"))


def _quantity_nonneg(res: Any, path: str, errs: Errors) -> None:
    for name, q in res.items():
        if q < type(q).from_int(0):
            errs.append(FieldError(f"{path}.{name}", str(q),
                                   "must be greater than or equal to 0"))


def _containers(containers: Any, path: str, errs: Errors, seen: set[str]) -> None:
    for i, c in enumerate(containers):
        p = f"{path}[{i}]"
        if not c.name:
            errs.append(FieldError.required(f"{p}.name"))
        else:
            for msg in v.is_dns1123_label(c.name):
                errs.append(FieldError(f"{p}.name", c.name, msg))
            if c.name in seen:
                errs.append(FieldError.duplicate(f"{p}.name", c.name))
            seen.add(c.name)
        if not c.image:
            errs.append(FieldError.required(f"{p}.image"))
        req, lim = c.resources.requests, c.resources.limits
        _quantity_nonneg(req, f"{p}.resources.requests", errs)
        _quantity_nonneg(lim, f"{p}.resources.limits", errs)
        for name, q in req.items():
            l = lim.get(name)
            if l is not None and q > l:
                errs.append(FieldError(f"{p}.resources.requests", str(q),
                                       f"must be less than or equal to {name} limit of {l}"))
        for j_, port in enumerate(c.ports):
            pp = f"{p}.ports[{j_}]"
            if not 0 < port.container_port < 65536:
                errs.append(FieldError(f"{pp}.containerPort", port.container_port,
                                       "must be between 1 and 65535, inclusive"))
            if port.host_port and not 0 < port.host_port < 65536:
                errs.append(FieldError(f"{pp}.hostPort", port.host_port,
                                       "must be between 1 and 65535, inclusive"))
            if port.protocol and port.protocol not in ("TCP", "UDP", "SCTP"):
                errs.append(FieldError.not_supported(f"{pp}.protocol", port.protocol,
                                                     ("SCTP", "TCP", "UDP")))


def _node_selector_term(term: Any, path: str, errs: Errors) -> None:
    for i, req in enumerate(term.match_expressions):
        p = f"{path}.matchExpressions[{i}]"
        for msg in v.is_qualified_name(req.key):
            errs.append(FieldError(f"{p}.key", req.key, msg))
        _node_requirement(req, p, errs)
    for i, req in enumerate(term.match_fields):
        p = f"{path}.matchFields[{i}]"
        if req.key != "metadata.name":
            errs.append(FieldError.not_supported(f"{p}.key", req.key, ("metadata.name",)))
        if req.operator not in ("In", "NotIn") or len(req.values) != 1:
            errs.append(FieldError(f"{p}.values", list(req.values),
                                   "must be only one value when `operator` is 'In' or "
                                   "'NotIn' for node field selector"))


def _node_requirement(req: Any, p: str, errs: Errors) -> None:
    op = req.operator
    if op not in _NODE_SELECTOR_OPS:
        errs.append(FieldError.not_supported(f"{p}.operator", op, _NODE_SELECTOR_OPS))
    elif op in ("In", "NotIn") and not req.values:
        errs.append(FieldError.required(f"{p}.values",
                                        "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist") and req.values:
        errs.append(FieldError.forbidden(f"{p}.values", "may not be specified when `operator` "
                                                        "is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(req.values) != 1:
            errs.append(FieldError.required(f"{p}.values", "must be specified single value "
                                                           "when `operator` is 'Lt' or 'Gt'"))
        else:
            try:
                int(req.values[0])
            except ValueError:
                errs.append(FieldError(f"{p}.values[0]", req.values[0],
                                       "must be an integer when `operator` is 'Lt' or 'Gt'"))


def validate_node_selector(sel: Any, path: str, errs: Errors) -> None:
    """A required NodeSelector (node affinity, a PersistentVolume's nodeAffinity)."""
    if not sel.node_selector_terms:
        errs.append(FieldError.required(f"{path}.nodeSelectorTerms",
                                        "must have at least one node selector term"))
    for i, term in enumerate(sel.node_selector_terms):
        _node_selector_term(term, f"{path}.nodeSelectorTerms[{i}]", errs)


def _affinity(aff: Any, path: str, errs: Errors) -> None:
    na = aff.node_affinity
    if na is not None:
        if na.required is not None:
            rp = f"{path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            if not na.required.node_selector_terms:
                errs.append(FieldError.required(f"{rp}.nodeSelectorTerms",
                                                "must have at least one node selector term"))
            for i, term in enumerate(na.required.node_selector_terms):
                _node_selector_term(term, f"{rp}.nodeSelectorTerms[{i}]", errs)
        for i, pref in enumerate(na.preferred):
            pp = f"{path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            if not 1 <= pref.weight <= 100:
                errs.append(FieldError(f"{pp}.weight", pref.weight,
                                       "must be in the range 1-100"))
            _node_selector_term(pref.preference, f"{pp}.preference", errs)
    for name, pa in (("podAffinity", aff.pod_affinity), ("podAntiAffinity", aff.pod_anti_affinity)):
        if pa is None:
            continue
        for i, term in enumerate(pa.required):
            tp = f"{path}.{name}.requiredDuringSchedulingIgnoredDuringExecution[{i}]"
            _pod_affinity_term(term, tp, errs)
        for i, w in enumerate(pa.preferred):
            tp = f"{path}.{name}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            if not 1 <= w.weight <= 100:
                errs.append(FieldError(f"{tp}.weight", w.weight, "must be in the range 1-100"))
            _pod_affinity_term(w.pod_affinity_term, f"{tp}.podAffinityTerm", errs)


def _pod_affinity_term(term: Any, path: str, errs: Errors) -> None:
    if not term.topology_key:
        errs.append(FieldError.required(f"{path}.topologyKey",
                                        "can not be empty"))
    else:
        for msg in v.is_qualified_name(term.topology_key):
            errs.append(FieldError(f"{path}.topologyKey", term.topology_key, msg))


def _spread(constraints: Any, path: str, errs: Errors) -> None:
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(constraints):
        p = f"{path}[{i}]"
        if c.max_skew <= 0:
            errs.append(FieldError(f"{p}.maxSkew", c.max_skew, "must be greater than zero"))
        if not c.topology_key:
            errs.append(FieldError.required(f"{p}.topologyKey", "can not be empty"))
        else:
            for msg in v.is_qualified_name(c.topology_key):
                errs.append(FieldError(f"{p}.topologyKey", c.topology_key, msg))
        if c.when_unsatisfiable not in _WHEN_UNSATISFIABLE:
            errs.append(FieldError.not_supported(f"{p}.whenUnsatisfiable", c.when_unsatisfiable,
                                                 _WHEN_UNSATISFIABLE))
        if c.min_domains is not None:
            if c.min_domains <= 0:
                errs.append(FieldError(f"{p}.minDomains", c.min_domains,
                                       "must be greater than 0"))
            elif c.when_unsatisfiable != "DoNotSchedule":
                errs.append(FieldError(f"{p}.minDomains", c.min_domains,
                                       "can only use minDomains if whenUnsatisfiable="
                                       "DoNotSchedule, not ScheduleAnyway"))
        for field, val in (("nodeAffinityPolicy", c.node_affinity_policy),
                           ("nodeTaintsPolicy", c.node_taints_policy)):
            if val and val not in _POLICIES:
                errs.append(FieldError.not_supported(f"{p}.{field}", val, _POLICIES))
        pair = (c.topology_key, c.when_unsatisfiable)
        if pair in seen:
            errs.append(FieldError.duplicate(f"{p}", f"{{{c.topology_key}, "
                                                    f"{c.when_unsatisfiable}}}"))
        seen.add(pair)


def validate_pod_spec(spec: Any, path: str, errs: Errors) -> None:
    if not spec.containers:
        errs.append(FieldError.required(f"{path}.containers"))
    seen: set[str] = set()
    _containers(spec.containers, f"{path}.containers", errs, seen)
    _containers(spec.init_containers, f"{path}.initContainers", errs, seen)
    errs.extend(_cached(_tolerations_cache, (spec.tolerations, path),
                        lambda: validate_tolerations(spec.tolerations, f"{path}.tolerations")))
    for key, val in spec.node_selector.items():
        for msg in v.is_qualified_name(key):
            errs.append(FieldError(f"{path}.nodeSelector", key, msg))
        for msg in v.is_valid_label_value(val):
            errs.append(FieldError(f"{path}.nodeSelector", val, msg))
    if spec.affinity is not None:
        _affinity(spec.affinity, f"{path}.affinity", errs)
    _spread(spec.topology_spread_constraints, f"{path}.topologySpreadConstraints", errs)
    if spec.node_name:
        for msg in v.is_dns1123_subdomain(spec.node_name):
            errs.append(FieldError(f"{path}.nodeName", spec.node_name, msg))
    if spec.restart_policy and spec.restart_policy not in ("Always", "OnFailure", "Never"):
        errs.append(FieldError.not_supported(f"{path}.restartPolicy", spec.restart_policy,
                                             ("Always", "Never", "OnFailure")))
    if spec.termination_grace_period_seconds is not None and \
            spec.termination_grace_period_seconds < 0:
        errs.append(FieldError(f"{path}.terminationGracePeriodSeconds",
                               spec.termination_grace_period_seconds,
                               "must be greater than or equal to 0"))
    seen_ports: set[tuple[str, str, int]] = set()
    for hp in spec.host_ports:
        if hp in seen_ports:
            errs.append(FieldError.duplicate(f"{path}.containers[*].ports", f"{hp[2]}/{hp[1]}"))
        seen_ports.add(hp)
    names = set()
    for i, vol in enumerate(spec.volumes):
        if not vol.name:
            errs.append(FieldError.required(f"{path}.volumes[{i}].name"))
        elif vol.name in names:
            errs.append(FieldError.duplicate(f"{path}.volumes[{i}].name", vol.name))
        names.add(vol.name)


def _pod(pod: Any, errs: Errors) -> None:
    validate_pod_spec(pod.spec, "spec", errs)


def _node(node: Any, errs: Errors) -> None:
    errs.extend(validate_taints(node.spec.taints, "spec.taints"))
    for field, res in (("capacity", node.status.capacity),
                       ("allocatable", node.status.allocatable)):
        _quantity_nonneg(res, f"status.{field}", errs)


def _template(obj: Any, errs: Errors, selector_required: bool = True) -> None:
    spec = obj.spec
    labels = spec.template.metadata.labels
    errs.extend(v.validate_labels(labels, "spec.template.metadata.labels"))
    sel = spec.selector
    if obj.kind == "ReplicationController":
        if sel and any(labels.get(k) != val for k, val in sel.items()):
            errs.append(FieldError("spec.template.metadata.labels", dict(labels),
                                   "`selector` does not match template `labels`"))
    elif sel is None or (not sel.match_labels and not sel.match_expressions):
        if selector_required:
            errs.append(FieldError.required("spec.selector"))
    elif not sel.matches(labels):
        errs.append(FieldError("spec.template.metadata.labels", dict(labels),
                               "`selector` does not match template `labels`"))
    validate_pod_spec(spec.template.spec, "spec.template.spec", errs)
    replicas = getattr(spec, "replicas", None)
    if replicas is not None and replicas < 0:
        errs.append(FieldError("spec.replicas", replicas, "must be greater than or equal to 0"))
    if obj.kind in ("Deployment", "ReplicaSet", "ReplicationController", "DaemonSet"):
        rp = spec.template.spec.restart_policy
        if rp and rp != "Always":
            errs.append(FieldError.not_supported("spec.template.spec.restartPolicy", rp,
                                                 ("Always",)))


def _hpa(hpa: Any, errs: Errors) -> None:
    s = hpa.spec
    if s.min_replicas is not None and s.min_replicas < 1:
        errs.append(FieldError("spec.minReplicas", s.min_replicas,
                               "must be greater than or equal to 1"))
    if s.max_replicas < 1:
        errs.append(FieldError("spec.maxReplicas", s.max_replicas,
                               "must be greater than 0"))
    elif s.min_replicas is not None and s.max_replicas < s.min_replicas:
        errs.append(FieldError("spec.maxReplicas", s.max_replicas,
                               "must be greater than or equal to `minReplicas`"))
    if not s.scale_target_ref.kind:
        errs.append(FieldError.required("spec.scaleTargetRef.kind"))
    if not s.scale_target_ref.name:
        errs.append(FieldError.required("spec.scaleTargetRef.name"))


def _pdb(pdb: Any, errs: Errors) -> None:
    s = pdb.spec
    if s.min_available is not None and s.max_unavailable is not None:
        errs.append(FieldError("spec", None, "minAvailable and maxUnavailable cannot be both set"))
    for field, val in (("minAvailable", s.min_available), ("maxUnavailable", s.max_unavailable)):
        if isinstance(val, int) and val < 0:
            errs.append(FieldError(f"spec.{field}", val, "must be greater than or equal to 0"))
        if isinstance(val, str) and not (val.endswith("%") and val[:-1].isdigit()):
            errs.append(FieldError(f"spec.{field}", val,
                                   "a valid percent string must be a numeric string followed by "
                                   "an ending '%' (e.g. '1%',  or '93%', regex used for "
                                   "validation is '[0-9]+%')"))


def _priority_class(pc: Any, errs: Errors) -> None:
    if pc.value > HIGHEST_USER_DEFINABLE_PRIORITY and not pc.metadata.name.startswith("system-"):
        errs.append(FieldError("value", pc.value, f"maximum allowed value of a user defined "
                                                  f"priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    if pc.preemption_policy and pc.preemption_policy not in ("Never", "PreemptLowerPriority"):
        errs.append(FieldError.not_supported("preemptionPolicy", pc.preemption_policy,
                                             ("Never", "PreemptLowerPriority")))


def _vpa(vpa: Any, errs: Errors) -> None:
    """The VPA CRD's schema enums plus the VPA admission webhook's checks (validateVPA in
    vertical-pod-autoscaler/pkg/admission-controller/resource/vpa/handler.go)."""
    from ..api import vpa as vt

    s = vpa.spec
    ref = s.target_ref
    if ref is None:
        errs.append(FieldError.required("spec.targetRef"))
    else:
        if not ref.kind:
            errs.append(FieldError.required("spec.targetRef.kind"))
        if not ref.name:
            errs.append(FieldError.required("spec.targetRef.name"))
    up = s.update_policy
    if up is not None:
        if up.update_mode and up.update_mode not in vt.UPDATE_MODES:
            errs.append(FieldError.not_supported("spec.updatePolicy.updateMode", up.update_mode,
                                                 vt.UPDATE_MODES))
        if up.min_replicas is not None and up.min_replicas <= 0:
            errs.append(FieldError("spec.updatePolicy.minReplicas", up.min_replicas,
                                   "must be greater than 0"))
    rp = s.resource_policy
    names: set[str] = set()
    for i, cp in enumerate(rp.container_policies if rp is not None else ()):
        p = f"spec.resourcePolicy.containerPolicies[{i}]"
        if not cp.container_name:
            errs.append(FieldError.required(f"{p}.containerName"))
        elif cp.container_name in names:
            errs.append(FieldError.duplicate(f"{p}.containerName", cp.container_name))
        names.add(cp.container_name)
        if cp.mode and cp.mode not in vt.CONTAINER_MODES:
            errs.append(FieldError.not_supported(f"{p}.mode", cp.mode, vt.CONTAINER_MODES))
        if cp.controlled_values and cp.controlled_values not in vt.CONTROLLED_VALUES:
            errs.append(FieldError.not_supported(f"{p}.controlledValues", cp.controlled_values,
                                                 vt.CONTROLLED_VALUES))
        if cp.controlled_values and cp.mode == "Off":
            errs.append(FieldError(f"{p}.controlledValues", cp.controlled_values,
                                   "must not be specified if container scaling mode is Off"))
        for j_, res in enumerate(cp.controlled_resources or ()):
            if res not in vt.CONTROLLABLE_RESOURCES:
                errs.append(FieldError.not_supported(f"{p}.controlledResources[{j_}]", res,
                                                     vt.CONTROLLABLE_RESOURCES))
        _quantity_nonneg(cp.min_allowed, f"{p}.minAllowed", errs)
        _quantity_nonneg(cp.max_allowed, f"{p}.maxAllowed", errs)
        for name, hi in cp.max_allowed.items():
            lo = cp.min_allowed.get(name)
            if lo is not None and hi < lo:
                errs.append(FieldError(f"{p}.maxAllowed.{name}", str(hi),
                                       f"must be greater than or equal to minAllowed {lo}"))


_BY_KIND: dict[str, Callable[[Any, Errors], None]] = {
    "Pod": _pod, "Node": _node,
    "ReplicaSet": _template, "Deployment": _template, "DaemonSet": _template,
    "ReplicationController": _template,
    "HorizontalPodAutoscaler": _hpa, "PodDisruptionBudget": _pdb, "PriorityClass": _priority_class,
    "VerticalPodAutoscaler": _vpa,
}


def _register_object_validators() -> None:
    """The configuration, RBAC, networking, storage and batch kinds' rules live in their own
    modules (validation_objects.py, validation_batch.py)."""
    from .validation_batch import VALIDATORS as batch
    from .validation_objects import VALIDATORS as objects

    _BY_KIND.update(objects)
    _BY_KIND.update(batch)


_register_object_validators()
