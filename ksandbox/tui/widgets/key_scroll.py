"""KeyScroll: a VerticalScroll that also moves with k9s's (vim's) keys.

Textual's scroll containers answer the arrows, home/end and page up/down. Every other pane of
ksandbox (the lists, the event log, the explain matrix, the text and help views) also takes
``j`` ``k`` ``g`` ``G`` ``ctrl+f`` ``ctrl+b``, as k9s does everywhere; a text pane that can
take the focus (the explain view's "the pod asks for" beside its matrix, the what-if diff)
answered them with "'j' does nothing in the explain view". Only the keys: no other change.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalScroll


class KeyScroll(VerticalScroll):
    BINDINGS = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
        Binding("ctrl+f", "page_down", "Page down", show=False),
        Binding("ctrl+b", "page_up", "Page up", show=False),
    ]
