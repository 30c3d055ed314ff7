"""The command line: tokens, kubectl's flag grammar (pflag), resource arguments, verbs.

Script validation relies on ``parse`` raising CommandError with kubectl's message, so the
unknown-verb and flag errors are pinned here word for word.
"""

from __future__ import annotations

import pytest

from ksandbox.api.errors import CommandError
from ksandbox.commands import parse
from ksandbox.commands.get import GetCommand
from ksandbox.commands.parse import (BOOL, INT, LIST, STR, Flag, parse_duration, parse_flags,
                                     parse_targets)

FLAGS = [Flag("namespace", STR, "n", ""), Flag("all", BOOL, "", False),
         Flag("replicas", INT, "", -1), Flag("filename", LIST, "f", ()),
         Flag("dry-run", STR, "", "none", no_opt="unchanged"), Flag("quiet", BOOL, "q", False)]


@pytest.mark.parametrize("tokens,flags,positionals", [
    (["pods", "-n", "x"], {"namespace": "x"}, ("pods",)),
    (["-n", "x", "pods"], {"namespace": "x"}, ("pods",)),
    (["--namespace=x", "pods"], {"namespace": "x"}, ("pods",)),
    (["-nx", "pods"], {"namespace": "x"}, ("pods",)),
    (["-n=x", "pods"], {"namespace": "x"}, ("pods",)),
    (["--all", "pods"], {"all": True}, ("pods",)),
    (["--all=false", "pods"], {"all": False}, ("pods",)),
    (["-qn", "x"], {"quiet": True, "namespace": "x"}, ()),
    (["--replicas", "-1"], {"replicas": -1}, ()),
    (["--replicas=0x10"], {"replicas": 16}, ()),
    (["-f", "a.yaml,b.yaml", "-f", "c.yaml"], {"filename": ("a.yaml", "b.yaml", "c.yaml")}, ()),
    (["--dry-run", "client"], {"dry-run": "unchanged"}, ("client",)),
    (["--dry-run=server"], {"dry-run": "server"}, ()),
    (["a", "--", "-n", "b"], {"namespace": ""}, ("a", "-n", "b")),
    (["-"], {}, ("-",)),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_pflag_grammar(tokens, flags, positionals):
    a = parse_flags("get", tokens, FLAGS)
    for name, value in flags.items():
        assert a[name] == value
    assert a.positionals == positionals


@pytest.mark.parametrize("tokens,message", [
    (["--bogus"], "unknown flag: --bogus"),
    (["-z"], "unknown shorthand flag: 'z' in -z"),
    (["-n"], "flag needs an argument: 'n' in -n"),
    (["--namespace"], "flag needs an argument: --namespace"),
    (["--replicas=x"], 'invalid argument "x" for "--replicas" flag: strconv.ParseInt: parsing '
                       '"x": invalid syntax'),
    (["--all=maybe"], 'invalid argument "maybe" for "--all" flag: strconv.ParseBool: parsing '
                      '"maybe": invalid syntax'),
])
def test_pflag_errors(tokens, message):
    with pytest.raises(CommandError) as exc:
        parse_flags("get", tokens, FLAGS)
    assert (str(exc.value), exc.value.hint) == (message, "See 'kubectl get --help' for usage.")


@pytest.mark.parametrize("args,want", [
    (["pods"], [("Pod", ())]),
    (["po", "a", "b"], [("Pod", ("a", "b"))]),
    (["deployment.apps", "web"], [("Deployment", ("web",))]),
    (["pods,deploy"], [("Pod", ()), ("Deployment", ())]),
    (["pods/a", "pods/b", "deploy/web"], [("Pod", ("a", "b")), ("Deployment", ("web",))]),
    (["HPA/x"], [("HorizontalPodAutoscaler", ("x",))]),
])
def test_resource_arguments(args, want):
    assert [(t.info.kind, t.names) for t in parse_targets("get", args)] == want


@pytest.mark.parametrize("text,seconds", [("0", 0), ("0s", 0), ("90s", 90), ("5m30s", 330),
                                          ("1h", 3600), ("1.5h", 5400), ("300ms", 0.3),
                                          ("-5s", -5)])
def test_go_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "5", "soon", "5x", "1h-"])
def test_bad_go_durations(text):
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize("text", ["kubectl get pods", "k get pods", "get pods",
                                  "kubectl -n team-a get pods", "kubectl -nteam-a get pods",
                                  "kubectl --namespace=team-a get pods"])
def test_leading_kubectl_and_global_namespace(text):
    cmd = parse(text)
    assert isinstance(cmd, GetCommand)
    assert cmd.namespace == ("team-a" if "team-a" in text else "default")


@pytest.mark.parametrize("text,message", [
    ("kubectl foo", 'unknown command "foo" for "kubectl"\n\nDid you mean this?\n\ttop'),  # cobra: distance 2
    ("kubectl gett pods", 'unknown command "gett" for "kubectl"\n\nDid you mean this?\n\tget\n\tset'),  # kubectl has set too
    ("kubectl rm pod x", 'unknown command "rm" for "kubectl"\n\nDid you mean this?\n\tdelete'),
    ("kubectl logs web-1", '"kubectl logs" is not supported by ksandbox; the verbs are: apply, '
                           "autoscale, cordon, create, delete, describe, drain, edit, get, label, "
                           "patch, rollout, run, scale, set, taint, top, uncordon"),
    ("kubectl", 'a command is required, e.g. "kubectl get pods"; verbs: apply, autoscale, '
                "cordon, create, delete, describe, drain, edit, get, label, patch, rollout, run, scale, set, "
                "taint, top, uncordon"),
    ("kubectl get pods 'unterminated", "cannot parse command line: No closing quotation"),
    ("kubectl -n", "flag needs an argument: 'n' in -n"),
    ("kubectl --context=x get pods", "unknown flag: --context"),
    ("kubectl -v get pods", "unknown shorthand flag: 'v' in -v"),
])
def test_verb_errors(text, message):
    with pytest.raises(CommandError) as exc:
        parse(text)
    assert str(exc.value) == message


def test_commands_are_frozen_values():
    a, b = parse("kubectl taint nodes n1 k=v:NoSchedule"), parse("taint nodes n1 k=v:NoSchedule")
    assert a == b and hash(a) == hash(b)
    with pytest.raises(Exception):
        a.overwrite = True  # type: ignore[misc]
