"""Hostile-input fuzzing (issue 13, item 5): random manifests and random command scripts over
the shipped samples, with the properties the sandbox promises whatever it is fed:

- no traceback and no internal error: exit status 0 or 1 only, one ``error:`` line on 1;
- nothing applied on a refusal: a failed ``apply``/``create``/``run`` leaves the store as it was,
  and ``sim`` that exits 1 prints no state;
- no controller's sync raises (controllers/base.py SYNC_ERRORS);
- after the cluster settles: no node's requested resources exceed its allocatable (pods the
  kubelet admitted), no pod is bound to a node that does not exist (podgc's orphan rule),
  every DaemonSet has a pod for each node it should run on (daemon/util NodeShouldRunDaemonPod;
  nodes under disk or PID pressure reject non-critical pods at admission, so they are left out);
- the same inputs and seed give byte-identical output.

Fast in CI (a few dozen examples, well under a minute). ``KSANDBOX_FUZZ=long`` runs the long
profile (2,000 examples, or ``KSANDBOX_FUZZ_EXAMPLES``; random, not derandomized) for a soak.
"""

from __future__ import annotations

import json
import os
import signal
from collections import Counter, defaultdict
from contextlib import contextmanager
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ksandbox.cli import main
from ksandbox.controllers import base
from ksandbox.controllers.daemonset_util import daemon_tolerations, should_run, target_node
from ksandbox.resources import sample_cluster_path
from ksandbox.session import Session

LONG = os.environ.get("KSANDBOX_FUZZ") == "long"
settings.register_profile("fuzz-ci", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck), print_blob=True)
settings.register_profile("fuzz-long",
                          max_examples=int(os.environ.get("KSANDBOX_FUZZ_EXAMPLES", "2000")),
                          deadline=None,
                          suppress_health_check=list(HealthCheck), print_blob=True)
PROFILE = settings.get_profile("fuzz-long" if LONG else "fuzz-ci")
# Wall-clock seconds one example may take before it counts as a hang (bounded work).
HANG_SECONDS = 120 if LONG else 30

# Simulated seconds a script's cluster may take to settle after its last step: a pod storm
# (pods tolerating every taint on a node under disk pressure) never settles — it runs at the
# controller's client rate, as upstream — so the invariants are checked 10 minutes in.
SETTLE = 600.0

SAMPLES = ("default", "taints", "spread", "node-failure", "autoscaling")


@contextmanager
def hang_guard(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Fail an example that runs longer than ``seconds`` of wall time (a loop at one instant)."""
    def fire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"example ran over {seconds} s of wall time: unbounded work")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# -- values ----------------------------------------------------------------------------------

WEIRD_INTS = st.sampled_from([0, 1, 2, 3, -1, 7, 110, 2 ** 31 - 1, 2 ** 31, 2 ** 63, -2 ** 63 - 1,
                              10 ** 30, 10 ** 4000, -10 ** 4200, 1.5, 1e300])
WEIRD_SCALARS = st.one_of(
    st.none(), st.booleans(), WEIRD_INTS,
    st.sampled_from(["", "x", "07", "1e9", "nan", "-", "100m", "1Gi", "999999Ei", "1e400",
                     "NoSchedule", "NoExecute", "Exists", "Equal", "a" * 300, "é", "\x00"]),
)
NAME = st.one_of(st.from_regex(r"fuzz-[a-z0-9]{1,6}", fullmatch=True),
                 st.sampled_from(["", "UPPER", "a" * 300, "-bad", "x..y"]))
QUANTITY = st.one_of(st.sampled_from(["100m", "250m", "1", "2", "64Mi", "512Mi", "1Gi", "0",
                                      "-1", "1e3", "9999999", "abc", "1.5"]), WEIRD_INTS)
TAINT_KEY = st.sampled_from(["dedicated", "hw-type", "node.kubernetes.io/disk-pressure",
                             "node.kubernetes.io/unreachable", "k", ""])
EFFECT = st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute", "Bogus", ""])


@st.composite
def toleration(draw: Any) -> dict:
    t: dict[str, Any] = {}
    if draw(st.booleans()):
        t["operator"] = "Exists"     # sometimes: tolerates every taint (the pod storm)
    else:
        t.update(key=draw(TAINT_KEY), operator=draw(st.sampled_from(["Equal", "Exists", "X"])),
                 value=draw(st.sampled_from(["gpu", "infra", ""])))
    if draw(st.booleans()):
        t["effect"] = draw(EFFECT)
    if draw(st.integers(0, 3)) == 0:
        t["tolerationSeconds"] = draw(WEIRD_INTS)
    return t


@st.composite
def pod_spec(draw: Any) -> dict:
    container: dict[str, Any] = {"name": "c", "image": "img"}
    if draw(st.booleans()):
        container["resources"] = {"requests": {"cpu": draw(QUANTITY), "memory": draw(QUANTITY)}}
    spec: dict[str, Any] = {"containers": [container]}
    if draw(st.booleans()):
        spec["tolerations"] = draw(st.lists(toleration(), max_size=3))
    if draw(st.integers(0, 3)) == 0:
        spec["nodeSelector"] = {draw(st.sampled_from(["hw-type", "zone", "kubernetes.io/os"])):
                                draw(st.sampled_from(["gpu", "linux", "a"]))}
    if draw(st.integers(0, 4)) == 0:
        spec["priority"] = draw(WEIRD_INTS)
    if draw(st.integers(0, 4)) == 0:
        spec["nodeName"] = draw(st.sampled_from(["node-1", "node-2", "ghost", ""]))
    if draw(st.integers(0, 5)) == 0:
        spec[draw(st.sampled_from(["terminationGracePeriodSeconds", "hostNetwork",
                                   "restartPolicy", "schedulerName"]))] = draw(WEIRD_SCALARS)
    return spec


@st.composite
def manifest(draw: Any) -> dict:
    kind = draw(st.sampled_from(["Pod", "Deployment", "DaemonSet", "ReplicaSet", "Node",
                                 "Job", "PriorityClass", "PodDisruptionBudget", "Namespace"]))
    name = draw(NAME)
    labels = {"app": name or "x"}
    api = {"Deployment": "apps/v1", "DaemonSet": "apps/v1", "ReplicaSet": "apps/v1",
           "Job": "batch/v1", "PriorityClass": "scheduling.k8s.io/v1",
           "PodDisruptionBudget": "policy/v1"}.get(kind, "v1")
    doc: dict[str, Any] = {"apiVersion": api, "kind": kind, "metadata": {"name": name}}
    template = {"metadata": {"labels": labels}, "spec": draw(pod_spec())}
    if kind == "Pod":
        doc["spec"] = template["spec"]
    elif kind in ("Deployment", "ReplicaSet"):
        doc["spec"] = {"replicas": draw(st.one_of(st.integers(0, 6), WEIRD_INTS)),
                       "selector": {"matchLabels": labels}, "template": template}
    elif kind == "DaemonSet":
        doc["spec"] = {"selector": {"matchLabels": labels}, "template": template}
    elif kind == "Job":
        template["spec"]["restartPolicy"] = "Never"
        doc["spec"] = {"completions": draw(st.integers(0, 3)), "template": template}
    elif kind == "Node":
        doc["status"] = {"capacity": {"cpu": draw(QUANTITY), "memory": draw(QUANTITY),
                                      "pods": draw(st.sampled_from(["0", "3", "110", "x"]))}}
        if draw(st.booleans()):
            doc["spec"] = {"taints": [{"key": draw(TAINT_KEY), "effect": draw(EFFECT)}]}
    elif kind == "PriorityClass":
        doc["value"] = draw(WEIRD_INTS)
    elif kind == "PodDisruptionBudget":
        doc["spec"] = {"minAvailable": draw(st.one_of(WEIRD_INTS, st.just("50%"))),
                       "selector": {"matchLabels": labels}}
    if draw(st.integers(0, 6)) == 0:   # a stray or wrongly typed field anywhere
        doc[draw(st.sampled_from(["spec", "metadata", "status", "extra"]))] = draw(WEIRD_SCALARS)
    return doc


@st.composite
def document_text(draw: Any) -> str:
    """YAML text: well-formed manifests, or manifests cut, doubled and salted with YAML syntax."""
    docs = draw(st.lists(manifest(), min_size=1, max_size=3))
    text = "---\n".join(yaml.safe_dump(d, sort_keys=False) for d in docs)
    how = draw(st.integers(0, 5))
    if how == 0 and len(text) > 2:
        i = draw(st.integers(0, len(text) - 1))
        text = text[:i] + draw(st.sampled_from(["&a ", "*a", "[", "{", ": ", "\t", "- ", "\n  ",
                                                "!!python/object ", "<<: *a\n", "'", '"',
                                                "9" * 5000]))\
            + text[i:]
    elif how == 1 and len(text) > 2:
        i, j = sorted(draw(st.tuples(st.integers(0, len(text)), st.integers(0, len(text)))))
        text = text[:i] + text[j:]
    elif how == 2:
        text = text + text           # duplicate keys
    return text


# -- commands --------------------------------------------------------------------------------

def names(session: Session, kind: str) -> list[str]:
    return sorted(o.metadata.name for o in session.store.list(kind)) or ["none"]


@st.composite
def command(draw: Any, session: Session) -> tuple[str, str | None]:
    node = draw(st.sampled_from(names(session, "Node") + ["ghost", "-bad"]))
    deploy = draw(st.sampled_from(names(session, "Deployment") + ["ghost"]))
    pod = draw(st.sampled_from(names(session, "Pod") + ["ghost"]))
    key, effect = draw(TAINT_KEY) or "k", draw(EFFECT)
    count = draw(st.sampled_from(["0", "1", "3", "07", "08", "-1", "0x10", "1_0", "1e3",
                                  "2147483648", "99999999999999999999", "9" * 5000, ""]))
    templates = [
        f"kubectl cordon {node}", f"kubectl uncordon {node}",
        f"kubectl taint nodes {node} {key}=v:{effect}", f"kubectl taint nodes {node} {key}-",
        f"kubectl label node {node} zone=z{count} --overwrite",
        f"kubectl scale deployment {deploy} --replicas={count}",
        f"kubectl autoscale deployment {deploy} --max={count} --cpu-percent=50",
        f"kubectl delete pod {pod} --grace-period={count}",
        f"kubectl delete deployment {deploy}",
        f"kubectl drain {node} --ignore-daemonsets --force --delete-emptydir-data "
        f"--grace-period={count}",
        f"ksandbox fail node {node}", f"ksandbox recover node {node}",
        f"ksandbox pressure node {node} {draw(st.sampled_from(['memory', 'disk', 'pid', 'cpu']))} "
        f"{draw(st.sampled_from(['on', 'off', 'maybe']))}",
        f"ksandbox add node fuzz-{count} --like {node}",
        f"ksandbox load deployment/{deploy} {count}",
        f"kubectl run fuzz-{key[:3]} --image=img --port={count}",
        "kubectl get pods -o wide", f"kubectl describe node {node}",
        draw(st.text(alphabet="kubectl -=:/'\"\\fa0ns", max_size=30)),
    ]
    if draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(["kubectl apply -f -", "kubectl create -f -"])), \
            draw(document_text())
    return draw(st.sampled_from(templates)), None


ALL_OR_NOTHING = ("kubectl apply", "kubectl create", "kubectl run")


def submit_checked(session: Session, text: str, stdin: str | None) -> None:
    before = session.store.resource_version
    result = session.submit(text, stdin)
    assert "internal" not in result.error, (text, result.error)
    assert "Traceback" not in result.error + result.output
    if result.error and text.startswith(ALL_OR_NOTHING):
        assert session.store.resource_version == before, f"{text!r} failed but changed the store"
    assert not base.SYNC_ERRORS, list(base.SYNC_ERRORS)


# -- invariants ------------------------------------------------------------------------------

PRESSURE = {"DiskPressure", "PIDPressure"}


def check_invariants(session: Session) -> None:
    store = session.store
    nodes = {n.metadata.name: n for n in store.nodes()}
    used: dict[str, Counter] = defaultdict(Counter)
    for pod in store.list("Pod"):
        bound = pod.spec.node_name
        if not bound:
            continue
        assert bound in nodes, f"pod {pod.metadata.name} bound to missing node {bound}"
        if pod.status.phase in ("Succeeded", "Failed"):
            continue
        used[bound]["pods"] += 1
        for resource, amount in pod.spec.requests.items():
            used[bound][resource] += amount
    for name, counts in used.items():
        alloc = nodes[name].allocatable_amounts
        for resource, amount in counts.items():
            if resource in alloc:
                assert amount <= alloc[resource], \
                    f"node {name}: {resource} requested {amount} > allocatable {alloc[resource]}"
    for ds in store.list("DaemonSet"):
        tspec = ds.spec.template.spec
        import attrs

        dspec = attrs.evolve(tspec, tolerations=daemon_tolerations(tspec))
        covered = {target_node(p) for p in store.list("Pod", ds.metadata.namespace)
                   if (ref := p.metadata.controller_ref()) is not None
                   and ref.uid == ds.metadata.uid}
        for name, node in nodes.items():
            conditions = {c.type for c in node.status.conditions if c.status == "True"}
            if conditions & PRESSURE:
                continue
            if should_run(node, tspec, dspec)[0]:
                assert name in covered, f"DaemonSet {ds.metadata.name} has no pod on {name}"


def run_script(sample: str, seed: int, steps: list[tuple[float, str, str | None]]) -> Session:
    session = Session.from_files([sample_cluster_path(sample)], seed=seed)
    for at, text, stdin in steps:
        session.run_until(at)
        submit_checked(session, text, stdin)
    session.settle(session.now + SETTLE)
    assert not base.SYNC_ERRORS, list(base.SYNC_ERRORS)
    return session


@pytest.fixture(autouse=True)
def _fresh_sync_errors():
    base.SYNC_ERRORS.clear()
    yield


@PROFILE
@given(data=st.data(), sample=st.sampled_from(SAMPLES), seed=st.integers(0, 3))
def test_random_command_scripts_keep_the_cluster_sound(data, sample, seed):
    """Random command scripts: every command answers (no internal error), refusals change
    nothing, the settled cluster holds the invariants, and a replay is byte-identical."""
    with hang_guard():
        probe = Session.from_files([sample_cluster_path(sample)], seed=seed)
        steps: list[tuple[float, str, str | None]] = []
        at = 0.0
        for _ in range(data.draw(st.integers(1, 8), label="steps")):
            at += data.draw(st.sampled_from([0.0, 0.5, 5.0, 30.0, 120.0]), label="dt")
            probe.run_until(at)
            text, stdin = data.draw(command(probe), label="command")
            submit_checked(probe, text, stdin)
            steps.append((at, text, stdin))
        probe.settle(probe.now + SETTLE)
        check_invariants(probe)
        again = run_script(sample, seed, steps)
        assert json.dumps(again.view()) == json.dumps(probe.view()), "same inputs, other output"


@PROFILE
@given(text=document_text(), sample=st.sampled_from(SAMPLES),
       until=st.sampled_from(["0", "30", "400"]))
def test_random_manifests_through_the_command_line(tmp_path_factory, text, sample, until):
    """``ksandbox sim`` over a sample plus random documents: exit 0 with a state that holds
    the invariants, or exit 1 with one error line and no state; twice, the same bytes."""
    path = tmp_path_factory.mktemp("fuzz") / "m.yaml"
    path.write_text(text)
    argv = ["sim", "-f", str(sample_cluster_path(sample)), "-f", str(path), "--until", until,
            "-o", "json"]
    outputs = []
    for _ in range(2):
        with hang_guard():
            code, out, err = _run_main(argv)
        assert code in (0, 1), err
        assert "Traceback" not in err and "internal error" not in err, err
        if code == 1:
            assert out == "" and len(err.strip().splitlines()) == 1 and err.startswith("error: ")
        else:
            state = json.loads(out)
            node_names = {n["name"] for n in state["nodes"]}
            if float(until) >= 400:   # podgc deletes pods on a missing node after 40 s
                assert all(p["node"] in node_names for p in state["pods"] if p["node"])
        outputs.append((code, out, err))
    assert outputs[0] == outputs[1]
    assert not base.SYNC_ERRORS, list(base.SYNC_ERRORS)


def _run_main(argv: list[str]) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()
