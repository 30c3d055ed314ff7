"""kubectl's JSONPath, cases ported from client-go ``util/jsonpath/jsonpath_test.go``
(TestStructInput's store example: plain, dict, child, recursive, filter, union, range, slice,
quoted text; TestKubernetes: range over items with tabs and newlines, escaped dots in keys)
and kubectl get -o jsonpath / custom-columns (printers/customcolumn_test.go)."""

from __future__ import annotations

import re

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401
from ksandbox.views.jsonpath import JSONPathError, relaxed, render

STORE = {
    "Name": "jsonpath",
    "Book": [{"Category": "reference", "Author": "Nigel Rees", "Title": "Sayings of the Century",
              "Price": 8.95},
             {"Category": "fiction", "Author": "Evelyn Waugh", "Title": "Sword of Honour",
              "Price": 12.99},
             {"Category": "fiction", "Author": "Herman Melville", "Title": "Moby Dick",
              "Price": 8.99}],
    "Bicycle": [{"Color": "red", "Price": 19.95, "IsNew": True},
                {"Color": "green", "Price": 20.01, "IsNew": False}],
    "Labels": {"web/html": 15, "k8s.io/app": 20},
}


@pytest.mark.parametrize("template,want", [
    ("hello jsonpath", "hello jsonpath"),
    ("{.Name}", "jsonpath"),
    ("{.Labels.web/html}", "15"),
    ("{.Labels.k8s\\.io/app}", "20"),
    ("{.Book[*].Author}", "Nigel Rees Evelyn Waugh Herman Melville"),
    ("{.Bicycle[?(@.IsNew==true)].Color}", "red"),
    ("{.Book[?(@.Price<10)].Title}", "Sayings of the Century Moby Dick"),
    ("{..Price}", "8.95 12.99 8.99 19.95 20.01"),
    ("{.Book[1:].Title}", "Sword of Honour Moby Dick"),
    ("{.Book[-1].Author}", "Herman Melville"),
    ("{.Bicycle[*]['Color','Price']}", "red 19.95 green 20.01"),
    ('{range .Bicycle[*]}{.Color}{"\\t"}{.Price}{"\\n"}{end}', "red\t19.95\ngreen\t20.01\n"),
    ("{.Missing}", ""),
    ("{.Bicycle[0]}", '{"Color":"red","IsNew":true,"Price":19.95}'),
])
def test_templates(template, want):
    assert render(template, STORE) == want


def test_bad_templates_are_errors():
    for bad in ("{.Book[x]}", "{end}", "{range .Book[*]}{.Title}", "{.Book"):
        with pytest.raises(JSONPathError):
            render(bad, STORE)


def test_relaxed_expressions():
    assert relaxed(".metadata.name") == "{.metadata.name}"
    assert relaxed("metadata.name") == "{.metadata.name}"
    assert relaxed("{.a}") == "{.a}"


def test_get_with_jsonpath_and_custom_columns(session):
    out = run(session, "kubectl get pods -o jsonpath={.items[*].metadata.name}").output
    assert out.split() == sorted(p.metadata.name for p in session.store.list("Pod", "default"))
    assert run(session, "kubectl get pod web-1 -o jsonpath={.spec.nodeName}").output == \
        session.store.get("Pod", "web-1", "default").spec.node_name
    out = run(session, "kubectl get pods -o custom-columns=NAME:.metadata.name,"
                       "IMAGE:.spec.containers[*].image,MISSING:.spec.nothing").output
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "IMAGE", "MISSING"]
    assert lines[1].split()[-1] == "<none>"
    assert fails_without_change(session, "kubectl get pods -o custom-columns=NAME") == (
        "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>\n")


def test_custom_columns_print_objects_as_go_prints_them(session):
    """customcolumn.go prints each value with fmt's %v: a list of taints is
    `[map[effect:NoSchedule key:node-role.kubernetes.io/control-plane]]` — what every CKA
    guide shows for `-o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints` — not JSON;
    several values are joined with commas, none is <none>."""
    assert not session.submit("kubectl taint nodes node-2 a=b:NoSchedule").error
    assert not session.submit("kubectl taint nodes node-2 gpu:PreferNoSchedule").error
    out = run(session, "kubectl get nodes node-2 node-3 -o custom-columns="
                       "NAME:.metadata.name,TAINTS:.spec.taints,KEYS:.spec.taints[*].key").output
    assert [re.split(r" {2,}", line) for line in out.splitlines()] == [
        ["NAME", "TAINTS", "KEYS"],
        ["node-2", "[map[effect:PreferNoSchedule key:gpu] map[effect:NoSchedule key:a value:b]]",
         "gpu,a"],
        ["node-3", "<none>", "<none>"]]
    out = run(session, "kubectl get pod web-1 -o custom-columns=C:.spec.containers[0].resources,"
                       "P:.spec.priority,N:.spec.enableServiceLinks").output
    assert out.splitlines()[1].split() == ["map[requests:map[cpu:100m]]", "0", "true"]
    # A string is one value, spaces and all (they used to become commas).
    out = run(session, "kubectl get events --field-selector reason=Starting "
                       "-o custom-columns=M:.message").output
    assert "Starting kubelet." in out.splitlines()[1:], out
