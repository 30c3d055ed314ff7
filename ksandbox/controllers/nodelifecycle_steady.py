"""Which nodes the node lifecycle controller's health pass must look at.

Upstream's monitorNodeHealth looks at every node every 5 s. For a node the last pass saw Ready
and untainted (a *steady* node) whose Node object is still the same, the pass's outcome is
known without looking: its lease renewal, if one came, moves its probe time to the pass's
time; while it is within the grace period it counts "Ready" for its zone and nothing else
happens (no write, no event, no tainting). So a pass needs to look only at

* the nodes written since the last pass (the Node watch names them),
* the nodes that are not steady (NotReady, tainted, never seen),
* the steady nodes whose probe time is past the grace period (kept by probe time),

and take every other steady node as counted in its zone — 500 nodes a pass, a few looked at,
in a steady cluster. :class:`SteadyNodes` keeps the steady nodes, their counts per zone, the
names written and renewed since the last pass, and the probe times. ``exact`` is False until a
full pass (every node looked at, as before) has started the bookkeeping, and again after anything
moved probe times behind its back (the controller's disruption handling does, when every zone
was down); the controller then runs the full pass.

Not here: the health rules themselves (``nodelifecycle.py``).
"""

from __future__ import annotations

from typing import Any


class SteadyNodes:
    """The steady nodes: name -> (node object, zone key, counted for disruption), as the
    health pass last saw them, and the bookkeeping that tells which other nodes a pass must
    look at (see the module docstring)."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[Any, str, bool]] = {}
        self._held: dict[str, int] = {}      # zone -> steady nodes
        self._counted: dict[str, int] = {}   # zone -> steady nodes counted for disruption
        # names heard since the last pass (dicts: their order never reaches output, but a
        # dict's order is the same in every process). ``renewed`` is filled by the lease
        # watch itself (a renewal is the hottest write of a steady cluster: no call) and
        # emptied in place by a pass.
        self._written: dict[str, None] = {}
        self.renewed: dict[str, None] = {}
        # probe time -> the steady nodes given it (a pass's time: a handful of keys); a name
        # whose probe moved on since, or whose node is no longer steady, is stale there
        self._probes: dict[float, dict[str, None]] = {}
        self.exact = False

    # -- what the watches hear ------------------------------------------------------------
    def written(self, name: str) -> None:
        self._written[name] = None

    # -- what a pass sets -----------------------------------------------------------------
    def keep(self, name: str, entry: tuple[Any, str, bool], probe: float) -> None:
        """``name`` is steady as ``entry`` (node, zone, counted), its probe time ``probe``."""
        self.drop(name)
        self.entries[name] = entry
        zone = entry[1]
        self._held[zone] = self._held.get(zone, 0) + 1
        if entry[2]:
            self._counted[zone] = self._counted.get(zone, 0) + 1
        names = self._probes.get(probe)
        if names is None:
            names = self._probes[probe] = {}
        names[name] = None

    def drop(self, name: str) -> None:
        old = self.entries.pop(name, None)
        if old is None:
            return
        zone = old[1]
        self._held[zone] -= 1
        if not self._held[zone]:
            del self._held[zone]
        if old[2]:
            self._counted[zone] -= 1
            if not self._counted[zone]:
                del self._counted[zone]

    def zones(self) -> list[str]:
        """The zones that hold a steady node."""
        return list(self._held)

    def full_pass_starts(self) -> None:
        """A full pass looks at every node: what was heard before it is taken (what it
        writes itself is heard for the next pass)."""
        self._written = {}
        self.renewed.clear()
        self.exact = True

    def full_pass_done(self, health: dict[str, Any]) -> None:
        """The probe times afresh from those the full pass leaves."""
        probes: dict[float, dict[str, None]] = {}
        for name in self.entries:
            h = health.get(name)
            if h is not None:
                names = probes.get(h.probe)
                if names is None:
                    names = probes[h.probe] = {}
                names[name] = None
        self._probes = probes

    # -- a pass over the changed nodes ----------------------------------------------------
    def to_look_at(self, known: dict[str, Any], health: dict[str, Any],
                   renewals: dict[str, float], now: float, grace: float
                   ) -> tuple[list[str], dict[str, int]]:
        """The names a pass at ``now`` must look at, in name order, and the steady nodes it
        takes as counted "Ready" per zone. A renewal of a steady node not looked at is
        taken here, as the pass's short way takes it: the probe time becomes ``now``."""
        entries = self.entries
        look = self._written
        self._written = {}
        fresh: dict[str, None] = {}
        for name in self.renewed:
            if name in look or name not in entries:
                continue   # looked at: the full path reads the renewal itself
            h = health.get(name)
            renew = renewals.get(name)
            if h is not None and renew is not None and \
                    (h.lease_renew is None or h.lease_renew < renew):
                h.lease_renew = renew
                h.probe = now
                fresh[name] = None
        self.renewed.clear()
        probes = self._probes
        # steady nodes silent past the grace period (the short way's `now <= probe + grace`)
        for probe in [p for p in probes if not now <= p + grace]:
            for name in probes.pop(probe):
                h = health.get(name)
                if h is not None and h.probe == probe and name in entries:
                    look[name] = None
        if fresh:
            names = probes.get(now)
            if names is None:
                probes[now] = fresh
            else:
                names.update(fresh)
        if len(entries) < len(known):
            for name in known:
                if name not in entries:
                    look[name] = None
        counted = dict(self._counted)
        for name in look:
            entry = entries.get(name)
            if entry is not None and entry[2]:
                counted[entry[1]] -= 1
        return sorted(look), counted
