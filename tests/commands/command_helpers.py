"""Helpers for command tests: a small cluster of three nodes, two bound pods and workloads.

Pods carry ``spec.nodeName`` so nothing here depends on the scheduler, and the workloads ask
for zero replicas so their controllers (if built) add no pods; tests assert on what the
commands print and write, never on what controllers do afterwards. A module of its own rather
than a conftest.py, so that no two test directories fight over the module name "conftest".
"""

from __future__ import annotations

import pytest

from ksandbox.session import Session

CLUSTER = """
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: {node-role.kubernetes.io/control-plane: "", zone: a}
spec:
  taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Node
metadata: {name: node-2, labels: {zone: b, disk: ssd}}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Node
metadata: {name: node-3, labels: {zone: b}}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx:1.27, resources: {requests: {cpu: 100m}}}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: cache, labels: {app: cache}}
spec:
  replicas: 0
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      containers: [{name: redis, image: redis:7}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, labels: {app: web, tier: frontend}}
spec:
  nodeName: node-2
  containers: [{name: nginx, image: nginx:1.27, resources: {requests: {cpu: 100m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, labels: {app: web}}
spec:
  nodeName: node-3
  containers: [{name: nginx, image: nginx:1.27}]
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Pod
metadata: {name: batch-1, namespace: team-a, labels: {app: batch}}
spec:
  containers: [{name: job, image: busybox}]
"""


@pytest.fixture
def session() -> Session:
    """A fresh sandbox on :data:`CLUSTER` (import this fixture into a test module to use it)."""
    return Session.from_text(CLUSTER)


def run(session: Session, text: str, stdin: str | None = None):
    """Submit one line; tests check no command ever reports an internal error."""
    result = session.submit(text, stdin)
    assert "internal" not in result.error, result.error
    return result


def fails_without_change(session: Session, text: str, stdin: str | None = None) -> str:
    """Submit a line that must fail; return its error and check the store did not move."""
    before = session.store.resource_version
    result = run(session, text, stdin)
    assert result.error, f"{text!r} should have failed but printed {result.output!r}"
    assert result.output == ""
    assert session.store.resource_version == before, f"{text!r} changed the store"
    return result.error
