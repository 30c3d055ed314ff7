"""``kubectl get`` tables for Services, configuration, RBAC, networking, storage, batch and
StatefulSets, and the cluster plumbing a real export carries.

Columns and cells follow ``pkg/printers/internalversion/printers.go`` (printService,
printConfigMap, printSecret, printServiceAccount, printEndpoints, printLimitRange,
printResourceQuota, printPodTemplate, printRole, printRoleBinding, printClusterRoleBinding,
printIngress, printIngressClass, printNetworkPolicy, printEndpointSlice,
printPersistentVolume, printPersistentVolumeClaim, printStorageClass, printCSIDriver,
printCSINode, printVolumeAttachment, printStatefulSet, printControllerRevision, printJob,
printCronJob, printMutatingWebhook, printValidatingWebhook, printRuntimeClass,
printFlowSchema, printPriorityLevelConfiguration, printCertificateSigningRequest) and the
CRD/APIService server-side columns. ``printers.py`` merges :data:`TABLES` into its own.

Pure: objects and a ``now`` in, cells out.
"""

from __future__ import annotations

from typing import Any, Callable

from ..api.storage_names import access_modes_string
from .age import age, human_duration
from .timefmt import rfc3339

NONE = "<none>"
UNSET = "<unset>"


def _labels(labels: Any) -> str:
    if not labels:
        return NONE
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def _sel(sel: Any) -> str:
    if sel is None:
        return NONE
    return str(sel) or NONE


def _created_at(obj: Any, now: float, wide: bool = False) -> list[str]:
    return [obj.metadata.name, rfc3339(obj.metadata.creation_timestamp)]


def _containers_images(spec: Any) -> list[str]:
    return [",".join(c.name for c in spec.containers), ",".join(c.image for c in spec.containers)]


def _more(items: list[str], limit: int) -> str:
    if len(items) <= limit:
        return ",".join(items)
    return ",".join(items[:limit]) + f" + {len(items) - limit} more..."


# -- core --------------------------------------------------------------------------------------

def service_external_ip(svc: Any) -> str:
    """getServiceExternalIP."""
    s = svc.spec
    t = s.type or "ClusterIP"
    if t in ("ClusterIP", "NodePort"):
        return ",".join(s.external_ips) if s.external_ips else NONE
    if t == "ExternalName":
        return s.external_name
    ingress = (svc.status or {}).get("loadBalancer", {}).get("ingress") or () \
        if isinstance(svc.status, dict) else ()
    ips = [i.get("ip") or i.get("hostname") or "" for i in ingress] + list(s.external_ips)
    ips = [i for i in ips if i]
    return ",".join(ips) if ips else "<pending>"


def service_ports(svc: Any) -> str:
    """makePortString."""
    parts = []
    for p in svc.spec.ports:
        proto = p.protocol or "TCP"
        parts.append(f"{p.port}:{p.node_port}/{proto}" if p.node_port else f"{p.port}/{proto}")
    return ",".join(parts) if parts else NONE


def _service_row(svc: Any, now: float, wide: bool) -> list[str]:
    s = svc.spec
    ip = s.cluster_ips[0] if s.cluster_ips else (s.cluster_ip or NONE)
    cells = [svc.metadata.name, s.type or "ClusterIP", ip, service_external_ip(svc),
             service_ports(svc), age(svc.metadata.creation_timestamp, now)]
    if wide:
        cells.append(_labels(s.selector))
    return cells


def _configmap_row(cm: Any, now: float, wide: bool) -> list[str]:
    return [cm.metadata.name, str(len(cm.data) + len(cm.binary_data)),
            age(cm.metadata.creation_timestamp, now)]


def _secret_row(s: Any, now: float, wide: bool) -> list[str]:
    return [s.metadata.name, s.secret_type, str(len(s.keys())),
            age(s.metadata.creation_timestamp, now)]


def _sa_row(sa: Any, now: float, wide: bool) -> list[str]:
    return [sa.metadata.name, str(len(sa.secrets)), age(sa.metadata.creation_timestamp, now)]


def format_endpoints(ep: Any) -> str:
    """formatEndpoints: ip:port pairs, three at most then "+ N more..."."""
    pairs = []
    for subset in ep.subsets:
        addrs = [a.get("ip", "") for a in subset.get("addresses") or ()]
        ports = [p.get("port") for p in subset.get("ports") or ()]
        for a in addrs:
            if ports:
                pairs.extend(f"{a}:{p}" for p in ports)
            else:
                pairs.append(a)
    return _more(pairs, 3) if pairs else NONE


def _endpoints_row(ep: Any, now: float, wide: bool) -> list[str]:
    return [ep.metadata.name, format_endpoints(ep), age(ep.metadata.creation_timestamp, now)]


def _quota_row(rq: Any, now: float, wide: bool) -> list[str]:
    req, lim = [], []
    hard = rq.status.hard or rq.spec.hard
    for name in sorted(hard):
        used = rq.status.used.get(name)
        text = f"{name}: {used if used is not None else 0}/{hard[name]}"
        (lim if name.startswith("limits.") else req).append(text)
    return [rq.metadata.name, age(rq.metadata.creation_timestamp, now), ", ".join(req),
            ", ".join(lim)]


def _pod_template_row(pt: Any, now: float, wide: bool) -> list[str]:
    return [pt.metadata.name] + _containers_images(pt.template.spec) + \
        [_labels(pt.template.metadata.labels)]


# -- rbac -----------------------------------------------------------------------------------------

def _binding_row(b: Any, now: float, wide: bool) -> list[str]:
    cells = [b.metadata.name, f"{b.role_ref.kind}/{b.role_ref.name}",
             age(b.metadata.creation_timestamp, now)]
    if wide:
        users = [s.name for s in b.subjects if s.kind == "User"]
        groups = [s.name for s in b.subjects if s.kind == "Group"]
        sas = [f"{s.namespace}/{s.name}" for s in b.subjects if s.kind == "ServiceAccount"]
        cells += [", ".join(users), ", ".join(groups), ", ".join(sas)]
    return cells


# -- networking -------------------------------------------------------------------------------------

def _ingress_row(ing: Any, now: float, wide: bool) -> list[str]:
    s = ing.spec
    hosts = [r.host for r in s.rules if r.host]
    hosts_text = _more(hosts, 4) if hosts else "*"
    status = ing.status if isinstance(ing.status, dict) else {}
    lb = (status.get("loadBalancer") or {}).get("ingress") or ()
    address = ",".join(i.get("ip") or i.get("hostname") or "" for i in lb)
    ports = "80, 443" if s.tls else "80"
    return [ing.metadata.name, s.ingress_class_name or NONE, hosts_text, address, ports,
            age(ing.metadata.creation_timestamp, now)]


def _ingress_class_row(ic: Any, now: float, wide: bool) -> list[str]:
    p = ic.spec.parameters
    params = NONE
    if isinstance(p, dict):
        params = p.get("kind", "")
        if p.get("apiGroup"):
            params += "." + p["apiGroup"]
        params += "/" + p.get("name", "")
    return [ic.metadata.name, ic.spec.controller, params, age(ic.metadata.creation_timestamp, now)]


def _netpol_row(np: Any, now: float, wide: bool) -> list[str]:
    return [np.metadata.name, _sel(np.spec.pod_selector), age(np.metadata.creation_timestamp, now)]


def _endpointslice_row(es: Any, now: float, wide: bool) -> list[str]:
    ports = [str(p.port) for p in es.ports if p.port is not None]
    addrs = [a for ep in es.endpoints for a in ep.addresses]
    return [es.metadata.name, es.address_type, ",".join(ports) if ports else UNSET,
            _more(addrs, 3) if addrs else UNSET, age(es.metadata.creation_timestamp, now)]


# -- storage ------------------------------------------------------------------------------------------

def _pv_row(pv: Any, now: float, wide: bool) -> list[str]:
    s = pv.spec
    claim = f"{s.claim_ref.namespace}/{s.claim_ref.name}" if s.claim_ref is not None else ""
    phase = "Terminating" if pv.metadata.deletion_timestamp is not None else pv.status.phase
    storage = s.capacity.get("storage")
    cells = [pv.metadata.name, str(storage) if storage is not None else "",
             access_modes_string(s.access_modes), s.persistent_volume_reclaim_policy, phase,
             claim, s.storage_class_name, s.volume_attributes_class_name or UNSET,
             pv.status.reason, age(pv.metadata.creation_timestamp, now)]
    if wide:
        cells.append(s.volume_mode or "Filesystem")
    return cells


def _pvc_row(pvc: Any, now: float, wide: bool) -> list[str]:
    s, st = pvc.spec, pvc.status
    phase = "Terminating" if pvc.metadata.deletion_timestamp is not None else st.phase
    storage, modes = "", ""
    if s.volume_name:
        q = st.capacity.get("storage")
        storage = str(q) if q is not None else ""
        modes = access_modes_string(st.access_modes)
    cells = [pvc.metadata.name, phase, s.volume_name, storage, modes,
             s.storage_class_name or "", s.volume_attributes_class_name or UNSET,
             age(pvc.metadata.creation_timestamp, now)]
    if wide:
        cells.append(s.volume_mode or "Filesystem")
    return cells


def _bool(v: Any) -> str:
    return "true" if v else "false"


def _sc_row(sc: Any, now: float, wide: bool) -> list[str]:
    name = sc.metadata.name + (" (default)" if sc.is_default else "")
    return [name, sc.provisioner, sc.reclaim_policy or "Delete", sc.binding_mode,
            _bool(sc.allow_volume_expansion), age(sc.metadata.creation_timestamp, now)]


def _csidriver_row(d: Any, now: float, wide: bool) -> list[str]:
    s = d.spec if isinstance(d.spec, dict) else {}
    tokens = s.get("tokenRequests") or ()
    modes = s.get("volumeLifecycleModes") or ()
    return [d.metadata.name, _bool(s.get("attachRequired", True)),
            _bool(s.get("podInfoOnMount", False)), _bool(s.get("storageCapacity", False)),
            ",".join(t.get("audience", "") for t in tokens) if tokens else NONE,
            _bool(s.get("requiresRepublish", False)),
            ",".join(modes) if modes else "Persistent", age(d.metadata.creation_timestamp, now)]


def _csinode_row(n: Any, now: float, wide: bool) -> list[str]:
    drivers = (n.spec or {}).get("drivers") or () if isinstance(n.spec, dict) else ()
    return [n.metadata.name, str(len(drivers)), age(n.metadata.creation_timestamp, now)]


def _attachment_row(va: Any, now: float, wide: bool) -> list[str]:
    s = va.spec if isinstance(va.spec, dict) else {}
    st = va.status if isinstance(va.status, dict) else {}
    return [va.metadata.name, s.get("attacher", ""),
            (s.get("source") or {}).get("persistentVolumeName", ""), s.get("nodeName", ""),
            _bool(st.get("attached", False)), age(va.metadata.creation_timestamp, now)]


# -- workloads ----------------------------------------------------------------------------------------

def _statefulset_row(sts: Any, now: float, wide: bool) -> list[str]:
    desired = sts.spec.replicas if sts.spec.replicas is not None else 1
    cells = [sts.metadata.name, f"{sts.status.ready_replicas}/{desired}",
             age(sts.metadata.creation_timestamp, now)]
    if wide:
        cells += _containers_images(sts.spec.template.spec)
    return cells


def _revision_row(cr: Any, now: float, wide: bool) -> list[str]:
    ref = cr.metadata.controller_ref()
    controller = NONE
    if ref is not None:
        group = ref.api_version.split("/")[0] if "/" in ref.api_version else ""
        kind = ref.kind.lower() + (f".{group}" if group else "")
        controller = f"{kind}/{ref.name}"
    return [cr.metadata.name, controller, str(cr.revision), age(cr.metadata.creation_timestamp,
                                                                now)]


def job_status(job: Any) -> str:
    """printJob's STATUS column."""
    finished = job.status.finished()
    if finished:
        return finished
    if job.metadata.deletion_timestamp is not None:
        return "Terminating"
    for t in ("FailureTarget", "SuccessCriteriaMet"):
        c = job.status.condition(t)
        if c is not None and c.status == "True":
            return t
    if job.spec.suspend:
        return "Suspended"
    return "Running"


def job_completions(job: Any) -> str:
    s = job.spec
    if s.completions is not None:
        return f"{job.status.succeeded}/{s.completions}"
    if (s.parallelism or 0) > 1:
        return f"{job.status.succeeded}/1 of {s.parallelism}"
    return f"{job.status.succeeded}/1"


def job_duration(job: Any, now: float) -> str:
    start = job.status.start_time
    if not isinstance(start, (int, float)):
        return ""
    end = job.status.completion_time
    end = end if isinstance(end, (int, float)) else now
    return human_duration(max(0.0, end - start))


def _job_row(job: Any, now: float, wide: bool) -> list[str]:
    cells = [job.metadata.name, job_status(job), job_completions(job), job_duration(job, now),
             age(job.metadata.creation_timestamp, now)]
    if wide:
        cells += _containers_images(job.spec.template.spec) + [_sel(job.spec.selector)]
    return cells


def _cronjob_row(cj: Any, now: float, wide: bool) -> list[str]:
    s = cj.spec
    last = cj.status.last_schedule_time
    cells = [cj.metadata.name, s.schedule, s.time_zone or NONE,
             "True" if s.suspend else "False", str(len(cj.status.active)),
             age(last, now) if isinstance(last, (int, float)) else NONE,
             age(cj.metadata.creation_timestamp, now)]
    if wide:
        js = s.job_template.spec
        cells += _containers_images(js.template.spec) + [_sel(js.selector)]
    return cells


# -- cluster plumbing -------------------------------------------------------------------------------

def _webhook_row(w: Any, now: float, wide: bool) -> list[str]:
    return [w.metadata.name, str(len(w.webhooks)), age(w.metadata.creation_timestamp, now)]


def _apiservice_row(a: Any, now: float, wide: bool) -> list[str]:
    spec = a.spec if isinstance(a.spec, dict) else {}
    svc = spec.get("service")
    service = f"{svc.get('namespace', '')}/{svc.get('name', '')}" if isinstance(svc, dict) \
        else "Local"
    available = "Unknown"
    for c in (a.status or {}).get("conditions") or () if isinstance(a.status, dict) else ():
        if c.get("type") == "Available":
            available = c.get("status", "Unknown")
            if available != "True" and c.get("reason"):
                available += f" ({c['reason']})"
    return [a.metadata.name, service, available, age(a.metadata.creation_timestamp, now)]


def _runtimeclass_row(rc: Any, now: float, wide: bool) -> list[str]:
    return [rc.metadata.name, rc.handler, age(rc.metadata.creation_timestamp, now)]


def _flowschema_row(fs: Any, now: float, wide: bool) -> list[str]:
    s = fs.spec if isinstance(fs.spec, dict) else {}
    method = (s.get("distinguisherMethod") or {}).get("type", "") or NONE
    missing = "?"
    for c in (fs.status or {}).get("conditions") or () if isinstance(fs.status, dict) else ():
        if c.get("type") == "Dangling":
            missing = c.get("status", "?")
    return [fs.metadata.name, (s.get("priorityLevelConfiguration") or {}).get("name", ""),
            str(s.get("matchingPrecedence", 1000)), method,
            age(fs.metadata.creation_timestamp, now), missing]


def _plc_row(p: Any, now: float, wide: bool) -> list[str]:
    s = p.spec if isinstance(p.spec, dict) else {}
    t = s.get("type", "")
    limited = s.get("limited") or {}
    queuing = (limited.get("limitResponse") or {}).get("queuing") or {}
    shares = str(limited.get("nominalConcurrencyShares", NONE)) if t == "Limited" else NONE
    return [p.metadata.name, t, shares, str(queuing.get("queues", NONE)),
            str(queuing.get("handSize", NONE)), str(queuing.get("queueLengthLimit", NONE)),
            age(p.metadata.creation_timestamp, now)]


def _csr_row(c: Any, now: float, wide: bool) -> list[str]:
    s = c.spec if isinstance(c.spec, dict) else {}
    conds = (c.status or {}).get("conditions") or () if isinstance(c.status, dict) else ()
    cond = ",".join(x.get("type", "") for x in conds) or "Pending"
    dur = s.get("expirationSeconds")
    return [c.metadata.name, age(c.metadata.creation_timestamp, now), s.get("signerName", ""),
            s.get("username", ""), human_duration(dur) if dur else NONE, cond]


def tables(column: Callable[..., Any]) -> dict[str, tuple[list[Any], Callable[..., list[str]]]]:
    """The kind → (columns, row function) entries, built with printers.Column."""
    C = column

    def cols(*names: str, wide: tuple[str, ...] = ()) -> list[Any]:
        return [C(n) for n in names] + [C(n, True) for n in wide]

    binding_cols = cols("NAME", "ROLE", "AGE", wide=("USERS", "GROUPS", "SERVICEACCOUNTS"))
    webhook_cols = cols("NAME", "WEBHOOKS", "AGE")
    created = cols("NAME", "CREATED AT")
    return {
        "Service": (cols("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE",
                         wide=("SELECTOR",)), _service_row),
        "ConfigMap": (cols("NAME", "DATA", "AGE"), _configmap_row),
        "Secret": (cols("NAME", "TYPE", "DATA", "AGE"), _secret_row),
        "ServiceAccount": (cols("NAME", "SECRETS", "AGE"), _sa_row),
        "Endpoints": (cols("NAME", "ENDPOINTS", "AGE"), _endpoints_row),
        "LimitRange": (created, _created_at),
        "ResourceQuota": (cols("NAME", "AGE", "REQUEST", "LIMIT"), _quota_row),
        "PodTemplate": (cols("NAME", "CONTAINERS", "IMAGES", "POD LABELS"), _pod_template_row),
        "Role": (created, _created_at),
        "ClusterRole": (created, _created_at),
        "RoleBinding": (binding_cols, _binding_row),
        "ClusterRoleBinding": (binding_cols, _binding_row),
        "Ingress": (cols("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"), _ingress_row),
        "IngressClass": (cols("NAME", "CONTROLLER", "PARAMETERS", "AGE"), _ingress_class_row),
        "NetworkPolicy": (cols("NAME", "POD-SELECTOR", "AGE"), _netpol_row),
        "EndpointSlice": (cols("NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"),
                          _endpointslice_row),
        "PersistentVolume": (cols("NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY",
                                  "STATUS", "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS",
                                  "REASON", "AGE", wide=("VOLUMEMODE",)), _pv_row),
        "PersistentVolumeClaim": (cols("NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES",
                                       "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE",
                                       wide=("VOLUMEMODE",)), _pvc_row),
        "StorageClass": (cols("NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE",
                              "ALLOWVOLUMEEXPANSION", "AGE"), _sc_row),
        "CSIDriver": (cols("NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY",
                           "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"),
                      _csidriver_row),
        "CSINode": (cols("NAME", "DRIVERS", "AGE"), _csinode_row),
        "VolumeAttachment": (cols("NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"),
                             _attachment_row),
        "StatefulSet": (cols("NAME", "READY", "AGE", wide=("CONTAINERS", "IMAGES")),
                        _statefulset_row),
        "ControllerRevision": (cols("NAME", "CONTROLLER", "REVISION", "AGE"), _revision_row),
        "Job": (cols("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE",
                     wide=("CONTAINERS", "IMAGES", "SELECTOR")), _job_row),
        "CronJob": (cols("NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE",
                         "AGE", wide=("CONTAINERS", "IMAGES", "SELECTOR")), _cronjob_row),
        "MutatingWebhookConfiguration": (webhook_cols, _webhook_row),
        "ValidatingWebhookConfiguration": (webhook_cols, _webhook_row),
        "CustomResourceDefinition": (created, _created_at),
        "APIService": (cols("NAME", "SERVICE", "AVAILABLE", "AGE"), _apiservice_row),
        "RuntimeClass": (cols("NAME", "HANDLER", "AGE"), _runtimeclass_row),
        "FlowSchema": (cols("NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD",
                            "AGE", "MISSINGPL"), _flowschema_row),
        "PriorityLevelConfiguration": (cols("NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES",
                                            "HANDSIZE", "QUEUELENGTHLIMIT", "AGE"), _plc_row),
        "CertificateSigningRequest": (cols("NAME", "AGE", "SIGNERNAME", "REQUESTOR",
                                           "REQUESTEDDURATION", "CONDITION"), _csr_row),
    }
