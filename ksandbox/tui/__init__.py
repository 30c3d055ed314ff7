"""ksandbox's terminal UI: the only package that imports Textual (and Rich).

Entry points: :func:`ksandbox.tui.app.run_tui` (what ``ksandbox`` runs) and
:func:`ksandbox.tui.app.make_app` (the same app for tests). See docs/tui.md.
"""

import os

# Textual repaints at most MAX_FPS times a second and a key waits for the next frame: at the
# default 60 that is up to 17 ms of the 17 ms budget for a key (DESIGN.md §5). 120 halves the
# wait; frames are still only drawn when something changed. A user's own setting wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
