"""The `/` filter of k9s: a regex, `/!regex` for the inverse, `/-l selector` for labels.

``parse_filter(text)`` turns what the user typed into a :class:`RowFilter`, which tests a row's
search text and labels. It never raises: a regex that does not compile is matched literally
(so typing ``web-[`` mid-word filters on the characters typed so far), and a selector that
does not parse yet matches nothing while :attr:`RowFilter.error` says why.

No Textual here.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import attrs

from ..api.errors import KsandboxError
from ..api.selector_parser import parse_selector


@attrs.frozen
class RowFilter:
    text: str = ""
    pattern: re.Pattern | None = None
    inverse: bool = False
    selector: Any = None
    error: str = ""

    @property
    def active(self) -> bool:
        return bool(self.text)

    def matches(self, search_text: str, labels: Mapping[str, str] | None = None) -> bool:
        if self.error:
            return False
        if self.selector is not None:
            return self.selector.matches(labels or {})
        if self.pattern is None:
            return True
        found = self.pattern.search(search_text) is not None
        return found != self.inverse

    @property
    def title(self) -> str:
        """How k9s shows an active filter in a pane's title: ``</fred>``."""
        return f"</{self.text}>" if self.text else ""


NO_FILTER = RowFilter()


def parse_filter(text: str) -> RowFilter:
    text = text.strip()
    if not text:
        return NO_FILTER
    if text.startswith("-l"):
        expr = text[2:].strip()
        if not expr:
            return RowFilter(text, error="a label selector is required after -l")
        try:
            return RowFilter(text, selector=parse_selector(expr))
        except KsandboxError as exc:
            return RowFilter(text, error=str(exc))
    inverse = text.startswith("!")
    body = text[1:] if inverse else text
    if not body:
        return RowFilter(text, inverse=inverse)
    try:
        pattern = re.compile(body, re.IGNORECASE)
    except re.error:
        pattern = re.compile(re.escape(body), re.IGNORECASE)
    return RowFilter(text, pattern=pattern, inverse=inverse)
