"""Admission: what the API server fills in before it stores an object.

Mirrors upstream's defaulting (pkg/apis/*/v1/defaults.go) and the admission plugins that matter
to scheduling: DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds) and
Priority (plugin/pkg/admission/priority). Also ``merge_apply``: how an object handed to
``store.apply_all`` without a patch changes the stored one of that name (its fields replace the
stored spec; server-owned fields — status, uid, creation time — stay): a session's own
``apply_objects``. The ``kubectl apply`` command does not come here: it computes kubectl's
three-way patch itself (commands/client_apply.py).

One extension point stands for upstream's mutating admission webhooks: a component may
register ``add_mutator(store, kind, fn)``; every *create* of that kind then passes the admitted
object through ``fn(obj) -> obj`` (in registration order) just before it is stored — for pods,
after defaulting and whether or not the creator pre-admitted the object (controllers cache one
admitted template spec). A mutator returns the object itself when it has nothing to change, must
return a valid object (nothing re-validates it), and must not write to the store. Dry runs
(``store.admit``) and updates do not call mutators, as a webhook with ``operations: [CREATE]``.
The VPA admission controller (``ksandbox.controllers.vpa``) is the one user.

Not here: refusing bad objects (``validation.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..api.codec import EMPTY, FrozenDict
from ..api.core import Pod, spec_qos_class
from ..api.errors import ApiError, FieldError, ValidationError
from ..api.evolve import by_identity, evolve, evolve_fields, replacer
from ..api.kinds import BY_KIND
from ..api.meta import ObjectMeta
from ..api.taints import NO_EXECUTE, Toleration
from .admission_objects import CREATE as _OBJECT_CREATE
from .admission_objects import UPDATE as _OBJECT_UPDATE
from .pod_defaults import default_pod, default_pod_spec, pod_defaults

if TYPE_CHECKING:
    from ..api.core import Node
    from ..apiserver.store import Store

# plugin/pkg/admission/defaulttolerationseconds: both defaults are 300 s
# (--default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds).
DEFAULT_NOT_READY_TOLERATION_SECONDS = 300
DEFAULT_UNREACHABLE_TOLERATION_SECONDS = 300
TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"

# pkg/apis/scheduling: the priority of pods without a class when no class is globalDefault.
DEFAULT_PRIORITY = 0
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
# pkg/apis/scheduling: the two built-in classes every cluster has.
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000,
                           "system-node-critical": 2_000_001_000}


def _default_meta(store: Store, obj: Any) -> Any:
    meta = _defaulted_meta(store, obj)
    return obj if meta is obj.metadata else evolve(obj, metadata=meta)


def _defaulted_meta(store: Store, obj: Any, stamp: bool = False) -> Any:
    """The object's metadata as a create defaults it: the namespace (``default``, or none for
    a cluster-scoped kind), a name from ``generateName``, and the server-owned fields an
    exported manifest carries cleared. The metadata itself when nothing changes (most
    creates: a controller's pods, a fresh manifest).

    ``stamp``: also the fields the create will stamp — the next resourceVersion, the
    creation time and the uid (drawn here, after the name's suffix, as the create would
    draw it next: nothing between admission and the write draws) — so Store.create stores
    the object as it is instead of building its metadata and the object again (a Session's
    load, apply_all's one pass: two objects fewer per loaded pod)."""
    info = BY_KIND[obj.kind]
    meta = obj.metadata
    # Only what differs, tested field by field: this runs once per object of a load.
    changes: dict[str, Any] = {}
    if info.namespaced:
        if not meta.namespace:
            changes["namespace"] = "default"
    elif meta.namespace:
        changes["namespace"] = ""
    if not meta.name and meta.generate_name:
        changes["name"] = meta.generate_name + store.rand.name_suffix()
    # Server-owned fields from an exported manifest are not the user's to set.
    if meta.resource_version is not None:
        changes["resource_version"] = None
    if meta.deletion_timestamp is not None:
        changes["deletion_timestamp"] = None
    created = meta.creation_timestamp
    if created is not None and not isinstance(created, (int, float)):
        changes["creation_timestamp"] = None
    if meta.uid and store.rand is not None and not _looks_like_ours(meta.uid):
        changes["uid"] = ""
    if stamp:
        if type(meta) is ObjectMeta and _STAMP_CREATE is not None and \
                _STAMP_CREATE_NS is not None and \
                (not changes or changes.keys() == _NAMESPACE_ONLY):
            # only the stamp, or the namespace and the stamp (a loaded pod's usual metadata,
            # with or without a namespace): the same fields and values as below, without the
            # keyword dict to build and read back
            rv, now, uid = str(store.resource_version + 1), store._time._now, \
                meta.uid or store.rand.uid()
            generation = meta.generation or 1
            if not changes:
                return _STAMP_CREATE(meta, rv, now, uid, generation)
            return _STAMP_CREATE_NS(meta, changes["namespace"], rv, now, uid, generation)
        changes["resource_version"] = str(store.resource_version + 1)
        changes["creation_timestamp"] = store._time._now
        changes["uid"] = changes.get("uid", meta.uid) or store.rand.uid()
        # a Pod's generation starts at 1 (store.GENERATION_KINDS; only a pod is stamped here)
        changes["generation"] = meta.generation or 1
    # (evolve's work without its keyword arguments: once per object of a load)
    return evolve_fields(meta, tuple(changes), *changes.values()) if changes else meta


# evolve(meta, resource_version=..., creation_timestamp=..., uid=..., generation=...)
_STAMP_CREATE = replacer(ObjectMeta, ("resource_version", "creation_timestamp", "uid",
                                      "generation"))
# the same with the namespace defaulted (a manifest that names none)
_STAMP_CREATE_NS = replacer(ObjectMeta, ("namespace", "resource_version", "creation_timestamp",
                                         "uid", "generation"))
_NAMESPACE_ONLY = {"namespace": None}.keys()


def _looks_like_ours(uid: str) -> bool:
    return len(uid) == 36


def admit_create(store: Store, obj: Any, stamp: bool = False,
                 priorities: dict[str, tuple[int, str]] | None = None) -> Any:
    """``stamp`` (a pod about to be written at once: _defaulted_meta) — other kinds' admission
    may draw random values (a Service's IP), so only a pod's metadata is stamped ahead.
    ``priorities``: a pod's Priority answers by class name, kept by a caller that writes no
    PriorityClass while it holds them (apply_all's one pass: store._Known)."""
    if obj.kind == "Pod":
        # the pod is built once, with its defaulted metadata, spec and status together
        return _admit_pod(store, obj, _defaulted_meta(store, obj, stamp), priorities)
    obj = _default_meta(store, obj)
    fn = _CREATE.get(obj.kind)
    return fn(store, obj) if fn else obj


def add_mutator(store: Store, kind: str, fn: Any) -> None:
    """Register a mutating admission hook for creates of ``kind`` (see the module docstring)."""
    store.mutators.setdefault(kind, []).append(fn)


def run_mutators(store: Store, obj: Any) -> Any:
    for fn in store.mutators.get(obj.kind, ()):
        obj = fn(obj)
    return obj


def admit_update(store: Store, old: Any, obj: Any) -> Any:
    """Defaulting on update: the same spec defaults, never the create-only ones."""
    fn = _UPDATE.get(obj.kind)
    return fn(store, obj) if fn else obj


def defaults_on_update(kind: str) -> bool:
    """Whether :func:`admit_update` can change an object of ``kind`` (else it returns it)."""
    return kind in _UPDATE


# -- pods ---------------------------------------------------------------------------------------


def default_tolerations(tolerations: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
    """DefaultTolerationSeconds: add 300 s not-ready/unreachable NoExecute tolerations unless
    the pod already tolerates those taints (a toleration with that key or an empty key, and
    effect NoExecute or empty)."""
    not_ready = unreachable = False
    for t in tolerations:
        if t.effect in (NO_EXECUTE, ""):
            if t.key in (TAINT_NOT_READY, ""):
                not_ready = True
            if t.key in (TAINT_UNREACHABLE, ""):
                unreachable = True
    extra = []
    if not not_ready:
        extra.append(Toleration(key=TAINT_NOT_READY, operator="Exists", effect=NO_EXECUTE,
                                toleration_seconds=DEFAULT_NOT_READY_TOLERATION_SECONDS))
    if not unreachable:
        extra.append(Toleration(key=TAINT_UNREACHABLE, operator="Exists", effect=NO_EXECUTE,
                                toleration_seconds=DEFAULT_UNREACHABLE_TOLERATION_SECONDS))
    return tolerations + tuple(extra) if extra else tolerations


def resolve_priority(store: Store, spec: Any, name: str) -> tuple[int, str]:
    """The Priority admission plugin: (priority, preemptionPolicy) for a pod spec."""
    pc_name = spec.priority_class_name
    if pc_name:
        if pc_name in SYSTEM_PRIORITY_CLASSES:
            return SYSTEM_PRIORITY_CLASSES[pc_name], PREEMPT_LOWER_PRIORITY
        pc = store.get("PriorityClass", pc_name)
        if pc is None:
            raise ApiError("Forbidden", f'pods "{name}" is forbidden: no PriorityClass with '
                                        f'name {pc_name} was found', 403)
        return pc.value, pc.preemption_policy or PREEMPT_LOWER_PRIORITY
    for _, pc in store.items("PriorityClass"):   # in the order stored, without a list per pod
        if pc.global_default:
            return pc.value, pc.preemption_policy or PREEMPT_LOWER_PRIORITY
    return DEFAULT_PRIORITY, PREEMPT_LOWER_PRIORITY


# plugin/pkg/admission/serviceaccount: the account a pod without one runs as.
DEFAULT_SERVICE_ACCOUNT = "default"


def default_service_account(spec: Any) -> Any:
    """The ServiceAccount admission plugin's ``spec.serviceAccountName: default`` for a pod
    that names none (pods only: templates and mirror pods are left alone, as upstream). The
    PodSpec type keeps the field in ``extra``; v1's deprecated ``serviceAccount`` mirrors it,
    as the API's conversion does. (The token volume the plugin also mounts is not modelled.)"""
    extra = by_identity(_service_account_extra, spec.extra)
    return spec if extra is spec.extra else evolve(spec, extra=extra)


def _service_account_extra(extra: FrozenDict) -> FrozenDict:
    name = extra.get("serviceAccountName") or extra.get("serviceAccount") or \
        DEFAULT_SERVICE_ACCOUNT
    if extra.get("serviceAccountName") == name and extra.get("serviceAccount") == name:
        return extra
    return extra.set("serviceAccountName", name).set("serviceAccount", name)


def _admit_pod(store: Store, pod: Pod, meta: Any = None,
               priorities: dict[str, tuple[int, str]] | None = None) -> Any:
    """A pod's create admission; ``meta``: its metadata as _defaulted_meta gave it (None:
    already defaulted); ``priorities``: see admit_create."""
    if meta is None:
        meta = pod.metadata
    spec = pod.spec
    if priorities is None:
        priority, policy = resolve_priority(store, spec, meta.name)
    else:
        answer = priorities.get(spec.priority_class_name)
        if answer is None:
            answer = priorities[spec.priority_class_name] = resolve_priority(store, spec,
                                                                             meta.name)
        priority, policy = answer
    if spec.priority is not None and spec.priority != priority and spec.priority_class_name:
        raise ValidationError("Pod", meta.name, [FieldError(
            "spec.priority", spec.priority,
            "the integer value of priority must be equal to the value of the PriorityClass")])
    # by identity: pods of one template on one node share their decoded spec while a file
    # loads (codec.register_shared), and so the admitted one — built once, not per pod
    spec = by_identity(admitted_spec, spec, pod.is_mirror, priority, policy)
    status = pod.status
    # A pod's status survives a create only as loaded state (an export): finished pods stay
    # finished, and a pod bound to a node and Running there stays Running — its node's kubelet
    # adopts it as it finds it (pod_workers.py), as a restarted kubelet syncs the containers
    # it finds running. Anything else starts over as Pending.
    kept = ("Succeeded", "Failed") + (("Running",) if spec.node_name else ())
    phase = status.phase if status.phase in kept else "Pending"
    status = by_identity(_admitted_status, status, phase, spec_qos_class(spec))
    if _ADMITTED_POD is not None:
        return _ADMITTED_POD(pod, meta, spec, status)
    return evolve(pod, metadata=meta, spec=spec, status=status)


def admitted_spec(spec: Any, mirror: bool, priority: int, policy: str) -> Any:
    """A pod's spec after the defaults and the admission plugins (``priority`` and
    ``policy`` as resolve_priority gave them): a pure function of its arguments."""
    # Every default and admission plugin's change is gathered first and the spec is built
    # once (four PodSpecs per pod before: a 150,000-pod load builds each of them).
    changes = pod_defaults(spec)
    extra = changes.get("extra", spec.extra)
    if not mirror:
        # The service account (default_service_account, gathered with the rest)
        account = by_identity(_service_account_extra, extra)
        if account is not extra:
            changes["extra"] = account
    # by identity: pods of one template share their tolerations (codec.sharing), and so the
    # defaulted tuple
    tolerations = by_identity(default_tolerations, spec.tolerations)
    return evolve(spec, **changes, tolerations=tolerations, priority=priority,
                  preemption_policy=spec.preemption_policy or policy)


def _admitted_status(status: Any, phase: str, qos_class: str) -> Any:
    # a pod that starts over has no condition and no generation anybody observed (a kept
    # one, loaded state, keeps what its kubelet posted)
    if phase != "Pending":
        return evolve(status, phase=phase, qos_class=qos_class)
    return evolve(status, phase=phase, qos_class=qos_class, conditions=(),
                  observed_generation=0)


# evolve(pod, metadata=..., spec=..., status=...) built by position (api/evolve.py)
_ADMITTED_POD = replacer(Pod, ("metadata", "spec", "status"))


def _update_pod(store: Store, pod: Pod) -> Any:
    return pod


# -- nodes --------------------------------------------------------------------------------------


def _admit_node(store: Store, node: Node) -> Any:
    meta = node.metadata
    labels = meta.labels
    # The kubelet sets these well-known labels on registration.
    if type(labels) is not FrozenDict or "kubernetes.io/hostname" not in labels or \
            "kubernetes.io/os" not in labels or "kubernetes.io/arch" not in labels:
        added = dict(labels)
        added.setdefault("kubernetes.io/hostname", meta.name)
        added.setdefault("kubernetes.io/os", "linux")
        added.setdefault("kubernetes.io/arch", "amd64")
        meta = meta.with_labels(added)
    status = node.status
    if not status.allocatable and status.capacity:
        status = evolve(status, allocatable=status.capacity)
    # An update of a registered node (the kubelet's registration, a cordon, a taint) has
    # nothing to fill: the node itself, and its stored metadata, which validation then need
    # not check again (a node's labels are its own: no cache holds their answer)
    if meta is node.metadata and status is node.status:
        return node
    return evolve(node, metadata=meta, status=status)


# -- workloads ----------------------------------------------------------------------------------


def _admit_replicated(store: Store, obj: Any) -> Any:
    spec = obj.spec
    changes: dict[str, Any] = {}
    if spec.replicas is None:
        changes["replicas"] = 1
    template = spec.template
    # By identity: a Deployment's every resize of its ReplicaSets (and every scale) keeps the
    # template's spec object, defaulted already, which would be walked again field by field.
    tspec = by_identity(default_pod_spec, template.spec)
    if tspec is not template.spec:
        changes["template"] = evolve(template, spec=tspec)
    if obj.kind == "ReplicationController" and template.metadata.labels:
        # SetDefaults_ReplicationController: the template's labels are the selector and the
        # controller's own labels when those are empty.
        if not spec.selector:
            changes["selector"] = template.metadata.labels
        if not obj.metadata.labels:
            obj = evolve(obj, metadata=obj.metadata.with_labels(template.metadata.labels))
    if obj.kind == "Deployment":
        from ..api.apps import RollingUpdateDeployment

        strategy = spec.strategy
        if not strategy.type:
            # Keep the rollingUpdate parameters a manifest gives without naming the type.
            strategy = evolve(strategy, type="RollingUpdate")
        if strategy.type == "RollingUpdate":
            ru = strategy.rolling_update or RollingUpdateDeployment()
            # pkg/apis/apps/v1/defaults.go: 25% surge, 25% unavailable.
            ru = evolve(ru, max_surge="25%" if ru.max_surge is None else ru.max_surge,
                              max_unavailable="25%" if ru.max_unavailable is None
                              else ru.max_unavailable)
            strategy = evolve(strategy, rolling_update=ru)
        changes["strategy"] = strategy
        if spec.revision_history_limit is None:
            changes["revision_history_limit"] = 10
        if spec.progress_deadline_seconds is None:
            changes["progress_deadline_seconds"] = 600
    return evolve(obj, spec=evolve(spec, **changes)) if changes else obj


def _create_deployment(store: Store, d: Any) -> Any:
    """pkg/registry/apps/deployment strategy PrepareForCreate: a new Deployment's status starts
    empty (an export's conditions carry another cluster's times; the controller writes its
    own)."""
    d = _admit_replicated(store, d)
    if d.status != type(d.status)():
        d = evolve(d, status=type(d.status)())
    return d


def _admit_daemonset(store: Store, ds: Any) -> Any:
    spec = ds.spec
    changes: dict[str, Any] = {}
    tspec = by_identity(default_pod_spec, spec.template.spec)   # as _admit_replicated's
    if tspec is not spec.template.spec:
        changes["template"] = evolve(spec.template, spec=tspec)
    strategy = spec.update_strategy
    if not strategy.type:
        strategy = evolve(strategy, type="RollingUpdate")
    if strategy.type == "RollingUpdate":
        # pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet: maxUnavailable 1, maxSurge 0.
        ru = dict(strategy.rolling_update or {})
        ru.setdefault("maxUnavailable", 1)
        ru.setdefault("maxSurge", 0)
        strategy = evolve(strategy, rolling_update=FrozenDict(ru))
    if strategy != spec.update_strategy:
        changes["update_strategy"] = strategy
    if spec.revision_history_limit is None:
        changes["revision_history_limit"] = 10
    return evolve(ds, spec=evolve(spec, **changes)) if changes else ds


# pkg/apis/autoscaling: DefaultCPUUtilization, v2's metric when an HPA names none.
DEFAULT_CPU_UTILIZATION = 80


def _cpu_metric(percent: int) -> FrozenDict:
    return FrozenDict({"type": "Resource", "resource": FrozenDict({
        "name": "cpu", "target": FrozenDict({"type": "Utilization",
                                             "averageUtilization": percent})})})


def _admit_hpa(store: Store, hpa: Any) -> Any:
    """The API server stores HPAs as autoscaling/v2 and serves v2, the preferred version: an
    autoscaling/v1 object is converted (targetCPUUtilizationPercentage becomes a Resource cpu
    metric, pkg/apis/autoscaling/v1 conversion), then v2's SetDefaults_HorizontalPodAutoscaler
    gives minReplicas 1 and, without metrics, cpu at 80 %."""
    spec = hpa.spec
    changes: dict[str, Any] = {}
    metrics = spec.metrics
    if spec.target_cpu_utilization_percentage is not None:
        if not metrics:
            metrics = (_cpu_metric(spec.target_cpu_utilization_percentage),)
        changes["target_cpu_utilization_percentage"] = None
    if not metrics:
        metrics = (_cpu_metric(DEFAULT_CPU_UTILIZATION),)
    if metrics is not spec.metrics:
        changes["metrics"] = metrics
    if spec.min_replicas is None:
        changes["min_replicas"] = 1
    out = evolve(hpa, spec=evolve(spec, **changes)) if changes else hpa
    if out.api_version != "autoscaling/v2":
        status = out.status
        if status.current_cpu_utilization_percentage is not None:
            status = evolve(status, current_cpu_utilization_percentage=None)
        out = evolve(out, api_version="autoscaling/v2", status=status)
    return out


_CREATE: dict[str, Callable[[Any, Any], Any]] = {"Pod": _admit_pod, "Node": _admit_node, "ReplicaSet": _admit_replicated,
           "ReplicationController": _admit_replicated, "Deployment": _create_deployment,
           "DaemonSet": _admit_daemonset, "HorizontalPodAutoscaler": _admit_hpa}
_UPDATE: dict[str, Callable[[Any, Any], Any]] = {"Pod": _update_pod, "Node": _admit_node, "ReplicaSet": _admit_replicated,
           "ReplicationController": _admit_replicated, "Deployment": _admit_replicated,
           "DaemonSet": _admit_daemonset, "HorizontalPodAutoscaler": _admit_hpa}


# -- kubectl apply on an existing object --------------------------------------------------------


def merge_apply(current: Any, applied: Any) -> Any:
    """The object left behind when ``applied`` (a whole object, not a patch) meets
    ``current`` — ``Session.apply_objects``; ``kubectl apply`` patches (client_apply.py).

    The user's labels, annotations and spec replace the stored ones; status and identity stay
    (a Node keeps its conditions but takes a new capacity if the manifest gives one). Pods only
    accept the changes upstream allows on a running pod.
    """
    meta = evolve(current.metadata, labels=applied.metadata.labels or EMPTY,
                        annotations=applied.metadata.annotations or EMPTY)
    if current.kind == "Pod":
        return _merge_pod(current, applied, meta)
    changes: dict[str, Any] = {"metadata": meta}
    if hasattr(current, "spec"):
        changes["spec"] = applied.spec
    if current.kind == "Node":
        status = applied_node_status(current, applied)
        if status is not None:
            changes["status"] = status
    if current.kind == "PriorityClass":
        changes.update(value=applied.value, global_default=applied.global_default,
                       description=applied.description)
    return evolve(current, **changes)


def applied_node_status(current: Any, applied: Any) -> Any:
    """The sandbox's own rule for a Node applied again (its nodes are simulated): the node
    takes the manifest's size — its capacity, and its allocatable or else that capacity — and
    keeps its conditions; None when the manifest gives no capacity. Session.apply_objects
    (merge_apply) and kubectl apply (commands/client_apply.py) both take it."""
    if not applied.status.capacity:
        return None
    return evolve(current.status, capacity=applied.status.capacity,
                  allocatable=applied.status.allocatable or applied.status.capacity)


def _merge_pod(current: Any, applied: Any, meta: Any) -> Any:
    cur, new = current.spec, default_pod(applied.spec)
    if not current.is_mirror:
        new = default_service_account(new)
    # What the manifest leaves out, the API server filled in: the binding, the priority.
    new = evolve(new, node_name=new.node_name or cur.node_name, priority=cur.priority,
                 preemption_policy=cur.preemption_policy,
                 tolerations=default_tolerations(new.tolerations))
    return evolve(current, metadata=meta, spec=check_pod_update(current.metadata.name, cur, new))


def check_pod_update(name: str, cur: Any, new: Any) -> Any:
    """ValidatePodUpdate (pkg/apis/core/validation) on a stored pod's spec ``cur`` becoming
    ``new``. First ValidateContainerUpdates: containers and init containers may not be added
    or removed (that error alone). Then every error is reported: an existing toleration may
    change its tolerationSeconds only (validateOnlyAddedTolerations), and the spec with the
    images and tolerations put back (the munged spec) must equal the old one. Returns ``new``.
    kubectl apply, patch and edit of a pod all go through here."""
    for path, old_list, new_list in (("spec.containers", cur.containers, new.containers),
                                     ("spec.initContainers", cur.init_containers,
                                      new.init_containers)):
        if len(old_list) != len(new_list):
            raise ValidationError("Pod", name, [FieldError.forbidden(
                path, "pod updates may not add or remove containers")])
    errors = []
    for old in cur.tolerations:
        if not any(evolve(old, toleration_seconds=t.toleration_seconds) == t
                   for t in new.tolerations):
            errors.append(FieldError.forbidden(
                "spec.tolerations",
                "existing toleration can not be modified except its tolerationSeconds"))
            break
    munged = evolve(new, containers=_images_of(cur.containers, new.containers),
                    init_containers=_images_of(cur.init_containers, new.init_containers),
                    tolerations=cur.tolerations)
    if munged != cur:
        errors.append(FieldError.forbidden(
            "spec", "pod updates may not change fields other than `spec.containers[*].image`,"
                    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                    "`spec.tolerations` (only additions to existing tolerations),"
                    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
                    "previously negative)"))
    if errors:
        raise ValidationError("Pod", name, errors)
    return new


def _images_of(old: tuple[Any, ...], new: tuple[Any, ...]) -> tuple[Any, ...]:
    """``new``'s containers with ``old``'s images, position by position (the munging)."""
    return tuple(evolve(n, image=o.image) for o, n in zip(old, new))


def frozen_labels(labels: dict[str, str]) -> FrozenDict:
    return FrozenDict(labels) if labels else EMPTY


# The defaults of StatefulSets, Jobs, CronJobs, Services, Secrets and storage objects.
_CREATE.update(_OBJECT_CREATE)
_UPDATE.update(_OBJECT_UPDATE)
