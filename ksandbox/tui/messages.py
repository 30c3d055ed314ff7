"""The App's messages to its screens.

``ClusterChanged`` is posted once per clock tick (and after each command); it carries only the
model's generation, and a newer one replaces an older one still in the queue (toolong's
``can_replace``), so a burst of store writes repaints once. Screens ask the model what changed
since the generation they last drew.
"""

from __future__ import annotations

from textual.message import Message


class ClusterChanged(Message):
    """The sandbox moved on; ``generation`` is the model's latest."""

    def __init__(self, generation: int) -> None:
        super().__init__()
        self.generation = generation

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ClusterChanged)
