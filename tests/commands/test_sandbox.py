"""The sandbox's own verbs: strict parsing, NotFound for unknown objects, the component calls.

Components are replaced by recorders here, so these tests check the command layer alone
(whether or not the real kubelet and metrics emulators are part of the build).
"""

from __future__ import annotations

import pytest

from ksandbox.api.errors import CommandError
from ksandbox.commands import parse

from command_helpers import fails_without_change, run, session  # noqa: F401


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __getattr__(self, name):
        def record(*args):
            self.calls.append((name, *args))
        return record


@pytest.fixture
def kubelets(session, monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(session.cp, "kubelets", rec)
    return rec


@pytest.fixture
def metrics(session, monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(session.cp, "metrics", rec)
    return rec


@pytest.mark.parametrize("line,call,out", [
    ("ksandbox fail node node-2", ("fail_node", "node-2"),
     "node/node-2 failed (kubelet stopped posting status)\n"),
    ("ksandbox fail node node-2 --not-ready", ("fail_node", "node-2", True),
     "node/node-2 failed (kubelet reports NotReady: container runtime is down)\n"),
    ("ksandbox recover node node-2", ("recover_node", "node-2"), "node/node-2 recovered\n"),
    ("ksandbox fail node/node-3", ("fail_node", "node-3"),
     "node/node-3 failed (kubelet stopped posting status)\n"),
    ("ksandbox pressure node node-2 memory on", ("set_pressure", "node-2", "memory", True),
     "node/node-2 memory pressure on (MemoryPressure=True)\n"),
    ("ksandbox pressure node node-2 pid off", ("set_pressure", "node-2", "pid", False),
     "node/node-2 pid pressure off (PIDPressure=False)\n"),
    ("ksandbox add node node-4", ("add_node", "node-4", None), "node/node-4 created\n"),
    ("ksandbox add node node-4 --like node-1", ("add_node", "node-4", "node-1"),
     "node/node-4 created (like node-1)\n"),
])
def test_node_verbs_call_the_kubelets(session, kubelets, line, call, out):
    result = run(session, line)
    assert (result.output, result.error) == (out, "")
    assert kubelets.calls == [call]


@pytest.mark.parametrize("line,call,out", [
    ("ksandbox load deployment/web 80", ("set_load", "default", "Deployment", "web", 80),
     "deployment.apps/web load set to 80% CPU\n"),
    ("ksandbox load deploy web 35%", ("set_load", "default", "Deployment", "web", 35),
     "deployment.apps/web load set to 35% CPU\n"),
    ("ksandbox load rs/cache 0 -n default", ("set_load", "default", "ReplicaSet", "cache", 0),
     "replicaset.apps/cache load set to 0% CPU\n"),
])
def test_load_calls_the_metrics_emulator(session, metrics, line, call, out):
    result = run(session, line)
    assert (result.output, result.error) == (out, "")
    assert metrics.calls == [call]


@pytest.mark.parametrize("line,error", [
    ("ksandbox fail node nope", 'Error from server (NotFound): nodes "nope" not found\n'),
    ("ksandbox pressure node nope disk on",
     'Error from server (NotFound): nodes "nope" not found\n'),
    ("ksandbox add node node-2", 'Error from server (AlreadyExists): nodes "node-2" already '
                                 "exists\n"),
    ("ksandbox add node node-9 --like nope",
     'Error from server (NotFound): nodes "nope" not found\n'),
    ("ksandbox add node Bad_Name",
     'The Node "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase '
     "RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
     "must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
     "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"),
    ("ksandbox load deployment/nope 50",
     'Error from server (NotFound): deployments.apps "nope" not found\n'),
])
def test_unknown_objects_are_api_errors(session, kubelets, metrics, line, error):
    assert fails_without_change(session, line) == error
    assert kubelets.calls == [] and metrics.calls == []


@pytest.mark.parametrize("line,message", [
    ("ksandbox", "a sandbox verb is required: fail, recover, pressure, add, remove or load"),
    ("ksandbox explode node node-1", 'unknown command "explode" for "ksandbox"'),
    ("ksandbox fail node", "usage: ksandbox fail node NAME [--not-ready | --network]"),
    ("ksandbox fail node a b", "usage: ksandbox fail node NAME [--not-ready | --network]"),
    ("ksandbox fail pod web-1",
     '"ksandbox fail" works on nodes: ksandbox fail node NAME [--not-ready | --network]'),
    ("ksandbox recover node n --not-ready", "unknown flag: --not-ready"),
    ("ksandbox pressure node node-1 cpu on",
     'invalid pressure kind "cpu": must be one of memory, disk, pid'),
    ("ksandbox pressure node node-1 memory yes",
     'invalid pressure state "yes": must be on or off'),
    ("ksandbox pressure node node-1 memory",
     "usage: ksandbox pressure node NAME memory|disk|pid on|off"),
    ("ksandbox load deployment/web lots",
     'invalid CPU percent "lots": must be a whole number, 0 or more (e.g. 80 or 80%)'),
    ("ksandbox load pod/web-1 50", '"ksandbox load" works on deployments, replica sets and '
                                   "replication controllers: ksandbox load deployment/NAME "
                                   "CPU_PERCENT"),
    ("ksandbox load web 50", "usage: ksandbox load deployment/NAME CPU_PERCENT"),
    ("ksandbox add node n --as x", "unknown flag: --as"),
])
def test_parse_errors(line, message):
    with pytest.raises(CommandError) as exc:
        parse(line)
    assert str(exc.value) == message
