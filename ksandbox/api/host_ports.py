"""Host port conflicts: the scheduler framework's HostPortInfo.CheckConflict, one rule for the
scheduler's NodePorts filter and the kubelet's admission (GeneralPredicates).

Ports are (hostIP, protocol, hostPort) triples as ``PodSpec.host_ports`` gives them (an empty
host IP is 0.0.0.0). A wanted port clashes with a used one of the same protocol and number
when either side listens on 0.0.0.0 or both name the same IP.
"""

from __future__ import annotations

from typing import Collection, Iterable

HostPort = tuple[str, str, int]
ANY_IP = "0.0.0.0"


def port_conflict(used: Collection[HostPort], ip: str, protocol: str, port: int) -> bool:
    """Whether (ip, protocol, port) clashes with ``used`` (a set or a Counter of triples)."""
    if port <= 0:
        return False
    if ip == ANY_IP:
        return any(p == port and proto == protocol for (_, proto, p) in used)
    return (ip, protocol, port) in used or (ANY_IP, protocol, port) in used


def ports_fit(want: Iterable[HostPort], used: Collection[HostPort]) -> bool:
    """nodeports.Fits: none of the wanted host ports clashes with the used ones."""
    return not any(port_conflict(used, ip, proto, port) for ip, proto, port in want)
