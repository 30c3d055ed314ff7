"""CycleState: per-pod scratch space for one scheduling attempt.

Upstream ``framework/cycle_state.go``: plugins write what PreFilter/PreScore computed and read it
back in Filter/Score. ``clone`` is used by preemption, which simulates removing pods on a copy;
stored values that change under the PreFilter extensions (add_pod/remove_pod) provide their own
``clone()``. Also remembers which plugins asked to be skipped for Filter and Score this cycle.

Not here: anything that outlives one attempt (that is the cache's job).
"""

from __future__ import annotations

from typing import Any


class CycleState:
    __slots__ = ("_data", "skip_filter", "skip_score")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter: set[str] = set()
        self.skip_score: set[str] = set()

    def read(self, key: str) -> Any:
        """The value written under ``key``; KeyError when PreFilter/PreScore did not run."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def write_all(self, values: dict[str, Any]) -> None:
        """Write every key of ``values`` (a template's recorded PreFilter or PreScore writes,
        pod_plan.py)."""
        self._data.update(values)

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> "CycleState":
        other = CycleState()
        for k, v in self._data.items():
            c = getattr(v, "clone", None)
            other._data[k] = c() if c is not None else v
        other.skip_filter = set(self.skip_filter)
        other.skip_score = set(self.skip_score)
        return other
