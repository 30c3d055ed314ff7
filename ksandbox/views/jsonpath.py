"""kubectl's JSONPath templates (``-o jsonpath=...``, ``-o custom-columns=...``).

As ``k8s.io/client-go/util/jsonpath`` (parser.go, jsonpath.go), in our own words: a template
is text with ``{...}`` actions. An action is a path — ``$`` (the root) or ``@``/nothing (the
current object), then ``.field``, ``..field`` (recursive descent), ``.*``/``[*]``, ``[n]``
(negative counts from the end), ``[start:end]``, ``['a','b']`` unions, filters
``[?(@.x == "y")]`` with ``== != < > <= >=`` or bare existence — or a quoted string
(``{"\\n"}``), or ``range PATH`` … ``end``, which repeats the text between for each match.
Results are printed space-separated; strings as they are, everything else as JSON. A missing
key prints nothing (kubectl's ``--allow-missing-template-keys=true``).

Not here: ``{.a}{.b}`` unions with ``,`` inside one action, regular-expression filters.
"""

from __future__ import annotations

import json
import re
from typing import Any

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
_MISSING = object()


class JSONPathError(ValueError):
    """A template client-go's parser refuses; ``str()`` is its message."""


def _split_template(text: str) -> list[tuple[str, str]]:
    """[("text", s) | ("action", s)]."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        j = text.find("{", i)
        if j < 0:
            out.append(("text", text[i:]))
            break
        if j > i:
            out.append(("text", text[i:j]))
        depth, k, quote = 0, j, ""
        while k < len(text):
            ch = text[k]
            if quote:
                if ch == "\\":
                    k += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        if k >= len(text):
            raise JSONPathError(f"unclosed action: {text[j:]!r}"[:200])
        out.append(("action", text[j + 1:k].strip()))
        i = k + 1
    return out


def _unquote(s: str) -> str:
    body, out, i = s[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


_STEP = re.compile(r"""\.\.((?:\\\.|[A-Za-z0-9_$-])*)|\.(\*|(?:\\\.|[A-Za-z0-9_$\-/])+)|\[([^\]]*)\]""")


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return list(node.values())
    if isinstance(node, list):
        return list(node)
    return []


def _descend(node: Any) -> list[Any]:
    out = [node]
    for c in _children(node):
        out.extend(_descend(c))
    return out


def _literal(text: str, root: Any, cur: Any) -> Any:
    text = text.strip()
    if text[:1] in "\"'" and text[-1:] == text[:1] and len(text) >= 2:
        return _unquote(text)
    if text.startswith(("@", "$")):
        vals = evaluate(text, root, cur)
        return vals[0] if vals else _MISSING
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _compare(a: Any, op: str, b: Any) -> bool:
    try:
        if op == "==":
            return bool(a == b)
        if op == "!=":
            return bool(a != b)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return bool({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op])
    except TypeError:
        return False
    return False


def _filter(nodes: list[Any], expr: str, root: Any) -> list[Any]:
    m = re.fullmatch(r"\?\((.*)\)", expr.strip())
    if m is None:
        raise JSONPathError(f"unrecognized filter: {expr}")
    body = m.group(1)
    cm = re.match(r"(.*?)\s*(==|!=|<=|>=|<|>)\s*(.*)", body)
    out = []
    for node in nodes:
        for item in _children(node) if isinstance(node, list) else [node]:
            if cm is None:
                if evaluate(body.strip(), root, item):
                    out.append(item)
                continue
            left = evaluate(cm.group(1).strip(), root, item)
            right = _literal(cm.group(3), root, item)
            if left and right is not _MISSING and _compare(left[0], cm.group(2), right):
                out.append(item)
    return out


def _index(nodes: list[Any], expr: str, root: Any) -> list[Any]:
    expr = expr.strip()
    if expr.startswith("?"):
        return _filter(nodes, expr, root)
    out: list[Any] = []
    if expr == "*":
        for n in nodes:
            out.extend(_children(n))
        return out
    if "," in expr or expr[:1] in "\"'":
        keys = [k.strip() for k in expr.split(",")]
        for n in nodes:
            for k in keys:
                key = _unquote(k) if k[:1] in "\"'" else k
                if isinstance(n, dict) and key in n:
                    out.append(n[key])
                elif isinstance(n, list) and re.fullmatch(r"-?\d+", key):
                    i = int(key)
                    if -len(n) <= i < len(n):
                        out.append(n[i])
        return out
    if ":" in expr:
        parts = (expr.split(":") + ["", ""])[:3]
        try:
            start, end, step = (int(p) if p.strip() else None for p in parts)
        except ValueError:
            raise JSONPathError(f"invalid array index {expr}") from None
        for n in nodes:
            if isinstance(n, list):
                out.extend(n[slice(start, end, step or None)])
        return out
    if not re.fullmatch(r"-?\d+", expr):
        raise JSONPathError(f"invalid array index {expr}")
    i = int(expr)
    for n in nodes:
        if isinstance(n, list) and -len(n) <= i < len(n):
            out.append(n[i])
    return out


def evaluate(path: str, root: Any, cur: Any) -> list[Any]:
    """Every value ``path`` reaches, in order."""
    path = path.strip()
    nodes = [cur]
    if path.startswith("$"):
        nodes, path = [root], path[1:]
    elif path.startswith("@"):
        path = path[1:]
    pos = 0
    while pos < len(path):
        m = _STEP.match(path, pos)
        if m is None:
            raise JSONPathError(f"unrecognized character in action: {path[pos:]!r}")
        pos = m.end()
        if m.group(1) is not None:          # ..field
            flat = [d for n in nodes for d in _descend(n)]
            name = m.group(1).replace("\\.", ".")
            nodes = [d[name] for d in flat if isinstance(d, dict) and name in d] if name \
                else flat
        elif m.group(2) is not None:        # .field / .* (a "\\." is a dot in the name)
            name = m.group(2).replace("\\.", ".")
            if name == "*":
                nodes = [c for n in nodes for c in _children(n)]
            else:
                nodes = [n[name] for n in nodes if isinstance(n, dict) and name in n]
        else:
            nodes = _index(nodes, m.group(3), root)
    return nodes


def _format(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _run(parts: list[tuple[str, str]], root: Any, cur: Any, out: list[str]) -> None:
    i = 0
    while i < len(parts):
        kind, text = parts[i]
        if kind == "text":
            out.append(text)
            i += 1
            continue
        if text.startswith("range ") or text == "range":
            depth, j = 1, i + 1
            while j < len(parts) and depth:
                if parts[j][0] == "action":
                    if parts[j][1].startswith("range"):
                        depth += 1
                    elif parts[j][1] == "end":
                        depth -= 1
                j += 1
            if depth:
                raise JSONPathError("not in range, nothing to end")
            body = parts[i + 1:j - 1]
            for item in evaluate(text[len("range"):].strip(), root, cur):
                _run(body, root, item, out)
            i = j
            continue
        if text == "end":
            raise JSONPathError("not in range, nothing to end")
        if text[:1] in "\"'":
            out.append(_unquote(text))
        elif text:
            out.append(" ".join(_format(v) for v in evaluate(text, root, cur)))
        i += 1


def render(template: str, data: Any) -> str:
    """The template executed against ``data`` (plain JSON values)."""
    out: list[str] = []
    _run(_split_template(template), data, data, out)
    return "".join(out)


def relaxed(expr: str) -> str:
    """RelaxedJSONPathExpression: ``.a.b`` and ``a.b`` become ``{.a.b}``."""
    expr = expr.strip()
    if expr.startswith("{") and expr.endswith("}"):
        return expr
    if not expr.startswith(("$", ".", "@", "[")):
        expr = "." + expr
    return "{" + expr + "}"
