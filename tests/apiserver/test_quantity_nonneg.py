"""ValidateNonnegativeQuantity: a Node's capacity and allocatable and a container's requests
and limits refuse a negative amount, and take zero (validation_pod._quantity_nonneg, which
reads the quantity's sign instead of comparing it with a zero it builds)."""

from __future__ import annotations

import pytest

from ksandbox.api.errors import ValidationError
from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver.validation import validate


def _errors(text: str) -> str:
    (obj,) = load_manifests(text)
    try:
        validate(None, obj)
    except ValidationError as e:
        return str(e)
    return ""


def _node(capacity: str) -> str:
    return f"""
apiVersion: v1
kind: Node
metadata: {{name: n}}
status: {{capacity: {capacity}, allocatable: {capacity}}}
"""


def _pod(requests: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers: [{{name: c, image: "x:1", resources: {{requests: {requests}}}}}]
"""


@pytest.mark.parametrize("text,error", [
    (_node('{cpu: "4", memory: 0, pods: "110"}'), ""),
    (_node('{cpu: "0", memory: 1n}'), ""),
    (_node('{cpu: "-1m", memory: 1Gi}'),
     'The Node "n" is invalid: [status.capacity.cpu: Invalid value: "-1m": must be greater '
     'than or equal to 0, status.allocatable.cpu: Invalid value: "-1m": must be greater than '
     'or equal to 0]'),
    (_pod('{cpu: "0", memory: 0}'), ""),
    (_pod('{cpu: 100m, memory: "-1"}'),
     'The Pod "p" is invalid: spec.containers[0].resources.requests.memory: Invalid value: '
     '"-1": must be greater than or equal to 0'),
])
def test_negative_quantities_are_refused_zero_is_taken(text: str, error: str) -> None:
    assert _errors(text) == error
