"""``kubectl drain``: the flags, parsed into :class:`DrainOptions`; the run is elsewhere.

Flags and defaults are those of ``kubernetes/kubectl`` ``pkg/cmd/drain/drain.go``
(NewCmdDrain): ``--force``, ``--grace-period=-1`` (the pod's own), ``--ignore-daemonsets``,
``--delete-emptydir-data`` (and its deprecated name ``--delete-local-data``), ``--timeout=0s``
(wait forever), ``--pod-selector``, ``--disable-eviction``,
``--skip-wait-for-delete-timeout=0``, ``--chunk-size``, ``-l`` and ``--dry-run``. The node
names are checked here (``Error from server (NotFound)``) before anything runs.

The eviction loop over simulated time — cordon, evict or delete, honour PDBs, print kubectl's
transcript — is ``ksandbox.commands.drain_run.run_drain(session, node_names, options)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import CommandError
from ..api.selector_parser import parse_selector
from . import drain_run
from .cordon import node_names_or_selector, select_nodes
from .parse import (
    BOOL,
    DRY_RUN,
    INT,
    NAMESPACE,
    SELECTOR,
    STR,
    Flag,
    dry_run_strategy,
    duration_flag,
    parse_flags,
)

if TYPE_CHECKING:
    from ..session import Session

FLAGS = (
    NAMESPACE, SELECTOR, DRY_RUN,
    Flag("force", BOOL, "", False),
    Flag("grace-period", INT, "", -1),
    Flag("ignore-daemonsets", BOOL, "", False),
    Flag("delete-emptydir-data", BOOL, "", False),
    Flag("delete-local-data", BOOL, "", False),
    Flag("timeout", STR, "", "0s"),
    Flag("pod-selector", STR, "", ""),
    Flag("disable-eviction", BOOL, "", False),
    Flag("skip-wait-for-delete-timeout", INT, "", 0),
    Flag("chunk-size", INT, "", 500),
)

# cobra's notice for the deprecated flag (drain.go MarkDeprecated).
DELETE_LOCAL_DATA_DEPRECATED = ("Flag --delete-local-data has been deprecated, This option is "
                                "deprecated and will be deleted. Use --delete-emptydir-data.")


@attrs.frozen
class DrainOptions:
    """What ``kubectl drain`` was asked to do (drain.Helper's fields, in seconds)."""

    force: bool = False
    grace_period: int = -1                 # -1: each pod's terminationGracePeriodSeconds
    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    timeout: float = 0.0                   # seconds; 0 waits forever
    pod_selector: str = ""
    disable_eviction: bool = False
    skip_wait_for_delete_timeout: int = 0  # seconds
    selector: str = ""                     # -l: the nodes, when no names are given
    dry_run: str = "none"                  # none | client | server


@attrs.frozen
class DrainCommand:
    names: tuple[str, ...]
    options: DrainOptions
    warnings: tuple[str, ...] = ()         # notices kubectl prints before it starts


def parse(tokens: list[str]) -> DrainCommand:
    a = parse_flags("drain", tokens, FLAGS)
    names, selector = node_names_or_selector("drain", a)
    timeout = duration_flag("drain", a, "timeout")
    if a["pod-selector"]:
        try:
            parse_selector(a["pod-selector"])
        except CommandError:
            raise CommandError("--pod-selector=<pod_selector> must be a valid label "
                               "selector") from None
    warnings = (DELETE_LOCAL_DATA_DEPRECATED,) if a.has("delete-local-data") else ()
    options = DrainOptions(
        force=a["force"], grace_period=a["grace-period"],
        ignore_daemonsets=a["ignore-daemonsets"],
        delete_emptydir_data=a["delete-emptydir-data"] or a["delete-local-data"],
        timeout=timeout, pod_selector=a["pod-selector"],
        disable_eviction=a["disable-eviction"],
        skip_wait_for_delete_timeout=a["skip-wait-for-delete-timeout"],
        selector=selector, dry_run=dry_run_strategy(a))
    return DrainCommand(names, options, warnings)


def run(session: Session, cmd: DrainCommand, stdin: str | None) -> Any:
    """Resolve the nodes, then hand over to ``drain_run.run_drain`` (a CommandResult)."""
    nodes = select_nodes(session.store, cmd.names, cmd.options.selector)
    result = drain_run.run_drain(session, [n.name for n in nodes], cmd.options)
    if cmd.warnings:
        notes = "".join(w + "\n" for w in cmd.warnings)
        result = attrs.evolve(result, output=notes + result.output)
    return result
