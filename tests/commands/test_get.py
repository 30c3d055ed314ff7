"""kubectl get: what is listed, in which shape, and kubectl's empty and error answers.

Cell-by-cell table layouts are tested on fixed objects in tests/views/test_printers.py; here
the command (the control plane may change pod and node status as time runs, so these tests
look at names and shapes, not at every cell).
"""

from __future__ import annotations

import re

import pytest
import yaml

from command_helpers import fails_without_change, run, session  # noqa: F401


def names(table: str) -> list[str]:
    return [line.split()[0] for line in table.splitlines()[1:] if line]


def test_get_nodes(session):
    out = run(session, "kubectl get nodes").output
    assert out.splitlines()[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert names(out) == ["node-1", "node-2", "node-3"]
    assert out.splitlines()[1].split()[2] == "control-plane"


def test_get_nodes_wide_has_the_wide_columns(session):
    head = run(session, "get no -o wide").output.splitlines()[0]
    assert head.split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP",
                            "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"]


def test_get_pods_in_a_namespace_and_everywhere(session):
    assert names(run(session, "get pods").output) == ["web-1", "web-2"]
    assert names(run(session, "get po -n team-a").output) == ["batch-1"]
    out = run(session, "get pods -A").output
    assert out.splitlines()[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert [line.split()[:2] for line in out.splitlines()[1:]] == \
        [["default", "web-1"], ["default", "web-2"], ["team-a", "batch-1"]]


def test_selector_and_names(session):
    assert names(run(session, "get pods -l tier=frontend").output) == ["web-1"]
    assert names(run(session, "get pods web-2").output) == ["web-2"]
    assert names(run(session, "get pod/web-2 pod/web-1").output) == ["web-2", "web-1"]


def test_several_types_prefix_names_with_the_kind(session):
    out = run(session, "get deploy,rs").output
    assert "deployment.apps/web" in out and "replicaset.apps/cache" in out
    assert "\n\n" in out  # one table per type


def test_show_labels_and_no_headers(session):
    out = run(session, "get pods web-1 --show-labels").output
    assert out.splitlines()[0].split()[-1] == "LABELS"
    assert out.splitlines()[1].split()[-1] == "app=web,tier=frontend"
    assert run(session, "get pods --no-headers").output.splitlines()[0].startswith("web-1")


@pytest.mark.parametrize("line,out", [
    ("get pods -n kube-public", "No resources found in kube-public namespace.\n"),
    ("get pods -l app=nothing", "No resources found in default namespace.\n"),
    ("get pods -A -l app=nothing", "No resources found\n"),
    ("get pc -l tier=none", "No resources found\n"),
])
def test_empty_answers_are_output_not_errors(session, line, out):
    result = run(session, line)
    assert (result.output, result.error) == (out, "")


def test_output_name(session):
    assert run(session, "get pods -o name").output == "pod/web-1\npod/web-2\n"
    assert run(session, "get deploy -o name").output == "deployment.apps/web\n"


def test_output_yaml_of_one_object_and_of_a_list(session):
    one = yaml.safe_load(run(session, "get pod web-1 -o yaml").output)
    assert (one["kind"], one["metadata"]["name"]) == ("Pod", "web-1")
    assert one["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"
    many = yaml.safe_load(run(session, "get pods -o yaml").output)
    assert many["kind"] == "List" and many["metadata"] == {"resourceVersion": ""}
    assert [i["metadata"]["name"] for i in many["items"]] == ["web-1", "web-2"]


def test_output_json_sorts_keys_and_indents_four(session):
    out = run(session, "get node node-2 -o json").output
    assert out.startswith('{\n    "apiVersion": "v1",\n    "kind": "Node",\n    "metadata"')


def test_a_missing_object_in_yaml_is_only_an_error(session):
    result = run(session, "get pod nope -o yaml")
    assert (result.output, result.error) == \
        ("", 'Error from server (NotFound): pods "nope" not found\n')
    assert yaml.safe_load(run(session, "get pods -l app=none -o yaml").output)["items"] == []


def test_missing_names_are_reported_after_the_rest(session):
    result = run(session, "get pods web-1 nope")
    assert names(result.output) == ["web-1"]
    assert result.error == 'Error from server (NotFound): pods "nope" not found\n'
    assert run(session, "get pods nope --ignore-not-found").error == ""


@pytest.mark.parametrize("line,error", [
    ("get", 'You must specify the type of resource to get. Use "kubectl api-resources" for a '
            "complete list of supported resources.\n\nerror: Required resource not "
            'specified.\nUse "kubectl explain <resource>" for a detailed description of that '
            "resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and "
            "examples\n"),
    ("get widgets", "error: the server doesn't have a resource type \"widgets\"\n"),
    ("get pods -o table", 'error: unable to match a printer suitable for the output format '
                          '"table", allowed formats are: custom-columns,custom-columns-file,'
                          "go-template,go-template-file,json,jsonpath,jsonpath-as-json,"
                          "jsonpath-file,name,template,templatefile,wide,yaml\n"),
    ("get pods -o go-template={{.items}}", 'error: output format "go-template={{.items}}" is '
                                           "not supported by ksandbox (use wide, name, yaml, "
                                           "json, jsonpath or custom-columns)\n"),
    ("get pods -l 'a in (b'",
     "error: unable to parse requirement: found '', expected: ',' or ')'\n"),
    ("get pods --watch", "error: kubectl get --watch is not supported by ksandbox (a command "
                         "never moves the simulated clock; the TUI's views are live)\n"),
])
def test_errors(session, line, error):
    result = run(session, line)
    assert (result.output, result.error) == ("", error)


def test_every_cluster_has_the_two_system_priority_classes(session):
    out = run(session, "get pc").output
    assert out.splitlines() == [
        "NAME                      VALUE        GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY",
        "system-cluster-critical   2000000000   false            0s    PreemptLowerPriority",
        "system-node-critical      2000001000   false            0s    PreemptLowerPriority"]


def test_a_pod_of_a_system_priority_class_gets_its_value(session):
    run(session, "run critical --image=nginx "
                 "--overrides='{\"spec\":{\"priorityClassName\":\"system-node-critical\"}}'")
    assert session.store.get("Pod", "critical", "default").spec.priority == 2_000_001_000


@pytest.mark.parametrize("line", ["kubectl get pods -w", "kubectl get events -A --watch-only",
                                  "kubectl get pods -w -o wide"])
def test_watching_is_kubectls_flag_the_sandbox_does_not_take(session, line):
    """`kubectl get pods -w` is how a class watches pods get scheduled; kubectl has the flag,
    so "unknown shorthand flag: 'w'" told the user something false."""
    error = fails_without_change(session, line)
    assert re.fullmatch(r"error: kubectl get --watch(-only)? is not supported by ksandbox "
                        r"\(a command never moves the simulated clock; the TUI's views are "
                        r"live\)\n", error), error
    assert run(session, "kubectl get pods --watch=false").output.startswith("NAME")


def test_sort_by_orders_each_list_by_a_field():
    """kubectl get --sort-by (get/sorter.go): the relaxed JSONPath's first value per object,
    numbers by value, strings in natural order (sortorder.NaturalLess: web-9 before web-10),
    an object without the field first. `kubectl get events --sort-by=.lastTimestamp` is how
    a class reads what happened in order."""
    from ksandbox.session import Session

    nodes = "".join(f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: n-{i}}}\n"
                    f"status: {{capacity: {{cpu: '{c}', memory: 8Gi, pods: '110'}}}}\n"
                    for i, c in ((10, 2), (9, 8), (1, 4)))
    s = Session.from_text(nodes + "---\napiVersion: v1\nkind: Node\n"
                          "metadata: {name: n-0, labels: {zone: a}}\n"
                          "status: {capacity: {cpu: '1', memory: 8Gi, pods: '110'}}\n")
    names = run(s, "get nodes --sort-by=.metadata.name -o name").output.split()
    assert names == ["node/n-0", "node/n-1", "node/n-9", "node/n-10"]
    assert run(s, "get nodes --sort-by=metadata.labels.zone -o name").output.split() == \
        ["node/n-1", "node/n-10", "node/n-9", "node/n-0"]   # no such label: first, in order
    assert run(s, "get nodes --sort-by={.status.capacity.pods} -o name").output.split() == \
        ["node/n-0", "node/n-1", "node/n-10", "node/n-9"]  # equal: kept in list order
    assert run(s, "get nodes --sort-by=.spec.nope").error == (
        'error: couldn\'t find any field with path "{.spec.nope}" in the list of objects\n')
    s.run_until(5)
    assert not s.submit("kubectl cordon n-9").error
    s.run_until(30)
    out = run(s, "get events --sort-by=.lastTimestamp").output.splitlines()
    assert "NodeNotSchedulable" in out[-1], out


def test_sort_by_orders_quantities_by_their_amount():
    """sorter.go isLess: two strings that both parse as quantities compare as quantities
    (resource.ParseQuantity, Cmp), so 512Mi comes before 1Gi and 500m before 2 — `kubectl get
    pv --sort-by=.spec.capacity.storage` is a classic exercise. In natural order 1Gi came
    first, and 500m last."""
    from ksandbox.session import Session

    s = Session.from_text("".join(
        f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\n"
        f"status: {{capacity: {{cpu: '{c}', memory: {m}, pods: '110'}}}}\n"
        for n, c, m in (("a", "4", "16Gi"), ("b", "500m", "1Gi"), ("c", "2", "512Mi"))))
    assert run(s, "get nodes --sort-by=.status.capacity.memory -o name").output.split() == \
        ["node/c", "node/b", "node/a"]
    assert run(s, "get nodes --sort-by=.status.capacity.cpu -o name").output.split() == \
        ["node/b", "node/c", "node/a"]
    assert run(s, "get nodes --sort-by=.metadata.name -o name").output.split() == \
        ["node/a", "node/b", "node/c"]
