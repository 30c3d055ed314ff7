"""Label selectors: the API type, its validation, matching, and kubectl's ``-l`` string form.

What is here:

* :class:`LabelSelectorRequirement` and :class:`LabelSelector` — ``metav1.LabelSelector`` as
  frozen, hashable attrs values the codec can decode (``matchLabels``/``matchExpressions``);
  ``from_dict`` adds upstream's validation, ``validate`` lists every problem.
* ``LabelSelector.matches`` — upstream ``LabelSelectorAsSelector(...).Matches`` semantics: an
  empty selector matches everything; ``NotIn`` matches when the key is absent. The per-selector
  match plan is precomputed (frozensets for multi-value ``In``/``NotIn``), so matching does
  not allocate.
* ``str(selector)`` — the selector's string form as kubectl prints it (requirements sorted by
  key, ``in``/``notin`` values sorted), and :func:`format_label_selector` for ``describe``
  (``<none>`` when empty).
* :func:`parse_selector` — the ``a=b,c in (x,y),!d`` syntax of ``kubectl -l``, with upstream's
  parse-error messages (raised as :class:`CommandError`).
* :func:`requirement_matches` — one requirement against a label map, including the ``Gt``/``Lt``
  integer operators of node-selector requirements, for the node-affinity code to reuse.

What is not here: NodeSelector / NodeSelectorTerm types and ``matchFields`` (node affinity
lives elsewhere), field selectors, and set-based selectors on anything but labels.

Upstream sources (ported, not copied): ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``
(Requirement.Matches, String, the lexer and parser), ``.../pkg/apis/meta/v1/helpers.go``
(LabelSelectorAsSelector, FormatLabelSelector), ``.../pkg/apis/meta/v1/validation/validation.go``
(ValidateLabelSelector, ValidateLabelSelectorRequirement).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

import attrs

from .codec import EMPTY, FrozenDict, j, slot_setter_init
from .errors import FieldError
from .errors import join_path as _join
from .errors import wrong_type as _wrong
from .validation import is_qualified_name, is_valid_label_value, validate_labels

__all__ = [
    "IN", "NOT_IN", "EXISTS", "DOES_NOT_EXIST", "GT", "LT", "LABEL_SELECTOR_OPERATORS",
    "LabelSelectorRequirement", "LabelSelector", "requirement_matches",
    "format_label_selector", "parse_int64", "atoi_clamped",
]

# metav1.LabelSelectorOperator values, plus the two node-selector-only operators.
IN = "In"
NOT_IN = "NotIn"
EXISTS = "Exists"
DOES_NOT_EXIST = "DoesNotExist"
GT = "Gt"
LT = "Lt"
LABEL_SELECTOR_OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST)

_INT64_RE = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)``: ``None`` when it would fail."""
    if _INT64_RE.fullmatch(text) is None or int_digits(text) > 19:
        return None
    n = int(text)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


def int_digits(text: str) -> int:
    """Significant decimal digits of a signed digit string."""
    return len(text.lstrip("+-").lstrip("0"))


def atoi_clamped(text: str) -> int | None:
    """The value ``strconv.Atoi`` returns for ``text``: None on a syntax error (ASCII digits
    only, unlike Python's int()), clamped to int64 on overflow — what callers that ignore the
    range error see (getPercentValue). Never converts thousands of digits."""
    if _INT64_RE.fullmatch(text) is None:
        return None
    if int_digits(text) > 19:
        return _INT64_MIN if text.startswith("-") else _INT64_MAX
    return max(_INT64_MIN, min(_INT64_MAX, int(text)))


def requirement_matches(operator: str, key: str, values: Iterable[str] | frozenset[str],
                        labels: Mapping[str, str]) -> bool:
    """Whether ``labels`` satisfy ``key <operator> values`` (labels.Requirement.Matches).

    ``In``: key present with a listed value. ``NotIn``: key absent, or its value unlisted.
    ``Exists`` / ``DoesNotExist``: presence only. ``Gt`` / ``Lt``: key present, exactly one
    value, and both the label value and that value parse as 64-bit integers; then a strict
    comparison. Anything else never matches.
    """
    if operator == IN:
        v = labels.get(key)
        return v is not None and v in values
    if operator == NOT_IN:
        v = labels.get(key)
        return v is None or v not in values
    if operator == EXISTS:
        return key in labels
    if operator == DOES_NOT_EXIST:
        return key not in labels
    if operator == GT or operator == LT:
        v = labels.get(key)
        if v is None:
            return False
        have = parse_int64(v)
        if have is None:
            return False
        vals = values if isinstance(values, (tuple, list)) else tuple(values)
        if len(vals) != 1:
            return False
        want = parse_int64(vals[0])
        if want is None:
            return False
        return have > want if operator == GT else have < want
    return False








def _str_field(data: Mapping[str, Any], key: str, path: str) -> str:
    v = data.get(key)
    if v is None:
        return ""
    if not isinstance(v, str):
        raise _wrong(_join(path, key), v, "string")
    return v


def _str_list(v: Any, path: str) -> tuple[str, ...]:
    if v is None:
        return ()
    if not isinstance(v, (list, tuple)):
        raise _wrong(path, v, "array")
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise _wrong(f"{path}[{i}]", x, "string")
    return tuple(v)


# -- the API types --------------------------------------------------------------------------

# Match-plan opcodes (see LabelSelector._plan).
_OP_EQ, _OP_IN, _OP_NE, _OP_NOT_IN, _OP_EXISTS, _OP_ABSENT, _OP_CMP, _OP_NEVER = range(8)


@slot_setter_init
@attrs.frozen(slots=True)
class LabelSelectorRequirement:
    """One ``matchExpressions`` entry: ``key``, ``operator``, ``values``.

    ``values`` keeps the given order (what ``-o yaml`` shows); a frozenset of it is kept
    alongside for matching.
    """

    key: str = j("key", "")
    operator: str = j("operator", "")
    values: tuple[str, ...] = j("values", ())
    _value_set: frozenset = attrs.field(init=False, eq=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.values, tuple):
            object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "_value_set", frozenset(self.values))

    def matches(self, labels: Mapping[str, str]) -> bool:
        return requirement_matches(self.operator, self.key, self._value_set
                                   if self.operator in (IN, NOT_IN) else self.values, labels)

    def __str__(self) -> str:
        """labels.Requirement.String: ``k in (a,b)``, ``k notin (a)``, ``k``, ``!k``, ``k>1``."""
        op, key = self.operator, self.key
        if op == EXISTS:
            return key
        if op == DOES_NOT_EXIST:
            return "!" + key
        vals = self.values if len(self.values) <= 1 else sorted(self.values)
        joined = ",".join(vals)
        if op == IN:
            return f"{key} in ({joined})"
        if op == NOT_IN:
            return f"{key} notin ({joined})"
        if op == GT:
            return f"{key}>{joined}"
        if op == LT:
            return f"{key}<{joined}"
        return f"{key} {op} ({joined})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out

    def validate(self, path: str) -> list[FieldError]:
        """ValidateLabelSelectorRequirement: operator/values rules, then key, then values."""
        errs: list[FieldError] = []
        op = self.operator
        if op in (IN, NOT_IN):
            if not self.values:
                errs.append(FieldError.required(
                    _join(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in (EXISTS, DOES_NOT_EXIST):
            if self.values:
                errs.append(FieldError.forbidden(
                    _join(path, "values"),
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            # Upstream reports this as Invalid, not NotSupported.
            errs.append(FieldError(_join(path, "operator"), op, "not a valid selector operator"))
        key_path = _join(path, "key")
        errs.extend(FieldError(key_path, self.key, m) for m in is_qualified_name(self.key))
        for i, v in enumerate(self.values):
            vpath = f"{_join(path, 'values')}[{i}]"
            errs.extend(FieldError(vpath, v, m) for m in is_valid_label_value(v))
        return errs

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> "LabelSelectorRequirement":
        """Decode one requirement (types only; see :meth:`validate` for the rules)."""
        if not isinstance(data, dict):
            raise _wrong(path or "<root>", data, "object")
        return cls(key=_str_field(data, "key", path),
                   operator=_str_field(data, "operator", path),
                   values=_str_list(data.get("values"), _join(path, "values")))


@slot_setter_init
@attrs.frozen(slots=True)
class LabelSelector:
    """``metav1.LabelSelector``: ``matchLabels`` AND every ``matchExpressions`` entry.

    ``match_labels`` is stored as a :class:`FrozenDict` (hashable); any mapping or iterable of
    pairs is accepted. An empty selector matches everything; callers that model a *missing*
    selector (upstream ``nil``, which matches nothing) should keep ``None`` instead.
    """

    match_labels: FrozenDict = j("matchLabels", EMPTY)
    match_expressions: tuple[LabelSelectorRequirement, ...] = j("matchExpressions", ())
    _plan: tuple = attrs.field(init=False, eq=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        ml = self.match_labels
        if not isinstance(ml, FrozenDict):
            ml = dict(ml) if isinstance(ml, Mapping) else dict(ml or ())
            object.__setattr__(self, "match_labels", FrozenDict(ml) if ml else EMPTY)
        if not isinstance(self.match_expressions, tuple):
            object.__setattr__(self, "match_expressions", tuple(self.match_expressions))
        object.__setattr__(self, "_plan", self._compile())

    def _compile(self) -> tuple:
        plan: list[tuple[int, str, Any]] = [(_OP_EQ, k, v) for k, v in self.match_labels.items()]
        for r in self.match_expressions:
            op, vals = r.operator, r.values
            if op == IN and vals:
                plan.append((_OP_EQ, r.key, vals[0]) if len(vals) == 1
                            else (_OP_IN, r.key, r._value_set))
            elif op == NOT_IN and vals:
                plan.append((_OP_NE, r.key, vals[0]) if len(vals) == 1
                            else (_OP_NOT_IN, r.key, r._value_set))
            elif op == EXISTS and not vals:
                plan.append((_OP_EXISTS, r.key, None))
            elif op == DOES_NOT_EXIST and not vals:
                plan.append((_OP_ABSENT, r.key, None))
            elif op in (GT, LT):
                plan.append((_OP_CMP, r.key, r))
            else:
                # A requirement LabelSelectorAsSelector would refuse (unknown operator, or the
                # wrong number of values): it matches nothing, like a selector that failed to
                # convert.
                plan.append((_OP_NEVER, r.key, None))
        return tuple(plan)

    # -- matching (hot path: no allocation) --

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfy every requirement (empty selector: always)."""
        for code, key, arg in self._plan:
            if code == _OP_EQ:
                if labels.get(key) != arg:
                    return False
            elif code == _OP_EXISTS:
                if key not in labels:
                    return False
            elif code == _OP_IN:
                v = labels.get(key)
                if v is None or v not in arg:
                    return False
            elif code == _OP_NE:
                v = labels.get(key)
                if v is not None and v == arg:
                    return False
            elif code == _OP_NOT_IN:
                v = labels.get(key)
                if v is not None and v in arg:
                    return False
            elif code == _OP_ABSENT:
                if key in labels:
                    return False
            elif code == _OP_CMP:
                if not requirement_matches(arg.operator, key, arg.values, labels):
                    return False
            else:
                return False
        return True

    @property
    def empty(self) -> bool:
        """True when the selector places no restriction (labels.Selector.Empty)."""
        return not self._plan

    def equality_requirements(self) -> tuple[tuple[str, str], ...]:
        """Every ``key=value`` a matching label set must carry, in requirement order. Indexes
        use one of them to skip selectors that cannot match without evaluating them."""
        return tuple((key, arg) for code, key, arg in self._plan if code == _OP_EQ)

    # -- printing and encoding --

    def __str__(self) -> str:
        """The kubectl string form: ``app=web,!f,tier in (a,b)`` (sorted by key)."""
        reqs = [(k, f"{k}={v}") for k, v in self.match_labels.items()]
        reqs.extend((r.key, str(r)) for r in self.match_expressions)
        reqs.sort(key=lambda kv: kv[0])  # stable: same-key requirements keep their order
        return ",".join(s for _, s in reqs)

    def to_dict(self) -> dict[str, Any]:
        """camelCase manifest form, empty parts left out."""
        out: dict[str, Any] = {}
        if self.match_labels:
            out["matchLabels"] = dict(self.match_labels)
        if self.match_expressions:
            out["matchExpressions"] = [r.to_dict() for r in self.match_expressions]
        return out

    # -- decoding and validation --

    def validate(self, path: str = "") -> list[FieldError]:
        """Every problem ValidateLabelSelector reports, in upstream's order."""
        errs = validate_labels(self.match_labels, _join(path, "matchLabels"))
        base = _join(path, "matchExpressions")
        for i, r in enumerate(self.match_expressions):
            errs.extend(r.validate(f"{base}[{i}]"))
        return errs

    _validate = validate  # the hook the codec documents for API-server validation

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> "LabelSelector":
        """Decode and validate; raise the first :class:`FieldError` found.

        ``None`` decodes to the empty selector.
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise _wrong(path or "<root>", data, "object")
        ml_path = _join(path, "matchLabels")
        ml = data.get("matchLabels")
        if ml is None:
            ml = {}
        elif not isinstance(ml, dict):
            raise _wrong(ml_path, ml, "object")
        for k, v in ml.items():
            if not isinstance(k, str):
                raise _wrong(ml_path, k, "string key")
            if not isinstance(v, str):
                raise _wrong(f"{ml_path}.{k}", v, "string")
        me_path = _join(path, "matchExpressions")
        me = data.get("matchExpressions")
        if me is None:
            me = []
        elif not isinstance(me, (list, tuple)):
            raise _wrong(me_path, me, "array")
        exprs = tuple(LabelSelectorRequirement.from_dict(x, f"{me_path}[{i}]")
                      for i, x in enumerate(me))
        selector = cls(match_labels=ml, match_expressions=exprs)
        errs = selector.validate(path)
        if errs:
            raise errs[0]
        return selector


def format_label_selector(selector: LabelSelector | None) -> str:
    """kubectl describe's FormatLabelSelector: ``<none>`` for a missing or empty selector,
    ``<error>`` for one LabelSelectorAsSelector would refuse."""
    if selector is None:
        return "<none>"
    if any(r.operator not in LABEL_SELECTOR_OPERATORS for r in selector.match_expressions):
        return "<error>"
    return str(selector) or "<none>"

