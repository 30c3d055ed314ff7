"""KubeletManager._on_pod (the pod watch that routes keys to kubelets) against its plain form:
every event marked relevant when it is a create, a deletion or has no old version, else when
the node, the deletion stamp, the generation, terminated-ness or the uid changed; the key
queued on the new node's kubelet and, when the node changed, on the old one's."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.core import TERMINATED_PHASES
from ksandbox.apiserver.store import ADDED, DELETED, MODIFIED, WatchEvent
from ksandbox.kubelet.manager import KubeletManager


def _plain_on_pod(self: KubeletManager, ev: WatchEvent) -> None:
    pod, old = ev.obj, ev.old
    node = pod.spec.node_name
    if ev.type == DELETED or ev.type == ADDED or old is None:
        relevant = True
    else:
        relevant = (old.spec.node_name != node
                    or old.metadata.deletion_timestamp != pod.metadata.deletion_timestamp
                    or old.metadata.generation != pod.metadata.generation
                    or (old.status.phase in TERMINATED_PHASES)
                    != (pod.status.phase in TERMINATED_PHASES)
                    or old.metadata.uid != pod.metadata.uid)
    if not relevant:
        return
    key = (pod.metadata.namespace, pod.metadata.name)
    if node:
        kubelet = self.kubelets.get(node)
        if kubelet is not None:
            kubelet.enqueue(key)
    if old is not None and old.spec.node_name and old.spec.node_name != node:
        kubelet = self.kubelets.get(old.spec.node_name)
        if kubelet is not None:
            kubelet.enqueue(key)


class _Kubelet:
    def __init__(self, name: str, log: list) -> None:
        self.pod_workers = self
        self.name, self.log = name, log

    def enqueue(self, key: tuple[str, str]) -> None:
        self.log.append((self.name, key))


# every fake pod's containers, one tuple (an update that changes none keeps it)
_CONTAINERS = (SimpleNamespace(name="app", image="nginx"),)


def _pod(node: str, deleted: float | None, gen: int, phase: str, uid: str,
         name: str = "p") -> SimpleNamespace:
    return SimpleNamespace(
        spec=SimpleNamespace(node_name=node, containers=_CONTAINERS),
        status=SimpleNamespace(phase=phase),
        metadata=SimpleNamespace(namespace="default", name=name, deletion_timestamp=deleted,
                                 generation=gen, uid=uid))


_VALUES = {"node": st.sampled_from(["n1", "n2", "", "gone"]),
           "deleted": st.sampled_from([None, 30.0]), "gen": st.integers(1, 2),
           "phase": st.sampled_from(["Pending", "Running", "Succeeded", "Failed"]),
           "uid": st.sampled_from(["u1", "u2"])}
_pods = st.builds(_pod, *_VALUES.values())


@st.composite
def _events(draw: st.DrawFn) -> tuple:
    """(type, new object, old object or None): the old one mostly the new one with a few of
    its fields changed (a status write changes none of them)."""
    type_ = draw(st.sampled_from([ADDED, MODIFIED, DELETED]))
    new = draw(_pods)
    how = draw(st.sampled_from(("none", "any", "same", *_VALUES)))
    if how == "none":
        return type_, new, None
    if how == "any":
        return type_, new, draw(_pods)
    fields = dict(zip(_VALUES, (new.spec.node_name, new.metadata.deletion_timestamp,
                                new.metadata.generation, new.status.phase, new.metadata.uid)))
    if how != "same":   # one field changed (or drawn equal)
        fields[how] = draw(_VALUES[how])
    return type_, new, _pod(*fields.values())


@settings(max_examples=300)
@given(st.lists(_events(), min_size=1, max_size=12))
def test_on_pod_queues_as_the_plain_handler(events: list) -> None:
    logs: list[list] = [[], []]
    for handler, log in zip((KubeletManager._on_pod, _plain_on_pod), logs):
        manager = KubeletManager()
        manager.kubelets = {n: _Kubelet(n, log) for n in ("n1", "n2")}
        for type_, obj, old in events:
            handler(manager, WatchEvent(type_, obj, old))
    assert logs[0] == logs[1]


def test_on_pod_skips_a_status_write_and_routes_a_move() -> None:
    """The plain handler's answers the comparison above must reach (no vacuous pass)."""
    log: list = []
    manager = KubeletManager()
    manager.kubelets = {n: _Kubelet(n, log) for n in ("n1", "n2")}
    running = _pod("n1", None, 1, "Running", "u1")
    manager._on_pod(WatchEvent(MODIFIED, _pod("n1", None, 1, "Running", "u1"), running))
    assert log == []
    manager._on_pod(WatchEvent(MODIFIED, _pod("n1", None, 1, "Failed", "u1"), running))
    manager._on_pod(WatchEvent(MODIFIED, _pod("n2", None, 1, "Running", "u1"), running))
    manager._on_pod(WatchEvent(ADDED, _pod("", None, 1, "Pending", "u1")))
    key = ("default", "p")
    assert log == [("n1", key), ("n2", key), ("n1", key)]
