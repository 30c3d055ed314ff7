"""scheduling.k8s.io/v1 PriorityClass: a name for a pod priority value.

Its own module (not with the HPA and the PodDisruptionBudget in api/policy.py): every sandbox
creates the two system classes at start (session.py), while the others' kinds load when one
of them is first decoded (api/kinds.py, issue 11 item 5).
"""

from __future__ import annotations

from .codec import FrozenDict, Int32, api_type, extra_field, j
from .meta import ObjectMeta


@api_type
class PriorityClass:
    api_version: str = j("apiVersion", "scheduling.k8s.io/v1")
    kind: str = j("kind", "PriorityClass")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    value: Int32 = j("value", 0, omit_empty=False)
    global_default: bool = j("globalDefault", False)
    preemption_policy: str = j("preemptionPolicy", "")
    description: str = j("description", "")
    extra: FrozenDict = extra_field()
