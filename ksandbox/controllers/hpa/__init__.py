"""The HorizontalPodAutoscaler controller, a package of its parts: ``horizontal.py`` (the
loop, reconcile, status), ``normalize.py`` (stabilization, rate limits, bounds) and
``replica_calculator.py`` (usage arithmetic)."""

from .horizontal import HorizontalPodAutoscalerController
from .normalize import scale_down_limit, scale_up_limit

__all__ = ["HorizontalPodAutoscalerController", "scale_down_limit", "scale_up_limit"]
