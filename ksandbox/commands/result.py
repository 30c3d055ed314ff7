"""What one command printed: the value every command returns to the Session.

``output`` is what kubectl writes to stdout (and, for ``drain``, its non-fatal stderr lines in
order); ``error`` is kubectl's stderr text for a failure. Not the command's parsed form (that is
``commands/parse.py``) and not a recording step (``session.Step``).
"""

from __future__ import annotations

import attrs


@attrs.frozen
class CommandResult:
    """What a command printed: ``output`` (stdout) and ``error`` (kubectl's stderr text)."""

    command: str
    output: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error
