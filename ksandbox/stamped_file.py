"""A table kept beside the package the way Python keeps bytecode: one file in ``__pycache__``,
a stamp line naming what wrote it (format, Python build, engine versions), a CRC of the body,
then the body in ``marshal`` (plain data, or code objects as a ``.pyc`` holds them).

The regex cache and the code cache (regex_cache.py, code_cache.py) store their tables so.
Imports nothing of ksandbox: both are installed before any other ksandbox module."""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import zlib
from typing import Any


def cache_path(name: str) -> str:
    """``ksandbox/__pycache__/<name>.<python tag>.bin``: one file per Python build."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    return os.path.join(folder, f"{name}.{sys.implementation.cache_tag}.bin")


def read(path: str, stamp: bytes) -> Any:
    """What ``write(path, stamp, ...)`` stored; None when the file is missing, written under
    another stamp, damaged or not marshal data. The caller checks the shape of what it gets."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data.startswith(stamp) or len(data) < len(stamp) + 4:
        return None
    body = data[len(stamp) + 4:]
    if zlib.crc32(body) != int.from_bytes(data[len(stamp):len(stamp) + 4], "little"):
        return None
    try:
        return marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None


def write(path: str, stamp: bytes, value: Any) -> bool:
    """Store ``value`` whole or not at all (a temporary file named by the process, then
    renamed: two processes writing at once leave one complete file). False when it could not
    be written (a read-only package, a full disk) or marshal met a foreign object."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        body = marshal.dumps(value)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(stamp + zlib.crc32(body).to_bytes(4, "little") + body)
        os.replace(tmp, path)
    except (OSError, ValueError):   # ValueError: marshal met a foreign object
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True
