"""k9s habits that are plain data: the aliases table (``ctrl+a``) and the view history (``-``).

No Textual here.
"""

from __future__ import annotations

import attrs

from ..api.kinds import BY_KIND
from ..views.table import format_table
from .commandline import VIEW_KINDS


def aliases_text() -> str:
    """Every list view and the words that open it after ``:`` (k9s's ctrl+a)."""
    rows = [["RESOURCE", "SHORTNAMES", "KIND", "NAMESPACED"]]
    for kind in sorted(VIEW_KINDS, key=lambda k: BY_KIND[k].resource):
        info = BY_KIND[kind]
        rows.append([info.resource, ",".join(info.short_names) or "<none>", kind,
                     str(info.namespaced).lower()])
    return format_table(rows)


@attrs.frozen
class ViewPlace:
    """A list view to come back to with ``-``: its kind and namespace, and for a view drilled
    into (a node's pods, a Deployment's) the node or the owner it lists for."""

    kind: str
    namespace: str | None = None
    node: str | None = None
    owner: tuple[str, str, str] | None = None
