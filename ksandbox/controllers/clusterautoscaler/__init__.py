"""The cluster autoscaler, a package of its parts: ``autoscaler.py`` (the loop), ``config.py``,
``templates.py``, ``scale_up.py``, ``expander.py``, ``scale_down.py`` and ``drainability.py``."""

from .autoscaler import ClusterAutoscaler

__all__ = ["ClusterAutoscaler"]
