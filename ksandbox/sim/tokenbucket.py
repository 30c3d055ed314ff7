"""client-go's token-bucket rate limiter (``flowcontrol.NewTokenBucketRateLimiter``) on the
simulated clock: every API client of a real control plane spends a token per request, refilled
at ``qps`` per second up to ``burst``. A client without a token waits; here the caller asks
how many requests it may make now and when the next token comes, and schedules itself then.

This is what keeps runaway work bounded in simulated time the way it is upstream: a
ReplicaSet whose pods the kubelet rejects as fast as they are made (the pod storm), or one
asked for 2,147,483,647 replicas, creates pods at the controller manager's client rate
(``--kube-api-qps`` 20, ``--kube-api-burst`` 30) — thousands a minute, not all at one
instant. Normal clusters stay inside the burst and never wait.
"""

from __future__ import annotations

import math


class TokenBucket:
    """``qps`` tokens a second, at most ``burst`` saved; starts full."""

    __slots__ = ("qps", "burst", "_tokens", "_at")

    def __init__(self, qps: float, burst: int, now: float = 0.0) -> None:
        self.qps = float(qps)
        self.burst = int(burst)
        self._tokens = float(burst)
        self._at = now

    def _refill(self, now: float) -> None:
        if now > self._at:
            self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.qps)
            self._at = now

    def available(self, now: float) -> int:
        """Requests that may be made at ``now`` without waiting."""
        self._refill(now)
        return int(math.floor(self._tokens + 1e-9))

    def take(self, now: float, n: int = 1) -> None:
        """Spend ``n`` tokens (the caller checked :meth:`available`)."""
        self._refill(now)
        self._tokens -= n

    def next_token_in(self, now: float) -> float:
        """Seconds until one more request may be made (0 when one may be made now)."""
        self._refill(now)
        missing = 1.0 - self._tokens
        return 0.0 if missing <= 1e-9 else missing / self.qps


__all__ = ["TokenBucket"]
