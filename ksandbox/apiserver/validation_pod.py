"""Validation of a pod spec (a pod's, or a workload template's): containers, requests and limits,
tolerations, node selectors and affinity, topology spread constraints, host ports.

Upstream ``pkg/apis/core/validation`` (ValidatePodSpec and the helpers it calls), in our words.
``validation.py`` (every kind's rules) and the workload kinds' modules use it; it imports none
of them. Not here: object metadata, the kinds' own fields.
"""

from __future__ import annotations

from typing import Any, Callable

from ..api import validation as v
from ..api.errors import FieldError, Unquoted
from ..api.evolve import by_identity
from ..api.taints import validate_tolerations

Errors = list[FieldError]

# Pods stamped from one template share their labels, tolerations and containers; validating
# each distinct value once keeps loading 150,000 pods fast. The values are immutable.
_CACHE_LIMIT = 4096
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

_NODE_SELECTOR_OPS = ("DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn")
_WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
_POLICIES = ("Honor", "Ignore")


def _quantity_nonneg(res: Any, path: str, errs: Errors) -> None:
    for name, q in res.items():
        # (Cmp against a zero Quantity, as upstream's ValidateNonnegativeQuantity, read off
        # the sign: building the zero cost ~5k instructions a quantity, 12 of them in each
        # Node write a kubelet's registration makes)
        if q.sign() < 0:
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
            if l is None:
                if not overcommit_allowed(name):
                    errs.append(FieldError.required(
                        f"{p}.resources.limits",
                        "Limit must be set for non overcommitable resources"))
            elif q != l and not overcommit_allowed(name):
                # Extended resources and hugepages: a request must equal its limit.
                errs.append(FieldError(f"{p}.resources.requests", str(q),
                                       f"must be equal to {name} limit of {l}"))
            elif q > l:
                errs.append(FieldError(f"{p}.resources.requests", str(q),
                                       f"must be less than or equal to {name} limit of {l}"))
        for field, res in (("requests", req), ("limits", lim)):
            for name, q in res.items():
                if is_extended_resource(name) and q.milli_value() % 1000:
                    errs.append(FieldError(f"{p}.resources.{field}[{name}]", Unquoted(str(q)),
                                           "must be an integer"))
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
        env = c.extra.get("env")
        if env:
            _env(env, f"{p}.env", errs)


# validation.go relaxedEnvVarNameFmtErrMsg (RelaxedEnvironmentVariableValidation, GA in 1.34)
_ENV_NAME_MSG = ("a valid environment variable name must consist only of printable ASCII "
                 "characters other than '='")


def _env(env: Any, path: str, errs: Errors) -> None:
    """ValidateEnv: every variable has a name, of printable ASCII without '=' (the relaxed
    rule, on by default since 1.32 and the only one since 1.34)."""
    if not isinstance(env, (list, tuple)):
        return
    for i, var in enumerate(env):
        name = var.get("name") if hasattr(var, "get") else None
        if not name:
            errs.append(FieldError.required(f"{path}[{i}].name"))
        elif isinstance(name, str) and any(not " " <= ch <= "~" or ch == "=" for ch in name):
            errs.append(FieldError(f"{path}[{i}].name", name, _ENV_NAME_MSG))


def is_native_resource(name: str) -> bool:
    """v1helper.IsNativeResource: no domain prefix, or one under kubernetes.io."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a domain outside kubernetes.io (nvidia.com/gpu), not a
    quota's ``requests.`` name."""
    return not is_native_resource(name) and not name.startswith("requests.")


def overcommit_allowed(name: str) -> bool:
    """v1helper.IsOvercommitAllowed: native resources except hugepages; never an extended
    resource, whose request therefore needs a limit equal to it."""
    return is_native_resource(name) and not name.startswith("hugepages-")


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
    # validateMatchLabelKeysAndMismatchLabelKeys (the keys are merged into the selector by
    # the scheduler here, not by the API server, so only the selector-free and the
    # match-and-mismatch cases can be refused).
    for field, keys in (("matchLabelKeys", term.match_label_keys),
                        ("mismatchLabelKeys", term.mismatch_label_keys)):
        if keys and term.label_selector is None:
            errs.append(FieldError.forbidden(f"{path}.{field}",
                                             "must not be specified when labelSelector is "
                                             "not set"))
            continue
        for i, key in enumerate(keys):
            for msg in v.is_qualified_name(key):
                errs.append(FieldError(f"{path}.{field}[{i}]", key, msg))
    mismatch = set(term.mismatch_label_keys)
    for i, key in enumerate(term.match_label_keys):
        if key in mismatch:
            errs.append(FieldError(f"{path}.matchLabelKeys[{i}]", key,
                                   "exists in both matchLabelKeys and mismatchLabelKeys"))


def _match_label_keys(c: Any, p: str, errs: Errors) -> None:
    """ValidateMatchLabelKeysInTopologySpread: label names, a labelSelector to add them to, and
    no key the labelSelector already uses."""
    keys = c.match_label_keys
    if not keys:
        return
    sel = c.label_selector
    if sel is None:
        errs.append(FieldError.forbidden(f"{p}.matchLabelKeys",
                                         "must not be specified when labelSelector is not set"))
        return
    used = set(sel.match_labels) | {r.key for r in sel.match_expressions}
    for i, key in enumerate(keys):
        for msg in v.is_qualified_name(key):
            errs.append(FieldError(f"{p}.matchLabelKeys[{i}]", key, msg))
        if key in used:
            errs.append(FieldError(f"{p}.matchLabelKeys[{i}]", key,
                                   "exists in both matchLabelKeys and labelSelector"))


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
            # validateMinDomains: both checks apply, each on its own.
            if c.min_domains <= 0:
                errs.append(FieldError(f"{p}.minDomains", c.min_domains,
                                       "must be greater than zero"))
            if c.when_unsatisfiable != "DoNotSchedule":
                errs.append(FieldError(f"{p}.minDomains", c.min_domains,
                                       "can only use minDomains if whenUnsatisfiable="
                                       f"DoNotSchedule, not {c.when_unsatisfiable}"))
        _match_label_keys(c, p, errs)
        for field, val in (("nodeAffinityPolicy", c.node_affinity_policy),
                           ("nodeTaintsPolicy", c.node_taints_policy)):
            if val and val not in _POLICIES:
                errs.append(FieldError.not_supported(f"{p}.{field}", val, _POLICIES))
        pair = (c.topology_key, c.when_unsatisfiable)
        if pair in seen:
            errs.append(FieldError.duplicate(f"{p}", f"{{{c.topology_key}, "
                                                    f"{c.when_unsatisfiable}}}"))
        seen.add(pair)


def _container_errors(containers: Any, init_containers: Any,
                      path: str) -> tuple[FieldError, ...]:
    errs: Errors = []
    seen: set[str] = set()
    _containers(containers, f"{path}.containers", errs, seen)
    _containers(init_containers, f"{path}.initContainers", errs, seen)
    return tuple(errs)


_template_cache: dict[int, tuple[Any, str, tuple[FieldError, ...]]] = {}


def validate_template_spec(spec: Any, path: str, errs: Errors) -> None:
    """validate_pod_spec for a workload's pod template, each template value checked once: a
    controller scaling its ReplicaSet or Deployment writes the same template again and again
    (the spec is immutable, so are its problems)."""
    hit = _template_cache.get(id(spec))
    if hit is None or hit[0] is not spec or hit[1] != path:
        found: Errors = []
        validate_pod_spec(spec, path, found)
        if len(_template_cache) >= _CACHE_LIMIT:
            _template_cache.clear()
        hit = _template_cache[id(spec)] = (spec, path, tuple(found))
    errs.extend(hit[2])


def _toleration_errors(tolerations: Any, path: str) -> tuple[FieldError, ...]:
    """By identity first (pods of a template share the admitted tuple), then by value."""
    return tuple(_cached(_tolerations_cache, (tolerations, path),
                         lambda: validate_tolerations(tolerations, f"{path}.tolerations")))


def dns1123_subdomain_errors(value: str) -> tuple[str, ...]:
    return tuple(v.is_dns1123_subdomain(value))


def dns1123_label_errors(value: str) -> tuple[str, ...]:
    return tuple(v.is_dns1123_label(value))


def validate_pod_spec(spec: Any, path: str, errs: Errors) -> None:
    if not spec.containers:
        errs.append(FieldError.required(f"{path}.containers"))
    # Pods of one template share their container tuples (codec.sharing): checked once.
    errs.extend(by_identity(_container_errors, spec.containers, spec.init_containers, path))
    errs.extend(by_identity(_toleration_errors, spec.tolerations, path))
    for key, val in spec.node_selector.items():
        for msg in v.is_qualified_name(key):
            errs.append(FieldError(f"{path}.nodeSelector", key, msg))
        for msg in v.is_valid_label_value(val):
            errs.append(FieldError(f"{path}.nodeSelector", val, msg))
    if spec.affinity is not None:
        _affinity(spec.affinity, f"{path}.affinity", errs)
    _spread(spec.topology_spread_constraints, f"{path}.topologySpreadConstraints", errs)
    if spec.node_name:
        # by identity: the pods on a node share its name's str (codec.sharing)
        for msg in by_identity(dns1123_subdomain_errors, spec.node_name):
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
    all_ports = [(p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port)
                 for c in spec.init_containers + spec.containers for p in c.ports if p.host_port]
    for hp in all_ports:
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
