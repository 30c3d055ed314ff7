"""Textual's TextArea taking a burst of keys in order (keys_in_order.py says why).

A module of its own so that the start does not import Textual's TextArea: only the YAML
editor (screens/edit.py) uses it, and that screen is imported when ``:edit`` first runs.
"""

from __future__ import annotations

from textual.widgets import TextArea

from .keys_in_order import KeysInOrder


class OrderedTextArea(KeysInOrder, TextArea):
    """Textual's TextArea, taking a burst of keys in order."""
