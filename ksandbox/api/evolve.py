"""``evolve(obj, **changes)``: ``attrs.evolve`` for the hot paths, with the same result.

``attrs.evolve`` looks the class's fields up, reads every attribute into a kwargs dict and
calls ``__init__`` on each call; at 150,000 pods the admission, binding and kubelet writes made
it the costliest single function of a ``ksandbox sim`` run. Here a constructor is generated once
per (class, changed fields) that passes every init field straight through, so the same
``__init__`` (converters, validators) runs on the same values — the result is exactly evolve's
— at about a third of the cost. A name that is not an init argument goes to
``attrs.evolve`` itself, which raises the error attrs would.
"""

from __future__ import annotations

import inspect
from types import FunctionType
from typing import Any, Callable

import attrs

from . import codec, methods_cache

_REPLACERS: dict[tuple[type, tuple[str, ...]], Callable[..., Any] | None] = {}
_UNCOMPILED: Any = object()


def compile_replacer(cls: type, changed: tuple[str, ...]) -> Callable[..., Any] | None:
    """``fn(obj, *values)``: ``cls(...)`` with the fields ``changed`` set to ``values`` and
    every other init field taken from ``obj``; None when the class needs attrs.evolve."""
    fields = [a for a in attrs.fields(cls) if a.init]
    # attrs.evolve takes its changes by init argument name (the alias of a private field)
    if not set(changed) <= {a.alias for a in fields}:
        return None
    # The init arguments in the generated __init__'s order, positionally (keyword-only ones by
    # name): matching 14 keywords to parameters cost ObjectMeta's rebuild (every write
    # stamps one) 40 % more than passing the same values by position.
    # Only when __init__'s positional parameters are those fields in that order (attrs'
    # generated one); any other __init__ gets every argument by name.
    by_position = [a for a in fields if not a.kw_only]
    if _positional_params(cls) != [a.alias for a in by_position]:
        by_position = []
    args = [f"v_{a.alias}" if a.alias in changed else f"o.{a.name}" for a in by_position]
    args += [f"{a.alias}=v_{a.alias}" if a.alias in changed else f"{a.alias}=o.{a.name}"
             for a in fields if a not in by_position]
    params = "".join(f", v_{n}" for n in changed)
    src = f"def replace(o{params}):\n    return cls({', '.join(args)})\n"
    namespace: dict[str, Any] = {"cls": cls}
    stores = codec.init_stores(cls)
    if stores is not None:
        # An __init__ that only stores its arguments (codec.init_stores): once the class has
        # its building twin, the same values go into the same slots here, on an instance
        # made as the twin and given its class back — no class call, no __init__ frame.
        # Until then, the class call above.
        body = "".join(f"    n.{slot} = v_{param}\n" if param in changed else
                       f"    n.{slot} = o.{slot}\n" for slot, param in stores)
        src = (f"def replace(o{params}):\n    if _twin is None:\n"
               f"        return cls({', '.join(args)})\n"
               f"    n = _new(_twin)\n{body}    _set_class(n, cls)\n    return n\n")
        namespace.update(_new=object.__new__, _set_class=codec.SET_CLASS)
        codec.wait_for_twin(cls, namespace)
    # Its code from the methods cache: a start makes ~60 replacers while it loads a session.
    code = methods_cache.compile_derived("<string>", src, lambda: src)
    exec(code or src, namespace)  # noqa: S102 - generated from the class's own field names
    return namespace["replace"]


def stamped_builder(cls: type, meta_cls: type, changed: tuple[str, ...]) -> Callable[..., Any] | None:
    """``fn(obj, rv, *values)``: ``evolve(obj, metadata=evolve(obj.metadata,
    resource_version=rv), **dict(zip(changed, values)))`` built in one frame — a write that
    replaces some fields of an object (a status write's ``status``) with its stamped metadata,
    where the replacers take two. As :func:`stamped_part_builder`: only for classes whose
    __init__ only stores and which have their building twins already (None otherwise); the
    function returns None, building nothing, for an object whose metadata is not of
    ``meta_cls``."""
    twins = [codec.BUILDING_TWINS.get(c) for c in (cls, meta_cls)]
    outer, meta_stores = (codec.init_stores(c) for c in (cls, meta_cls))
    if None in twins or outer is None or meta_stores is None:
        return None
    slot_of = {param: slot for slot, param in outer}
    if "metadata" not in slot_of or "metadata" in changed or \
            not set(changed) <= set(slot_of) or \
            "resource_version" not in {p for _, p in meta_stores}:
        return None
    meta_slot = slot_of["metadata"]
    lines = [f"def build(o, rv{''.join(f', v_{n}' for n in changed)}):",
             f"    m = o.{meta_slot}",
             "    if m.__class__ is not _mc:", "        return None",
             "    nm = _new(_tm)"]
    lines += [f"    nm.{slot} = rv" if param == "resource_version" else f"    nm.{slot} = m.{slot}"
              for slot, param in meta_stores]
    lines += ["    _set_class(nm, _mc)", "    n = _new(_t)"]
    lines += [f"    n.{slot} = nm" if slot == meta_slot else f"    n.{slot} = v_{param}"
              if param in changed else f"    n.{slot} = o.{slot}" for slot, param in outer]
    lines += ["    _set_class(n, _c)", "    return n", ""]
    src = "\n".join(lines)
    namespace: dict[str, Any] = {"_c": cls, "_mc": meta_cls, "_t": twins[0], "_tm": twins[1],
                                 "_new": object.__new__, "_set_class": codec.SET_CLASS}
    code = methods_cache.compile_derived("<string>", src, lambda: src)
    exec(code or src, namespace)  # noqa: S102 - generated from the classes' own slot names
    return namespace["build"]


def stamped_part_builder(cls: type, meta_cls: type, part_cls: type, part: str,
                         changed: tuple[str, ...]) -> Callable[..., Any] | None:
    """``fn(obj, rv, *values)``: ``evolve(obj, metadata=evolve(obj.metadata,
    resource_version=rv), **{part: evolve(getattr(obj, part), **dict(zip(changed,
    values)))})`` built in one frame — the write of one part of an object (a lease renewal's
    ``spec.renewTime``) with its stamped metadata, where the replacers take three. Only for
    classes whose __init__ only stores (codec.init_stores) and which have their building twins
    already; None otherwise (the caller takes the replacers, and may ask again later). The
    function returns None, building nothing, for an object whose metadata or part is not of
    ``meta_cls`` / ``part_cls``."""
    twins = [codec.BUILDING_TWINS.get(c) for c in (cls, meta_cls, part_cls)]
    outer, meta_stores, part_stores = (codec.init_stores(c) for c in (cls, meta_cls, part_cls))
    if None in twins or outer is None or meta_stores is None or part_stores is None:
        return None
    slot_of = {param: slot for slot, param in outer}
    if "metadata" not in slot_of or part not in slot_of or part == "metadata" or \
            "resource_version" not in {p for _, p in meta_stores} or \
            not set(changed) <= {p for _, p in part_stores}:
        return None
    meta_slot, part_slot = slot_of["metadata"], slot_of[part]
    lines = [f"def build(o, rv{''.join(f', v_{n}' for n in changed)}):",
             f"    m = o.{meta_slot}", f"    p = o.{part_slot}",
             "    if m.__class__ is not _mc or p.__class__ is not _pc:", "        return None",
             "    nm = _new(_tm)"]
    lines += [f"    nm.{slot} = rv" if param == "resource_version" else f"    nm.{slot} = m.{slot}"
              for slot, param in meta_stores]
    lines += ["    _set_class(nm, _mc)", "    np = _new(_tp)"]
    lines += [f"    np.{slot} = v_{param}" if param in changed else f"    np.{slot} = p.{slot}"
              for slot, param in part_stores]
    lines += ["    _set_class(np, _pc)", "    n = _new(_t)"]
    lines += [f"    n.{slot} = nm" if slot == meta_slot else f"    n.{slot} = np"
              if slot == part_slot else f"    n.{slot} = o.{slot}" for slot, _ in outer]
    lines += ["    _set_class(n, _c)", "    return n", ""]
    src = "\n".join(lines)
    namespace: dict[str, Any] = {"_c": cls, "_mc": meta_cls, "_pc": part_cls, "_t": twins[0],
                                 "_tm": twins[1], "_tp": twins[2], "_new": object.__new__,
                                 "_set_class": codec.SET_CLASS}
    code = methods_cache.compile_derived("<string>", src, lambda: src)
    exec(code or src, namespace)  # noqa: S102 - generated from the classes' own slot names
    return namespace["build"]


def _positional_params(cls: type) -> list[str]:
    """The names of ``cls(...)``'s positional-or-keyword parameters (its __init__'s)."""
    names = _own_init_params(cls)
    if names is not None:
        return names
    return _signature_params(cls)


def _own_init_params(cls: type) -> list[str] | None:
    """:func:`_signature_params`, read off the code of the class's own plain ``__init__``
    (attrs' generated one), for a class whose call inspect.signature resolves to that
    function: a plain ``type``, object's ``__new__``, no ``__signature__``, no wrapper.
    None for any other class. inspect.signature cost ~0.2 M instructions a class: ~12 M of
    the TUI's start, which makes ~60 replacers while it loads a session."""
    init = cls.__dict__.get("__init__")
    if type(init) is not FunctionType or type(cls) is not type \
            or cls.__new__ is not object.__new__ or hasattr(cls, "__signature__") \
            or hasattr(init, "__signature__") or hasattr(init, "__wrapped__"):
        return None
    code = init.__code__
    # inspect drops the first parameter (self): positional-only ones are not keywords
    return list(code.co_varnames[max(1, code.co_posonlyargcount):code.co_argcount])


def _signature_params(cls: type) -> list[str]:
    """The names of ``cls(...)``'s positional-or-keyword parameters, as inspect sees them."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]


def replacer(cls: type, changed: tuple[str, ...]) -> Callable[..., Any] | None:
    """The cached :func:`compile_replacer` for ``cls`` and ``changed``."""
    key = (cls, changed)
    try:
        return _REPLACERS[key]
    except KeyError:
        fn = _REPLACERS[key] = compile_replacer(cls, changed)
        return fn


def evolve(obj: Any, **changes: Any) -> Any:
    """``attrs.evolve(obj, **changes)``, precompiled per class and set of changed fields."""
    # replacer's lookup, inline: one call fewer on every write's rebuild
    key = (type(obj), tuple(changes))
    fn = _REPLACERS.get(key, _UNCOMPILED)
    if fn is _UNCOMPILED:
        fn = replacer(*key)
    if fn is None:
        return attrs.evolve(obj, **changes)
    return fn(obj, *changes.values())


def evolve_fields(obj: Any, fields: tuple[str, ...], *values: Any) -> Any:
    """``evolve(obj, **dict(zip(fields, values)))`` for a caller that names the fields once
    (the store's stamping of every write): no keyword dict to build and read back."""
    fn = _REPLACERS.get((type(obj), fields), _UNCOMPILED)
    if fn is _UNCOMPILED:
        fn = replacer(type(obj), fields)
    if fn is None:
        return attrs.evolve(obj, **dict(zip(fields, values)))
    return fn(obj, *values)


# -- results shared by identity ---------------------------------------------------------------
# 150,000 pods loaded from ~100 templates carry the same containers, tolerations and extras
# (the decoder shares equal sub-values while a file loads: codec.sharing). A pure function of
# such frozen values — the API server's defaults, a spec's total requests — then gives the same
# answer for every pod of a template; remembering it by the arguments' identity computes it
# once and makes every pod share one result object (memory as well as time).
_BY_IDENTITY: dict[tuple, tuple[tuple, Any]] = {}
# Entries kept at most (the table starts over when full): above what a big load asks for at
# once — 150,000 pods on 5,000 nodes are 5,000 distinct specs, each with its admitted spec,
# its checks, its requests and its node name's checks — so that one spec's entries are still
# there when the spec comes round again.
BY_IDENTITY_LIMIT = 1 << 15


def by_identity(fn: Callable[..., Any], first: Any, *rest: Any) -> Any:
    """``fn(first, *rest)`` for a pure ``fn`` of immutable arguments, remembered by the
    arguments' identity (the entry keeps them alive, so an id is never reused while it is
    remembered). The answer is the one ``fn`` gives: only how often it is computed changes."""
    # The key's ids one by one for the usual arities: ``*map(id, rest)`` cost ~3.6k
    # instructions a call (the map, a list and its tuple), twice the rest of the lookup.
    n = len(rest)
    if n == 0:
        key: tuple = (fn, id(first))
    elif n == 1:
        key = (fn, id(first), id(rest[0]))
    elif n == 2:
        key = (fn, id(first), id(rest[0]), id(rest[1]))
    elif n == 3:
        key = (fn, id(first), id(rest[0]), id(rest[1]), id(rest[2]))
    else:
        key = (fn, id(first), *map(id, rest))
    hit = _BY_IDENTITY.get(key)
    if hit is not None:
        return hit[1]
    args = (first, *rest)
    out = fn(*args)
    if len(_BY_IDENTITY) >= BY_IDENTITY_LIMIT:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[key] = (args, out)
    return out
