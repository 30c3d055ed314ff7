"""``np`` for the plugins' numpy twins, imported the first time the fast path touches it.

The plain (reference) path runs small clusters (``schedule_one.FAST_PATH_MIN_NODES``), so a
small sandbox — every shipped sample — never loads numpy, which costs more start-up than any
other single module (~0.1–0.2 s). The plugin modules write ``np.zeros(...)`` as usual; the
first attribute read imports numpy and keeps the attribute on this object, so later reads are
one plain attribute lookup, as fast as reading it off the numpy module.
"""

from __future__ import annotations

from typing import Any


class _LazyNumpy:
    def __getattr__(self, name: str) -> Any:
        import numpy

        value = getattr(numpy, name)
        setattr(self, name, value)
        return value


np: Any = _LazyNumpy()
