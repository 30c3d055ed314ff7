"""``kubectl describe`` for Services, ConfigMaps, Secrets, ServiceAccounts, StatefulSets, Jobs,
CronJobs, PersistentVolumes, PersistentVolumeClaims and StorageClasses.

Ported from ``kubernetes/kubectl`` ``pkg/describe/describe.go`` (describeService,
describeConfigMap, describeSecret, describeServiceAccount, describeStatefulSet, describeJob,
describeCronJob, describePersistentVolume, describePersistentVolumeClaim,
StorageClassDescriber). The other kinds a real export holds (RBAC, Ingress, NetworkPolicy,
EndpointSlice, ...) use kubectl's generic describer (``describe_generic.py``) — a deliberate
simplification: their own describers print the same fields in another layout.

Not here: the shared sections (``describe_base.py``).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, Callable

from ..api.selectors import format_label_selector
from ..api.storage_names import access_modes_string
from .describe_base import (
    LEVEL_0,
    LEVEL_1,
    Writer,
    annotations_multiline,
    describe_events,
    labels_multiline,
    pod_template,
)
from .printers_objects import service_external_ip
from .timefmt import rfc1123z

if TYPE_CHECKING:
    from ..apiserver.store import Store


def _head(w: Writer, obj: Any, namespaced: bool = True) -> None:
    w.write(LEVEL_0, f"Name:\t{obj.metadata.name}\n")
    if namespaced:
        w.write(LEVEL_0, f"Namespace:\t{obj.metadata.namespace}\n")
    labels_multiline(w, "Labels", obj.metadata.labels)
    annotations_multiline(w, "Annotations", obj.metadata.annotations)


def _finish(w: Writer, store: Store, obj: Any, now: float, show_events: bool) -> str:
    if show_events:
        describe_events(w, store.events_for(obj.kind, obj.metadata.name,
                                            obj.metadata.namespace), now)
    return w.render()


def _labels_inline(m: Any) -> str:
    return ",".join(f"{k}={m[k]}" for k in sorted(m)) if m else "<none>"


def _pods_status(store: Store, obj: Any) -> str:
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for pod in store.list("Pod", obj.metadata.namespace):
        ref = pod.metadata.controller_ref()
        if ref is not None and ref.uid == obj.metadata.uid:
            phase = pod.status.phase or "Pending"
            if phase in counts:
                counts[phase] += 1
    return (f"{counts['Running']} Running / {counts['Pending']} Waiting / "
            f"{counts['Succeeded']} Succeeded / {counts['Failed']} Failed")


def describe_service(svc: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    s = svc.spec
    _head(w, svc)
    w.write(LEVEL_0, f"Selector:\t{_labels_inline(s.selector)}\n")
    w.write(LEVEL_0, f"Type:\t{s.type or 'ClusterIP'}\n")
    w.write(LEVEL_0, "IP Family Policy:\tSingleStack\n")
    w.write(LEVEL_0, "IP Families:\tIPv4\n")
    if s.cluster_ip:
        w.write(LEVEL_0, f"IP:\t{s.cluster_ip}\n")
        w.write(LEVEL_0, f"IPs:\t{','.join(s.cluster_ips) or s.cluster_ip}\n")
    if s.external_ips:
        w.write(LEVEL_0, f"External IPs:\t{','.join(s.external_ips)}\n")
    if (s.type or "ClusterIP") == "ExternalName":
        w.write(LEVEL_0, f"External Name:\t{s.external_name}\n")
    elif (s.type or "") == "LoadBalancer":
        w.write(LEVEL_0, f"LoadBalancer Ingress:\t{service_external_ip(svc)}\n")
    endpoints = _service_endpoints(store, svc)
    for p in s.ports:
        name = p.name or "<unset>"
        w.write(LEVEL_0, f"Port:\t{name}\t{p.port}/{p.protocol or 'TCP'}\n")
        tp = p.target_port if p.target_port not in (None, "") else p.port
        w.write(LEVEL_0, f"TargetPort:\t{tp}/{p.protocol or 'TCP'}\n")
        if p.node_port:
            w.write(LEVEL_0, f"NodePort:\t{name}\t{p.node_port}/{p.protocol or 'TCP'}\n")
        port = tp if isinstance(tp, int) else p.port
        w.write(LEVEL_0, f"Endpoints:\t{_endpoint_text(endpoints, port)}\n")
    w.write(LEVEL_0, f"Session Affinity:\t{s.session_affinity or 'None'}\n")
    w.write(LEVEL_0, "Internal Traffic Policy:\tCluster\n")
    return _finish(w, store, svc, now, show_events)


def _service_endpoints(store: Store, svc: Any) -> list[str]:
    """The pod IPs a Service selects (what its EndpointSlices would hold): Running, ready
    pods of the namespace whose labels match the selector."""
    if not svc.spec.selector:
        return []
    out = []
    for pod in store.list("Pod", svc.metadata.namespace):
        labels = pod.metadata.labels
        if pod.status.phase == "Running" and pod.status.pod_ip and \
                all(labels.get(k) == v for k, v in svc.spec.selector.items()):
            out.append(pod.status.pod_ip)
    return sorted(out)


def _endpoint_text(ips: list[str], port: Any) -> str:
    if not ips:
        return ""
    pairs = [f"{ip}:{port}" for ip in ips]
    return ",".join(pairs[:3]) + (f" + {len(pairs) - 3} more..." if len(pairs) > 3 else "")


def describe_configmap(cm: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    _head(w, cm)
    w.write(LEVEL_0, "\nData\n====\n")
    for key in sorted(cm.data):
        w.write(LEVEL_0, f"{key}:\n----\n")
        w.write(LEVEL_0, f"{cm.data[key]}\n\n")
    w.write(LEVEL_0, "\nBinaryData\n====\n")
    for key in sorted(cm.binary_data):
        size = len(base64.b64decode(str(cm.binary_data[key]) + "==", validate=False))
        w.write(LEVEL_0, f"{key}: {size} bytes\n")
    return _finish(w, store, cm, now, show_events)


def describe_secret(secret: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    _head(w, secret)
    w.write(LEVEL_0, f"\nType:\t{secret.secret_type}\n")
    w.write(LEVEL_0, "\nData\n====\n")
    for key in sorted(secret.data):
        try:
            size = len(base64.b64decode(str(secret.data[key]), validate=True))
        except ValueError:
            size = 0
        w.write(LEVEL_0, f"{key}:\t{size} bytes\n")
    return w.render()


def describe_service_account(sa: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    _head(w, sa)
    pulls = [p.get("name", "") for p in sa.image_pull_secrets if hasattr(p, "get")]
    mounts = [p.get("name", "") for p in sa.secrets if hasattr(p, "get")]
    w.write(LEVEL_0, f"Image pull secrets:\t{', '.join(pulls) or '<none>'}\n")
    w.write(LEVEL_0, f"Mountable secrets:\t{', '.join(mounts) or '<none>'}\n")
    w.write(LEVEL_0, "Tokens:\t<none>\n")
    return _finish(w, store, sa, now, show_events)


def describe_statefulset(sts: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    s, st = sts.spec, sts.status
    w.write(LEVEL_0, f"Name:\t{sts.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{sts.metadata.namespace}\n")
    w.write(LEVEL_0, f"CreationTimestamp:\t{rfc1123z(sts.metadata.creation_timestamp)}\n")
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(s.selector)}\n")
    labels_multiline(w, "Labels", sts.metadata.labels)
    annotations_multiline(w, "Annotations", sts.metadata.annotations)
    w.write(LEVEL_0, f"Replicas:\t{s.replicas if s.replicas is not None else 1} desired | "
                     f"{st.replicas} total\n")
    w.write(LEVEL_0, f"Update Strategy:\t{s.update_strategy.type}\n")
    ru = s.update_strategy.rolling_update
    if isinstance(ru, dict) and ru.get("partition") is not None:
        w.write(LEVEL_1, f"Partition:\t{ru.get('partition')}\n")
    w.write(LEVEL_0, f"Pods Status:\t{_pods_status(store, sts)}\n")
    pod_template(w, s.template)
    w.write(LEVEL_0, "Volume Claims:\n")
    if not s.volume_claim_templates:
        w.write(LEVEL_1, "<none>\n")
    for t in s.volume_claim_templates:
        meta, spec = t.get("metadata") or {}, t.get("spec") or {}
        w.write(LEVEL_1, f"Name:\t{meta.get('name', '')}\n")
        w.write(LEVEL_1, f"StorageClass:\t{spec.get('storageClassName') or ''}\n")
        labels_multiline(w, "  Labels", meta.get("labels") or {})
        annotations_multiline(w, "  Annotations", meta.get("annotations") or {})
        storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "")
        w.write(LEVEL_1, f"Capacity:\t{storage}\n")
        w.write(LEVEL_1, f"Access Modes:\t{access_modes_string(spec.get('accessModes'))}\n")
    return _finish(w, store, sts, now, show_events)


def _job_body(w: Writer, job: Any, store: Store, now: float) -> None:
    s, st = job.spec, job.status
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(s.selector)}\n")
    labels_multiline(w, "Labels", job.metadata.labels)
    annotations_multiline(w, "Annotations", job.metadata.annotations)
    ref = job.metadata.controller_ref()
    if ref is not None:
        w.write(LEVEL_0, f"Controlled By:\t{ref.kind}/{ref.name}\n")
    w.write(LEVEL_0, f"Parallelism:\t{s.parallelism}\n")
    w.write(LEVEL_0, f"Completions:\t{s.completions if s.completions is not None else '<unset>'}"
                     "\n")
    w.write(LEVEL_0, f"Completion Mode:\t{s.completion_mode or 'NonIndexed'}\n")
    w.write(LEVEL_0, f"Suspend:\t{'true' if s.suspend else 'false'}\n")
    w.write(LEVEL_0, f"Backoff Limit:\t{s.backoff_limit}\n")
    if s.ttl_seconds_after_finished is not None:
        w.write(LEVEL_0, f"TTL Seconds After Finished:\t{s.ttl_seconds_after_finished}\n")
    if isinstance(st.start_time, (int, float)):
        w.write(LEVEL_0, f"Start Time:\t{rfc1123z(st.start_time)}\n")
    if isinstance(st.completion_time, (int, float)):
        w.write(LEVEL_0, f"Completed At:\t{rfc1123z(st.completion_time)}\n")
        from .age import human_duration

        w.write(LEVEL_0, f"Duration:\t{human_duration(st.completion_time - st.start_time)}\n")
    if s.active_deadline_seconds is not None:
        w.write(LEVEL_0, f"Active Deadline Seconds:\t{s.active_deadline_seconds}s\n")
    ready = st.ready if st.ready is not None else 0
    w.write(LEVEL_0, f"Pods Statuses:\t{st.active} Active ({ready} Ready) / {st.succeeded} "
                     f"Succeeded / {st.failed} Failed\n")
    pod_template(w, s.template)


def describe_job(job: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    w.write(LEVEL_0, f"Name:\t{job.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{job.metadata.namespace}\n")
    _job_body(w, job, store, now)
    return _finish(w, store, job, now, show_events)


def describe_cronjob(cj: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    s = cj.spec
    w.write(LEVEL_0, f"Name:\t{cj.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{cj.metadata.namespace}\n")
    labels_multiline(w, "Labels", cj.metadata.labels)
    annotations_multiline(w, "Annotations", cj.metadata.annotations)
    w.write(LEVEL_0, f"Schedule:\t{s.schedule}\n")
    w.write(LEVEL_0, f"Concurrency Policy:\t{s.concurrency_policy}\n")
    w.write(LEVEL_0, f"Suspend:\t{'True' if s.suspend else 'False'}\n")
    w.write(LEVEL_0, f"Successful Job History Limit:\t{s.successful_jobs_history_limit}\n")
    w.write(LEVEL_0, f"Failed Job History Limit:\t{s.failed_jobs_history_limit}\n")
    deadline = s.starting_deadline_seconds
    w.write(LEVEL_0, f"Starting Deadline Seconds:\t"
                     f"{f'{deadline}s' if deadline is not None else '<unset>'}\n")
    js = s.job_template.spec
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(js.selector)}\n")
    w.write(LEVEL_0, f"Parallelism:\t{js.parallelism if js.parallelism is not None else '<unset>'}"
                     "\n")
    w.write(LEVEL_0, f"Completions:\t{js.completions if js.completions is not None else '<unset>'}"
                     "\n")
    pod_template(w, js.template)
    last = cj.status.last_schedule_time
    w.write(LEVEL_0, f"Last Schedule Time:\t"
                     f"{rfc1123z(last) if isinstance(last, (int, float)) else '<unset>'}\n")
    active = [a.get("name", "") for a in cj.status.active if hasattr(a, "get")]
    w.write(LEVEL_0, f"Active Jobs:\t{', '.join(active) or '<none>'}\n")
    return _finish(w, store, cj, now, show_events)


def describe_pv(pv: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    s = pv.spec
    _head(w, pv, namespaced=False)
    w.write(LEVEL_0, f"Finalizers:\t[{' '.join(pv.metadata.finalizers)}]\n")
    w.write(LEVEL_0, f"StorageClass:\t{s.storage_class_name}\n")
    w.write(LEVEL_0, f"Status:\t{pv.status.phase}\n")
    claim = f"{s.claim_ref.namespace}/{s.claim_ref.name}" if s.claim_ref is not None else ""
    w.write(LEVEL_0, f"Claim:\t{claim}\n")
    w.write(LEVEL_0, f"Reclaim Policy:\t{s.persistent_volume_reclaim_policy}\n")
    w.write(LEVEL_0, f"Access Modes:\t{access_modes_string(s.access_modes)}\n")
    w.write(LEVEL_0, f"VolumeMode:\t{s.volume_mode or 'Filesystem'}\n")
    w.write(LEVEL_0, f"Capacity:\t{s.capacity.get('storage', '')}\n")
    w.write(LEVEL_0, "Node Affinity:\t")
    na = s.node_affinity.required if s.node_affinity is not None else None
    if na is None:
        w.write(LEVEL_0, "<none>\n")
    else:
        w.write(LEVEL_0, "\n")
        w.write(LEVEL_1, "Required Terms:\t\n")
        for term in na.node_selector_terms:
            exprs = [f"{r.key} {r.operator} [{' '.join(r.values)}]" if r.values
                     else f"{r.key} {r.operator}" for r in term.match_expressions]
            w.write(LEVEL_1 + 1, f"Term {na.node_selector_terms.index(term)}:\t"
                                 f"{', '.join(exprs)}\n")
    w.write(LEVEL_0, f"Message:\t{pv.status.message}\n")
    w.write(LEVEL_0, "Source:\n")
    for kind in s.source_kinds():
        w.write(LEVEL_1, f"Type:\t{kind}\n")
        body = s.extra.get(kind)
        for k in sorted(body or {}):
            w.write(LEVEL_1, f"{k[:1].upper() + k[1:]}:\t{body[k]}\n")
    return _finish(w, store, pv, now, show_events)


def describe_pvc(pvc: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    s, st = pvc.spec, pvc.status
    w.write(LEVEL_0, f"Name:\t{pvc.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{pvc.metadata.namespace}\n")
    w.write(LEVEL_0, f"StorageClass:\t{s.storage_class_name or ''}\n")
    w.write(LEVEL_0, f"Status:\t{st.phase}\n")
    w.write(LEVEL_0, f"Volume:\t{s.volume_name}\n")
    labels_multiline(w, "Labels", pvc.metadata.labels)
    annotations_multiline(w, "Annotations", pvc.metadata.annotations)
    w.write(LEVEL_0, f"Finalizers:\t[{' '.join(pvc.metadata.finalizers)}]\n")
    cap = st.capacity.get("storage") if s.volume_name else None
    w.write(LEVEL_0, f"Capacity:\t{cap if cap is not None else ''}\n")
    modes = access_modes_string(st.access_modes) if s.volume_name else ""
    w.write(LEVEL_0, f"Access Modes:\t{modes}\n")
    w.write(LEVEL_0, f"VolumeMode:\t{s.volume_mode or 'Filesystem'}\n")
    users = [p.metadata.name for p in store.list("Pod", pvc.metadata.namespace)
             if any(isinstance(v.persistent_volume_claim, dict) and
                    v.persistent_volume_claim.get("claimName") == pvc.metadata.name
                    for v in p.spec.volumes)]
    w.write(LEVEL_0, f"Used By:\t{', '.join(sorted(users)) or '<none>'}\n")
    return _finish(w, store, pvc, now, show_events)


def describe_storage_class(sc: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    w.write(LEVEL_0, f"Name:\t{sc.metadata.name}\n")
    w.write(LEVEL_0, f"IsDefaultClass:\t{'Yes' if sc.is_default else 'No'}\n")
    annotations_multiline(w, "Annotations", sc.metadata.annotations)
    w.write(LEVEL_0, f"Provisioner:\t{sc.provisioner}\n")
    params = ",".join(f"{k}={sc.parameters[k]}" for k in sorted(sc.parameters)) or "<none>"
    w.write(LEVEL_0, f"Parameters:\t{params}\n")
    if sc.allow_volume_expansion is not None:
        w.write(LEVEL_0, f"AllowVolumeExpansion:\t{'True' if sc.allow_volume_expansion else 'False'}"
                         "\n")
    else:
        w.write(LEVEL_0, "AllowVolumeExpansion:\t<unset>\n")
    w.write(LEVEL_0, f"MountOptions:\t{', '.join(sc.mount_options) or '<none>'}\n")
    w.write(LEVEL_0, f"ReclaimPolicy:\t{sc.reclaim_policy}\n")
    w.write(LEVEL_0, f"VolumeBindingMode:\t{sc.binding_mode}\n")
    if sc.allowed_topologies:
        w.write(LEVEL_0, "AllowedTopologies:\t\n")
    return _finish(w, store, sc, now, show_events)


DESCRIBERS: dict[str, Callable[..., str]] = {
    "Service": describe_service, "ConfigMap": describe_configmap, "Secret": describe_secret,
    "ServiceAccount": describe_service_account, "StatefulSet": describe_statefulset,
    "Job": describe_job, "CronJob": describe_cronjob, "PersistentVolume": describe_pv,
    "PersistentVolumeClaim": describe_pvc, "StorageClass": describe_storage_class,
}
