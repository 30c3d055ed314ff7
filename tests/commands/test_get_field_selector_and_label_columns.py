"""kubectl get --field-selector and -L/--label-columns, traced to apimachinery's fields
selector (selector_test.go: =, ==, !=, commas), the registries' selectable fields
(pod/strategy.go PodToSelectableFields, node and event strategies) with the API server's
"field label not supported" answer, and kubectl's decorateTable / formatLabelHeaders (the key's
last path segment, upper case; an empty cell when the label is missing)."""

from __future__ import annotations

from command_helpers import fails_without_change, run, session  # noqa: F401


def names(out: str) -> list[str]:
    return [ln.split()[0] for ln in out.splitlines()[1:]]


def test_field_selectors_filter_lists(session):
    assert names(run(session, "kubectl get pods --field-selector spec.nodeName=node-2").output) \
        == [p.metadata.name for p in session.store.list("Pod", "default")
            if p.spec.node_name == "node-2"]
    out = run(session, "kubectl get pods --field-selector=metadata.name!=web-1").output
    assert "web-1" not in names(out) and "web-2" in names(out)
    out = run(session, "kubectl get pods --field-selector metadata.name==web-1,"
                       "metadata.namespace=default").output
    assert names(out) == ["web-1"]
    assert run(session, "kubectl get pods --field-selector spec.nodeName=nowhere").output == \
        "No resources found in default namespace.\n"


def test_an_unsupported_field_is_the_servers_bad_request(session):
    assert fails_without_change(session, "kubectl get pods --field-selector spec.foo=bar") == (
        'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label '
        'selector "", field selector "spec.foo=bar": field label not supported: spec.foo\n')
    assert "apps/v1, Resource=deployments" in fails_without_change(
        session, "kubectl get deploy --field-selector spec.nodeName=x")


def test_label_columns(session):
    out = run(session, "kubectl get pods -L app -L tier,example.com/missing").output
    head = out.splitlines()[0].split()
    assert head[-3:] == ["APP", "TIER", "MISSING"]
    row = next(ln for ln in out.splitlines() if ln.startswith("web-1"))
    assert row.split()[-2:] == ["web", "frontend"]
    row = next(ln for ln in out.splitlines() if ln.startswith("web-2"))
    assert row.split()[-1] == "web"
