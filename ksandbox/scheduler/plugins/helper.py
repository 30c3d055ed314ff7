"""Shared math for plugins: Go integer semantics, score normalization, rounding.

Upstream ``framework/plugins/helper/normalize_score.go`` and ``shape_score.go``. Go's integer
division truncates toward zero and ``math.Round`` rounds half away from zero; Python's ``//``
floors and ``round`` rounds half to even, so both are spelled out here and used everywhere a
score is computed (the vectorized twins in numpy use the same definitions).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from ..framework.interface import MAX_NODE_SCORE

if TYPE_CHECKING:
    import numpy as np
else:
    from ..framework.lazy_numpy import np


def go_div(a: int, b: int) -> int:
    """int64 division truncating toward zero (Go's ``a / b``)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_round(x: float) -> int:
    """Go's math.Round: half away from zero."""
    if x >= 0:
        f = math.floor(x)
        return int(f + 1) if x - f >= 0.5 else int(f)
    return -go_round(-x)


def go_round_vec(x: np.ndarray) -> np.ndarray:
    """math.Round on an array of non-negative floats, as int64."""
    f = np.floor(x)
    return (f + ((x - f) >= 0.5)).astype(np.int64)


def default_normalize_score(max_priority: int, reverse: bool, scores: list[int]) -> None:
    """helper.DefaultNormalizeScore: scale [0, max(scores)] onto [0, max_priority] in place;
    ``reverse`` flips it. All zero: zeros stay, or all become max_priority when reversed."""
    max_count = max(scores, default=0)
    if max_count <= 0:
        if reverse:
            for i in range(len(scores)):
                scores[i] = max_priority
        return
    for i, s in enumerate(scores):
        s = max_priority * s // max_count
        scores[i] = max_priority - s if reverse else s


def default_normalize_vec(max_priority: int, reverse: bool, scores: np.ndarray) -> np.ndarray:
    max_count = int(scores.max()) if len(scores) else 0
    if max_count <= 0:
        if reverse:
            return np.full(len(scores), max_priority, dtype=np.int64)
        return scores.copy()
    out = max_priority * scores // max_count  # non-negative: floor == truncation
    return max_priority - out if reverse else out


class FunctionShapePoint:
    __slots__ = ("utilization", "score")

    def __init__(self, utilization: int, score: int) -> None:
        self.utilization = utilization
        self.score = score


def broken_linear(shape: Sequence[FunctionShapePoint], p: int) -> int:
    """helper.BuildBrokenLinearFunction evaluated at ``p`` (Go integer arithmetic)."""
    for i, pt in enumerate(shape):
        if p <= pt.utilization:
            if i == 0:
                return shape[0].score
            prev = shape[i - 1]
            return prev.score + go_div((pt.score - prev.score) * (p - prev.utilization),
                                       pt.utilization - prev.utilization)
    return shape[-1].score


__all__ = ["go_div", "go_round", "go_round_vec", "default_normalize_score",
           "default_normalize_vec", "FunctionShapePoint", "broken_linear", "MAX_NODE_SCORE"]
