"""kubectl delete (conventions.md §2.4; kubectl/pkg/cmd/delete Complete, Validate, PrintObj)."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401

FORCE_WARNING = ("Warning: Immediate deletion does not wait for confirmation that the running "
                 "resource has been terminated. The resource may continue to run on the cluster "
                 "indefinitely.\n")


def pod(session, name, ns="default"):
    return session.store.get("Pod", name, ns)


def test_a_bound_pod_is_deleted_gracefully(session):
    session.run_until(10)
    result = run(session, "kubectl delete pod web-1")
    assert (result.output, result.error) == \
        ('pod "web-1" deleted from default namespace\n', "")
    p = pod(session, "web-1")
    assert p is None or p.metadata.deletion_timestamp == 40.0  # 30 s default grace


def test_grace_period_and_now(session):
    run(session, "delete pod web-1 --grace-period=5")
    p = pod(session, "web-1")
    assert p is None or p.metadata.deletion_grace_period_seconds == 5
    run(session, "delete pod web-2 --now")
    p = pod(session, "web-2")
    assert p is None or p.metadata.deletion_grace_period_seconds == 1


def test_force_deletes_at_once_with_a_warning(session):
    result = run(session, "delete pod web-1 --grace-period=0 --force")
    assert result.output == FORCE_WARNING + 'pod "web-1" force deleted from default namespace\n'
    assert pod(session, "web-1") is None


def gone_or_terminating(p) -> bool:
    return p is None or p.metadata.deletion_timestamp is not None


def test_a_pod_in_another_namespace(session):
    # batch-1 has no nodeName: unbound it goes at once, bound (if a scheduler runs) gracefully.
    assert run(session, "delete pod batch-1 -n team-a").output == \
        'pod "batch-1" deleted from team-a namespace\n'
    assert gone_or_terminating(pod(session, "batch-1", "team-a"))


@pytest.mark.parametrize("line,out", [
    ("delete pods web-1 web-2", 'pod "web-1" deleted from default namespace\n'
                                'pod "web-2" deleted from default namespace\n'),
    ("delete pod/web-1 deploy/web", 'pod "web-1" deleted from default namespace\n'
                                    'deployment.apps "web" deleted from default namespace\n'),
    ("delete pods -l tier=frontend", 'pod "web-1" deleted from default namespace\n'),
    ("delete pods -l app=nothing", "No resources found\n"),
    ("delete pods --all -n team-a", 'pod "batch-1" deleted from team-a namespace\n'),
    ("delete node node-3", 'node "node-3" deleted\n'),
    ("delete pod web-1 -o name", "pod/web-1\n"),
    ("delete pod nope --ignore-not-found", ""),   # counted as found: DeleteResult's found++
    ("delete pod web-1 --dry-run=client", 'pod "web-1" deleted from default namespace '
                                          "(dry run)\n"),
    ("delete pod web-1 --dry-run=server", 'pod "web-1" deleted from default namespace '
                                          "(server dry run)\n"),
])
def test_outputs(session, line, out):
    result = run(session, line)
    assert (result.output, result.error) == (out, "")


def test_dry_run_deletes_nothing(session):
    before = session.store.resource_version
    run(session, "delete pods --all --dry-run=client")
    assert session.store.resource_version == before


def test_deleting_a_deployment_takes_its_replica_sets_and_pods(session):
    run(session, "scale deploy web --replicas=2")
    session.run_until(5)
    run(session, "delete deployment web")
    owned = [o for kind in ("ReplicaSet", "Pod") for o in session.store.list(kind)
             if o.metadata.owner_references
             and o.metadata.deletion_timestamp is None]
    assert owned == []


def test_deleting_a_namespace_deletes_what_is_in_it(session):
    assert run(session, "delete namespace team-a").output == 'namespace "team-a" deleted\n'
    assert session.store.get("Namespace", "team-a") is None
    assert all(gone_or_terminating(p) for p in session.store.list("Pod", "team-a"))


def test_deleting_from_a_file(session, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web-2}\n"
                 "spec: {containers: [{name: c, image: nginx}]}\n")
    assert run(session, f"delete -f {f}").output == \
        'pod "web-2" deleted from default namespace\n'


@pytest.mark.parametrize("line,error", [
    ("delete pod nope", 'Error from server (NotFound): pods "nope" not found\n'),
    ("delete pods", "error: resource(s) were provided, but no name, label selector, or --all "
                    "flag specified\n"),
    ("delete", "error: You must provide one or more resources by argument or filename.\n"
               "Example resource specifications include:\n   '-f rsrc.yaml'\n"
               "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n"),
    ("delete pods --all -l app=web", "error: cannot set --all and --selector at the same "
                                     "time\n"),
    ("delete pod web-1 --now --grace-period=3",
     "error: --now and --grace-period cannot be specified together\n"),
    ("delete pod web-1 --force --grace-period=3",
     "error: --force and --grace-period greater than 0 cannot be specified together\n"),
    ("delete pod web-1 -o yaml",
     "error: unexpected -o output mode: yaml. We only support '-o name'\n"),
    ("delete namespace default", 'Error from server (Forbidden): namespaces "default" is '
                                 "forbidden: this namespace may not be deleted\n"),
    ("delete gadgets x", "error: the server doesn't have a resource type \"gadgets\"\n"),
    ("delete pods/", "error: arguments in resource/name form must have a single resource and "
                     "name\n"),
    ("delete -f /no/such.yaml", 'error: the path "/no/such.yaml" does not exist\n'),
    ("delete -f x.yaml pod web-1", "error: when paths, URLs, or stdin is provided as input, "
                                   "you may not specify resource arguments as well\n"),
    ("delete pod web-1 --cascade=sideways", 'error: invalid cascade value (sideways). Must be '
                                            '"background", "foreground", or "orphan".\n'),
])
def test_errors_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error


def test_several_names_delete_those_found_and_say_which_are_missing(session):
    """delete.go's builder continues on error: each name is visited, the ones found are
    deleted and printed, each missing one is the server's NotFound after them (it refused the
    whole line and deleted nothing). With --ignore-not-found a missing name is silent: it was
    counted as found before its DELETE answered, so no "No resources found" either."""
    result = run(session, "delete pods nope web-1 nope-2")
    assert result.output == 'pod "web-1" deleted from default namespace\n'
    assert result.error.splitlines() == ['Error from server (NotFound): pods "nope" not found',
                                         'Error from server (NotFound): pods "nope-2" not found']
    p = pod(session, "web-1")
    assert p is None or p.metadata.deletion_timestamp is not None
    result = run(session, "delete pods web-2 nope --ignore-not-found")
    assert (result.output, result.error) == ('pod "web-2" deleted from default namespace\n', "")
    assert (run(session, "delete pod nope --ignore-not-found").output,
            run(session, "delete pods -l app=nothing").output) == ("", "No resources found\n")
