"""What the Deployment controller remembers between syncs changes nothing it does.

A sync's _Family (which ReplicaSet is new, the revision it keeps, whose desired-replicas
annotation differs) is kept while the Deployment's spec and its ReplicaSets' labels,
annotations, templates and uids stay the same objects. Over a scenario that changes each of
those by hand as well as by rollouts — scaling mid-rollout, pause and resume, a return to an
old template, a revision and a desired-replicas annotation edited, an old ReplicaSet's
template edited to the current one, a ReplicaSet released and another adopted, one deleted,
minReadySeconds changed, a Recreate Deployment — every write and every event must be what the
controller makes with nothing remembered (``DeploymentController.memo = False``), and every
remembered _Family must give the facts a fresh one gives.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs
import pytest

from ksandbox.api.meta import ObjectMeta
from ksandbox.controllers import deployment as dep
from ksandbox.controllers import deployment_util as du
from ksandbox.session import Session

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_deployment import (
    NODES,
    deploy_yaml,
    deployment,
    finish_terminating,
    make_all_ready,
    roll_to_completion,
    rss,
    set_image,
    set_replicas,
)

ROLLING = "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}"


def _edit_rs(s: Session, rs, **meta) -> None:
    s.store.update(attrs.evolve(rs, metadata=attrs.evolve(rs.metadata, **meta)))


def _step(s: Session, n: int = 3) -> None:
    for _ in range(n):
        s.run_for(1)
        finish_terminating(s)
        make_all_ready(s)


def scenario(s: Session) -> None:
    make_all_ready(s)
    s.run_for(1)
    for image in ("nginx:1.26", "nginx:1.27"):
        set_image(s, image)
        roll_to_completion(s)
    # The oldest ReplicaSet's template edited to the Deployment's (with its own hash label):
    # the oldest of the two is the new one from then on.
    d = deployment(s)
    old = min(rss(s), key=lambda r: r.metadata.creation_timestamp)
    labels = d.spec.template.metadata.labels.set(
        du.POD_TEMPLATE_HASH, old.metadata.labels[du.POD_TEMPLATE_HASH])
    tmpl = attrs.evolve(d.spec.template, metadata=attrs.evolve(
        d.spec.template.metadata, labels=labels))
    s.store.update(attrs.evolve(old, spec=attrs.evolve(old.spec, template=tmpl)))
    _step(s, 8)
    set_image(s, "nginx:1.28")
    s.run_for(2)
    set_replicas(s, 7)                       # a scaling event mid-rollout
    roll_to_completion(s)
    d = deployment(s)                        # pause, change the template, resume
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, paused=True)))
    set_image(s, "nginx:1.29")
    _step(s, 2)
    d = deployment(s)
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, paused=False)))
    roll_to_completion(s)
    set_image(s, "nginx:1.25")               # back to the first template
    roll_to_completion(s)
    # The new ReplicaSet's revision edited down: the sync writes the next one back.
    new = max(rss(s), key=lambda r: r.spec.replicas or 0)
    _edit_rs(s, new, annotations=new.metadata.annotations.set(du.REVISION, "1"))
    _step(s)
    # An active ReplicaSet's desired-replicas edited: a scaling event.
    new = max(rss(s), key=lambda r: r.spec.replicas or 0)
    _edit_rs(s, new, annotations=new.metadata.annotations.set(du.DESIRED_REPLICAS, "3"))
    _step(s)
    # A new orphan that matches (the Deployment's own ReplicaSets unchanged) is adopted.
    some = max(rss(s), key=lambda r: r.metadata.creation_timestamp)
    s.store.create(attrs.evolve(some, metadata=ObjectMeta(
        name="web-orphan", namespace="default", labels=some.metadata.labels,
        annotations=some.metadata.annotations)))
    _step(s)
    # A ReplicaSet relabeled out of the selector is released (then deleted: an orphan in
    # the namespace keeps anything from being remembered); one whose owner is taken away is
    # adopted again.
    some = sorted(rss(s), key=lambda r: r.metadata.creation_timestamp)
    _edit_rs(s, some[1], labels=some[1].metadata.labels.set("app", "other"))
    _step(s)
    s.store.delete("ReplicaSet", some[1].metadata.name, "default")
    newest = max(rss(s), key=lambda r: r.metadata.creation_timestamp)
    _edit_rs(s, newest, owner_references=())
    _step(s)
    # minReadySeconds changed: the new ReplicaSet takes it.
    d = deployment(s)
    s.store.update(attrs.evolve(d, spec=attrs.evolve(d.spec, min_ready_seconds=2)))
    _step(s)
    # An old ReplicaSet deleted by hand; one more rollout.
    gone = min(rss(s), key=lambda r: r.metadata.creation_timestamp)
    s.store.delete("ReplicaSet", gone.metadata.name, "default")
    set_image(s, "nginx:1.30")
    _step(s, 12)


def record(yaml: str, memo: bool, monkeypatch) -> list[str]:
    """Every write (with the object written) and every event of the scenario."""
    monkeypatch.setattr(dep.DeploymentController, "memo", memo)
    s = Session.from_text(NODES + yaml)
    log: list[str] = []
    s.store.subscribe(None, lambda ev: log.append(
        f"{s.now} {ev.type} {ev.obj.kind} {ev.obj.metadata.name} {ev.obj!r}"))
    scenario(s)
    log += [f"{e.reason} {e.message} {e.count}" for e in s.store.events]
    return log


@pytest.mark.parametrize("yaml", [
    deploy_yaml(replicas=4, strategy=ROLLING),
    deploy_yaml(replicas=5, extra="progressDeadlineSeconds: 3"),
    deploy_yaml(replicas=3, strategy="strategy: {type: Recreate}",
                extra="revisionHistoryLimit: 2"),
], ids=["rolling", "deadline", "recreate"])
def test_remembering_changes_no_write_and_no_event(monkeypatch, yaml):
    plain = record(yaml, False, monkeypatch)
    assert len(plain) > 200
    assert record(yaml, True, monkeypatch) == plain


def test_a_remembered_family_gives_the_facts_a_fresh_one_gives(monkeypatch):
    """Each time _family answers, a _Family made afresh from the ReplicaSets _claim finds
    says the same: the key holds every object the facts are made of."""
    found = dep.DeploymentController._family
    seen = {"hits": 0, "misses": 0}

    def checked(self, d):
        fam = found(self, d)
        if fam is None:
            seen["misses"] += 1
            return None
        seen["hits"] += 1
        rs_list = self._claim(d)
        assert rs_list == list(self.rss.owned(d.metadata.uid).values())
        fresh = dep._Family(d, rs_list, self._find_new(d, rs_list))
        for field in ("new", "revision", "revision_kept", "differs"):
            assert getattr(fam, field) == getattr(fresh, field), field
        return fam

    monkeypatch.setattr(dep.DeploymentController, "_family", checked)
    s = Session.from_text(NODES + deploy_yaml(replicas=4, strategy=ROLLING))
    scenario(s)
    assert seen["hits"] > 50 and seen["misses"] > 10
