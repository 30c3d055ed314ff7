"""kubectl's string form of a label selector (``-l 'app=web,tier in (a,b),!f'``).

A port of apimachinery's ``labels.Parse`` lexer and parser: the same tokens, the same
operators (``=``, ``==``, ``!=``, ``in``, ``notin``, ``exists``, ``!key``, ``>``, ``<``) and the
same error texts, producing a :class:`~ksandbox.api.selectors.LabelSelector`. Split from
``selectors.py``, which holds the API types and matching.
"""

from __future__ import annotations

from .errors import CommandError, FieldError
from .selectors import (
    DOES_NOT_EXIST,
    EXISTS,
    GT,
    IN,
    LT,
    NOT_IN,
    LabelSelector,
    LabelSelectorRequirement,
    parse_int64,
)
from .validation import is_qualified_name, is_valid_label_value

# -- kubectl's string form (labels.Parse) ---------------------------------------------------

(_T_ERROR, _T_EOS, _T_CPAR, _T_COMMA, _T_NOT, _T_DEQ, _T_EQ, _T_GT, _T_ID, _T_IN, _T_LT,
 _T_NEQ, _T_NOTIN, _T_OPAR) = range(14)

_STRING_TO_TOKEN = {
    ")": _T_CPAR, ",": _T_COMMA, "!": _T_NOT, "==": _T_DEQ, "=": _T_EQ, ">": _T_GT,
    "in": _T_IN, "<": _T_LT, "!=": _T_NEQ, "notin": _T_NOTIN, "(": _T_OPAR,
}
_SPECIAL = frozenset("=!(),><")
_SPACE = frozenset(" \t\r\n")

# selection.Operator spellings, in the order upstream lists its binary operators.
_S_IN, _S_NOT_IN, _S_EQ, _S_DEQ, _S_NEQ, _S_GT, _S_LT = "in", "notin", "=", "==", "!=", "gt", "lt"
_S_EXISTS, _S_DOES_NOT_EXIST = "exists", "!"
_BINARY_OPERATORS = (_S_IN, _S_NOT_IN, _S_EQ, _S_DEQ, _S_NEQ, _S_GT, _S_LT)
_OPERATOR_TOKENS = {_T_IN: _S_IN, _T_EQ: _S_EQ, _T_DEQ: _S_DEQ, _T_GT: _S_GT, _T_LT: _S_LT,
                    _T_NOTIN: _S_NOT_IN, _T_NEQ: _S_NEQ}


def _scan(text: str) -> list[tuple[int, str]]:
    """Tokenize like upstream's Lexer: specials are read greedily (longest known token)."""
    items: list[tuple[int, str]] = []
    pos, n = 0, len(text)
    while True:
        while pos < n and text[pos] in _SPACE:
            pos += 1
        if pos >= n:
            items.append((_T_EOS, ""))
            return items
        if text[pos] in _SPECIAL:
            buf, last = "", None
            while pos < n and text[pos] in _SPECIAL:
                cand = buf + text[pos]
                tok = _STRING_TO_TOKEN.get(cand)
                if tok is None and last is not None:
                    break
                buf = cand
                pos += 1
                if tok is not None:
                    last = (tok, cand)
            items.append(last if last is not None
                         else (_T_ERROR, f"error expected: keyword found '{buf}'"))
        else:
            start = pos
            while pos < n and text[pos] not in _SPECIAL and text[pos] not in _SPACE:
                pos += 1
            lit = text[start:pos]
            items.append((_STRING_TO_TOKEN.get(lit, _T_ID), lit))


class _ParseError(Exception):
    pass


class _Parser:
    """Recursive-descent parser over the scanned tokens (labels.Parser)."""

    __slots__ = ("items", "pos")

    def __init__(self, text: str) -> None:
        self.items = _scan(text)
        self.pos = 0

    # In the "values" context the keywords in/notin are plain identifiers.
    def lookahead(self, values: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        if values and tok in (_T_IN, _T_NOTIN):
            tok = _T_ID
        return tok, lit

    def consume(self, values: bool) -> tuple[int, str]:
        tok, lit = self.lookahead(values)
        if self.pos < len(self.items) - 1:
            self.pos += 1
        return tok, lit

    def parse(self) -> list[tuple[str, str, list[str]]]:
        reqs: list[tuple[str, str, list[str]]] = []
        while True:
            tok, lit = self.lookahead(True)
            if tok in (_T_ID, _T_NOT):
                try:
                    reqs.append(self.parse_requirement())
                except _ParseError as exc:
                    raise _ParseError(f"unable to parse requirement: {exc}") from None
                tok, lit = self.consume(True)
                if tok == _T_EOS:
                    return reqs
                if tok == _T_COMMA:
                    tok2, lit2 = self.lookahead(True)
                    if tok2 not in (_T_ID, _T_NOT):
                        raise _ParseError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise _ParseError(f"found '{lit}', expected: ',' or 'end of string'")
            elif tok == _T_EOS:
                return reqs
            else:
                raise _ParseError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def parse_requirement(self) -> tuple[str, str, list[str]]:
        key, op = self.parse_key_and_infer_operator()
        if op in (_S_EXISTS, _S_DOES_NOT_EXIST):
            return _new_requirement(key, op, [])
        op = self.parse_operator()
        if op in (_S_IN, _S_NOT_IN):
            values = self.parse_values()
        else:
            values = self.parse_exact_value()
        return _new_requirement(key, op, sorted(values))

    def parse_key_and_infer_operator(self) -> tuple[str, str]:
        op = ""
        tok, lit = self.consume(True)
        if tok == _T_NOT:
            op = _S_DOES_NOT_EXIST
            tok, lit = self.consume(True)
        if tok != _T_ID:
            raise _ParseError(f"found '{lit}', expected: identifier")
        msgs = is_qualified_name(lit)
        if msgs:
            # Parse has no field path, which Go prints as "<nil>".
            raise _ParseError(str(FieldError("<nil>", lit, "; ".join(msgs))))
        tok, _ = self.lookahead(True)
        if tok in (_T_EOS, _T_COMMA) and op != _S_DOES_NOT_EXIST:
            op = _S_EXISTS
        return lit, op

    def parse_operator(self) -> str:
        tok, lit = self.consume(False)
        op = _OPERATOR_TOKENS.get(tok)
        if op is None:
            raise _ParseError(f"found '{lit}', expected: {', '.join(_BINARY_OPERATORS)}")
        return op

    def parse_values(self) -> set[str]:
        tok, lit = self.consume(True)
        if tok != _T_OPAR:
            raise _ParseError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(True)
        if tok in (_T_ID, _T_COMMA):
            values = self.parse_identifiers_list()
            tok, _ = self.consume(True)
            if tok != _T_CPAR:
                # Upstream reports the token seen before the list, not the offending one.
                raise _ParseError(f"found '{lit}', expected: ')'")
            return values
        if tok == _T_CPAR:
            self.consume(True)
            return {""}
        raise _ParseError(f"found '{lit}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self.consume(True)
            if tok == _T_ID:
                values.add(lit)
                tok2, lit2 = self.lookahead(True)
                if tok2 == _T_COMMA:
                    continue
                if tok2 == _T_CPAR:
                    return values
                raise _ParseError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _T_COMMA:
                if not values:
                    values.add("")  # "(,"
                tok2, _ = self.lookahead(True)
                if tok2 == _T_CPAR:
                    values.add("")  # ",)"
                    return values
                if tok2 == _T_COMMA:
                    values.add("")  # ",,"
                continue
            raise _ParseError(f"found '{lit}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        tok, _ = self.lookahead(True)
        if tok in (_T_EOS, _T_COMMA):
            return {""}
        tok, lit = self.consume(True)
        if tok == _T_ID:
            return {lit}
        raise _ParseError(f"found '{lit}', expected: identifier")


def _new_requirement(key: str, op: str, values: list[str]) -> tuple[str, str, list[str]]:
    """labels.NewRequirement's checks that the parser can trip, with its aggregate error text.

    (The parser always yields a valid key and the right number of values, so only the
    integer check of ``>``/``<`` and the label-value check can fail here.)
    """
    errs: list[str] = []
    if op in (_S_GT, _S_LT):
        for i, v in enumerate(values):
            if parse_int64(v) is None:
                errs.append(str(FieldError(
                    f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")))
    for i, v in enumerate(values):
        msgs = is_valid_label_value(v)
        if msgs:
            errs.append(str(FieldError(f"values[{i}][{key}]", v, "; ".join(msgs))))
    if errs:
        unique = list(dict.fromkeys(errs))  # ToAggregate drops repeated messages
        raise _ParseError(unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]")
    return key, op, values


def parse_selector(text: str) -> LabelSelector:
    """Parse kubectl's ``-l`` syntax into a :class:`LabelSelector`.

    ``a=b`` / ``a==b`` become ``matchLabels`` (a second equality on the same key becomes an
    ``In`` expression so both still apply); ``a!=b`` becomes ``NotIn [b]`` (same meaning:
    absent keys match); ``in``/``notin``/``a``/``!a`` map to the expression operators; ``a>1``
    and ``a<1`` become ``Gt``/``Lt`` expressions, which :meth:`LabelSelector.matches` honours
    but :meth:`LabelSelector.validate` rejects (they are not valid in API objects).

    Errors raise :class:`CommandError` carrying upstream's parser message, e.g.
    ``unable to parse requirement: found '', expected: identifier``.
    """
    try:
        reqs = _Parser(text).parse()
    except _ParseError as exc:
        raise CommandError(str(exc)) from None
    reqs.sort(key=lambda r: r[0])  # upstream sorts by key for a deterministic result
    match_labels: dict[str, str] = {}
    exprs: list[LabelSelectorRequirement] = []
    for key, op, values in reqs:
        if op in (_S_EQ, _S_DEQ):
            if key in match_labels:
                exprs.append(LabelSelectorRequirement(key, IN, tuple(values)))
            else:
                match_labels[key] = values[0]
        elif op == _S_NEQ:
            exprs.append(LabelSelectorRequirement(key, NOT_IN, tuple(values)))
        elif op == _S_IN:
            exprs.append(LabelSelectorRequirement(key, IN, tuple(values)))
        elif op == _S_NOT_IN:
            exprs.append(LabelSelectorRequirement(key, NOT_IN, tuple(values)))
        elif op == _S_EXISTS:
            exprs.append(LabelSelectorRequirement(key, EXISTS, ()))
        elif op == _S_DOES_NOT_EXIST:
            exprs.append(LabelSelectorRequirement(key, DOES_NOT_EXIST, ()))
        elif op == _S_GT:
            exprs.append(LabelSelectorRequirement(key, GT, tuple(values)))
        else:
            exprs.append(LabelSelectorRequirement(key, LT, tuple(values)))
    return LabelSelector(match_labels=match_labels, match_expressions=tuple(exprs))
