"""Plugin names, as upstream's ``framework/plugins/names/names.go``.

The names are the contract of KubeSchedulerConfiguration: ``plugins.filter.enabled[].name``,
``pluginConfig[].name`` and explain's per-plugin columns all use them.
"""

PRIORITY_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"
DEFAULT_PREEMPTION = "DefaultPreemption"
IMAGE_LOCALITY = "ImageLocality"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
NODE_NAME = "NodeName"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
SCHEDULING_GATES = "SchedulingGates"
TAINT_TOLERATION = "TaintToleration"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
VOLUME_ZONE = "VolumeZone"
VOLUME_BINDING = "VolumeBinding"
# In upstream's default profile but with nothing to do in the sandbox (no CSI attach limits,
# no DRA): accepted in configurations and ignored.
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
DYNAMIC_RESOURCES = "DynamicResources"
