"""The Deployment controller's two rollout strategies, RollingUpdate and Recreate.

Ported from upstream ``pkg/controller/deployment/rolling.go`` (rolloutRolling,
reconcileNewReplicaSet, reconcileOldReplicaSets, cleanupUnhealthyReplicas,
scaleDownOldReplicaSetsForRollingUpdate) and ``recreate.go`` (rolloutRecreate, oldPodsRunning),
in our own words. :class:`Rollout` is the part of the Deployment controller (``deployment.py``)
that runs them, kept apart as upstream keeps them in their own files; it scales ReplicaSets
through the controller's ``_scale_rs_and_event`` and reads its helpers.

Not here: the controller's loop, the new ReplicaSet, proportional scaling, status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import deployment_util as du

if TYPE_CHECKING:
    from .deployment import DeploymentController


class Rollout:
    """rolling.go and recreate.go for ``dc``, the Deployment controller that owns it."""

    def __init__(self, dc: DeploymentController) -> None:
        self.dc = dc

    def rolling(self, d: Any, rs_list: list[Any], fam: Any = None) -> None:
        """rolloutRolling: grow the new ReplicaSet, else shrink the old ones, else clean up.
        ``fam``: the sync's _Family of ``rs_list`` (DeploymentController._family)."""
        new_rs, old_rss = self.dc._all_rss(d, rs_list, True, fam)
        if new_rs is None:
            return
        known = (rs_list, new_rs)   # (what the status needs, unless the sync changed it)
        f = du.facts(d)   # (d's spec's, read once for both reconciles and the status)
        dc = self.dc
        if not self._reconcile_new(d, new_rs, old_rss, f):
            if dc.store.resource_version != dc._read_rv:   # (else _fresh gives them as is)
                new_rs, old_rss = dc._fresh([new_rs])[0], dc._fresh(old_rss)
            st, want = d.status, f.replicas
            if not self._reconcile_old(d, new_rs, old_rss, f) and \
                    st.updated_replicas == want and st.replicas == want and \
                    st.available_replicas == want and \
                    st.observed_generation >= d.metadata.generation:
                # (du.deployment_complete(d, d.status), inline)
                dc._cleanup(d, old_rss)
        # the status sync after whichever step ran: dc._sync_status(d, known=known), whose
        # rollout part (_rollout_status, with memo) is called directly, with f
        if dc.memo:
            dc._rollout_status(d, known, f)
        else:
            dc._sync_status(d, known=known)

    def _reconcile_new(self, d: Any, new_rs: Any, old_rss: list[Any], f: Any = None) -> bool:
        """reconcileNewReplicaSet: as big as maxSurge allows, never past the replicas
        (counted over ``old_rss`` and ``new_rs``). ``f``: du.facts(d), when the caller has
        it."""
        # (du.replicas, du.new_rs_new_replicas and _scale_rs_and_event's size check, inline:
        # every sync of a rollout comes here, and a call costs about what its body does)
        if f is None:
            f = du.facts(d)
        r = new_rs.spec.replicas
        have, want = 1 if r is None else r, f.replicas
        if have == want:
            return False
        if have > want:
            return self.dc._scale_rs(new_rs, want, d, f)
        if not f.rolling:
            size = want
        else:
            current = have   # du.total_replicas(old_rss + [new_rs]), inline
            for rs in old_rss:
                r = rs.spec.replicas
                current += 1 if r is None else r
            size = have if current >= f.max_total else \
                have + min(f.max_total - current, want - have)
            if size == have:
                return False
        return self.dc._scale_rs(new_rs, size, d, f)

    def _reconcile_old(self, d: Any, new_rs: Any, old_rss: list[Any], f: Any = None) -> bool:
        """reconcileOldReplicaSets: first drop old pods that are not available anyway, then
        scale the old ReplicaSets down as far as availability allows, oldest first. ``f``:
        du.facts(d), when the caller has it."""
        # du.filter_active(old_rss) and du.total_replicas of it, in one loop
        old_active = []
        old_count = 0
        for rs in old_rss:
            r = rs.spec.replicas
            if r is None or r > 0:
                old_active.append(rs)
                old_count += 1 if r is None else r
        if old_count == 0:
            return False
        r = new_rs.spec.replicas   # (rolling found one)
        new_count = 1 if r is None else r
        all_count = old_count + new_count
        if f is None:
            f = du.facts(d)
        min_available = f.min_available
        new_unavailable = new_count - new_rs.status.available_replicas
        max_scaled_down = all_count - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        # oldest first; the stored versions below keep the order (their creation times and
        # names are these), so the list is sorted once
        if len(old_active) > 1:   # (one old ReplicaSet: nothing to sort, most syncs)
            old_active = du.by_creation(old_active)
        cleaned = 0
        for rs in old_active:
            if cleaned >= max_scaled_down:
                break
            r = rs.spec.replicas
            size = 1 if r is None else r
            unhealthy = size - rs.status.available_replicas
            if size == 0 or unhealthy <= 0:
                continue
            n = min(max_scaled_down - cleaned, unhealthy)
            # (_scale_rs_and_event: n > 0, so a new size)
            if self.dc._scale_rs(rs, size - n, d, f):
                cleaned += n
        old_active = self.dc._fresh(old_active)
        available = new_rs.status.available_replicas
        for rs in old_active:
            available += rs.status.available_replicas
        budget = available - min_available
        scaled = 0
        if budget > 0:
            for rs in old_active:
                if scaled >= budget:
                    break
                r = rs.spec.replicas
                size = 1 if r is None else r
                if size == 0:
                    continue
                n = min(size, budget - scaled)
                # (_scale_rs_and_event: n > 0, so a new size)
                if self.dc._scale_rs(rs, size - n, d, f):
                    scaled += n
        return cleaned + scaled > 0

    def recreate(self, d: Any, rs_list: list[Any], fam: Any = None) -> None:
        """rolloutRecreate: old ReplicaSets to zero, wait for their pods, then the new one."""
        new_rs, old_rss = self.dc._all_rss(d, rs_list, False, fam)
        scaled_down = False
        for rs in du.filter_active(old_rss):
            scaled_down |= self.dc._scale_rs_and_event(rs, 0, d)
        if scaled_down or self._old_pods_running(new_rs, self.dc._fresh(old_rss)):
            self.dc._sync_status(d)
            return
        if new_rs is None:
            new_rs, old_rss = self.dc._all_rss(d, self.dc._fresh(rs_list), create=True)
            if new_rs is None:
                return
        self.dc._scale_rs_and_event(new_rs, du.replicas(d), d)
        if du.deployment_complete(d, d.status):
            self.dc._cleanup(d, self.dc._fresh(old_rss))
        self.dc._sync_status(d)

    def _old_pods_running(self, new_rs: Any, old_rss: list[Any]) -> bool:
        """oldPodsRunning: any old pod not yet Succeeded or Failed (terminating ones count)."""
        if sum(rs.status.replicas for rs in old_rss) > 0:
            return True
        for rs in old_rss:
            for pod in self.dc.pods.owned(rs.metadata.uid).values():
                if pod.status.phase not in ("Failed", "Succeeded"):
                    return True
        return False
