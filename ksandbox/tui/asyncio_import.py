"""asyncio, imported for the TUI without its TLS support (issue 11 item 5: start-up).

asyncio's event loop modules (``base_events``, ``selector_events``, ``sslproto``) import
``ssl`` when they are imported, each inside ``try: ... except ImportError: ssl = None``, for
the TLS transports of ``create_connection``/``start_server``. Importing ``ssl`` loads
OpenSSL's libraries and binds them: ~34 M instructions, 2.3 % of the TUI's start to its
first frame. The TUI opens no connection, so asyncio is imported once with ``ssl`` reported
missing, as on a Python built without it; ``ssl`` itself stays importable afterwards (only
asyncio's modules keep the ``None`` they saw). Not done where asyncio or ssl is already
imported (tests, another caller in the process): nothing is taken away from them.
"""

from __future__ import annotations

import sys


def import_asyncio_without_tls() -> None:
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return
    sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` -> ImportError
    try:
        import asyncio  # noqa: F401
    finally:
        if sys.modules.get("ssl", ...) is None:
            del sys.modules["ssl"]
