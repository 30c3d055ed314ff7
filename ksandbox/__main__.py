"""``python -m ksandbox`` is the ``ksandbox`` command."""

import sys

from .cli import main

sys.exit(main())
