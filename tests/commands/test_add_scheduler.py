"""`ksandbox add scheduler`: a pod naming a scheduler that does not run stays Pending until one
with that name starts, then is placed by it (the seed note on multiple schedulers)."""

from __future__ import annotations

from ksandbox.resources import data_path
from ksandbox.session import Session

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: my-scheduler
    plugins:
      score:
        disabled: [{name: NodeResourcesBalancedAllocation}]
"""

POD = ("kubectl run mine --image=nginx "
       "--overrides='{\"spec\":{\"schedulerName\":\"my-scheduler\"}}'")


def session() -> Session:
    s = Session.from_files([str(data_path("sample_clusters") / "default.yaml")], seed=2)
    s.run_until(5)
    assert s.submit(POD).ok
    s.run_until(60)
    return s


def test_the_pod_waits_for_its_scheduler_and_explain_says_why():
    s = session()
    pod = s.store.get("Pod", "mine", "default")
    assert pod.spec.node_name == "" and pod.status.conditions == ()
    assert not s.store.events_for("Pod", "mine", "default")   # upstream: no event at all
    assert 'no scheduler named "my-scheduler"' in s.explain("default", "mine").to_dict()["message"]


def test_starting_the_scheduler_with_a_config_places_the_waiting_pod():
    s = session()
    r = s.submit("ksandbox add scheduler my-scheduler -f -", CONFIG)
    assert (r.output, r.error) == ("scheduler/my-scheduler started\n", "")
    s.run_until(61)
    pod = s.store.get("Pod", "mine", "default")
    assert pod.spec.node_name
    assert s.explain("default", "mine").to_dict()["scheduler"] == "my-scheduler"


def test_starting_a_default_profile_by_name_works_too_and_names_are_unique():
    s = session()
    assert s.submit("ksandbox add scheduler my-scheduler").ok
    s.run_until(61)
    assert s.store.get("Pod", "mine", "default").spec.node_name
    again = s.submit("ksandbox add scheduler my-scheduler")
    assert again.error == 'error: a scheduler named "my-scheduler" is already running\n'
    taken = s.submit("ksandbox add scheduler default-scheduler")
    assert "already running" in taken.error


def test_bad_input_changes_nothing():
    s = session()
    rv = s.resource_version
    for cmd, stdin, needle in [
        ("ksandbox add scheduler Bad_Name", None, 'invalid scheduler name "Bad_Name"'),
        ("ksandbox add scheduler other -f -", CONFIG, 'no profile named "other"'),
        ("ksandbox add scheduler x -f -", "kind: Pod\n", "apiVersion not set"),
        ("ksandbox add scheduler", None, "usage: ksandbox add scheduler NAME"),
    ]:
        r = s.submit(cmd, stdin)
        assert needle in r.error, (cmd, r.error)
    assert s.resource_version == rv
    assert s.store.get("Pod", "mine", "default").spec.node_name == ""


def test_a_fork_after_starting_the_scheduler_keeps_it():
    s = session()
    assert s.submit("ksandbox add scheduler my-scheduler").ok
    s.run_until(70)
    f = s.fork()
    assert f.view() == s.view()
