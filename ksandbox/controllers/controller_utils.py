"""What the workload controllers share: pod readiness and availability, generated names, the template hash, and the required-node-affinity
match a DaemonSet needs. The work queue is ``controllers/base.py``'s; the watch-fed index of
objects by their controller is the control plane's shared one (``apiserver/informers.py``).

The counterpart of upstream ``pkg/controller/controller_utils.go`` (plus the small pieces of
apimachinery's name generator and ``intstr`` the controllers lean on).
Ported in our own words, not copied.

Not here: any controller's business logic (``replicaset.py``, ``deployment.py``, ...), and the
scheduler's NodeAffinity plugin (the scheduler package may not be imported from controllers, so
the DaemonSet's small "does this node match" check lives here).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..api.codec import encode
from ..api.core import FAILED, SUCCEEDED
from ..api.errors import ApiError
from ..api.selectors import atoi_clamped

if TYPE_CHECKING:
    from ..api.core import Node, Pod

# apimachinery pkg/util/rand: the alphabet of generated names and of SafeEncodeString.
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
# apiserver pkg/storage/names: a generated name is at most 63 characters, 5 of them random.
MAX_NAME_LENGTH = 63
RANDOM_LENGTH = 5
MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH
# pkg/apis/core: the Ready pod condition.
POD_READY = "Ready"
# apimachinery pkg/apis/meta/v1: the field path node affinity's matchFields can name.
OBJECT_NAME_FIELD = "metadata.name"


# -- pods ----------------------------------------------------------------------------------------


def pod_active(pod: Pod) -> bool:
    """IsPodActive: not Succeeded, not Failed, not being deleted."""
    return pod.metadata.deletion_timestamp is None and pod.status.phase not in (SUCCEEDED, FAILED)


def pod_ready(pod: Pod) -> bool:
    """podutil.IsPodReady: the Ready condition is True."""
    for c in pod.status.conditions:
        if c.type == POD_READY:
            return c.status == "True"
    return False


def ready_since(pod: Pod) -> float | None:
    """When the Ready condition last became True (None when not ready or unknown)."""
    for c in pod.status.conditions:
        if c.type == POD_READY:
            if c.status == "True" and isinstance(c.last_transition_time, (int, float)):
                return float(c.last_transition_time)
            return None
    return None


def pod_available(pod: Pod, min_ready_seconds: int, now: float) -> bool:
    """podutil.IsPodAvailable: ready, and ready for at least minReadySeconds.

    Upstream requires the deadline to be strictly before now; on a simulated clock that would
    make a re-check scheduled exactly at the deadline miss it, so the deadline itself counts.
    """
    if not pod_ready(pod):
        return False
    if not min_ready_seconds:
        return True
    since = ready_since(pod)
    return since is not None and since + min_ready_seconds <= now


def available_at(pod: Pod, min_ready_seconds: int) -> float | None:
    """When a ready pod becomes available (None when it is not ready)."""
    since = ready_since(pod)
    return None if since is None else since + min_ready_seconds


def server_message(err: Exception) -> str:
    """An API error as the server states it, without kubectl's ``Error from server (...)``."""
    return err.message if isinstance(err, ApiError) else str(err)


# -- names and hashes ----------------------------------------------------------------------------


def generate_name(base: str, rand: Any) -> str:
    """apiserver's SimpleNameGenerator: ``base`` (cut to 58 characters) plus 5 random ones."""
    if len(base) > MAX_GENERATED_NAME_LENGTH:
        base = base[:MAX_GENERATED_NAME_LENGTH]
    return base + rand.name_suffix(RANDOM_LENGTH)


def safe_encode_string(s: str) -> str:
    """apimachinery rand.SafeEncodeString: each byte mapped into the vowel-free alphabet."""
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in s.encode())


def fnv32a(data: bytes) -> int:
    """The 32-bit FNV-1a hash (Go's hash/fnv New32a)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def template_key(template: Any, drop_label: str = "") -> str:
    """The canonical encoded form of a pod template (sorted JSON), without one label."""
    data = encode(template)
    if drop_label:
        labels = (data.get("metadata") or {}).get("labels")
        if labels and drop_label in labels:
            labels = {k: v for k, v in labels.items() if k != drop_label}
            meta = {k: v for k, v in data["metadata"].items() if k != "labels"}
            if labels:
                meta["labels"] = labels
            data = dict(data, metadata=meta)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)


def compute_hash(template: Any, collision_count: int | None = None) -> str:
    """controller.ComputeHash: FNV-32a of the template (plus the collision count, as a 4-byte
    little-endian integer), its decimal digits safe-encoded — ``7d9c8f6b5c``-style. Upstream
    hashes Go's spew dump of the struct; we hash the sorted JSON, so values differ from a real
    cluster's but are stable and in the same alphabet."""
    data = template_key(template).encode()
    if collision_count:
        data += int(collision_count).to_bytes(4, "little", signed=False)
    return safe_encode_string(str(fnv32a(data)))


# -- numbers -------------------------------------------------------------------------------------


def scaled_value(value: Any, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int as is, ``"25%"`` of ``total`` rounded up
    or down."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.endswith("%"):
        pct = atoi_clamped(text[:-1]) or 0   # validation let only [0-9]+% through
        exact = pct * total
        return -(-exact // 100) if round_up else exact // 100
    return atoi_clamped(text) or 0


# -- node affinity (the subset a DaemonSet needs) ------------------------------------------------


def node_matches_pod_affinity(spec: Any, node: Node) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node) for a pod spec: the one shared
    rule (``ksandbox.api.node_affinity``), as the scheduler and the kubelet use it."""
    from ..api.node_affinity import spec_matches_node

    return spec_matches_node(spec, node)
