"""The kubelet's pull events follow imagePullPolicy (pkg/kubelet/images/image_manager.go
EnsureImageExists; the policy defaulted by pkg/apis/core/v1 SetDefaults_Container)."""

from __future__ import annotations

import json

from nodesim import cluster, node

from ksandbox.session import Session

from ksandbox.kubelet.images import ImageManager


def _pod(name: str, image: str, policy: str = "") -> str:
    c = {"name": "c", "image": image}
    if policy:
        c["imagePullPolicy"] = policy
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {"nodeName": "node-1", "containers": [c]}})


def _events(s, pod: str) -> list[tuple[str, str]]:
    return [(e.reason, e.message) for e in s.store.events_for("Pod", pod, "default")
            if e.reason in ("Pulling", "Pulled", "ErrImageNeverPull")]


def test_untagged_images_are_pulled_tagged_ones_once_per_node_never_is_never_pulled():
    s = cluster(node("node-1"), _pod("a", "nginx"), _pod("b", "redis:7"),
                _pod("c", "redis:7"), _pod("d", "busybox:1.36", "Never"))
    s.run_until(20)
    a = _events(s, "a")
    assert [r for r, _ in a] == ["Pulling", "Pulled"]
    assert a[0][1] == 'Pulling image "nginx"'
    assert a[1][1].startswith('Successfully pulled image "nginx" in ') and \
        "including waiting" in a[1][1]
    # IfNotPresent: one of the two redis pods pulls, the other finds it present.
    redis = sorted(r for p in ("b", "c") for r, _ in _events(s, p))
    assert redis == ["Pulled", "Pulled", "Pulling"]
    assert _events(s, "d") == [("ErrImageNeverPull", 'Container image "busybox:1.36" is not '
                                                     "present with pull policy of Never")]
    d = s.store.get("Pod", "d", "default")
    assert d.status.phase == "Pending"
    warn = [e for e in s.store.events_for("Pod", "d", "default")
            if e.reason == "ErrImageNeverPull"]
    assert warn[0].type == "Warning"


def test_an_image_the_node_reports_is_present():
    doc = json.loads(node("node-1"))
    doc["status"]["images"] = [{"names": ["busybox:1.36"], "sizeBytes": 2160000}]
    s = cluster(json.dumps(doc), _pod("d", "busybox:1.36", "Never"))
    s.run_until(10)
    assert _events(s, "d") == [("Pulled", 'Container image "busybox:1.36" already present '
                                          "on machine")]
    assert s.store.get("Pod", "d", "default").status.phase == "Running"
    m = ImageManager()
    from ksandbox.api.codec import decode
    from ksandbox.api.core import Container, Node
    n = decode(Node, doc)
    events, ok = m.ensure(decode(Container, {"name": "c", "image": "busybox:1.36",
                                             "imagePullPolicy": "Always"}), n, 1.5)
    assert ok and events[1][2] == ('Successfully pulled image "busybox:1.36" in 1.5s (1.5s '
                                   "including waiting). Image size: 2160000 bytes.")


def test_pulling_is_stamped_when_the_pull_began_the_pull_time_before_pulled():
    """image_manager.go records Pulling before the pull and Pulled after it, "in Xs (Xs
    including waiting)": Pulling's time is Pulled's less that time (it was stamped with
    Pulled's). The log keeps the order the kubelet recorded them in."""
    import re

    s = cluster(node("node-1"), _pod("a", "nginx"))
    s.run_until(20)
    events = [e for e in s.store.events_for("Pod", "a", "default")
              if e.reason in ("Pulling", "Pulled")]
    assert [e.reason for e in events] == ["Pulling", "Pulled"]
    pulling, pulled = events
    took = float(re.search(r" in ([0-9.]+)s ", pulled.message).group(1))
    assert took > 0
    assert pulling.last_timestamp == pulling.first_timestamp
    assert abs((pulled.last_timestamp - pulling.last_timestamp) - took) < 1e-6
    reasons = [r for _, _, r, obj, _ in s.store.occurrence_facts() if obj == "Pod/default/a"]
    assert reasons.index("Pulling") + 1 == reasons.index("Pulled")


def test_pulling_is_recorded_at_admission_so_the_log_reads_in_time_order():
    """The kubelet records Pulling as a pull begins and Pulled as it ends; a log that got
    Pulling only at the start, stamped back to the admission, showed times going backwards
    (the default sample's first screen did). Every sample's log is in time order."""
    from pathlib import Path

    samples = Path(__file__).resolve().parents[2] / "sample_clusters"
    files = [f for f in sorted(samples.glob("*.yaml")) if ".recording" not in f.name
             and ".script" not in f.name]
    assert len(files) >= 5
    for f in files:
        s = Session.from_files([f], seed=7)
        s.run_until(120)
        times = [t for t, *_ in s.store.occurrence_facts()]
        assert times == sorted(times), f.name
        pulls = [r for _, _, r, _, _ in s.store.occurrence_facts() if r == "Pulling"]
        assert f.name == "export.yaml" or pulls, f.name


def test_a_pod_waits_for_a_pull_that_finishes_before_its_start_else_pulls_too():
    """Pods admitted together on one node: a pull of their image under way is waited for when
    it is done by the pod's own start (the image is present then: "already present"); a pod
    that would start sooner pulls as well (each pod worker finds the image absent)."""
    from ksandbox.api.codec import decode
    from ksandbox.api.core import Container

    redis = decode(Container, {"name": "c", "image": "redis:7",
                               "imagePullPolicy": "IfNotPresent"})
    m = ImageManager()
    assert m.must_pull(redis, None, 5.0)
    m.begin_pull(redis, 5.0)
    assert not m.must_pull(redis, None, 6.0)      # waits: the pull is done at 5.0
    assert m.must_pull(redis, None, 4.0)          # would start first: pulls too
    m.begin_pull(redis, 4.0)
    assert not m.must_pull(redis, None, 4.5)      # the soonest pull now ends at 4.0
    assert m.ensure(redis, None, 2.0, True) == ([("Normal", "Pulled", 'Successfully pulled '
                                                 'image "redis:7" in 2s (2s including '
                                                 'waiting).')], True)
    assert not m.must_pull(redis, None, 0.0) and m.pull_ends == {}
    assert m.ensure(redis, None, 4.5) == ([("Normal", "Pulled", 'Container image "redis:7" '
                                            'already present on machine')], True)
    # the pull waited for never finished (its pod was deleted before it started): the waiting
    # pod finds the image absent at its start and pulls then
    m = ImageManager()
    m.begin_pull(redis, 5.0)
    assert not m.must_pull(redis, None, 6.0)
    events, ok = m.ensure(redis, None, 3.0)
    assert ok and [r for _, r, _ in events] == ["Pulling", "Pulled"]


def test_no_pod_finds_an_image_present_before_a_pull_of_it_finished():
    """65 pods of one IfNotPresent image admitted together on one node: some pull (each the
    soonest to start so far), the others wait; every "already present" comes at or after the
    first "Successfully pulled", and every pod's Pulling comes before its Pulled."""
    docs = [node("node-1", cpu="64", memory="64Gi")] + [_pod(f"p{i}", "redis:7")
                                                       for i in range(65)]
    s = cluster(*docs)
    s.run_until(10)
    facts = [(t, r, obj, msg) for t, _, r, obj, msg in s.store.occurrence_facts()
             if r in ("Pulling", "Pulled")]
    pulled_at = [t for t, r, _, msg in facts if msg.startswith("Successfully pulled")]
    present_at = [t for t, r, _, msg in facts if msg.endswith("already present on machine")]
    pulling = [obj for _, r, obj, _ in facts if r == "Pulling"]
    assert 1 <= len(pulling) < 65 and len(pulled_at) == len(pulling)
    assert len(present_at) + len(pulled_at) == 65
    assert all(t >= min(pulled_at) for t in present_at)
    for obj in pulling:
        mine = [r for _, r, o, _ in facts if o == obj]
        assert mine == ["Pulling", "Pulled"]
