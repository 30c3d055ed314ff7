"""Defaulting for StatefulSets, Jobs, CronJobs, Services, Secrets and storage objects.

Ported from ``pkg/apis/apps/v1/defaults.go`` (SetDefaults_StatefulSet),
``pkg/apis/batch/v1/defaults.go`` (SetDefaults_Job, SetDefaults_CronJob), the Job strategy's
generated selector (``pkg/registry/batch/job/strategy.go`` generateSelector),
``pkg/apis/core/v1/defaults.go`` (SetDefaults_Service, SetDefaults_Secret,
SetDefaults_PersistentVolume(Claim)), ``pkg/apis/storage/v1/defaults.go`` and the
DefaultStorageClass admission plugin (``plugin/pkg/admission/storage/storageclass/setdefault``).

A Job from a real cluster's export carries the selector its old API server generated (the
old uid's ``controller-uid`` label); re-applying it to a real cluster fails with "`selector`
not auto-generated". The sandbox regenerates such a selector for the Job's uid instead, so an
export loads as it is. ``admission.py`` registers these functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.codec import FrozenDict
from ..api.selectors import LabelSelector
from .pod_defaults import default_pod_spec

if TYPE_CHECKING:
    from ..apiserver.store import Store

# api/batch.py (its defaults and labels) is imported by the Job and CronJob functions below:
# it loads when the first Job or CronJob is admitted, not when the sandbox starts.


def _pod_defaults(template: Any) -> Any:
    spec = default_pod_spec(template.spec)
    return template if spec is template.spec else attrs.evolve(template, spec=spec)


def admit_statefulset(store: Store, sts: Any) -> Any:
    s = sts.spec
    changes: dict[str, Any] = {"template": _pod_defaults(s.template)}
    if s.replicas is None:
        changes["replicas"] = 1
    if not s.pod_management_policy:
        changes["pod_management_policy"] = "OrderedReady"
    if not s.update_strategy.type:
        changes["update_strategy"] = attrs.evolve(
            s.update_strategy, type="RollingUpdate",
            rolling_update=s.update_strategy.rolling_update or FrozenDict({"partition": 0}))
    if s.revision_history_limit is None:
        changes["revision_history_limit"] = 10
    if s.persistent_volume_claim_retention_policy is None:
        changes["persistent_volume_claim_retention_policy"] = FrozenDict(
            {"whenDeleted": "Retain", "whenScaled": "Retain"})
    return attrs.evolve(sts, spec=attrs.evolve(s, **changes))


def default_job_spec(s: Any) -> Any:
    from ..api import batch

    changes: dict[str, Any] = {"template": _pod_defaults(s.template)}
    if s.completions is None and s.parallelism is None:
        changes.update(completions=1, parallelism=1)
    elif s.parallelism is None:
        changes["parallelism"] = 1
    if s.backoff_limit is None:
        changes["backoff_limit"] = batch.DEFAULT_BACKOFF_LIMIT
    if not s.completion_mode:
        changes["completion_mode"] = "NonIndexed"
    if s.suspend is None:
        changes["suspend"] = False
    if not s.pod_replacement_policy:
        changes["pod_replacement_policy"] = "TerminatingOrFailed"
    return attrs.evolve(s, **changes)


def _generated_keys() -> set[str]:
    from ..api import batch

    return {batch.CONTROLLER_UID_LABEL, batch.LEGACY_CONTROLLER_UID_LABEL}


def _is_generated(sel: Any) -> bool:
    return sel is not None and not sel.match_expressions and bool(sel.match_labels) and \
        set(sel.match_labels) <= _generated_keys()


def admit_job(store: Store, job: Any) -> Any:
    from ..api import batch

    meta = job.metadata
    if not meta.uid and store.rand is not None:
        meta = attrs.evolve(meta, uid=store.rand.uid())
    s = default_job_spec(job.spec)
    if not s.manual_selector and (s.selector is None or _is_generated(s.selector)):
        uid, name, generated = meta.uid, meta.name, _generated_keys()
        labels = {k: val for k, val in s.template.metadata.labels.items()
                  if k not in generated}
        labels.update({batch.CONTROLLER_UID_LABEL: uid, batch.JOB_NAME_LABEL: name,
                       batch.LEGACY_CONTROLLER_UID_LABEL: uid, batch.LEGACY_JOB_NAME_LABEL: name})
        template = attrs.evolve(s.template, metadata=attrs.evolve(
            s.template.metadata, labels=FrozenDict(labels)))
        s = attrs.evolve(s, template=template,
                         selector=LabelSelector(match_labels={batch.CONTROLLER_UID_LABEL: uid}))
    return attrs.evolve(job, metadata=meta, spec=s)


def update_job(store: Store, job: Any) -> Any:
    return attrs.evolve(job, spec=default_job_spec(job.spec))


def admit_cronjob(store: Store, cj: Any) -> Any:
    from ..api import batch

    s = cj.spec
    changes: dict[str, Any] = {}
    if not s.concurrency_policy:
        changes["concurrency_policy"] = "Allow"
    if s.suspend is None:
        changes["suspend"] = False
    if s.successful_jobs_history_limit is None:
        changes["successful_jobs_history_limit"] = batch.DEFAULT_SUCCESSFUL_JOBS_HISTORY
    if s.failed_jobs_history_limit is None:
        changes["failed_jobs_history_limit"] = batch.DEFAULT_FAILED_JOBS_HISTORY
    jt = s.job_template
    tmpl = _pod_defaults(jt.spec.template)
    if tmpl is not jt.spec.template:
        changes["job_template"] = attrs.evolve(jt, spec=attrs.evolve(jt.spec, template=tmpl))
    return attrs.evolve(cj, spec=attrs.evolve(s, **changes)) if changes else cj


def admit_service(store: Store, svc: Any) -> Any:
    s = svc.spec
    changes: dict[str, Any] = {}
    if not s.type:
        changes["type"] = "ClusterIP"
    if not s.session_affinity and (s.type or "ClusterIP") != "ExternalName":
        changes["session_affinity"] = "None"
    ports = tuple(attrs.evolve(p, protocol=p.protocol or "TCP",
                               target_port=p.port if p.target_port in (None, 0, "")
                               else p.target_port) for p in s.ports)
    if ports != s.ports:
        changes["ports"] = ports
    if not s.cluster_ip and (s.type or "ClusterIP") != "ExternalName" and store.rand is not None:
        # The service CIDR of a kubeadm cluster (10.96.0.0/12); .1 is the kubernetes Service.
        ip = f"10.{96 + store.rand.randrange(16)}.{store.rand.randrange(256)}." \
             f"{2 + store.rand.randrange(250)}"
        changes.update(cluster_ip=ip, cluster_ips=(ip,))
    return attrs.evolve(svc, spec=attrs.evolve(s, **changes)) if changes else svc


def admit_secret(store: Store, secret: Any) -> Any:
    import base64

    changes: dict[str, Any] = {}
    if not secret.type:
        changes["type"] = "Opaque"
    if secret.string_data:
        # The API server merges stringData into data (base64) and drops stringData.
        data = dict(secret.data)
        for k, val in secret.string_data.items():
            data[k] = base64.b64encode(str(val).encode()).decode()
        changes.update(data=FrozenDict(data), string_data=FrozenDict())
    return attrs.evolve(secret, **changes) if changes else secret


def admit_storage_class(store: Store, sc: Any) -> Any:
    changes: dict[str, Any] = {}
    if not sc.reclaim_policy:
        changes["reclaim_policy"] = "Delete"
    if not sc.volume_binding_mode:
        changes["volume_binding_mode"] = "Immediate"
    return attrs.evolve(sc, **changes) if changes else sc


def admit_pv(store: Store, pv: Any) -> Any:
    s = pv.spec
    spec = attrs.evolve(s, persistent_volume_reclaim_policy=s.persistent_volume_reclaim_policy
                        or "Retain", volume_mode=s.volume_mode or "Filesystem")
    status = pv.status if pv.status.phase else attrs.evolve(pv.status, phase="Pending")
    return attrs.evolve(pv, spec=spec, status=status)


def default_class_name(store: Store) -> str | None:
    """The DefaultStorageClass plugin's choice: the newest class marked default (ties by
    name), or None."""
    marked = [sc for sc in store.list("StorageClass") if sc.is_default]
    if not marked:
        return None
    marked.sort(key=lambda sc: (-(sc.metadata.creation_timestamp or 0), sc.metadata.name))
    return marked[0].metadata.name


def admit_pvc(store: Store, pvc: Any) -> Any:
    s = pvc.spec
    changes: dict[str, Any] = {}
    if not s.volume_mode:
        changes["volume_mode"] = "Filesystem"
    if s.storage_class_name is None:
        name = default_class_name(store)
        if name is not None:
            changes["storage_class_name"] = name
    spec = attrs.evolve(s, **changes) if changes else s
    status = pvc.status if pvc.status.phase else attrs.evolve(pvc.status, phase="Pending")
    return attrs.evolve(pvc, spec=spec, status=status)


CREATE = {"StatefulSet": admit_statefulset, "Job": admit_job, "CronJob": admit_cronjob,
          "Service": admit_service, "Secret": admit_secret, "StorageClass": admit_storage_class,
          "PersistentVolume": admit_pv, "PersistentVolumeClaim": admit_pvc}
UPDATE = {"StatefulSet": admit_statefulset, "Job": update_job, "CronJob": admit_cronjob,
          "Secret": admit_secret, "StorageClass": admit_storage_class}
