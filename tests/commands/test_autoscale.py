"""kubectl autoscale: an autoscaling/v2 HorizontalPodAutoscaler per target (§2.4)."""

from __future__ import annotations

import pytest

from command_helpers import fails_without_change, run, session  # noqa: F401


def hpa(session, name="web"):
    return session.store.get("HorizontalPodAutoscaler", name, "default")


def test_cpu_percent_target(session):
    result = run(session, "kubectl autoscale deployment web --min=2 --max=10 --cpu=80%")
    assert (result.output, result.error) == \
        ("horizontalpodautoscaler.autoscaling/web autoscaled\n", "")
    h = hpa(session)
    assert (h.spec.min_replicas, h.spec.max_replicas) == (2, 10)
    ref = h.spec.scale_target_ref
    assert (ref.kind, ref.name, ref.api_version) == ("Deployment", "web", "apps/v1")
    assert h.cpu_target_percent() == 80
    assert h.api_version == "autoscaling/v2"


def test_deprecated_cpu_percent_still_works_with_a_warning(session):
    result = run(session, "autoscale deploy/web --max=5 --cpu-percent=60")
    assert result.output == (
        "Flag --cpu-percent has been deprecated, Use --cpu with percentage or resource "
        "quantity format (e.g., '70%' for utilization or '500m' for milliCPU).\n"
        "horizontalpodautoscaler.autoscaling/web autoscaled\n")
    assert hpa(session).cpu_target_percent() == 60


def test_cpu_quantity_and_memory_targets(session):
    run(session, "autoscale deploy web --max=4 --cpu=500 --memory=200Mi --name=web-hpa")
    metrics = hpa(session, "web-hpa").spec.metrics
    assert [m["resource"]["target"] for m in metrics] == [
        {"type": "AverageValue", "averageValue": "500m"},
        {"type": "AverageValue", "averageValue": "200Mi"}]


def test_without_a_target_the_api_default_of_80_percent_applies(session):
    run(session, "autoscale rs cache --max=3")
    h = hpa(session, "cache")
    assert h.cpu_target_percent() == 80
    assert h.spec.min_replicas == 1  # the server's default for an unset --min


def test_get_hpa_shows_the_target(session):
    run(session, "autoscale deploy web --max=3 --cpu=70%")
    assert run(session, "get hpa").output == (
        "NAME   REFERENCE        TARGETS              MINPODS   MAXPODS   REPLICAS   AGE\n"
        "web    Deployment/web   cpu: <unknown>/70%   1         3         0          0s\n")


def test_dry_run_creates_nothing(session):
    assert run(session, "autoscale deploy web --max=3 --dry-run=client").output == \
        "horizontalpodautoscaler.autoscaling/web created (dry run)\n"
    assert hpa(session) is None


@pytest.mark.parametrize("line,error", [
    ("autoscale deploy web --min=2", 'error: required flag(s) "max" not set\n'),
    ("autoscale deploy web --max=0",
     "error: --max=MAXPODS is required and must be at least 1, max: 0\n"),
    ("autoscale deploy web --max=2 --min=5",
     "error: --max=MAXPODS must be larger or equal to --min=MINPODS, max: 2, min: 5\n"),
    ("autoscale deploy web --max=2 --cpu=lots%", "error: invalid percentage value: lots\n"),
    ("autoscale deploy web --max=2 --cpu=lots",
     "error: invalid resource quantity for --cpu: lots\n"),
    ("autoscale deploy nope --max=2",
     'Error from server (NotFound): deployments.apps "nope" not found\n'),
    ("autoscale pod web-1 --max=2", "error: cannot autoscale a Pod: could not find scale "
                                    "subresource for /v1, Resource=pods in discovery "
                                    "information\n"),
    ("autoscale --max=2", "error: You must provide one or more resources by argument or "
                          "filename.\nExample resource specifications include:\n   "
                          "'-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n"
                          "   '<resource>'\n"),
])
def test_errors_change_nothing(session, line, error):
    assert fails_without_change(session, line) == error


def test_an_existing_hpa_is_already_exists(session):
    run(session, "autoscale deploy web --max=3")
    assert fails_without_change(session, "autoscale deploy web --max=4") == (
        'Error from server (AlreadyExists): horizontalpodautoscalers.autoscaling "web" already '
        "exists\n")
