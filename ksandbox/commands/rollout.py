"""``kubectl rollout status|history|undo|restart|pause|resume`` and ``kubectl set image``.

As kubectl's ``pkg/cmd/rollout`` and ``pkg/polymorphichelpers`` (rollout_status.go's
Deployment/DaemonSet/StatefulSet status viewers, history.go's DeploymentHistoryViewer,
rollback.go's DeploymentRollbacker with deploymentRevision, objectrestarter.go,
objectpauser.go, objectresumer.go) and ``pkg/cmd/set/set_image.go``:

* ``status`` prints the status viewer's line for the object as it is now. kubectl would keep
  watching until the rollout finishes; a sandbox command never advances the simulated clock,
  so this is kubectl's ``--watch=false`` answer (run the clock and ask again).
* ``history`` lists the revisions of a Deployment's ReplicaSets (``deployment.kubernetes.io/
  revision``) with their ``kubernetes.io/change-cause``.
* ``undo [--to-revision=N]`` puts the template of revision N (default: the previous one) back
  into the Deployment, without its ``pod-template-hash`` label, with the ReplicaSet's
  annotations; a paused Deployment refuses; a template already equal is "skipped rollback".
* ``restart`` stamps ``kubectl.kubernetes.io/restartedAt`` (the simulated time, RFC 3339) on
  the pod template of a Deployment, DaemonSet or StatefulSet, so its controller rolls it.
* ``pause`` / ``resume`` set a Deployment's ``spec.paused``.
* ``set image TYPE NAME CONTAINER=IMAGE ...`` (``*`` for every container) on pods and on the
  templates of workloads.

``history --revision=N`` prints that revision's pod template as describe does.

Not here: DaemonSet and StatefulSet history and undo (their ControllerRevisions),
``status --revision``/``--timeout``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.codec import FrozenDict
from ..api.errors import ApiError, CommandError
from ..views.timefmt import rfc3339
from .common import check_output, printed, select_objects, selector_of
from .parse import (
    ALL,
    BOOL,
    DRY_RUN,
    INT,
    NAMESPACE,
    OUTPUT,
    SELECTOR,
    STR,
    Flag,
    dry_run_strategy,
    namespace_of,
    parse_flags,
    parse_targets,
)

if TYPE_CHECKING:
    from ..session import Session

SUBCOMMANDS = ("history", "pause", "restart", "resume", "status", "undo")
REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
POD_TEMPLATE_HASH = "pod-template-hash"
# rollback.go annotationsToSkip: kept from the Deployment, never copied from the ReplicaSet.
_SKIP_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration", REVISION,
                     "deployment.kubernetes.io/revision-history",
                     "deployment.kubernetes.io/desired-replicas",
                     "deployment.kubernetes.io/max-replicas",
                     "deprecated.deployment.rollback.to")
_RESTARTABLE = ("Deployment", "DaemonSet", "StatefulSet")
_IMAGE_KINDS = ("Pod", "Deployment", "ReplicaSet", "ReplicationController", "DaemonSet",
                "StatefulSet", "Job", "CronJob")


@attrs.frozen
class RolloutCommand:
    sub: str
    targets: tuple[Any, ...]
    namespace: str = "default"
    selector: str = ""
    to_revision: int = 0
    dry_run: str = "none"
    output: str = ""
    revision: int = 0               # history --revision


@attrs.frozen
class SetImageCommand:
    targets: tuple[Any, ...]
    images: tuple[tuple[str, str], ...]
    namespace: str = "default"
    selector: str = ""
    all: bool = False
    dry_run: str = "none"
    output: str = ""


def _no_resources() -> CommandError:
    return CommandError("required resource not specified")


def parse_rollout(tokens: list[str]) -> RolloutCommand:
    if not tokens or tokens[0].startswith("-"):
        raise CommandError("Required resource not specified.",
                           hint="See 'kubectl rollout -h' for help and examples")
    sub = tokens[0]
    if sub not in SUBCOMMANDS:
        raise CommandError(f'unknown command "{sub}" for "kubectl rollout"',
                           hint="See 'kubectl rollout -h' for help and examples")
    flags: list[Flag] = [NAMESPACE, SELECTOR]
    if sub == "undo":
        flags += [Flag("to-revision", INT, "", 0), DRY_RUN]
    if sub in ("undo", "restart", "pause", "resume"):
        flags.append(OUTPUT)
    if sub == "status":
        flags += [Flag("watch", BOOL, "w", True), Flag("timeout", STR, "", "0s"),
                  Flag("revision", INT, "", 0)]
    if sub == "history":
        flags.append(Flag("revision", INT, "", 0))
    a = parse_flags(f"rollout {sub}", tokens[1:], flags)
    targets = parse_targets(f"rollout {sub}", a.positionals)
    if not targets:
        raise CommandError("required resource not specified",
                           hint=f"See 'kubectl rollout {sub} -h' for help and examples")
    if sub == "history" and a["revision"] < 0:
        raise CommandError(f"revision must be a positive integer: {a['revision']}")
    output = a["output"] if a.has("output") else ""
    if output:
        check_output(f"rollout {sub}", output)
    selector_of(a["selector"])
    return RolloutCommand(sub, targets, namespace_of(a), a["selector"],
                          a["to-revision"] if sub == "undo" else 0,
                          dry_run_strategy(a) if sub == "undo" else "none", output,
                          a["revision"] if sub == "history" else 0)


def parse_set(tokens: list[str]) -> SetImageCommand:
    if not tokens or tokens[0] != "image":
        what = tokens[0] if tokens else ""
        raise CommandError(f'"kubectl set {what}" is not supported by ksandbox (only '
                           '"kubectl set image")' if what else
                           "kubectl set: a subcommand is required (image)")
    a = parse_flags("set image", tokens[1:], (NAMESPACE, SELECTOR, ALL, OUTPUT, DRY_RUN))
    check_output("set image", a["output"])
    resources = [p for p in a.positionals if "=" not in p]
    pairs = [p for p in a.positionals if "=" in p]
    if not pairs:
        raise CommandError("at least one image update is required")
    images = []
    for p in pairs:
        name, _, image = p.partition("=")
        if not name or not image:
            raise CommandError(f"invalid image update: {p}")
        images.append((name, image))
    targets = parse_targets("set image", resources)
    if not targets:
        raise CommandError("one or more resources must be specified as <resource> <name> or "
                           "<resource>/<name>")
    if not any(t.names for t in targets) and not a["selector"] and not a["all"]:
        raise CommandError("resource(s) were provided, but no name, label selector, or --all "
                           "flag specified")
    selector_of(a["selector"])
    return SetImageCommand(targets, tuple(images), namespace_of(a), a["selector"], a["all"],
                           dry_run_strategy(a), a["output"])


# -- running ---------------------------------------------------------------------------------

def _objects(session: Session, cmd: Any) -> list[Any]:
    objs = select_objects(session.store, cmd.targets, cmd.namespace, False,
                          selector_of(cmd.selector))
    if not objs:
        raise CommandError("no objects passed to rollout")
    return objs


def _ref(obj: Any) -> str:
    from ..api.kinds import BY_KIND

    return f'{BY_KIND[obj.kind].display_resource} "{obj.metadata.name}"'


def run_rollout(session: Session, cmd: RolloutCommand, stdin: str | None) -> str:
    objs = _objects(session, cmd)
    if cmd.sub == "status":
        return "".join(status_line(o) for o in objs)
    if cmd.sub == "history":
        return "".join(_history(session, o, cmd.revision) for o in objs)
    if cmd.sub == "undo":
        return "".join(_undo(session, o, cmd) for o in objs)
    out = []
    for obj in objs:
        if cmd.sub == "restart":
            out.append(_restart(session, obj, cmd))
        else:
            out.append(_pause(session, obj, cmd, cmd.sub == "pause"))
    return "".join(out)


def status_line(obj: Any) -> str:
    """rollout_status.go: the status viewer of each kind."""
    name, st, gen = obj.metadata.name, obj.status, obj.metadata.generation or 0
    if obj.kind == "Deployment":
        if gen > (st.observed_generation or 0):
            return "Waiting for deployment spec update to be observed...\n"
        for c in st.extra.get("conditions") or ():
            if hasattr(c, "get") and c.get("type") == "Progressing" and \
                    c.get("reason") == "ProgressDeadlineExceeded":
                raise CommandError(f'deployment "{name}" exceeded its progress deadline')
        want = obj.spec.replicas if obj.spec.replicas is not None else 1
        updated, replicas = st.updated_replicas or 0, st.replicas or 0
        available = st.available_replicas or 0
        if updated < want:
            return (f'Waiting for deployment "{name}" rollout to finish: {updated} out of '
                    f"{want} new replicas have been updated...\n")
        if replicas > updated:
            return (f'Waiting for deployment "{name}" rollout to finish: {replicas - updated} '
                    "old replicas are pending termination...\n")
        if available < updated:
            return (f'Waiting for deployment "{name}" rollout to finish: {available} of '
                    f"{updated} updated replicas are available...\n")
        return f'deployment "{name}" successfully rolled out\n'
    if obj.kind == "DaemonSet":
        if obj.spec.update_strategy.type not in ("", "RollingUpdate"):
            raise CommandError("rollout status is only available for RollingUpdate strategy "
                               "type")
        if gen > (st.observed_generation or 0):
            return "Waiting for daemon set spec update to be observed...\n"
        desired = st.desired_number_scheduled or 0
        updated = st.updated_number_scheduled or 0
        available = st.number_available or 0
        if updated < desired:
            return (f'Waiting for daemon set "{name}" rollout to finish: {updated} out of '
                    f"{desired} new pods have been updated...\n")
        if available < desired:
            return (f'Waiting for daemon set "{name}" rollout to finish: {available} of '
                    f"{desired} updated pods are available...\n")
        return f'daemon set "{name}" successfully rolled out\n'
    if obj.kind == "StatefulSet":
        stype = obj.spec.update_strategy.type or "RollingUpdate"
        if stype != "RollingUpdate":
            raise CommandError("rollout status is only available for RollingUpdate strategy "
                               "type")
        if not st.observed_generation or gen > st.observed_generation:
            return "Waiting for statefulset spec update to be observed...\n"
        want = obj.spec.replicas if obj.spec.replicas is not None else 1
        if (st.ready_replicas or 0) < want:
            return f"Waiting for {want - (st.ready_replicas or 0)} pods to be ready...\n"
        if st.update_revision != st.current_revision:
            return (f"waiting for statefulset rolling update to complete "
                    f"{st.updated_replicas or 0} pods at revision {st.update_revision}...\n")
        return (f"statefulset rolling update complete {st.current_replicas or 0} pods at "
                f"revision {st.current_revision}...\n")
    raise CommandError(f"no status viewer has been implemented for {obj.kind}")


def _replica_sets(session: Session, d: Any) -> list[tuple[int, Any]]:
    """The Deployment's revisions, oldest first, as kubectl finds them (util/deployment
    GetAllReplicaSets): ReplicaSets its selector matches *and* it controls. One whose labels
    were taken away is no revision, even before the deployment controller releases it. A
    ReplicaSet without the revision annotation is revision 0 (deploymentutil.Revision); one
    whose annotation is no number is skipped."""
    selector = d.spec.selector
    out = []
    for rs in session.store.list("ReplicaSet", d.metadata.namespace):
        ref = rs.metadata.controller_ref()
        if ref is None or ref.uid != d.metadata.uid:
            continue
        if selector is None or not selector.matches(rs.metadata.labels):
            continue
        try:
            out.append((int(rs.metadata.annotations.get(REVISION, "0")), rs))
        except ValueError:
            continue
    return sorted(out, key=lambda p: p[0])


def _history(session: Session, obj: Any, revision: int = 0) -> str:
    if obj.kind != "Deployment":
        raise CommandError(f"kubectl rollout history of a {obj.kind} is not supported by "
                           "ksandbox (its ControllerRevisions are not listed)")
    if not _replica_sets(session, obj):
        # history.go says so before it looks for a --revision.
        with_revision = f"with revision #{revision}" if revision else ""
        return f"deployment.apps/{obj.metadata.name} {with_revision}\nNo rollout history found.\n"
    if revision:
        # printTemplate: the ReplicaSet's pod template, as describe shows one.
        rs = next((rs for rev, rs in _replica_sets(session, obj) if rev == revision), None)
        if rs is None:
            raise CommandError("unable to find the specified revision")
        from ..views.describe_base import Writer, pod_template

        w = Writer()
        pod_template(w, rs.spec.template)
        return (f"deployment.apps/{obj.metadata.name} with revision #{revision}\n"
                f"{w.render()}\n")
    rows = [("REVISION", "CHANGE-CAUSE")]
    for rev, rs in _replica_sets(session, obj):
        rows.append((str(rev), rs.metadata.annotations.get(CHANGE_CAUSE) or "<none>"))
    width = max(len(r[0]) for r in rows) + 2
    body = "".join(f"{a.ljust(width)}{b}\n" for a, b in rows)
    return f"deployment.apps/{obj.metadata.name} \n{body}\n"


def _template_without_hash(template: Any) -> Any:
    labels = {k: v for k, v in template.metadata.labels.items() if k != POD_TEMPLATE_HASH}
    return attrs.evolve(template, metadata=attrs.evolve(template.metadata,
                                                        labels=FrozenDict(labels)))


def _undo(session: Session, d: Any, cmd: RolloutCommand) -> str:
    if d.kind != "Deployment":
        raise CommandError(f"kubectl rollout undo of a {d.kind} is not supported by ksandbox "
                           "(its ControllerRevisions are not replayed)")
    if d.spec.paused:
        raise CommandError("you cannot rollback a paused deployment; resume it first with "
                           "'kubectl rollout resume' and try again")
    revisions = _replica_sets(session, d)
    target = None
    if cmd.to_revision > 0:
        target = next((rs for rev, rs in revisions if rev == cmd.to_revision), None)
        if target is None:
            raise CommandError(f"unable to find specified revision {cmd.to_revision} in "
                               "history")
    elif len(revisions) >= 2:
        target = revisions[-2][1]
    if target is None:
        raise CommandError(f'no rollout history found for deployment "{d.metadata.name}"')
    template = _template_without_hash(target.spec.template)
    if template == d.spec.template:
        rev = target.metadata.annotations.get(REVISION, "")
        return printed(d, f"skipped rollback (current template already matches revision "
                          f"{rev})", cmd.output)
    annotations = {k: v for k, v in d.metadata.annotations.items() if k in _SKIP_ANNOTATIONS}
    annotations.update({k: v for k, v in target.metadata.annotations.items()
                        if k not in _SKIP_ANNOTATIONS})
    updated = attrs.evolve(d, metadata=attrs.evolve(d.metadata,
                                                    annotations=FrozenDict(annotations)),
                           spec=attrs.evolve(d.spec, template=template))
    (written,) = session.store.update_all([updated], dry_run=cmd.dry_run != "none")
    return printed(written, "rolled back", cmd.output, cmd.dry_run)


def _restart(session: Session, obj: Any, cmd: RolloutCommand) -> str:
    if obj.kind not in _RESTARTABLE:
        raise CommandError(f"restarting is not supported for {_ref(obj)}")
    if obj.kind == "Deployment" and obj.spec.paused:
        raise CommandError("can't restart paused deployment (run rollout resume first)")
    tmpl = obj.spec.template
    annotations = dict(tmpl.metadata.annotations)
    annotations[RESTARTED_AT] = rfc3339(session.now)
    template = attrs.evolve(tmpl, metadata=attrs.evolve(tmpl.metadata,
                                                        annotations=FrozenDict(annotations)))
    (written,) = session.store.update_all([attrs.evolve(obj, spec=attrs.evolve(
        obj.spec, template=template))])
    return printed(written, "restarted", cmd.output)


def _pause(session: Session, obj: Any, cmd: RolloutCommand, pause: bool) -> str:
    word = "pausing" if pause else "resuming"
    if obj.kind != "Deployment":
        raise CommandError(f"{_ref(obj)} {word} is not supported")
    if bool(obj.spec.paused) == pause:
        raise CommandError(f"{_ref(obj)} is {'already' if pause else 'not'} paused")
    (written,) = session.store.update_all([attrs.evolve(obj, spec=attrs.evolve(
        obj.spec, paused=pause))])
    return printed(written, "paused" if pause else "resumed", cmd.output)


def _pod_spec_of(obj: Any) -> Any:
    if obj.kind == "Pod":
        return obj.spec
    if obj.kind == "CronJob":
        return obj.spec.job_template.spec.template.spec
    return obj.spec.template.spec


def _with_pod_spec(obj: Any, spec: Any) -> Any:
    if obj.kind == "Pod":
        return attrs.evolve(obj, spec=spec)
    if obj.kind == "CronJob":
        jt = obj.spec.job_template
        return attrs.evolve(obj, spec=attrs.evolve(obj.spec, job_template=attrs.evolve(
            jt, spec=attrs.evolve(jt.spec, template=attrs.evolve(jt.spec.template,
                                                                 spec=spec)))))
    return attrs.evolve(obj, spec=attrs.evolve(obj.spec, template=attrs.evolve(
        obj.spec.template, spec=spec)))


def run_set_image(session: Session, cmd: SetImageCommand, stdin: str | None) -> str:
    objs = select_objects(session.store, cmd.targets, cmd.namespace, False,
                          selector_of(cmd.selector))
    if not objs:
        raise CommandError("no objects passed to set image")
    updates = []
    for obj in objs:
        if obj.kind not in _IMAGE_KINDS:
            raise ApiError("BadRequest", f"{_ref(obj)}: the object has no pod template", 400)
        spec = _pod_spec_of(obj)
        containers, inits = list(spec.containers), list(spec.init_containers)
        for name, image in cmd.images:
            found = False
            for group in (inits, containers):
                for i, c in enumerate(group):
                    if name in ("*", c.name):
                        group[i] = attrs.evolve(c, image=image)
                        found = True
            if not found:
                raise CommandError(f'unable to find container named "{name}"')
        updates.append(_with_pod_spec(obj, attrs.evolve(spec, containers=tuple(containers),
                                                        init_containers=tuple(inits))))
    written = session.store.update_all(updates, dry_run=cmd.dry_run != "none")
    return "".join(printed(o, "image updated", cmd.output, cmd.dry_run) for o in written)
