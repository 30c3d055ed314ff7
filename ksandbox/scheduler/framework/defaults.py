"""The default profile: which plugins a scheduler profile enables when it names none.

Upstream ``pkg/scheduler/apis/config/v1/default_plugins.go``: the default profile enables these
plugins at every extension point they implement ("multiPoint"), in this order, with these score
weights; and the extension points a profile's ``plugins`` may name. The factories for these
names are the registry's (``scheduler/plugins/registry.py``).
"""

from __future__ import annotations

from ..plugins import names

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# default_plugins.go getDefaultPlugins: MultiPoint, in order, with weights (0 = not a scorer).
DEFAULT_MULTI_POINT: tuple[tuple[str, int], ...] = (
    (names.SCHEDULING_GATES, 0),
    (names.PRIORITY_SORT, 0),
    (names.NODE_UNSCHEDULABLE, 0),
    (names.NODE_NAME, 0),
    (names.TAINT_TOLERATION, 3),
    (names.NODE_AFFINITY, 2),
    (names.NODE_PORTS, 0),
    (names.NODE_RESOURCES_FIT, 1),
    (names.VOLUME_RESTRICTIONS, 0),
    (names.NODE_VOLUME_LIMITS, 0),
    (names.VOLUME_BINDING, 0),
    (names.VOLUME_ZONE, 0),
    (names.POD_TOPOLOGY_SPREAD, 2),
    (names.INTER_POD_AFFINITY, 2),
    (names.DEFAULT_PREEMPTION, 0),
    (names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    (names.IMAGE_LOCALITY, 1),
    (names.DEFAULT_BINDER, 0),
)

# The extension points a profile's ``plugins`` may name, and the method each maps to.
EXTENSION_POINTS: dict[str, str | None] = {
    "queueSort": None, "preEnqueue": None, "preFilter": "pre_filter", "filter": "filter",
    "postFilter": "post_filter", "preScore": "pre_score", "score": "score",
    "reserve": "reserve", "permit": None, "preBind": "pre_bind", "bind": None, "postBind": None,
}
