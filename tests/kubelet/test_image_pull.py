"""The kubelet's pull events follow imagePullPolicy (pkg/kubelet/images/image_manager.go
EnsureImageExists; the policy defaulted by pkg/apis/core/v1 SetDefaults_Container)."""

from __future__ import annotations

import json

from nodesim import cluster, node

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
