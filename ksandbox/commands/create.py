"""kubectl's create generators: ``create deployment``, ``create job`` and ``create namespace``.

As ``staging/src/k8s.io/kubectl/pkg/cmd/create`` (create_deployment.go createDeployment /
buildPodSpec / sanitizeAndUniquify, create_job.go createJob / createJobFromCronJob / Validate,
create_namespace.go):

* ``create deployment NAME --image=IMAGE [--image=...] [--replicas=N] [--port=P] [-- CMD...]``:
  labels and selector ``app=NAME``; one container per image, named after the image's last path
  part without tag or digest (``_`` and ``.`` become ``-`` plus a random 5-letter suffix); the
  command after ``--`` for every container (refused with several images); ``--port`` on the
  first container.
* ``create job NAME --image=IMAGE [-- CMD...]``: one container named NAME, restartPolicy Never;
  ``create job NAME --from=cronjob/CJ``: the CronJob's job template, annotated
  ``cronjob.kubernetes.io/instantiate: manual`` and controlled by the CronJob.
* ``create namespace NAME``.

Output ``deployment.apps/NAME created``; a refused create is ``error: failed to create
deployment: <the API's message>`` (``job`` likewise; a namespace prints the API error as is).
``--dry-run=client|server`` and ``-o name|yaml|json`` as ``kubectl run``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.batch import CronJob, Job
from ..api.codec import FrozenDict, decode
from ..api.core import Namespace
from ..api.errors import ApiError, CommandError, KsandboxError, ValidationError
from ..api.meta import ObjectMeta, OwnerReference
from ..sim.rand import SimRandom
from ..views.serialize import to_manifest
from .apply import SAVE_CONFIG
from .common import check_output, printed
from .last_applied import LAST_APPLIED
from .parse import (
    ARRAY,
    DRY_RUN,
    NAMESPACE,
    OUTPUT,
    STR,
    Flag,
    dry_run_strategy,
    go_parse_int,
    namespace_of,
    parse_flags,
)
from .run import IMAGE_REFERENCE
from .save_config import typed_annotation

if TYPE_CHECKING:
    from ..session import Session

GENERATORS = {"deployment": "deployment", "deploy": "deployment", "job": "job",
              "namespace": "namespace", "ns": "namespace"}
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


@attrs.frozen
class CreateGenerated:
    generator: str                  # deployment | job | namespace
    name: str
    namespace: str = "default"
    images: tuple[str, ...] = ()
    replicas: int = 1
    port: int = -1
    command: tuple[str, ...] = ()
    from_: str = ""
    dry_run: str = "none"
    output: str = ""
    save_config: bool = False
    explicit_namespace: bool = False   # -n given: the generator puts it in the object


def parse(tokens: list[str]) -> CreateGenerated:
    generator = GENERATORS[tokens[0]]
    verb = f"create {generator}"
    flags: list[Flag] = [NAMESPACE, OUTPUT, DRY_RUN, SAVE_CONFIG]
    if generator == "deployment":
        flags += [Flag("image", ARRAY, "", ()), Flag("replicas", STR, "r", "1"),
                  Flag("port", STR, "", "-1")]
    elif generator == "job":
        flags += [Flag("image", STR, "", ""), Flag("from", STR, "", "")]
    a = parse_flags(verb, tokens[1:], flags)
    check_output(verb, a["output"])
    common = {"save_config": a["save-config"], "explicit_namespace": a.has("namespace")}
    dry_run = dry_run_strategy(a)
    if not a.positionals or a.args_len_at_dash == 0:
        raise CommandError("NAME is required", hint=f"See 'kubectl {verb} -h' for help and "
                                                    "examples")
    name, command = a.positionals[0], tuple(a.positionals[1:])
    if generator == "namespace":
        if command:
            raise CommandError(f"exactly one NAME is required, got {len(a.positionals)}",
                               hint=f"See 'kubectl {verb} -h' for help and examples")
        return CreateGenerated("namespace", name, dry_run=dry_run, output=a["output"],
                               save_config=a["save-config"])
    ns = namespace_of(a)
    if generator == "deployment":
        if not a.has("image"):
            raise CommandError('required flag(s) "image" not set')
        images = tuple(i for v in a["image"] for i in v.split(","))
        if len(images) > 1 and command:
            raise CommandError("cannot specify multiple --image options and command")
        replicas, port = _int32(a["replicas"], "replicas"), _int32(a["port"], "port")
        for image in images:
            _check_image(image)
        return CreateGenerated("deployment", name, ns, images, replicas, port, command,
                               dry_run=dry_run, output=a["output"], **common)
    image, source = a["image"], a["from"]
    if bool(image) == bool(source):
        raise CommandError("either --image or --from must be specified")
    if command and source:
        raise CommandError("cannot specify --from and command")
    if image:
        _check_image(image)
    return CreateGenerated("job", name, ns, (image,) if image else (), command=command,
                           from_=source, dry_run=dry_run, output=a["output"], **common)


def _int32(text: str, flag: str) -> int:
    """pflag's Int32 flag: Go's strconv.ParseInt(text, 0, 32) (``07`` is 7, ``08`` an error)."""
    try:
        return go_parse_int(text, 32)
    except ValueError as exc:
        raise CommandError(f'invalid argument "{text}" for "--{flag}" flag: strconv.ParseInt: '
                           f'parsing "{text}": {exc}') from None


def _check_image(image: str) -> None:
    if IMAGE_REFERENCE.fullmatch(image) is None:
        raise CommandError(f'invalid image name "{image}": invalid reference format')


def container_name(image: str, rand: SimRandom) -> str:
    """buildPodSpec: the image's last path part without tag or digest; sanitizeAndUniquify."""
    name = image.split("/")[-1].split(":")[0].split("@")[0]
    if "_" in name or "." in name:
        name = name.replace("_", "-").replace(".", "-")
        name = f"{name}-{''.join(rand.choice(_ALPHANUMS) for _ in range(5))}"
    return name


def build(session: Session, cmd: CreateGenerated, with_namespace: bool) -> Any:
    """The generated object; with ``--save-config`` it carries its own JSON in the
    last-applied annotation — on a client dry run too, as create_deployment.go (and
    create_job, create_namespace) annotate before they look at the dry run."""
    obj = _generate(session, cmd, with_namespace)
    if not cmd.save_config:
        return obj
    data = to_manifest(obj)
    meta = data.setdefault("metadata", {})
    if cmd.explicit_namespace:   # -n: the generator sets it (EnforceNamespace)
        meta["namespace"] = cmd.namespace
    else:                        # else it goes with the request only
        meta.pop("namespace", None)
    annotations = {**obj.metadata.annotations, LAST_APPLIED: typed_annotation(data)}
    return attrs.evolve(obj, metadata=attrs.evolve(obj.metadata,
                                                   annotations=FrozenDict(annotations)))


def _generate(session: Session, cmd: CreateGenerated, with_namespace: bool) -> Any:
    meta_ns = {"namespace": cmd.namespace} if with_namespace else {}
    if cmd.generator == "namespace":
        return Namespace(metadata=ObjectMeta(name=cmd.name))
    if cmd.generator == "deployment":
        rand = session.rand.child(f"create-deployment/{cmd.name}")
        containers: list[dict[str, Any]] = []
        for image in cmd.images:
            c: dict[str, Any] = {"name": container_name(image, rand), "image": image}
            if cmd.command:
                c["command"] = list(cmd.command)
            containers.append(c)
        if cmd.port >= 0 and containers:
            containers[0]["ports"] = [{"containerPort": cmd.port}]
        labels = {"app": cmd.name}
        from ..api.apps import Deployment

        return decode(Deployment, {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": cmd.name, "labels": labels, **meta_ns},
            "spec": {"replicas": cmd.replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": containers}}}})
    if cmd.images:
        c = {"name": cmd.name, "image": cmd.images[0]}
        if cmd.command:
            c["command"] = list(cmd.command)
        return decode(Job, {"apiVersion": "batch/v1", "kind": "Job",
                            "metadata": {"name": cmd.name, **meta_ns},
                            "spec": {"template": {"spec": {"containers": [c],
                                                           "restartPolicy": "Never"}}}})
    return _job_from(session, cmd, meta_ns)


def _job_from(session: Session, cmd: CreateGenerated, meta_ns: dict) -> Job:
    kind, sep, name = cmd.from_.partition("/")
    if not sep or kind.lower() not in ("cronjob", "cronjobs", "cj", "cronjob.batch",
                                       "cronjobs.batch") or not name:
        raise CommandError("from must be an existing cronjob")
    cj: CronJob | None = session.store.get("CronJob", name, cmd.namespace)
    if cj is None:
        raise ApiError.not_found("cronjobs.batch", name)
    tmpl = cj.spec.job_template
    annotations = {"cronjob.kubernetes.io/instantiate": "manual", **tmpl.metadata.annotations}
    ref = OwnerReference(api_version="batch/v1", kind="CronJob", name=cj.metadata.name,
                         uid=cj.metadata.uid, controller=True)
    return Job(metadata=ObjectMeta(name=cmd.name, namespace=meta_ns.get("namespace", ""),
                                   labels=tmpl.metadata.labels,
                                   annotations=FrozenDict(annotations), owner_references=(ref,)),
               spec=tmpl.spec)


def run(session: Session, cmd: CreateGenerated, stdin: str | None) -> str:
    if cmd.dry_run == "client":
        return printed(build(session, cmd, with_namespace=False), "created", cmd.output,
                       cmd.dry_run)
    obj = build(session, cmd, with_namespace=True)
    store = session.store
    target = store if cmd.dry_run == "none" else store.fork(lambda: session.now, SimRandom(0))
    try:
        stored = target.create(obj)
    except (ApiError, ValidationError) as err:
        if cmd.generator == "namespace":
            raise
        message = err.message if isinstance(err, ApiError) else str(err)
        raise CommandError(f"failed to create {cmd.generator}: {message}") from None
    except KsandboxError:
        raise
    return printed(stored, "created", cmd.output, cmd.dry_run)
