"""``python -m ksandbox`` is the ``ksandbox`` command."""

import sys

from .cli import run

sys.exit(run())
