"""The kube-scheduler of the sandbox: framework, plugins, queue, cycles, explain."""

from .scheduler import Scheduler

__all__ = ["Scheduler"]
