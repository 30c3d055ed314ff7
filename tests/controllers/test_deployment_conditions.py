"""A Deployment's Available and Progressing conditions, the progress deadline, and describe's
OldReplicaSets after a finished rollout — with a real scheduler and kubelets.

Ported from pkg/controller/deployment/util/deployment_util_test.go (TestDeploymentProgressing,
TestDeploymentTimedOut, TestSetCondition's same-status/same-reason rule) and
pkg/controller/deployment/progress_test.go (TestSyncRolloutStatus: "General: remove
Progressing condition and do not estimate progress if deployment has no Progress Deadline",
"DeploymentComplete: dont update ... if already NewRSAvailable", "DeploymentTimedOut: update
status if rollout exceeds Progress Deadline"); kubectl describe's GetAllReplicaSets
(FindOldReplicaSets' first list holds only ReplicaSets with replicas).
"""

from __future__ import annotations

import attrs
import pytest

from ksandbox.api.apps import DeploymentStatus
from ksandbox.controllers import deployment_progress as dp
from ksandbox.session import Session

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def deploy(image: str = "nginx:1.27", cpu: str = "100m", deadline: int = 600,
           replicas: int = 3) -> str:
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  progressDeadlineSeconds: {deadline}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: c, image: "{image}", resources: {{requests: {{cpu: {cpu}}}}}}}]}}
"""


def conds(s: Session) -> dict:
    d = s.store.get("Deployment", "web", "default")
    return {c["type"]: c for c in d.status.extra.get("conditions") or ()}


def new_rs_name(s: Session) -> str:
    d = s.store.get("Deployment", "web", "default")
    rss = [rs for rs in s.store.list("ReplicaSet", "default")
           if rs.spec.template.spec.containers[0].image ==
           d.spec.template.spec.containers[0].image]
    return rss[0].metadata.name


def test_a_finished_rollout_is_available_and_has_progressed():
    s = Session.from_text(NODES + deploy())
    s.run_until(30)
    c = conds(s)
    assert (c["Available"]["status"], c["Available"]["reason"], c["Available"]["message"]) == \
        ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
    rs = new_rs_name(s)
    assert (c["Progressing"]["status"], c["Progressing"]["reason"],
            c["Progressing"]["message"]) == \
        ("True", "NewReplicaSetAvailable", f'ReplicaSet "{rs}" has successfully progressed.')
    # The rollout started with NewReplicaSetCreated at 0 s: the status stayed True since.
    assert c["Progressing"]["lastTransitionTime"] == 0.0
    out = s.submit("kubectl describe deployment web").output
    assert "Conditions:\n  Type           Status  Reason\n  ----           ------  ------\n" \
           "  Available      True    MinimumReplicasAvailable\n" \
           "  Progressing    True    NewReplicaSetAvailable\n" in out
    assert "OldReplicaSets:  <none>\n" in out
    assert f"NewReplicaSet:   {rs} (3/3 replicas created)\n" in out


def test_after_an_image_change_old_replicasets_read_none_once_scaled_down():
    s = Session.from_text(NODES + deploy())
    s.run_until(30)
    old = new_rs_name(s)
    s.submit("kubectl apply -f -", stdin=NODES + deploy(image="nginx:1.28"))
    s.run_until(32)
    mid = s.submit("kubectl describe deployment web").output
    assert f"OldReplicaSets:  {old} (" in mid             # still scaling down
    s.run_until(120)
    out = s.submit("kubectl describe deployment web").output
    assert "OldReplicaSets:  <none>\n" in out
    assert s.store.get("ReplicaSet", old, "default") is not None   # kept as history
    assert conds(s)["Progressing"]["reason"] == "NewReplicaSetAvailable"


def test_a_stuck_rollout_exceeds_its_progress_deadline():
    """Pods that fit nowhere (5 CPUs on a 4-CPU node): no progress for
    progressDeadlineSeconds → Progressing False ProgressDeadlineExceeded, Available False."""
    s = Session.from_text(NODES + deploy(cpu="5", deadline=60))
    s.run_until(30)
    c = conds(s)
    # NewReplicaSetCreated at 0 s, then ReplicaSetUpdated when its 3 pods were created (the
    # updated count grew) — and no progress since: none of them can be placed.
    assert (c["Progressing"]["status"], c["Progressing"]["reason"],
            c["Progressing"]["message"]) == \
        ("True", "ReplicaSetUpdated", f'ReplicaSet "{new_rs_name(s)}" is progressing.')
    assert c["Progressing"]["lastUpdateTime"] < 1.0
    assert (c["Available"]["status"], c["Available"]["reason"]) == \
        ("False", "MinimumReplicasUnavailable")
    s.run_until(70)
    c = conds(s)
    rs = new_rs_name(s)
    assert (c["Progressing"]["status"], c["Progressing"]["reason"],
            c["Progressing"]["message"]) == \
        ("False", "ProgressDeadlineExceeded", f'ReplicaSet "{rs}" has timed out progressing.')
    assert 60.0 < c["Progressing"]["lastTransitionTime"] <= 62.0
    out = s.submit("kubectl get deployment web -o yaml").output
    assert "reason: ProgressDeadlineExceeded" in out


def _d(deadline: int | None = 600, paused: bool = False, status: DeploymentStatus | None = None,
       conditions: tuple = ()):
    from ksandbox.api.apps import Deployment, DeploymentSpec

    st = status or DeploymentStatus()
    st = attrs.evolve(st, extra=st.extra.set("conditions", conditions))
    return Deployment(spec=DeploymentSpec(replicas=1, progress_deadline_seconds=deadline,
                                          paused=paused), status=st)


@pytest.mark.parametrize("name,old,new,want", [
    ("not progressing", (1, 1, 1, 1), (1, 1, 1, 1), False),
    ("updated replicas grew", (2, 1, 1, 1), (2, 2, 1, 1), True),
    ("old replicas shrank", (3, 1, 1, 1), (2, 1, 1, 1), True),
    ("ready grew", (1, 1, 0, 0), (1, 1, 1, 0), True),
    ("available grew", (1, 1, 1, 0), (1, 1, 1, 1), True),
    ("old replicas grew (no progress)", (2, 1, 1, 1), (3, 1, 1, 1), False),
])
def test_deployment_progressing(name, old, new, want):
    """TestDeploymentProgressing: (replicas, updated, ready, available) before and after."""
    r, u, rd, a = old
    d = _d(status=DeploymentStatus(replicas=r, updated_replicas=u, ready_replicas=rd,
                                   available_replicas=a))
    r, u, rd, a = new
    counts = {"replicas": r, "updated_replicas": u, "ready_replicas": rd,
              "available_replicas": a, "observed_generation": 0}
    assert dp._progressing(d.status, counts) is want, name


@pytest.mark.parametrize("name,last_update,reason,now,want", [
    ("no timeout", 0.0, "ReplicaSetUpdated", 600.0, False),       # not strictly before
    ("timeout", 0.0, "ReplicaSetUpdated", 600.5, True),
    ("already timed out", 0.0, "ProgressDeadlineExceeded", 1.0, True),
    ("complete never times out", 0.0, "NewReplicaSetAvailable", 9999.0, False),
])
def test_deployment_timed_out(name, last_update, reason, now, want):
    """TestDeploymentTimedOut: lastUpdateTime + progressDeadlineSeconds strictly before now."""
    cond = dp.new_condition("Progressing", "True", reason, "", last_update)
    d = _d(conditions=(cond,))
    assert dp._timed_out(d, [cond], now) is want, name


def test_set_condition_keeps_transition_time_and_skips_same_reason():
    """TestSetCondition: same status and reason → unchanged; same status, new reason → the
    transition time stays; the condition moves to the end."""
    a = dp.new_condition("Available", "True", "MinimumReplicasAvailable", "m", 1.0)
    p = dp.new_condition("Progressing", "True", "NewReplicaSetCreated", "x", 2.0)
    conds = [p, a]
    assert dp.set_condition(conds, dp.new_condition("Progressing", "True",
                                                    "NewReplicaSetCreated", "y", 9.0)) is conds
    out = dp.set_condition(conds, dp.new_condition("Progressing", "True",
                                                   "ReplicaSetUpdated", "z", 9.0))
    assert [c["type"] for c in out] == ["Available", "Progressing"]
    assert (out[1]["lastTransitionTime"], out[1]["lastUpdateTime"]) == (2.0, 9.0)


def test_no_deadline_removes_progressing():
    """TestSyncRolloutStatus: no progressDeadlineSeconds → no Progressing condition."""
    p = dp.new_condition("Progressing", "True", "ReplicaSetUpdated", "", 0.0)
    d = _d(deadline=None, conditions=(p,))
    counts = {"replicas": 1, "updated_replicas": 1, "ready_replicas": 1,
              "available_replicas": 1, "observed_generation": 0}
    conds, after = dp.status_conditions(d, counts, None, 5.0, progress=True)
    assert [c["type"] for c in conds] == ["Available"]   # Available set, Progressing gone
    assert after is None


def test_conditions_of_gives_each_caller_the_filtered_entries_of_the_stored_tuple() -> None:
    """conditions_of remembers the last tuple it filtered (a sync asks several times of one
    status): every answer equals the plain filter of the Deployment it is asked about, in
    order, and is the caller's own list (changing it changes no later answer); stored_condition
    finds in it what get_condition finds in the plain filter."""
    from types import SimpleNamespace

    from ksandbox.api.codec import FrozenDict
    from ksandbox.controllers.deployment_progress import conditions_of

    def dep(conds: object) -> SimpleNamespace:
        extra = FrozenDict({"conditions": conds}) if conds is not None else FrozenDict({})
        return SimpleNamespace(status=SimpleNamespace(extra=extra))

    a = FrozenDict({"type": "Available", "status": "True"})
    p = FrozenDict({"type": "Progressing", "status": "True"})
    cases = [(a, p), (p,), (a, "junk", p), (), None, [a, p], (p, a)]
    for conds in cases + cases[::-1] + cases:
        d = dep(conds)
        plain = [c for c in (conds or ()) if hasattr(c, "get")]
        got = conditions_of(d)
        assert got == plain
        got.append(FrozenDict({"type": "Mine"}))   # the caller's own list
        assert conditions_of(d) == plain
        for type_ in ("Available", "Progressing", "Mine"):   # looked up in the kept list
            assert dp.stored_condition(d, type_) is dp.get_condition(plain, type_)
