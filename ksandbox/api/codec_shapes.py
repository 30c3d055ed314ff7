"""Decoders compiled per API type and per shape of mapping: the codec's fast path.

The plain decoder (``codec.decode_plain``) walks a mapping key by key: it looks each key up,
builds the field's path (``spec.containers[0].image``) for a message it will almost never
give, calls the field's decoder and gathers keyword arguments for the class. A big export
repeats a few shapes of mapping — every pod's metadata has the keys ``name, namespace, uid,
labels`` in that order — so here, once a shape has come WARM_SHAPE times for a type, a
function is generated for exactly that type and those keys: it unpacks the values in order,
decodes each with its field's own decoder (the same functions as the plain path, so one
rule per field type), and calls the class with every argument by position. It builds no
path. Whatever it does not take as it comes — a value of the wrong type, an integral float,
a subclass of dict, a key upstream's type does not have while the load reports them, any
error — makes it give up (``codec.ShapeMiss``, or the error itself), and ``codec.decode``
decodes the object again with the plain decoder, which gives the answer, or the message
with its path. So a compiled decoder only ever returns what the plain one returns (held
to it in tests/api/test_codec_shapes.py, on generated data).

Sharing (``codec.sharing``) goes through the same tables and keys as the plain path, so
which of the two decoded a value does not change what is shared.
"""

from __future__ import annotations

import sys
import types
import typing
from typing import Any, Callable, Union

import attrs

from . import codec, methods_cache
from .codec import ShapeMiss
from .evolve import _positional_params

# A shape is compiled once it has come this many times for its type: a small file's objects
# are decoded the plain way (compiling one costs ~50-100 µs; a plain decode ~5 µs).
WARM_SHAPE = 16
# Shapes compiled per type at most, and shapes counted per type at most: a file whose
# mappings each order their keys their own way is decoded the plain way.
MAX_SHAPES = 64
MAX_COUNTED = 1024

Fast = Callable[[Any], Any]


def class_decoder(cls: type) -> Fast:
    """``fn(data)``: ``cls`` decoded from ``data`` by the function compiled for its keys —
    or, for a shape not compiled (yet), by the plain decoder. Raises ShapeMiss (or the
    error met) for :func:`codec.decode` to decode it again the plain way."""
    shapes: dict[tuple, Fast] = {}
    counts: dict[tuple, int] = {}
    made = [0]

    def plain(data: Any) -> Any:
        sink = codec._strict_sink
        if sink is None:
            return codec.decode_plain(cls, data, "")
        n = len(sink)
        out = codec.decode_plain(cls, data, "")
        if len(sink) != n:   # an unknown field: reported with its path by the caller's redo
            del sink[n:]
            raise ShapeMiss
        return out

    def warm(key: tuple, data: dict) -> Fast:
        seen = counts.get(key, 0) + 1
        if seen < WARM_SHAPE or made[0] >= MAX_SHAPES:
            if seen == 1 and len(counts) >= MAX_COUNTED:
                return plain
            counts[key] = seen
            return plain
        counts.pop(key, None)
        fn = _compile_shape(cls, key)
        made[0] += 1
        shapes[key] = fn if fn is not None else plain
        return shapes[key]

    def fast(data: Any) -> Any:
        if type(data) is not dict:
            raise ShapeMiss
        key = tuple(data)
        fn = shapes.get(key)
        if fn is None:
            fn = warm(key, data)
        return fn(data)

    return fast


def fast_decoder(cls: type) -> Fast:
    """The compiled decoder of ``cls`` (codec.decode's: codec.compile_class). Making one
    compiles nothing yet, so a type that nests in itself is no loop."""
    fn = codec._FAST.get(cls)
    if fn is None:
        fn = codec._FAST[cls] = class_decoder(cls)
    return fn


def _field_decoder(tp: Any, plain: Any) -> tuple[Any, bool]:
    """(decoder, whether it takes a path) of a field typed ``tp`` whose plain decoder is
    ``plain``: a nested API type's compiled decoder, a tuple's, or the plain decoder itself
    for a leaf (called with an empty path: its message is the redo's to give)."""
    plain = getattr(plain, "__wrapped__", plain)   # X | None: None never reaches it
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            tp, origin = args[0], typing.get_origin(args[0])
    if origin is None and attrs.has(tp):
        return (_shared(tp) if tp in codec.SHARED_TYPES else fast_decoder(tp)), False
    if origin is tuple and hasattr(plain, "item"):
        item, item_path = _field_decoder(typing.get_args(tp)[0], plain.item)
        return _tuple(plain, item, item_path), False
    return plain, True


def _shared(tp: type) -> Fast:
    nested = fast_decoder(tp)

    def dec_shared(v: Any) -> Any:
        return codec.shared_decode(tp, v, nested)

    return dec_shared


def _tuple(plain: Any, item: Any, item_path: bool) -> Fast:
    """A tuple field: as the plain ``dec_tuple`` (``plain``), shared under its key."""

    def build(v: list) -> tuple:
        if item_path:
            return tuple([item(x, "") for x in v])
        return tuple([item(x) for x in v])

    def dec_tuple(v: Any) -> tuple:
        if type(v) is not list:
            raise ShapeMiss
        table = codec._shared
        if table is None or not v:
            return build(v)
        return codec._share_value(table, (plain, repr(v)), lambda: build(v))

    return dec_tuple


# a JSON kind (strict.py's EXTRA_SHAPES) -> the type the parser gives it
_PY_TYPE = {"array": "list", "object": "dict", "string": "str", "boolean": "bool",
            "integer": "int"}


def _compile_shape(cls: type, keys: tuple) -> Fast | None:
    """The function that decodes a mapping of ``cls`` with exactly ``keys``, in that order;
    None when the class or the keys are not what it is written for."""
    if not all(type(k) is str for k in keys):
        return None
    c = codec._compile(cls)
    fields = [a for a in attrs.fields(cls) if a.init]
    json_of = {a.name: a.metadata.get(codec._JSON, False) for a in fields}
    positional = [a for a in fields if not a.kw_only]
    if _positional_params(cls) != [a.alias for a in positional] or \
            len(positional) != len(fields) or \
            any(a.default is attrs.NOTHING or isinstance(a.default, attrs.Factory)  # type: ignore[arg-type]
                for a in fields):
        return None
    hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]), include_extras=True)
    env: dict[str, Any] = {"_cls": cls, "_freeze": codec.freeze, "_FD": codec.FrozenDict,
                           "_miss": ShapeMiss, "_codec": codec,
                           "_strict": codec.STRICT_FIELDS}
    at: dict[str, int] = {}      # field name -> index of its key in the shape
    unknown: list[int] = []
    for i, key in enumerate(keys):
        spec = c.by_json.get(key)
        if spec is None:
            unknown.append(i)
        else:
            at[spec[0]] = i   # (a repeated key cannot be: the keys of a dict)
    lines = []
    values = ", ".join(f"v{i}" for i in range(len(keys)))
    if keys:
        lines.append(f"    {values}{',' if len(keys) == 1 else ''} = data.values()")
    if unknown:
        env["_unknown"] = tuple(keys[i] for i in unknown)
        # a key upstream's type does not have is reported (with its path) by the plain decoder
        lines.append("    if _codec._strict_sink is not None and _cls in _strict and "
                     "not _strict[_cls].issuperset(_unknown):\n        raise _miss")
        shape = codec.EXTRA_SHAPES.get(cls, {})
        for i in unknown:
            if keys[i] in shape:
                # a value of another JSON kind is refused, with its path, by the plain way (an
                # integral float for an integer too: the plain decoder takes it)
                py = _PY_TYPE[shape[keys[i]][0]]
                lines.append(f"    if v{i} is not None and type(v{i}) is not {py}:\n"
                             f"        raise _miss")
    args = []
    for a in fields:
        key = json_of[a.name]
        env[f"_d_{a.name}"] = a.default
        if key is None and unknown and c.has_extra:
            # (the keys are not written into the source: the user's strings, kept out of the
            # methods cache, whose key the source is)
            frozen = "".join(f"_freeze(v{i}), " for i in unknown)
            args.append(f"_FD(zip(_unknown, ({frozen})))")
        elif a.name in at:
            i = at[a.name]
            dec, takes_path = _field_decoder(hints[a.name], c.by_json[keys[i]][1])
            env[f"_f_{a.name}"] = dec
            call = f"_f_{a.name}(v{i}, '')" if takes_path else f"_f_{a.name}(v{i})"
            args.append(f"_d_{a.name} if v{i} is None else {call}")
        else:
            args.append(f"_d_{a.name}")
    lines.append(f"    return _cls({', '.join(args)})")
    src = "def decode_shape(data):\n" + "\n".join(lines) + "\n"
    names = ", ".join(sorted(env))
    src = f"def make({names}):\n" + "".join(f"    {line}\n" for line in src.splitlines()) \
        + "    return decode_shape\n"
    filename = f"<ksandbox shape decoder {cls.__module__}.{cls.__qualname__}>"
    code = methods_cache.compile_derived(filename, src, lambda: src)
    if code is None:
        return None
    namespace: dict[str, Any] = {}
    exec(code, {}, namespace)  # noqa: S102 - generated from the class's own fields and keys
    return namespace["make"](**env)


codec.compile_class = fast_decoder
