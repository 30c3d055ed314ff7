"""kubectl drain: flag parsing into DrainOptions, handed to ``drain_run`` (tested there)."""

from __future__ import annotations

import pytest

from ksandbox.api.errors import CommandError
from ksandbox.commands import parse
from ksandbox.commands.drain import DrainCommand, DrainOptions

from command_helpers import fails_without_change, session  # noqa: F401


@pytest.mark.parametrize("line,names,options", [
    ("kubectl drain node-1", ("node-1",), DrainOptions()),
    ("drain node-1 --ignore-daemonsets --delete-emptydir-data --force --grace-period=900",
     ("node-1",), DrainOptions(ignore_daemonsets=True, delete_emptydir_data=True, force=True,
                               grace_period=900)),
    ("drain node-1 --timeout=5m30s --pod-selector app=web --disable-eviction",
     ("node-1",), DrainOptions(timeout=330.0, pod_selector="app=web", disable_eviction=True)),
    ("drain -l zone=b --dry-run=server", (), DrainOptions(selector="zone=b", dry_run="server")),
    ("drain node-1 node-2 --timeout 0s --skip-wait-for-delete-timeout=30", ("node-1", "node-2"),
     DrainOptions(skip_wait_for_delete_timeout=30)),
    ("drain node-1 --delete-local-data", ("node-1",), DrainOptions(delete_emptydir_data=True)),
    ("drain node/node-1 --grace-period -1", ("node-1",), DrainOptions()),
])
def test_flags_parse_into_options(line, names, options):
    cmd = parse(line)
    assert isinstance(cmd, DrainCommand)
    assert (cmd.names, cmd.options) == (names, options)


def test_deprecated_flag_is_noted():
    assert parse("drain node-1 --delete-local-data").warnings == (
        "Flag --delete-local-data has been deprecated, This option is deprecated and will be "
        "deleted. Use --delete-emptydir-data.",)


@pytest.mark.parametrize("line,message", [
    ("drain", "USAGE: drain NODE [flags]"),
    ("drain node-1 -l zone=b", "error: cannot specify both a node name and a --selector "
                               "option"),
    ("drain node-1 --timeout=soon", 'invalid argument "soon" for "--timeout" flag: time: '
                                    'invalid duration "soon"'),
    ("drain node-1 --pod-selector='a in (b'", "--pod-selector=<pod_selector> must be a valid "
                                              "label selector"),
    ("drain node-1 --grace-period=x", 'invalid argument "x" for "--grace-period" flag: '
                                      'strconv.ParseInt: parsing "x": invalid syntax'),
    ("drain node-1 --delete-everything", "unknown flag: --delete-everything"),
])
def test_parse_errors(line, message):
    with pytest.raises(CommandError) as exc:
        parse(line)
    assert str(exc.value) == message


def test_unknown_node_is_refused_before_draining(session):
    assert fails_without_change(session, "drain nope --ignore-daemonsets") == \
        'Error from server (NotFound): nodes "nope" not found\n'


def test_executor_hands_nodes_and_options_to_run_drain(session, monkeypatch):
    from ksandbox.commands import drain_run
    from ksandbox.commands.result import CommandResult

    calls = []

    def run_drain(sess, names, options):
        calls.append((sess, names, options))
        return CommandResult("drain", "node/node-2 cordoned\nnode/node-2 drained\n", "")

    monkeypatch.setattr(drain_run, "run_drain", run_drain)
    result = session.submit("kubectl drain -l zone=b --force --delete-local-data")
    assert calls == [(session, ["node-2", "node-3"],
                      DrainOptions(force=True, delete_emptydir_data=True, selector="zone=b"))]
    assert result.command == "kubectl drain -l zone=b --force --delete-local-data"
    assert result.output.startswith("Flag --delete-local-data has been deprecated")
    assert result.output.endswith("node/node-2 drained\n")
