"""The node lifecycle controller's tainting queue: a token bucket and a rate-limited unique queue.

Ports of ``k8s.io/client-go/util/flowcontrol`` (NewTokenBucketRateLimiter, TryAccept) and
``pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go`` (RateLimitedTimedQueue over a
UniqueQueue, SwapLimiter), on simulated time.
"""

from __future__ import annotations

# pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go: EvictionRateLimiterBurst.
EVICTION_RATE_LIMITER_BURST = 1


class TokenBucket:
    """flowcontrol.NewTokenBucketRateLimiter on simulated time (starts full)."""

    def __init__(self, qps: float, burst: int, now: float) -> None:
        self.qps = qps
        self.burst = burst
        self.tokens = float(burst)
        self.last = now

    def _refill(self, now: float) -> None:
        if self.qps > 0:
            self.tokens = min(float(self.burst), self.tokens + (now - self.last) * self.qps)
        self.last = now

    def try_accept(self, now: float) -> bool:
        if self.qps <= 0:
            return False
        self._refill(now)
        if self.tokens >= 1.0 - 1e-9:
            self.tokens -= 1.0
            return True
        return False

    def next_token_at(self, now: float) -> float | None:
        if self.qps <= 0:
            return None
        self._refill(now)
        return now + max(0.0, 1.0 - self.tokens) / self.qps


class RateLimitedQueue:
    """scheduler.RateLimitedTimedQueue over a UniqueQueue: node names drained through a limiter.

    A processed name stays in the set (``RemoveFromQueue``), so it is not queued again until
    :meth:`remove` forgets it — a tainted node is tainted once.
    """

    def __init__(self, qps: float, now: float) -> None:
        self.items: dict[str, str] = {}   # pending: node name → uid, in insertion order
        self.members: set[str] = set()
        self.limiter = TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, now)

    def add(self, name: str, uid: str) -> bool:
        if name in self.members:
            return False
        self.members.add(name)
        self.items[name] = uid
        return True

    def remove(self, name: str) -> bool:
        """Remove: out of the queue and the set; it may be added again."""
        self.items.pop(name, None)
        if name in self.members:
            self.members.discard(name)
            return True
        return False

    def done(self, name: str) -> None:
        """RemoveFromQueue: processed; stays in the set."""
        self.items.pop(name, None)

    def swap_limiter(self, qps: float, now: float) -> None:
        if self.limiter.qps == qps:
            return
        had_token = self.limiter.try_accept(now)
        self.limiter = TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, now)
        if not had_token:
            # We were waiting on the old limiter: drain the new one too (burst is 1).
            self.limiter.try_accept(now)
