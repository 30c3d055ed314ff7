"""kubectl scale (conventions.md §2.4; kubectl/pkg/cmd/scale and pkg/scale)."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401


def replicas(session, kind, name):
    return session.store.get(kind, name, "default").spec.replicas


@pytest.mark.parametrize("line,out", [
    ("kubectl scale --replicas=3 deployment/web", "deployment.apps/web scaled\n"),
    ("scale deploy web --replicas 3", "deployment.apps/web scaled\n"),
    ("scale --replicas=3 rs/cache", "replicaset.apps/cache scaled\n"),
    ("scale --replicas=3 deployment/web rs/cache",
     "deployment.apps/web scaled\nreplicaset.apps/cache scaled\n"),
    ("scale --current-replicas=0 --replicas=3 deployment/web", "deployment.apps/web scaled\n"),
    ("scale --replicas=3 deployments --all", "deployment.apps/web scaled\n"),
    ("scale --replicas=3 deploy -l app=web", "deployment.apps/web scaled\n"),
    ("scale --replicas=3 deployment/web -o name", "deployment.apps/web\n"),
])
def test_scaling_writes_spec_replicas(session, line, out):
    result = run(session, line)
    assert (result.output, result.error) == (out, "")
    assert replicas(session, "Deployment", "web") == 3 or "rs/cache" in line


def test_dry_run_prints_and_changes_nothing(session):
    assert run(session, "scale deploy/web --replicas=5 --dry-run=client").output == \
        "deployment.apps/web scaled (dry run)\n"
    assert replicas(session, "Deployment", "web") == 0


@pytest.mark.parametrize("line,error", [
    ("scale deploy web", 'error: required flag(s) "replicas" not set\n'),
    ("scale deploy web --replicas=-1", "error: The --replicas=COUNT flag is required, and COUNT "
                                       "must be greater than or equal to 0\n"),
    ("scale deploy web --replicas=2 --current-replicas=-2",
     "error: The --current-replicas must specify an integer of -1 or greater\n"),
    ("scale deploy web --replicas=3 --current-replicas=2",
     "error: Expected replicas to be 2, was 0\n"),
    ("scale deploy web rs/cache --replicas=3",
     "error: there is no need to specify a resource type as a separate argument when passing "
     "arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead "
     "of 'kubectl get resource resource/<resource_name>'\n"),
    ("scale deploy nope --replicas=3",
     'Error from server (NotFound): deployments.apps "nope" not found\n'),
    ("scale deploy/web deploy/nope --replicas=3",
     'Error from server (NotFound): deployments.apps "nope" not found\n'),
    ("scale deploy --replicas=3", "error: resource(s) were provided, but no name, label "
                                  "selector, or --all flag specified\n"),
    ("scale pod web-1 --replicas=3",
     "Error from server (NotFound): the server could not find the requested resource\n"),
    ("scale deploy web --replicas=three",
     'error: invalid argument "three" for "--replicas" flag: strconv.ParseInt: parsing '
     "\"three\": invalid syntax\nSee 'kubectl scale --help' for usage.\n"),
    ("scale deploy web --replicas", "error: flag needs an argument: --replicas\nSee 'kubectl "
                                    "scale --help' for usage.\n"),
])
def test_errors_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error


def test_a_failed_precondition_on_one_target_scales_none(session):
    run(session, "scale rs/cache --replicas=2")
    fails_without_change(session, "scale deploy/web rs/cache --current-replicas=0 --replicas=4")
    assert replicas(session, "Deployment", "web") == 0
