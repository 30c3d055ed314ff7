"""A pod's defaults, as the API server's v1 defaulting fills them in
(``pkg/apis/core/v1/defaults.go``).

Two layers, as upstream keeps them apart:

* ``default_pod_spec`` — every PodSpec, a Pod's or a workload template's (SetDefaults_PodSpec,
  SetDefaults_Container, SetDefaults_ContainerPort): dnsPolicy ClusterFirst, restartPolicy
  Always, an empty securityContext, terminationGracePeriodSeconds 30, the default scheduler;
  per container imagePullPolicy (Always for ``:latest`` or an untagged image, else
  IfNotPresent), the termination message path and policy, port protocol TCP.
* ``default_pod`` — a Pod only (SetDefaults_Pod): a container with limits and no request for a
  resource requests its limit (so a ``limits: cpu 3`` pod *requests* 3 CPUs, and the scheduler
  counts them), enableServiceLinks true, and with hostNetwork every container port is also a
  host port. Upstream keeps these out of templates so that an API server upgrade does not roll
  every Deployment; so does the sandbox (``get deploy -o yaml`` shows no defaulted requests).

Shared by the admission of pods and of every kind with a pod template (``admission.py``,
``admission_objects.py``) and by the kubelet for static pod manifests; it imports neither.
Not here: the admission plugins' mutations (DefaultTolerationSeconds, priority, the service
account), which are ``admission.py``'s.
"""

from __future__ import annotations

from typing import Any

from ..api.codec import EMPTY, FrozenDict
from ..api.evolve import by_identity, evolve

DEFAULT_SCHEDULER = "default-scheduler"
# pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec.
DEFAULT_TERMINATION_GRACE_PERIOD = 30
DEFAULT_DNS_POLICY = "ClusterFirst"
# k8s.io/api/core/v1: TerminationMessagePathDefault, TerminationMessageReadFile.
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
TERMINATION_MESSAGE_POLICY = "File"
PULL_ALWAYS, PULL_IF_NOT_PRESENT, PULL_NEVER = "Always", "IfNotPresent", "Never"


def image_tag(image: str) -> str:
    """The tag ``pkg/util/parsers.ParseImageName`` finds: the part after the last ``:`` of the
    last path segment (a registry's ``host:port`` is not a tag); ``latest`` when the image has
    neither a tag nor a digest; empty when it is pinned by digest alone."""
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        return last.rsplit(":", 1)[1]
    return "" if digest else "latest"


def default_pull_policy(image: str) -> str:
    """SetDefaults_Container: Always for the ``latest`` tag (explicit or implied), else
    IfNotPresent (a digest-pinned image included)."""
    return PULL_ALWAYS if image_tag(image) == "latest" else PULL_IF_NOT_PRESENT


def _default_container(c: Any, host_network: bool = False) -> Any:
    changes: dict[str, Any] = {}
    if not c.image_pull_policy:
        changes["image_pull_policy"] = default_pull_policy(c.image)
    extra = c.extra
    if "terminationMessagePath" not in extra:
        extra = extra.set("terminationMessagePath", TERMINATION_MESSAGE_PATH)
    if "terminationMessagePolicy" not in extra:
        extra = extra.set("terminationMessagePolicy", TERMINATION_MESSAGE_POLICY)
    env = extra.get("env")
    if env and any(isinstance(e, FrozenDict) and e.get("value") == "" for e in env):
        extra = extra.set("env", tuple(_without_empty_value(e) for e in env))
    if extra is not c.extra:
        changes["extra"] = extra
    if c.ports and any(not p.protocol or (host_network and not p.host_port) for p in c.ports):
        changes["ports"] = tuple(
            evolve(p, protocol=p.protocol or "TCP",
                   host_port=p.host_port or (p.container_port if host_network else 0))
            for p in c.ports)
    return evolve(c, **changes) if changes else c


def _without_empty_value(e: Any) -> Any:
    """Not a default but the same moment: the API server decodes into v1.EnvVar, whose
    ``value`` is ``omitempty``, so ``value: ""`` is not there when the object is read back
    (the last-applied annotation, kubectl's own text, keeps it)."""
    if isinstance(e, FrozenDict) and e.get("value") == "":
        return FrozenDict({k: v for k, v in e.items() if k != "value"})
    return e


def _containers(cs: tuple[Any, ...], host_network: bool = False) -> tuple[Any, ...]:
    out = tuple(_default_container(c, host_network) for c in cs)
    return cs if all(a is b for a, b in zip(out, cs)) else out


def default_pod_spec(spec: Any) -> Any:
    """SetDefaults_PodSpec and the container defaults: for pods and pod templates alike."""
    changes = spec_defaults(spec)
    return evolve(spec, **changes) if changes else spec


def spec_defaults(spec: Any) -> dict[str, Any]:
    """What :func:`default_pod_spec` changes, as ``evolve`` keyword arguments (so a caller
    that changes more builds the spec once)."""
    changes: dict[str, Any] = {}
    if not spec.scheduler_name:
        changes["scheduler_name"] = DEFAULT_SCHEDULER
    if spec.termination_grace_period_seconds is None:
        changes["termination_grace_period_seconds"] = DEFAULT_TERMINATION_GRACE_PERIOD
    if not spec.restart_policy:
        changes["restart_policy"] = "Always"
    # Pods of one template share these values (codec.sharing), so the defaults are computed
    # once per distinct value and shared too (evolve.by_identity).
    extra = by_identity(_spec_extra, spec.extra)
    if extra is not spec.extra:
        changes["extra"] = extra
    containers = by_identity(_containers, spec.containers)
    if containers is not spec.containers:
        changes["containers"] = containers
    inits = by_identity(_containers, spec.init_containers)
    if inits is not spec.init_containers:
        changes["init_containers"] = inits
    return changes


def _spec_extra(extra: FrozenDict) -> FrozenDict:
    if not extra.get("dnsPolicy"):
        extra = extra.set("dnsPolicy", DEFAULT_DNS_POLICY)
    if extra.get("securityContext") is None:
        extra = extra.set("securityContext", EMPTY)
    return extra


def _requests_from_limits(c: Any) -> Any:
    """SetDefaults_Pod: every resource with a limit and no request requests its limit (a
    request already given, even 0, stays)."""
    res = c.resources
    missing = [n for n in res.limits if n not in res.requests]
    if not missing:
        return c
    requests = dict(res.requests)
    for n in missing:
        requests[n] = res.limits[n]
    return evolve(c, resources=evolve(res, requests=FrozenDict(requests)))


def default_pod(spec: Any) -> Any:
    """A Pod's spec defaults: ``default_pod_spec`` plus SetDefaults_Pod's pod-only ones."""
    changes = pod_defaults(spec)
    return evolve(spec, **changes) if changes else spec


def pod_defaults(spec: Any) -> dict[str, Any]:
    """What :func:`default_pod` changes, as ``evolve`` keyword arguments."""
    changes = spec_defaults(spec)
    for field in ("containers", "init_containers"):
        cs = changes.get(field, getattr(spec, field))
        new = by_identity(_pod_containers, cs, spec.host_network)
        if new is not cs:
            changes[field] = new
    extra = changes.get("extra", spec.extra)
    if extra.get("enableServiceLinks") is None:
        changes["extra"] = by_identity(_service_links, extra)
    return changes


def _pod_containers(cs: tuple[Any, ...], host_network: bool) -> tuple[Any, ...]:
    """SetDefaults_Pod's per-container defaults: ``cs`` itself when nothing changes."""
    new = tuple(_requests_from_limits(c) for c in cs)
    if host_network:
        new = tuple(_default_container(c, True) for c in new)
    return new if any(a is not b for a, b in zip(new, cs)) else cs


def _service_links(extra: FrozenDict) -> FrozenDict:
    return extra.set("enableServiceLinks", True)
