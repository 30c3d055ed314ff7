"""The Vertical Pod Autoscaler, a package of its parts: ``controller.py`` (the loop),
``targets.py``, ``recommender.py`` (with its histograms in ``model.py``), ``updater.py`` and
``admission.py``."""

from .controller import VerticalPodAutoscalerController

__all__ = ["VerticalPodAutoscalerController"]
