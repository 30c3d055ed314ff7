"""LayoutOnce: a pushed screen is not laid out again by its own Resize, nor restyled when
nothing its styles follow from changed since it was last styled.

What Textual (``textual/screen.py``) does when a screen is pushed:
1. ``ScreenResume`` lays it out (``_refresh_layout``) and draws the first frame. The screen is
   among the widgets that layout has just shown, so it also gets a ``Resize`` event.
2. That Resize lays the whole screen out again (``_screen_resized``) at the same size. Nothing
   moves, but the layout and the repaint of whatever asked for one meanwhile cost a frame.
3. The same Resize gives the screen its width breakpoint class (``-narrow``/``-wide``...; the
   board has them). A class that is new restyles every widget of the screen.
(A last layout follows when the mount of the screen's children completes: Textual's
``AwaitMount`` asks its parent for one. That one stays.)

At 1,000 nodes, with the tinted board beneath a dialog, step 2 costs 20–40 ms. It came after
the first frame, so it was not counted in the key's latency; but a key pressed meanwhile, or
the clock's tick, waited for it.

The mixin removes steps 2 and 3 (and 4 and 5 when nothing calls for them, see below):
- the breakpoint class is set as the screen composes, by Textual's own rule for the terminal's
  width, so the Resize finds it already there;
- a Resize at the size of the screen's last full layout lays out nothing, once the screen has
  had a frame (the first screen's layout happens inside the app's mount batch, which writes
  none: its Resize layout draws it). Anything that does change the layout asks for its own
  (``refresh(layout=True)``), and a real resize has another size.

4. ``ScreenResume`` also restyles every widget of the screen (``update_node_styles``): for a
screen off the stack meanwhile, a theme change does not reach it otherwise. A kept screen
pushed again and again — the pod list, the taint dialog, the explain view — with nothing its
styles follow from changed since it was last styled skips that (5–10 ms of CPU on each
`:po` and `t` at 1,000 nodes on a loaded machine, ~7–13 ms on each `e`). So does a screen's
first push: its widgets were styled as they were composed, just before (the board's first
frame: ~44 M instructions, 2.6 % of the start).

5. ``ScreenResume`` then repaints the whole screen (``refresh()``). A screen its opener laid
out and drew whole as it pushed it (the kept explain view: ``drawn_at_push``) would draw the
same frame again (~7 ms of CPU at 1,000 nodes, while explain's worker waits for the
interpreter): that repaint is skipped, unless the screen was restyled (a theme changed while
it was closed), which the frame drawn at the push did not show. Whatever changes afterwards
asks for its own repaint.

Mixed into every screen of ours (``KsScreen`` and each ModalScreen), before Textual's class.
"""

from __future__ import annotations

from typing import Any


class LayoutOnce:
    _laid_out_at: Any = None
    """The size of the screen's last full layout."""

    async def _compose(self) -> None:
        self._start_at_breakpoint()
        await super()._compose()  # type: ignore[misc]
        # Every widget composed here was styled as it was registered (App._register applies
        # the stylesheet to each, its siblings all present), after the breakpoint class: what
        # its styles follow from is as it is now. A change to a widget's own classes or
        # pseudo-classes since restyles that widget (Textual's watchers), so the first push
        # needs no restyle of the whole screen unless these inputs change first (step 4).
        self._styled_for = self._style_inputs()

    def _start_at_breakpoint(self) -> None:
        """Give the screen its width breakpoint class for the terminal's size now, before its
        widgets mount. The rule is Textual's (``Screen._on_resize``): the largest breakpoint
        not above the width."""
        points = (self.HORIZONTAL_BREAKPOINTS  # type: ignore[attr-defined]
                  or self.app.HORIZONTAL_BREAKPOINTS or [])  # type: ignore[attr-defined]
        width = self.app.size.width  # type: ignore[attr-defined]
        for breakpoint, name in sorted(points, reverse=True):
            if width >= breakpoint:
                self.add_class(name)  # type: ignore[attr-defined]
                return

    def _refresh_layout(self, size: Any = None, scroll: bool = False) -> None:
        screen: Any = self
        if not scroll and (screen.outer_size if size is None else size) \
                and not screen.app.is_inline:
            # A full layout now is the one Textual's update timer would make for a layout
            # asked for before it: the request is met here (a request made while this layout
            # runs sets the flag again). The board's first frame is drawn by such a layout
            # (the Resize's), and the timer then laid it all out and drew it again.
            screen._layout_required = False
        super()._refresh_layout(size, scroll)  # type: ignore[misc]
        if not scroll:
            # A scroll lays out only what scrolled into view; a full layout covers it all.
            self._laid_out_at = self.outer_size if size is None else size  # type: ignore[attr-defined]

    def _screen_resized(self, size: Any) -> None:
        """Textual also calls this for every screen beneath a dialog when the dialog opens
        (its Resize resizes the whole stack): at 1,000 nodes a full layout and repaint of the
        board, 100+ ms, before the dialog showed. Skipped too at an unchanged size."""
        if size == self._laid_out_at and (self is not self.app.screen  # type: ignore[attr-defined]
                                          or self._has_frame()):
            return
        super()._screen_resized(size)  # type: ignore[misc]

    _styled_for: tuple[Any, ...] = ()
    """What the screen's styles were last computed from (``_style_inputs``)."""

    def _style_inputs(self) -> tuple[Any, ...]:
        """What every widget's computed style here follows from, besides the widgets' own
        classes and pseudo-classes (which restyle their widget when they change): the
        stylesheet and its parsed rules (a theme's variables reparse them into a new list),
        Textual's count of CSS invalidations, and the classes and pseudo-classes of the app
        (dark/light, theme, focus) and of this screen (the width breakpoint)."""
        app = self.app  # type: ignore[attr-defined]
        sheet = app.stylesheet
        return (sheet, sheet.rules, app._css_update_count, frozenset(app.classes),
                app.pseudo_classes, frozenset(self.classes))  # type: ignore[attr-defined]

    def _on_screen_resume(self, event: Any) -> None:
        """Skip Textual's restyle of a screen pushed again with nothing its styles follow from
        changed since it was last styled (step 4 above). Runs before Textual's own handler,
        which reads the flag."""
        inputs, last = self._style_inputs(), self._styled_for
        if event.refresh_styles and last and inputs[0] is last[0] and inputs[1] is last[1] \
                and inputs[2:] == last[2:]:
            event.refresh_styles = False
        self._styled_for = inputs  # restyled now by Textual's handler, or already so
        # Step 5: Textual's handler, next, asks for the whole repaint.
        self._skip_repaint = self._drawn_at_push and not event.refresh_styles
        self._drawn_at_push = False

    _drawn_at_push = False
    _skip_repaint = False

    def drawn_at_push(self) -> None:
        """The opener has just laid this pushed screen out and written its whole frame
        (before its ScreenResume): Textual's repaint on resume is skipped (step 5)."""
        self._drawn_at_push = getattr(self.app, "_painted", None) is self  # type: ignore[attr-defined]

    def refresh(self, *regions: Any, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Any:
        if self._skip_repaint:
            self._skip_repaint = False
            if not (regions or layout or recompose):
                return self  # the resume's repaint of a frame drawn at the push (step 5)
        return super().refresh(*regions, repaint=repaint, layout=layout,  # type: ignore[misc]
                               recompose=recompose)

    def _has_frame(self) -> bool:
        """A frame of this screen was written. The first screen is laid out inside the app's
        mount batch, which writes no frame: its Resize layout is what draws it, and stays."""
        return getattr(self.app, "_painted", None) is self  # type: ignore[attr-defined]
