"""Small modal dialogs; each returns the command text it built (or None for Cancel)."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .confirm import ConfirmDialog
    from .drain import DrainDialog
    from .label import LabelDialog
    from .pressure import PressureDialog
    from .scale import ScaleDialog
    from .taint import TaintDialog
    from .untaint import UntaintDialog

__all__ = ["ConfirmDialog", "DrainDialog", "LabelDialog", "PressureDialog", "ScaleDialog",
           "TaintDialog", "UntaintDialog"]

# Each dialog's module is imported when the dialog is first asked for (``from ..dialogs
# import TaintDialog``): the first frame needs none of them, and the player, recorder and
# what-if parts import ``dialogs.base``, which runs this package first.
_MODULES = {"ConfirmDialog": "confirm", "DrainDialog": "drain", "LabelDialog": "label",
            "PressureDialog": "pressure", "ScaleDialog": "scale", "TaintDialog": "taint",
            "UntaintDialog": "untaint"}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
