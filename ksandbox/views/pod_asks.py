"""Explain in a learner's words: what a pod asks of a node, and what one node answered.

:func:`pod_asks` lists the pod's placement wishes (nodeSelector, required and preferred node
affinity terms, pod (anti-)affinity, tolerations, requests, spread constraints);
:func:`node_answers` says, for one node, which of them it meets — the label that matched or
is missing, the taint tolerated or not — with the same matching functions the scheduler's
plugins use (``api.node_affinity``, ``Toleration.tolerates``). :func:`spread_lines` prints
PodTopologySpread's own numbers (``scheduler.spread_facts``): matching pods per domain, the
minimum, and the skew each node would produce against maxSkew/minDomains.

Pure: objects in, lines of text out (the TUI styles ✓/✗).
"""

from __future__ import annotations

from typing import Any, Iterable

from ..api.node_affinity import term_is_empty, term_matches
from ..api.quantity import format_resource

OK, NO = "✓", "✗"
EXECUTE_EFFECTS = ("NoSchedule", "NoExecute")


def _req(r: Any) -> str:
    if r.operator in ("Exists", "DoesNotExist"):
        return f"{r.key} {r.operator}"
    return f"{r.key} {r.operator} ({','.join(r.values)})"


def term_text(term: Any) -> str:
    parts = [_req(r) for r in term.match_expressions]
    parts += [f"field {_req(r)}" for r in term.match_fields]
    return " AND ".join(parts) or "<empty term: matches nothing>"


def toleration_text(t: Any) -> str:
    op = t.operator or "Equal"
    what = (t.key or "<every key>") if op == "Exists" else f"{t.key}={t.value}"
    text = f"{what}:{t.effect or '<every effect>'}"
    if op == "Exists":
        text += " (Exists)"
    if t.toleration_seconds is not None:
        text += f" for {t.toleration_seconds}s"
    return text


def _selector(sel: Any) -> str:
    return str(sel) if sel is not None and str(sel) else "<everything>"


def pod_asks(pod: Any, bypassed: bool = False) -> list[str]:
    """What ``pod`` asks of a node, one wish a line. ``bypassed``: its spec.nodeName was set
    by hand (not by a scheduler's binding), so the scheduler never saw it."""
    spec = pod.spec
    out = []
    if spec.node_name and bypassed:
        out.append(f"spec.nodeName: {spec.node_name} (bypasses the scheduler)")
    if spec.node_selector:
        out.append("nodeSelector: " + ", ".join(f"{k}={v}"
                                                 for k, v in sorted(spec.node_selector.items())))
    aff = spec.affinity
    na = aff.node_affinity if aff is not None else None
    if na is not None and na.required is not None:
        terms = na.required.node_selector_terms
        out.append("node affinity (required, any term): "
                   + " OR ".join(f"[{term_text(t)}]" for t in terms))
    if na is not None:
        for p in na.preferred:
            out.append(f"node affinity (preferred, weight {p.weight}): "
                       f"[{term_text(p.preference)}]")
    for label, pa in (("pod affinity", aff.pod_affinity if aff else None),
                      ("pod anti-affinity", aff.pod_anti_affinity if aff else None)):
        if pa is None:
            continue
        for t in pa.required:
            out.append(f"{label} (required): pods {_selector(t.label_selector)} "
                       f"per {t.topology_key}")
        for w in pa.preferred:
            t = w.pod_affinity_term
            out.append(f"{label} (preferred, weight {w.weight}): pods "
                       f"{_selector(t.label_selector)} per {t.topology_key}")
    if spec.tolerations:
        out += [f"tolerates {toleration_text(t)}" for t in spec.tolerations]
    else:
        out.append("tolerates: nothing (any NoSchedule/NoExecute taint keeps it off)")
    reqs = pod.spec.requests
    if reqs:
        out.append("requests: " + ", ".join(f"{k} {format_resource(k, v)}"
                                             for k, v in sorted(reqs.items())))
    else:
        out.append("requests: nothing (fits anywhere by resources)")
    for c in spec.topology_spread_constraints:
        md = f", minDomains {c.min_domains}" if c.min_domains is not None else ""
        out.append(f"spread: maxSkew {c.max_skew} per {c.topology_key} "
                   f"({c.when_unsatisfiable or 'DoNotSchedule'}{md}) of pods "
                   f"{_selector(c.label_selector)}")
    return out


def node_answers(pod: Any, node: Any, bypassed: bool = False) -> list[str]:
    """What ``node`` answered to each of ``pod``'s wishes: ✓ met, ✗ not (and why)."""
    spec = pod.spec
    labels = node.metadata.labels
    out = []
    if spec.node_name and bypassed:
        mark = OK if spec.node_name == node.name else NO
        out.append(f"{mark} spec.nodeName is {spec.node_name}")
    for k, v in sorted(spec.node_selector.items()):
        have = labels.get(k)
        if have == v:
            out.append(f"{OK} label {k}={v}")
        elif have is None:
            out.append(f"{NO} label {k} missing (wants {v})")
        else:
            out.append(f"{NO} label {k}={have} (wants {v})")
    aff = spec.affinity
    na = aff.node_affinity if aff is not None else None
    if na is not None and na.required is not None:
        terms = [t for t in na.required.node_selector_terms if not term_is_empty(t)]
        hit = next((t for t in terms if term_matches(t, node)), None)
        if hit is not None:
            out.append(f"{OK} required affinity term [{term_text(hit)}] matches")
        else:
            out.append(f"{NO} no required affinity term matches its labels")
    if na is not None:
        for p in na.preferred:
            mark = OK if term_matches(p.preference, node) else "·"
            out.append(f"{mark} preferred [{term_text(p.preference)}] (weight {p.weight})")
    for taint in node.spec.taints:
        tol = next((t for t in spec.tolerations if t.tolerates(taint)), None)
        text = taint.to_string()
        if tol is not None:
            out.append(f"{OK} taint {text} tolerated by {toleration_text(tol)}")
        elif taint.effect in EXECUTE_EFFECTS:
            out.append(f"{NO} taint {text} not tolerated")
        else:
            out.append(f"· taint {text} not tolerated (only lowers its score)")
    if node.spec.unschedulable:
        out.append(f"{NO} cordoned (spec.unschedulable)")
    return out


def spread_lines(facts: Iterable[Any], node: str | None = None) -> list[str]:
    """PodTopologySpread's numbers: counts per domain, the minimum, each node's skew."""
    out = []
    for f in facts:
        head = (f"spread over {f.topology_key}: maxSkew {f.max_skew}, minDomains "
                f"{f.min_domains}, {f.when_unsatisfiable}")
        out.append(head)
        if f.when_unsatisfiable != "DoNotSchedule":
            out.append("  (a preference: it only changes scores)")
            continue
        out.append("  matching pods per domain:" + ("" if f.counts else " no domain yet"))
        out += [f"    {d}: {n}" for d, n in f.counts]
        dom = len(f.counts)
        low = f"  min {f.min_match}"
        if dom < f.min_domains:
            low += f" (only {dom} of minDomains {f.min_domains} domains: min counts as 0)"
        out.append(low + f"; skew = count + {f.self_match} (this pod) - min")
        for n in f.nodes:
            if node is not None and n.node != node:
                continue
            if n.domain is None:
                out.append(f"  {NO} {n.node}: no {f.topology_key} label")
            elif not n.included:
                out.append(f"  · {n.node} ({n.domain}): not counted (inclusion policy)")
            else:
                mark = OK if n.ok else NO
                out.append(f"  {mark} {n.node} ({n.domain}): skew {n.skew} "
                           f"{'<=' if n.ok else '>'} maxSkew {f.max_skew}")
    return out
