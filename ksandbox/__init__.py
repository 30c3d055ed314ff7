"""ksandbox: a Kubernetes cluster you can hold in one terminal.

An in-memory control plane (API store, scheduler, controllers, kubelet emulators) on a simulated
clock, with a Textual UI on top (``ksandbox.tui``) and a headless command line beside it
(``ksandbox.cli``). Start with :class:`ksandbox.session.Session`.
"""

__version__ = "0.1.0"
