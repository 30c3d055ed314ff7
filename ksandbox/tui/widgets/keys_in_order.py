"""Text fields that apply a burst of keys in the order it was typed.

Textual's Input and TextArea insert a printable key in their own ``_on_key``, but their
editing keys (backspace, the arrows, ctrl+u, tab completion, enter) are bindings: such a key
is not handled where it arrives but bubbles up the DOM, one message queue per ancestor, and
the App runs the binding when the key reaches it. Meanwhile the App has already forwarded the
keys behind it in the burst to the field, which inserts them first. So ``abc`` Backspace
``d`` typed fast gave ``abc`` (the Backspace ran last), ctrl+u then ``a=b:NoExecute`` in the
taint dialog gave an empty field, and a Tab completion followed by more text threw the text
away. Bursts are ordinary here: a paste, SSH, a fast typist on a busy 30,000-pod session.

:class:`KeysInOrder` runs the field's own non-priority bindings where the key arrives, in
turn with the characters. What runs is what the App would have run: the focused field is the
first namespace of its binding chain, and priority bindings were already tried by the App
before it forwarded the key. A key the field does not bind, or whose action declines
(``check_action``), bubbles as before. Upstream: Textualize/textual#6605 (open); drop this
once Textual runs these bindings inline itself.

The TextArea variant is in ``ordered_text_area.py``: only the YAML editor uses it, and
importing Textual's TextArea (its document model, the syntax themes) cost ~10 ms of CPU on
every start, before the board's first frame (issue 11 item 5).
"""

from __future__ import annotations

from textual import events
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class KeysInOrder:
    """Mixed in before Input or TextArea (see the module's docstring)."""

    async def _on_key(self, event: events.Key) -> None:
        widget = self  # a Widget: the mixin is only used with Input and TextArea
        for binding in widget._bindings.key_to_bindings.get(event.key, ()):  # type: ignore[attr-defined]
            if binding.priority:
                continue  # the App ran it (or declined it) before the key came here
            if await widget.app.run_action(binding.action, widget):  # type: ignore[attr-defined]
                event.stop()
                event.prevent_default()
                return
        await super()._on_key(event)  # type: ignore[misc]


class OrderedInput(KeysInOrder, Input):
    """Textual's Input, taking a burst of keys in order; a keystroke lays nothing out."""

    # Textual's Input sets its virtual size (the text's width) on every keystroke, and the
    # Widget's reactive lays out the whole screen for it: 8–12 ms per key on the pod list at
    # 30,000 pods (the `:` bar), ~20 ms in a dialog over the board at 1,000 nodes (its tinted
    # background is laid out too). Only the horizontal scroll range changes, which the input
    # reads itself; its box is the stylesheet's (one row, 1fr wide, no scrollbar). An input
    # sized by its text (auto width or height) is still laid out: Input's own watcher asks.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=True)
