"""Small modal dialogs; each returns the command text it built (or None for Cancel)."""

from .confirm import ConfirmDialog
from .drain import DrainDialog
from .label import LabelDialog
from .pressure import PressureDialog
from .scale import ScaleDialog
from .taint import TaintDialog
from .untaint import UntaintDialog

__all__ = ["ConfirmDialog", "DrainDialog", "LabelDialog", "PressureDialog", "ScaleDialog",
           "TaintDialog", "UntaintDialog"]
