"""A pod spec's defaults (pkg/apis/core/v1/defaults.go SetDefaults_PodSpec): the scheduler name,
the termination grace period and the restart policy.

Shared by the admission of pods and of every kind with a pod template (``admission.py``,
``admission_objects.py``); it imports neither. Not here: the admission plugins' mutations
(DefaultTolerationSeconds, priority, the service account), which are ``admission.py``'s.
"""

from __future__ import annotations

from typing import Any

from ..api.evolve import evolve

DEFAULT_SCHEDULER = "default-scheduler"
# pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec.
DEFAULT_TERMINATION_GRACE_PERIOD = 30


def default_pod_spec(spec: Any) -> Any:
    changes: dict[str, Any] = {}
    if not spec.scheduler_name:
        changes["scheduler_name"] = DEFAULT_SCHEDULER
    if spec.termination_grace_period_seconds is None:
        changes["termination_grace_period_seconds"] = DEFAULT_TERMINATION_GRACE_PERIOD
    if not spec.restart_policy:
        changes["restart_policy"] = "Always"
    return evolve(spec, **changes) if changes else spec
