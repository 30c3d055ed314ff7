"""The API types: Kubernetes objects as frozen attrs classes, their codec and validation.

attrs' generated methods are compiled through a disk cache (methods_cache.py), installed
here, before any of the package's classes is made.
"""

import atexit

from . import methods_cache

methods_cache.install()
atexit.register(methods_cache.save)
