"""Validation of the configuration, RBAC, networking and storage kinds, in upstream's words.

Ported rules (``pkg/apis/core/validation/validation.go`` ValidateService, ValidateConfigMap,
ValidateSecret, ValidatePersistentVolume(Claim), ValidateLimitRange, ValidateResourceQuota;
``pkg/apis/rbac/validation/validation.go``; ``pkg/apis/networking/validation``;
``pkg/apis/discovery/validation``; ``pkg/apis/storage/validation``): required fields, enums,
ranges, and the messages of the common mistakes. Not ported: IP-family and ClusterIP
allocation rules, Ingress host wildcard syntax, NetworkPolicy peer rules, quota scope
selectors, immutability on update (an update is validated like a create).

``VALIDATORS`` maps a kind to ``fn(obj, errs)``; ``validation.py`` runs them after the
metadata checks. Workload kinds (StatefulSet, Job, CronJob) are in ``validation_batch.py``.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from typing import Any, Callable

from ..api import validation as v
from ..api.errors import FieldError
from ..api.storage_names import ACCESS_MODES, BINDING_MODES, RECLAIM_POLICIES, RWOP, VOLUME_MODES
from .validation_pod import validate_node_selector

# The RBAC and networking constants are imported inside the functions below that use them:
# those stored-only kinds' modules then load when such an object is first validated, not when
# the sandbox starts (api/kinds.py, KindInfo.type).

Errors = list[FieldError]

# core/v1: what a Service's type, protocol and a ConfigMap key may be.
SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
PROTOCOLS = ("SCTP", "TCP", "UDP")
_CONFIG_KEY_RE = re.compile(r"[-._a-zA-Z0-9]+")
# core validation: ConfigMaps and Secrets are limited to 1 MiB in total (MaxSecretSize).
MAX_DATA_BYTES = 1024 * 1024
QUOTA_SCOPES = ("BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating",
                "PriorityClass", "Terminating")


def config_key_errors(key: str) -> list[str]:
    """IsConfigMapKey: the rule for ConfigMap and Secret data keys."""
    errs = []
    if len(key.encode()) > v.DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(v.max_len_error(v.DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _CONFIG_KEY_RE.fullmatch(key):
        errs.append(v.regex_error("a valid config key must consist of alphanumeric characters, "
                                  "'-', '_' or '.'", "[-._a-zA-Z0-9]+",
                                  "key.name", "KEY_NAME", "key-name"))
    if key == ".":
        errs.append("must not be '.'")
    elif key == "..":
        errs.append("must not be '..'")
    elif key.startswith(".."):
        errs.append("must not start with '..'")
    return errs


def _port_errors(value: Any) -> list[str]:
    if not isinstance(value, int) or not 0 < value < 65536:
        return ["must be between 1 and 65535, inclusive"]
    return []


# -- core ---------------------------------------------------------------------------------------

def _service(svc: Any, errs: Errors) -> None:
    s = svc.spec
    stype = s.type or "ClusterIP"
    if stype not in SERVICE_TYPES:
        errs.append(FieldError.not_supported("spec.type", s.type, SERVICE_TYPES))
    headless = s.cluster_ip == "None"
    if not s.ports and stype != "ExternalName" and not headless:
        errs.append(FieldError.required("spec.ports"))
    if stype == "ExternalName":
        if not s.external_name:
            errs.append(FieldError.required("spec.externalName"))
        else:
            for msg in v.is_dns1123_subdomain(s.external_name.rstrip(".")):
                errs.append(FieldError("spec.externalName", s.external_name, msg))
    names: set[str] = set()
    for i, p in enumerate(s.ports):
        pp = f"spec.ports[{i}]"
        if len(s.ports) > 1 and not p.name:
            errs.append(FieldError.required(f"{pp}.name"))
        elif p.name:
            for msg in v.is_dns1123_label(p.name):
                errs.append(FieldError(f"{pp}.name", p.name, msg))
            if p.name in names:
                errs.append(FieldError.duplicate(f"{pp}.name", p.name))
            names.add(p.name)
        for msg in _port_errors(p.port):
            errs.append(FieldError(f"{pp}.port", p.port, msg))
        if p.protocol and p.protocol not in PROTOCOLS:
            errs.append(FieldError.not_supported(f"{pp}.protocol", p.protocol, PROTOCOLS))
        if isinstance(p.target_port, int) and p.target_port != 0:
            for msg in _port_errors(p.target_port):
                errs.append(FieldError(f"{pp}.targetPort", p.target_port, msg))
        if p.node_port and stype == "ClusterIP":
            errs.append(FieldError.forbidden(f"{pp}.nodePort",
                                             "may not be used when `type` is 'ClusterIP'"))
        elif p.node_port and not 0 < p.node_port < 65536:
            errs.append(FieldError(f"{pp}.nodePort", p.node_port,
                                   "must be between 1 and 65535, inclusive"))
    if s.selector:
        errs.extend(v.validate_labels(s.selector, "spec.selector"))


def _data_keys(data: Any, path: str, errs: Errors) -> int:
    size = 0
    for key, val in data.items():
        for msg in config_key_errors(key):
            errs.append(FieldError(f"{path}[{key}]", key, msg))
        size += len(str(val).encode())
    return size


def _config_map(cm: Any, errs: Errors) -> None:
    size = _data_keys(cm.data, "data", errs)
    size += _data_keys(cm.binary_data, "binaryData", errs)
    for key in cm.binary_data:
        if key in cm.data:
            errs.append(FieldError(f"data[{key}]", key, "duplicate of key present in binaryData"))
    if size > MAX_DATA_BYTES:
        errs.append(FieldError("data", None, f"must have at most {MAX_DATA_BYTES} bytes",
                               kind="Too long"))


# ValidateSecret: the keys each well-known type requires.
_SECRET_REQUIRED = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/ssh-auth": ("ssh-privatekey",),
    "kubernetes.io/tls": ("tls.key", "tls.crt"),
}


def _secret(secret: Any, errs: Errors) -> None:
    size = 0
    for key, val in secret.data.items():
        for msg in config_key_errors(key):
            errs.append(FieldError(f"data[{key}]", key, msg))
        try:
            raw = base64.b64decode(str(val), validate=True)
        except (binascii.Error, ValueError):
            errs.append(FieldError(f"data[{key}]", "<secret contents redacted>",
                                   "must be a base64-encoded value (kubectl's decoder fails "
                                   "with: illegal base64 data)"))
            continue
        size += len(raw)
    size += _data_keys(secret.string_data, "stringData", errs)
    if size > MAX_DATA_BYTES:
        errs.append(FieldError("data", None, f"must have at most {MAX_DATA_BYTES} bytes",
                               kind="Too long"))
    stype = secret.secret_type
    keys = secret.keys()
    if stype == "kubernetes.io/service-account-token":
        if not secret.metadata.annotations.get("kubernetes.io/service-account.name"):
            errs.append(FieldError.required(
                "metadata.annotations[kubernetes.io/service-account.name]"))
    elif stype == "kubernetes.io/basic-auth":
        if "username" not in keys and "password" not in keys:
            errs.append(FieldError.required("data[username]"))
            errs.append(FieldError.required("data[password]"))
    for key in _SECRET_REQUIRED.get(stype, ()):
        if key not in keys:
            errs.append(FieldError.required(f"data[{key}]"))


def _limit_range(lr: Any, errs: Errors) -> None:
    for i, item in enumerate(lr.spec.limits):
        p = f"spec.limits[{i}]"
        if not item.type:
            errs.append(FieldError.required(f"{p}.type"))
        for name, hi in item.max.items():
            lo = item.min.get(name)
            if lo is not None and lo > hi:
                errs.append(FieldError(f"{p}.min[{name}]", str(lo),
                                       f"min value {lo} is greater than max value {hi}"))
        for field, values in (("default", item.default), ("defaultRequest", item.default_request)):
            for name, q in values.items():
                hi = item.max.get(name)
                if hi is not None and q > hi:
                    errs.append(FieldError(f"{p}.{field}[{name}]", str(q),
                                           f"{field} value {q} is greater than max value {hi}"))


def _resource_quota(rq: Any, errs: Errors) -> None:
    for name, q in rq.spec.hard.items():
        if q < type(q).from_int(0):
            errs.append(FieldError(f"spec.hard[{name}]", str(q),
                                   "must be greater than or equal to 0"))
    for i, scope in enumerate(rq.spec.scopes):
        if scope not in QUOTA_SCOPES:
            errs.append(FieldError.not_supported(f"spec.scopes[{i}]", scope, QUOTA_SCOPES))


# -- rbac ---------------------------------------------------------------------------------------

def _rules(rules: Any, namespaced: bool, errs: Errors) -> None:
    for i, r in enumerate(rules):
        p = f"rules[{i}]"
        if not r.verbs:
            errs.append(FieldError.required(f"{p}.verbs", "verbs must contain at least one value"))
        if r.non_resource_urls:
            if namespaced:
                errs.append(FieldError(f"{p}.nonResourceURLs", list(r.non_resource_urls),
                                       "namespaced rules cannot apply to non-resource URLs"))
            if r.api_groups or r.resources:
                errs.append(FieldError(f"{p}.nonResourceURLs", list(r.non_resource_urls),
                                       "rules cannot apply to both regular resources and "
                                       "non-resource URLs"))
            continue
        if not r.api_groups:
            errs.append(FieldError.required(f"{p}.apiGroups",
                                            "resource rules must supply at least one api group"))
        if not r.resources:
            errs.append(FieldError.required(f"{p}.resources",
                                            "resource rules must supply at least one resource"))


def _role(role: Any, errs: Errors) -> None:
    _rules(role.rules, True, errs)


def _cluster_role(role: Any, errs: Errors) -> None:
    _rules(role.rules, False, errs)


def _binding(b: Any, errs: Errors) -> None:
    from ..api.rbac import RBAC_GROUP, SUBJECT_KINDS

    cluster = b.kind == "ClusterRoleBinding"
    ref = b.role_ref
    if ref.api_group != RBAC_GROUP:
        errs.append(FieldError.not_supported("roleRef.apiGroup", ref.api_group, (RBAC_GROUP,)))
    kinds = ("ClusterRole",) if cluster else ("ClusterRole", "Role")
    if ref.kind not in kinds:
        errs.append(FieldError.not_supported("roleRef.kind", ref.kind, kinds))
    if not ref.name:
        errs.append(FieldError.required("roleRef.name"))
    else:
        for msg in v.is_path_segment_name(ref.name):
            errs.append(FieldError("roleRef.name", ref.name, msg))
    for i, s in enumerate(b.subjects):
        p = f"subjects[{i}]"
        if not s.name:
            errs.append(FieldError.required(f"{p}.name"))
        if s.kind == "ServiceAccount":
            if s.api_group:
                errs.append(FieldError.not_supported(f"{p}.apiGroup", s.api_group, ("",)))
            if s.name:
                for msg in v.is_dns1123_subdomain(s.name):
                    errs.append(FieldError(f"{p}.name", s.name, msg))
            if cluster and not s.namespace:
                errs.append(FieldError.required(f"{p}.namespace"))
        elif s.kind in ("User", "Group"):
            if s.api_group != RBAC_GROUP:
                errs.append(FieldError.not_supported(f"{p}.apiGroup", s.api_group, (RBAC_GROUP,)))
        else:
            errs.append(FieldError.not_supported(f"{p}.kind", s.kind, SUBJECT_KINDS))


# -- networking -----------------------------------------------------------------------------------

def _backend(b: Any, path: str, errs: Errors) -> None:
    if not isinstance(b, dict):
        errs.append(FieldError.required(path))
        return
    svc, res = b.get("service"), b.get("resource")
    if svc and res:
        errs.append(FieldError(path, "", "cannot set both resource and service backends"))
    elif not svc and not res:
        errs.append(FieldError(path, "", "resource or service backend is required"))
    elif svc:
        if not svc.get("name"):
            errs.append(FieldError.required(f"{path}.service.name"))
        port = svc.get("port") or {}
        if port.get("name") and port.get("number"):
            errs.append(FieldError(f"{path}.service.port", dict(port),
                                   "cannot set both port name & port number"))
        elif not port.get("name") and not port.get("number"):
            errs.append(FieldError.required(f"{path}.service.port",
                                            "port name or number is required"))
        elif port.get("number") is not None:
            for msg in _port_errors(port.get("number")):
                errs.append(FieldError(f"{path}.service.port.number", port.get("number"), msg))


def _ingress(ing: Any, errs: Errors) -> None:
    from ..api.networking import PATH_TYPES

    s = ing.spec
    if s.default_backend is None and not s.rules:
        errs.append(FieldError("spec", "", "either `defaultBackend` or `rules` must be "
                                           "specified"))
    if s.default_backend is not None:
        _backend(s.default_backend, "spec.defaultBackend", errs)
    for i, rule in enumerate(s.rules):
        if rule.host:
            host = rule.host[2:] if rule.host.startswith("*.") else rule.host
            for msg in v.is_dns1123_subdomain(host):
                errs.append(FieldError(f"spec.rules[{i}].host", rule.host, msg))
        if rule.http is None:
            continue
        if not rule.http.paths:
            errs.append(FieldError.required(f"spec.rules[{i}].http.paths"))
        for k, path in enumerate(rule.http.paths):
            p = f"spec.rules[{i}].http.paths[{k}]"
            if not path.path_type:
                errs.append(FieldError.required(f"{p}.pathType", "pathType must be specified"))
            elif path.path_type not in PATH_TYPES:
                errs.append(FieldError.not_supported(f"{p}.pathType", path.path_type, PATH_TYPES))
            elif path.path_type in ("Exact", "Prefix") and not path.path.startswith("/"):
                errs.append(FieldError(f"{p}.path", path.path, "must be an absolute path"))
            _backend(path.backend, f"{p}.backend", errs)
    for i, tls in enumerate(s.tls):
        for k, host in enumerate(tls.hosts):
            h = host[2:] if host.startswith("*.") else host
            for msg in v.is_dns1123_subdomain(h):
                errs.append(FieldError(f"spec.tls[{i}].hosts[{k}]", host, msg))


def _ingress_class(ic: Any, errs: Errors) -> None:
    ctl = ic.spec.controller
    if not ctl:
        errs.append(FieldError.required("spec.controller"))
    elif "/" not in ctl:
        errs.append(FieldError("spec.controller", ctl, "must be a domain-prefixed path (such as "
                                                      "\"acme.io/foo\")"))


def _network_policy(np: Any, errs: Errors) -> None:
    from ..api.networking import POLICY_TYPES

    if np.spec.pod_selector is not None:
        errs.extend(np.spec.pod_selector.validate("spec.podSelector")
                    if hasattr(np.spec.pod_selector, "validate") else [])
    for i, t in enumerate(np.spec.policy_types):
        if t not in POLICY_TYPES:
            errs.append(FieldError.not_supported(f"spec.policyTypes[{i}]", t, POLICY_TYPES))


_ADDRESS_CHECK = {"IPv4": ipaddress.IPv4Address, "IPv6": ipaddress.IPv6Address}


def _endpoint_slice(es: Any, errs: Errors) -> None:
    from ..api.networking import ADDRESS_TYPES

    at = es.address_type
    if not at:
        errs.append(FieldError.required("addressType"))
    elif at not in ADDRESS_TYPES:
        errs.append(FieldError.not_supported("addressType", at, ADDRESS_TYPES))
    for i, ep in enumerate(es.endpoints):
        p = f"endpoints[{i}].addresses"
        if not ep.addresses:
            errs.append(FieldError.required(p, "must contain at least 1 address"))
        elif len(ep.addresses) > 100:
            errs.append(FieldError(p, len(ep.addresses), "must have at most 100 items",
                                   kind="Too many"))
        check = _ADDRESS_CHECK.get(at)
        for k, addr in enumerate(ep.addresses):
            if check is None:
                continue
            try:
                check(addr)
            except ValueError:
                errs.append(FieldError(f"{p}[{k}]", addr, f"must be a valid {at} address"))
    for i, port in enumerate(es.ports):
        if port.protocol and port.protocol not in PROTOCOLS:
            errs.append(FieldError.not_supported(f"ports[{i}].protocol", port.protocol,
                                                 PROTOCOLS))
        if port.port is not None:
            for msg in _port_errors(port.port):
                errs.append(FieldError(f"ports[{i}].port", port.port, msg))


# -- storage ----------------------------------------------------------------------------------------

def _access_modes(modes: Any, path: str, errs: Errors, required_detail: str = "") -> None:
    if not modes:
        errs.append(FieldError.required(path, required_detail))
    for m in modes:
        if m not in ACCESS_MODES:
            errs.append(FieldError.not_supported(path, m, ACCESS_MODES))
    if RWOP in modes and len(modes) > 1:
        errs.append(FieldError.forbidden(path, "may not use ReadWriteOncePod with other access "
                                               "modes"))


def _class_name(name: Any, path: str, errs: Errors) -> None:
    if name:
        for msg in v.is_dns1123_subdomain(name):
            errs.append(FieldError(path, name, msg))


def _persistent_volume(pv: Any, errs: Errors) -> None:
    s = pv.spec
    if not s.capacity:
        errs.append(FieldError.required("spec.capacity"))
    elif "storage" not in s.capacity or len(s.capacity) > 1:
        errs.append(FieldError.not_supported("spec.capacity", sorted(s.capacity), ("storage",)))
    else:
        q = s.capacity["storage"]
        if q < type(q).from_int(0):
            errs.append(FieldError("spec.capacity[storage]", str(q),
                                   "must be greater than or equal to 0"))
    _access_modes(s.access_modes, "spec.accessModes", errs)
    policy = s.persistent_volume_reclaim_policy
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(FieldError.not_supported("spec.persistentVolumeReclaimPolicy", policy,
                                             RECLAIM_POLICIES))
    if s.volume_mode and s.volume_mode not in VOLUME_MODES:
        errs.append(FieldError.not_supported("spec.volumeMode", s.volume_mode, VOLUME_MODES))
    _class_name(s.storage_class_name, "spec.storageClassName", errs)
    sources = s.source_kinds()
    if not sources:
        errs.append(FieldError.required("spec", "must specify a volume type"))
    for extra in sources[1:]:
        errs.append(FieldError.forbidden(f"spec.{extra}", "may not specify more than 1 volume "
                                                          "type"))
    if "local" in sources and (s.node_affinity is None or s.node_affinity.required is None):
        errs.append(FieldError.required("spec.nodeAffinity", "Local volume requires node "
                                                             "affinity"))
    if s.node_affinity is not None and s.node_affinity.required is not None:
        validate_node_selector(s.node_affinity.required, "spec.nodeAffinity.required", errs)


def validate_claim_spec(s: Any, path: str, errs: Errors) -> None:
    """ValidatePersistentVolumeClaimSpec (also used for StatefulSet volumeClaimTemplates)."""
    _access_modes(s.access_modes, f"{path}.accessModes", errs,
                  "at least 1 access mode is required")
    storage = s.resources.requests.get("storage")
    if storage is None:
        errs.append(FieldError.required(f"{path}.resources[storage]"))
    elif storage <= type(storage).from_int(0):
        errs.append(FieldError(f"{path}.resources.requests[storage]", str(storage),
                               "must be greater than zero"))
    _class_name(s.storage_class_name, f"{path}.storageClassName", errs)
    if s.volume_mode and s.volume_mode not in VOLUME_MODES:
        errs.append(FieldError.not_supported(f"{path}.volumeMode", s.volume_mode, VOLUME_MODES))


def _persistent_volume_claim(pvc: Any, errs: Errors) -> None:
    validate_claim_spec(pvc.spec, "spec", errs)


def _storage_class(sc: Any, errs: Errors) -> None:
    if not sc.provisioner:
        errs.append(FieldError.required("provisioner"))
    else:
        for msg in v.is_qualified_name(sc.provisioner.lower()):
            errs.append(FieldError("provisioner", sc.provisioner, msg))
    if sc.reclaim_policy and sc.reclaim_policy not in ("Delete", "Retain"):
        errs.append(FieldError.not_supported("reclaimPolicy", sc.reclaim_policy,
                                             ("Delete", "Retain")))
    if sc.volume_binding_mode and sc.volume_binding_mode not in BINDING_MODES:
        errs.append(FieldError.not_supported("volumeBindingMode", sc.volume_binding_mode,
                                             BINDING_MODES))


def _controller_revision(cr: Any, errs: Errors) -> None:
    if cr.data is None:
        errs.append(FieldError.required("data", "data is mandatory"))
    if cr.revision < 0:
        errs.append(FieldError("revision", cr.revision, "must be greater than or equal to 0"))


VALIDATORS: dict[str, Callable[[Any, Errors], None]] = {
    "Service": _service, "ConfigMap": _config_map, "Secret": _secret,
    "LimitRange": _limit_range, "ResourceQuota": _resource_quota,
    "Role": _role, "ClusterRole": _cluster_role, "RoleBinding": _binding,
    "ClusterRoleBinding": _binding, "Ingress": _ingress, "IngressClass": _ingress_class,
    "NetworkPolicy": _network_policy, "EndpointSlice": _endpoint_slice,
    "PersistentVolume": _persistent_volume, "PersistentVolumeClaim": _persistent_volume_claim,
    "StorageClass": _storage_class, "ControllerRevision": _controller_revision,
}
