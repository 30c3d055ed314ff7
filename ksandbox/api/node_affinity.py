"""Node selector matching: ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``.

Shared by the scheduler's NodeAffinity plugin and the kubelet's admission (GeneralPredicates),
as upstream shares the component-helpers library: a pod's ``nodeSelector`` (every label equal)
AND its required node affinity terms (ORed; within a term every expression and field ANDed; an
empty term selects nothing; a term that does not parse selects nothing). ``matchFields`` knows
``metadata.name`` with In/NotIn and one value.
"""

from __future__ import annotations

from typing import Any

from .selectors import (
    DOES_NOT_EXIST,
    EXISTS,
    GT,
    IN,
    LT,
    NOT_IN,
    parse_int64,
    requirement_matches,
)
from .validation import is_qualified_name, is_valid_label_value

OBJECT_NAME_FIELD = "metadata.name"


def _requirement_ok(r: Any) -> bool:
    """Whether NewRequirement would accept a matchExpressions entry."""
    if is_qualified_name(r.key):
        return False
    op, vals = r.operator, r.values
    if op in (IN, NOT_IN):
        if not vals:
            return False
    elif op in (EXISTS, DOES_NOT_EXIST):
        if vals:
            return False
    elif op in (GT, LT):
        if len(vals) != 1 or parse_int64(vals[0]) is None:
            return False
    else:
        return False
    return all(not is_valid_label_value(v) for v in vals)


def term_is_empty(term: Any) -> bool:
    return not term.match_expressions and not term.match_fields


def term_matches(term: Any, node: Any) -> bool:
    """One NodeSelectorTerm against a node (an unparsable term matches nothing)."""
    labels = node.metadata.labels
    for r in term.match_expressions:
        if not _requirement_ok(r):
            return False
    for r in term.match_fields:
        if r.operator not in (IN, NOT_IN) or len(r.values) != 1:
            return False
    for r in term.match_expressions:
        if not requirement_matches(r.operator, r.key, r.values, labels):
            return False
    for r in term.match_fields:
        have = node.metadata.name if r.key == OBJECT_NAME_FIELD else ""
        if (have == r.values[0]) != (r.operator == IN):
            return False
    return True


def node_selector_matches(selector: Any, node: Any) -> bool:
    """A NodeSelector: any non-empty term matches (no terms: nothing matches)."""
    for term in selector.node_selector_terms:
        if not term_is_empty(term) and term_matches(term, node):
            return True
    return False


def required_node_affinity_matches(pod: Any, node: Any) -> bool:
    """GetRequiredNodeAffinity(pod).Match(node): nodeSelector AND required affinity."""
    return spec_matches_node(pod.spec, node)


def spec_matches_node(spec: Any, node: Any) -> bool:
    """The same for a pod spec (a DaemonSet's template)."""
    labels = node.metadata.labels
    for k, v in spec.node_selector.items():
        if labels.get(k) != v:
            return False
    aff = spec.affinity
    req = aff.node_affinity.required if aff is not None and aff.node_affinity is not None else None
    if req is not None:
        return node_selector_matches(req, node)
    return True


def preferred_score(terms: Any, node: Any) -> int:
    """PreferredSchedulingTerms.Score: the sum of the weights of the terms that match."""
    total = 0
    for t in terms:
        if t.weight == 0 or term_is_empty(t.preference):
            continue
        if term_matches(t.preference, node):
            total += t.weight
    return total
