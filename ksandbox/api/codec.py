"""Decoding manifests into frozen attrs values, and encoding them back.

An API type is an ``@api_type`` attrs class whose fields name their JSON key with
``j("jsonName")``. The codec compiles, once per class, a decoder that walks a YAML mapping,
checks each value's type, reports the first problem as a :class:`FieldError` with the full
field path (``spec.containers[0].resources.requests.cpu``), and keeps keys it does not know in
the ``extra`` field, so ``get -o yaml`` gives back what the user wrote.

Supported annotations: ``str``, ``int``, ``float``, ``bool``, ``X | None``, ``tuple[X, ...]``,
``FrozenDict[str, str]``, ``ResourceList`` (name → Quantity), ``IntOrString``, ``Any`` (kept
as given) and nested API types. Not here: semantic validation (label syntax, enums) — each type
may define ``_validate(self, path) -> list[FieldError]`` for that, and the API server runs it.
"""

from __future__ import annotations

import functools
import linecache
import marshal
import operator
import sys
import types
import typing
import zlib
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Union

import attrs

from . import methods_cache
from .errors import FieldError, GoTypeError, go_field_path, int_text, type_name
from .errors import wrong_type as _wrong

_JSON = "ksandbox.json"
_OMIT = "ksandbox.omit_empty"


class FrozenDict(dict):
    """A dict that refuses mutation and hashes by content: safe to share between objects."""

    __slots__ = ("_hash",)

    def _immutable(self, *args, **kwargs):
        raise TypeError("FrozenDict is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _immutable  # type: ignore

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            h = self._hash = hash(frozenset(self.items()))
            return h

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"

    def __deepcopy__(self, memo: dict) -> "FrozenDict":
        return self  # immutable: a fork of the sandbox shares it (ksandbox.sim.snapshot)

    def __copy__(self) -> "FrozenDict":
        return self

    def set(self, key, value) -> "FrozenDict":
        d = dict(self)
        d[key] = value
        return FrozenDict(d)

    def without(self, key) -> "FrozenDict":
        d = dict(self)
        d.pop(key, None)
        return FrozenDict(d)


EMPTY: FrozenDict = FrozenDict()


class ResourceListMarker:
    """Annotation marker for ``{resourceName: Quantity}`` maps."""


class IntOrStringMarker:
    """Annotation marker for Kubernetes' IntOrString (``maxSurge: 25%`` or ``1``)."""


class Int32Marker:
    """Annotation marker for a Go ``int32`` field (plain ``int`` fields are Go ``int64``)."""


ResourceList = typing.Annotated[FrozenDict, ResourceListMarker]
Int32 = typing.Annotated[int, Int32Marker]
IntOrString = typing.Annotated[int | str, IntOrStringMarker]


def j(name: str, default: Any = attrs.NOTHING, *, omit_empty: bool = True,
      factory: Callable[[], Any] | None = None, pointer: bool = False) -> Any:
    """Declare a field's JSON key (and default). ``omit_empty`` drops zero values on encode;
    ``pointer`` (a Go pointer field, default None) drops only None: a set 0 is written, as
    upstream writes ``replicas: 0`` — and kubectl apply compares the live object's JSON with
    the manifest's."""
    meta = {_JSON: name, _OMIT: omit_empty and not pointer}
    if factory is not None:
        return attrs.field(factory=factory, metadata=meta)
    return attrs.field(default=default, metadata=meta)


def extra_field() -> Any:
    """The catch-all of unknown keys (kept for round-tripping, never interpreted)."""
    return attrs.field(default=EMPTY, metadata={_JSON: None}, repr=False, eq=False)


def _share(self: Any, memo: Any = None) -> Any:
    return self


def _api_type(cls: type) -> Any:
    """Make ``cls`` a frozen, slotted attrs class known to the codec.

    Its instances are immutable, so copying one returns it: a fork of the sandbox
    (``ksandbox.sim.snapshot``) shares every object instead of copying it.
    """
    cached = {name: value.func for name, value in vars(cls).items()
              if isinstance(value, functools.cached_property)}
    out: Any = attrs.frozen(slots=True, cache_hash=False)(cls)
    out.__deepcopy__ = _share
    out.__copy__ = _share
    if cached:
        _slot_cached_properties(out, cached)
    return slot_setter_init(out)


# -- cached properties without a class __getattr__ ------------------------------------------
# attrs keeps a slotted class's functools.cached_property in a slot of its name and computes
# it in a class __getattr__ it adds. A class with a __getattr__ reads every attribute through
# typeobject's slot_tp_getattr_hook, which the interpreter does not specialise: each of the
# ~100 reads of a PodSpec or Node field per scheduled pod (spec.node_name alone ~40) took ~3x
# a plain slot read. Here the class loses that __getattr__, and each cached property's name
# holds a property whose getter reads the slot under a second name (the same member
# descriptor, so the read is the interpreter's specialised slot load) and, when the slot is
# empty, computes the value and stores it: the same value, computed once per object, as
# attrs' way. A cached read costs ~2x attrs' (a Python call); they are ~7 of the ~100.
_CACHED_READ = """
def {name}(self):
    try:
        return self.{alias}
    except AttributeError:   # not computed for this object yet
        value = _ks_compute(self)
        _ks_put(self, value)
        return value
"""


def _slot_cached_properties(cls: Any, cached: dict[str, Callable[[Any], Any]]) -> None:
    """Put ``cached`` (name -> function of the class's cached properties) on the attrs class
    ``cls`` as slot-backed properties and drop the __getattr__ attrs made for them; ``cls`` is
    left as attrs made it when it is not the shape expected."""
    getattr_ = cls.__dict__.get("__getattr__")
    if getattr(getattr_, "__name__", "") != "__getattr__" or "__getattribute__" in cls.__dict__:
        return
    slots = {name: cls.__dict__.get(name) for name in cached}
    if any(type(slot) is not types.MemberDescriptorType for slot in slots.values()):
        return
    aliases = {name: f"_ks_cached_{name}" for name in cached}
    if any(alias in cls.__dict__ for alias in aliases.values()):
        return
    for name, func in cached.items():
        slot, alias = slots[name], aliases[name]
        namespace: dict[str, Any] = {"_ks_compute": func, "_ks_put": slot.__set__}
        exec(_CACHED_READ.format(name=name, alias=alias), namespace)  # noqa: S102 - our text
        read = namespace[name]
        read.__qualname__, read.__module__ = func.__qualname__, func.__module__
        read.__wrapped__ = func   # type: ignore[attr-defined]
        setattr(cls, alias, slot)
        setattr(cls, name, property(read, doc=func.__doc__))
    CACHED_SLOTS[cls] = slots
    del cls.__getattr__


# class -> {cached property name: the slot (member descriptor) its value is kept in}
CACHED_SLOTS: dict[type, dict[str, Any]] = {}


def cached_getter(cls: type, name: str) -> Callable[[Any], Any]:
    """``lambda obj: obj.<name>`` for a cached property of ``cls``, as its getter itself: a
    plain Python call, which the interpreter inlines, where reading the property is a call
    from C into a new interpreter frame (~900 instructions in a run). For the readers that
    run once or more per scheduled pod."""
    if cls in CACHED_SLOTS and name in CACHED_SLOTS[cls]:
        return cls.__dict__[name].fget   # type: ignore[no-any-return]
    return operator.attrgetter(name)


# -- the frozen __init__, with each field's slot set directly -------------------------------
# attrs' frozen __init__ sets each field with ``object.__setattr__`` bound to the instance
# (``_setattr('name', name)``): a generic attribute lookup of the name in the class and a call
# through a method wrapper for every field of every object built — ~25 objects per scheduled
# pod, ObjectMeta alone 14 fields. Here attrs' own __init__ source is rewritten, line by line
# (signature, default objects, converters, validators and post-init stay attrs' text):
#
# * while the fields are set, the instance's class is a "building" twin — a subclass of the
#   class that adds no slot and keeps object's own __setattr__ — so each ``self.name = value``
#   is an ordinary slot store (the interpreter's specialised STORE_ATTR); the class is put back
#   before anything else runs (validators, post-init), also when a converter raises. ObjectMeta
#   14.6k -> ~5.7k instructions per build (cachegrind). Making a class costs ~0.2M
#   instructions, so a class gets its twin at its WARM_BUILDS-th build, not at import: most of
#   the ~140 classes are seldom built, and a start makes none of their twins.
# * until then, and for an instance of a subclass (type(self) is not the class: its own
#   layout), the same lines call each field's member descriptor (``_slot_set_name(self,
#   value)``: the descriptor object.__setattr__'s lookup finds), ~20 % cheaper than attrs'.
#
# The finished object's class is the class, which stays frozen (its __setattr__ is attrs').
# PLAIN_INITS keeps attrs' own __init__ per class, for the test that holds the two to the same
# results (tests/api/test_fast_init.py).
PLAIN_INITS: dict[type, Any] = {}
# class -> its building twin, once made (None: the layout refused the swap)
BUILDING_TWINS: dict[type, Any] = {}
WARM_BUILDS = 64


class _Never:
    """No object is of this class: the twin test of a class that has no twin yet."""


_T = typing.TypeVar("_T", bound=type)
_SETATTR_LINE = "_setattr('"
_SETATTR_GET = "    _setattr = _cached_setattr_get(self)\n"
# object's __class__ setter, bound to nothing: set_class(obj, cls) is obj.__class__ = cls
# without the generic attribute lookup (attrs' frozen __setattr__ would refuse the plain way)
_SET_CLASS = SET_CLASS = object.__dict__["__class__"].__set__


def slot_setter_init(cls: _T) -> _T:
    """Give the frozen slotted attrs class ``cls`` the fast twin of attrs' generated
    ``__init__`` (a class decorator, outside ``attrs.frozen``; every api_type has it). ``cls``
    is left as it is when the source is not the shape expected (attrs changed, not slotted)."""
    _install_slot_setter_init(cls)
    return cls


def _building_twin(cls: Any) -> Any:
    """A subclass of ``cls`` with its layout and object's __setattr__/__delattr__, which an
    instance of ``cls`` can take as its class while being built; None when refused."""
    twin = type(cls.__name__, (cls,), {
        "__slots__": (), "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__, "__module__": cls.__module__,
        "__qualname__": f"{cls.__qualname__}.<building>"})
    try:
        probe = object.__new__(cls)
        _SET_CLASS(probe, twin)
        _SET_CLASS(probe, cls)
    except TypeError:
        return None
    return twin


def _warmer(cls: Any, globs: dict[str, Any]) -> Callable[[], None]:
    """What the fast __init__ of ``cls`` calls at each build while the class has no twin: the
    WARM_BUILDS-th makes it and switches the __init__ (its globals) to the twin's way."""
    left = [WARM_BUILDS]

    def warm() -> None:
        left[0] -= 1
        if left[0] > 0:
            return
        globs["_ks_cold"] = _Never
        twin = BUILDING_TWINS[cls] = _building_twin(cls)
        if twin is not None:
            globs["_ks_twin"] = twin
            globs["_ks_cls"] = cls
            for namespace in _TWIN_USERS.pop(cls, ()):
                namespace["_twin"] = twin

    return warm


# -- building an instance without its __init__ (api/evolve.py's replacers) -------------------
# A class whose attrs __init__ only stores each argument in its own slot — no converter,
# validator, default factory or post-init — is built by storing the same values in the same
# slots: a replacer (evolve.compile_replacer) does it in its own frame, on an instance made as
# the building twin and given its class back, instead of calling the class (type_call, the
# __init__ frame with its 14 arguments for ObjectMeta, two class swaps): ~40 % of a build, and
# a rolling update builds ~25 objects a pod life. The twin is the one the class's fast
# __init__ makes at its WARM_BUILDS-th build (a start makes none): until then such a replacer
# calls the class, as the plain ones do.
_INIT_BLOCKS: dict[type, list[str]] = {}   # class -> attrs' __init__ source (def and body)
# class -> the globals of the replacers waiting for its twin (``_twin`` is set there when made)
_TWIN_USERS: dict[type, list[dict[str, Any]]] = {}


def init_stores(cls: type) -> tuple[tuple[str, str], ...] | None:
    """((slot, parameter), ...) in the order attrs' __init__ of ``cls`` stores them, when that
    __init__ does nothing else and stores every parameter as it is; None otherwise. Read once
    per class (a start makes ~60 replacers, several per class)."""
    try:
        return _STORES[cls]
    except KeyError:
        stores = _STORES[cls] = _read_stores(cls)
        return stores


_STORES: dict[type, tuple[tuple[str, str], ...] | None] = {}


def _read_stores(cls: type) -> tuple[tuple[str, str], ...] | None:
    block = _INIT_BLOCKS.get(cls)
    init = PLAIN_INITS.get(cls)
    if block is None or init is None or cls.__dict__.get("__init__") is init:
        return None
    code = init.__code__
    params = code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]
    stores: list[tuple[str, str]] = []
    for line in block[1:]:
        if line == _SETATTR_GET:
            continue
        if not line.startswith("    " + _SETATTR_LINE):
            return None   # a converter, a validator, a default made here, a post-init...
        name, sep, value = line[4 + len(_SETATTR_LINE):].rstrip("\n").partition("', ")
        value = value[:-1] if value.endswith(")") else ""
        if not sep or value not in params or \
                type(getattr(cls, name, None)) is not types.MemberDescriptorType:
            return None
        stores.append((name, value))
    if sorted(p for _, p in stores) != sorted(params):
        return None
    return tuple(stores)


def wait_for_twin(cls: type, namespace: dict[str, Any]) -> None:
    """Set ``namespace["_twin"]`` to the building twin of ``cls`` (None until the class has
    one; a class whose layout refuses the swap never has)."""
    namespace["_twin"] = BUILDING_TWINS.get(cls)
    if cls not in BUILDING_TWINS:
        _TWIN_USERS.setdefault(cls, []).append(namespace)


def _rewritten_init(cls: Any, block: list[str]) -> str | None:
    """attrs' ``__init__`` source (``block``: its def line and body) rewritten (see above);
    None when it is not the shape expected."""
    # "_setattr('name', value)" at any indentation is a field's store
    body: list[tuple[str, str, str]] = []   # (indent, field name or "", value or the line)
    for line in block[1:]:
        stripped = line.lstrip(" ")
        if stripped.startswith(_SETATTR_LINE):
            name, sep, rest = stripped[len(_SETATTR_LINE):].partition("', ")
            descr = getattr(cls, name, None) if sep and name.isidentifier() else None
            value = rest.rstrip("\n")
            if type(descr) is not types.MemberDescriptorType or not value.endswith(")"):
                return None
            body.append((line[:len(line) - len(stripped)], name, value[:-1]))
        elif line == _SETATTR_GET:
            continue
        elif "_setattr" in line:   # used some other way (a cached hash): keep attrs' own
            return None
        else:
            body.append(("", "", line))
    named = [i for i, (_, name, _) in enumerate(body) if name]
    if not named:
        return None
    last = named[-1]
    out = [block[0],
           "    if _ks_type(self) is _ks_cls:\n        _ks_set_class(self, _ks_twin)\n"
           "        try:\n"]
    out += [f"        {ind}self.{name} = {value}\n" if name else f"        {value}"
            for ind, name, value in body[:last + 1]]
    out.append("        finally:\n            _ks_set_class(self, _ks_cls)\n    else:\n"
               "        if _ks_type(self) is _ks_cold:\n            _ks_warm()\n")
    out += [f"    {ind}_slot_set_{name}(self, {value})\n" if name else f"    {value}"
            for ind, name, value in body[:last + 1]]
    out += [value for _, _, value in body[last + 1:]]
    return "".join(out)


def _code_key(code: types.CodeType) -> str:
    """A text that changes with the code (bytecode, names, constants, nested code), the same
    in every process (no addresses)."""
    consts = [_code_key(c) if isinstance(c, types.CodeType) else repr(c)
              for c in code.co_consts]
    return f"{code.co_code.hex()}|{code.co_names}|{consts}"


_REWRITER_KEY = f"{zlib.crc32(_code_key(_rewritten_init.__code__).encode()):08x}\0"


def _install_slot_setter_init(cls: Any) -> None:
    init = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    if code is None or code.co_name != "__init__":
        return
    entry: Any = linecache.cache.get(code.co_filename)   # attrs puts its source there
    if entry is None or len(entry) != 4:
        return
    lines = entry[2]
    first = code.co_firstlineno - 1
    if not 0 <= first < len(lines) or not lines[first].startswith("def __init__(self"):
        return
    end = first + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][0].isspace()):
        end += 1
    if any(n.startswith("_ks_") for n in code.co_varnames):
        return   # (a field may be called "type": builtins are reached by _ks_ names)
    block = lines[first:end]
    filename = f"<ksandbox slot-setter init {cls.__module__}.{cls.__qualname__}>"
    sources: list[str] = []

    def rewrite() -> str | None:
        src = _rewritten_init(cls, block)
        if src is not None:
            sources.append(src)
        return src

    # the rewrite depends only on attrs' source of this __init__, the class's name (in the
    # file name) and the rewriting code itself (its bytecode and constants: another version of
    # ksandbox makes another key): kept in the methods cache, so a start does no string work
    compiled = methods_cache.compile_derived(filename, _REWRITER_KEY + "".join(block), rewrite)
    if compiled is None:
        return
    globs = init.__globals__
    namespace: dict[str, Any] = {}
    exec(compiled, globs, namespace)  # noqa: S102 - attrs' own source, rewritten
    fast = namespace.get("__init__")
    if fast is None:
        return
    setters: dict[str, Any] = {}
    for name in fast.__code__.co_names:
        if name.startswith("_slot_set_"):
            descr = getattr(cls, name[len("_slot_set_"):], None)
            if type(descr) is not types.MemberDescriptorType:
                return
            setters[name] = descr.__set__
    names = {**setters, "_ks_cls": _Never, "_ks_twin": None, "_ks_set_class": _SET_CLASS,
             "_ks_type": type, "_ks_cold": cls, "_ks_warm": _warmer(cls, globs)}
    if not setters or any(k in globs for k in names):
        return   # a name of the class's module (attrs' globals start as its copy)
    globs.update(names)
    fast.__defaults__ = init.__defaults__
    fast.__kwdefaults__ = init.__kwdefaults__
    fast.__annotations__ = init.__annotations__
    fast.__qualname__ = init.__qualname__
    fast.__module__ = init.__module__
    fast.__doc__ = init.__doc__
    if sources:   # (made in this process: tracebacks show its lines)
        linecache.cache[filename] = (len(sources[0]), None, sources[0].splitlines(True),
                                     filename)
    PLAIN_INITS[cls] = init
    _INIT_BLOCKS[cls] = block
    cls.__init__ = fast


if TYPE_CHECKING:
    # The type checker's attrs plugin knows attrs.frozen, not our wrapper: to it, an api_type
    # is a frozen attrs class whose j(...) and extra_field() are plain defaults.
    from attrs import frozen as api_type
else:
    api_type = _api_type






# -- decoders -------------------------------------------------------------------------------
Decoder = Callable[[Any, str], Any]


def _dec_str(v: Any, path: str) -> str:
    if isinstance(v, str):
        strings = _strings
        if strings is not None and len(v) <= _SHARED_STR_MAX:
            # one str object per distinct value while a file loads (codec.sharing): a
            # parser makes a new one per occurrence — 150,000 nodeNames naming 5,000 nodes
            return strings.setdefault(v, v)
        return v
    raise _wrong(path, v, "string", "string")


class NumberRangeError(FieldError):
    """A number the Go type of its field cannot hold. The API server's JSON decoder refuses it
    before validation with encoding/json's UnmarshalTypeError (``json: cannot unmarshal number
    99999999999999999999999 into Go struct field PodSpec.spec.priority of type int32``);
    :meth:`json_message` is that text, which the manifest loader wraps as the API server does."""

    def __init__(self, path: str, value: Any, owner: str, bits: int) -> None:
        self.owner = owner
        self.bits = bits
        n = int(value)
        self.shown = int_text(n) if n.bit_length() < 1000 else f"{float(n):g}" \
            if n.bit_length() < 1020 else int_text(n)
        super().__init__(path, n, f"must fit in a {bits}-bit integer")

    def json_message(self, root: str = "") -> str:
        """encoding/json's text; ``root`` is the path of the object itself (``items[3]`` in a
        List, whose items kubectl sends one by one). The field is named by its JSON path
        without list indexes, as encoding/json does."""
        return (f"json: cannot unmarshal number {self.shown} into Go struct field "
                f"{self.owner}.{go_field_path(self.path, root)} of type int{self.bits}")


def _int_decoder(bits: int, owner: str) -> Decoder:
    """A Go intN field of struct ``owner``: an integer (or an integral float) in range."""
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    go_type = f"int{bits}"

    def dec_int(v: Any, path: str) -> int:
        if isinstance(v, int) and not isinstance(v, bool):
            n = v
        elif isinstance(v, float) and v.is_integer():
            n = int(v)
        else:
            raise _wrong(path, v, "integer", go_type, owner)
        if low <= n <= high:
            return n
        raise NumberRangeError(path, n, owner, bits)

    return dec_int


_dec_int = _int_decoder(64, "")


def _dec_float(v: Any, path: str) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise _wrong(path, v, "number", "float64")


def _dec_bool(v: Any, path: str) -> bool:
    if isinstance(v, bool):
        return v
    raise _wrong(path, v, "boolean", "bool")


def _dec_any(v: Any, path: str) -> Any:
    return freeze(v)


def _dec_int_or_string(v: Any, path: str) -> int | str:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise _wrong(path, v, "integer or string")
    return v


def _dec_str_map(v: Any, path: str) -> FrozenDict:
    if v is None:
        return EMPTY
    if not isinstance(v, dict):
        raise _wrong(path, v, "object", "map[string]string")
    table = _shared
    key = None
    if table is not None and v:
        # a map met before is not checked again: the table holds only maps of strings
        # (checked below before one is put there), and no other value equals a string — so
        # a hit is these very strings, in this order
        key = tuple(v.items())
        try:
            hit = table.get(key)
        except TypeError:   # an unhashable value (a list): the check below says so
            hit = None
        if hit is not None:
            return hit
    for k, val in v.items():
        if not isinstance(k, str):
            raise _wrong(path, k, "string key")
        if not isinstance(val, str):
            raise _wrong(f"{path}.{k}", val, "string", "string", go_path=path)
    if not v:
        return EMPTY
    if table is None:
        return FrozenDict(v)
    # strings only (checked above), in their order: equal keys mean an identical FrozenDict
    return _share_value(table, key, lambda: FrozenDict(v))


# -- sharing equal values while a file loads --------------------------------------------------
# A cluster export repeats itself: 150,000 pods from ~100 templates hold ~100 distinct
# container lists and label sets. Within ``sharing()`` (the manifest loader's), a list or string
# map whose text was decoded before gives back the value decoded then, so pods of a template
# share one frozen tuple of containers (and the API server's defaults, computed by identity —
# evolve.by_identity — are shared too). The key is the *plain* data itself (``repr`` of lists,
# dicts, str, int, float, bool and None tells every distinct value apart, types and key order
# included), never the decoded value's equality (``extra`` is left out of attrs' ``==``). Only
# a successful strict decode (the manifest loader's) that recorded no unknown field is
# remembered: an error, or an unknown-field report, always comes from decoding the data itself.
_shared: dict[Any, Any] | None = None
SHARED_LIMIT = 4096
# API types shared whole, not only their lists and maps (register_shared): a pod's spec.
SHARED_TYPES: set[type] = set()
# Their values while a load runs, by type: {key of the data: value} and [tries, hits] (the
# key: _plain_key). The
# table holds more than SHARED_LIMIT: 150,000 pods on 5,000 nodes from 100 templates are
# 5,000 distinct pod specs met round-robin, and a table that starts over sooner would lose
# each one before it comes back. A type whose values hardly repeat (a real export's pods
# each carry their own token volume) stops being looked up after SHARE_PROBE tries with
# fewer than one hit in SHARE_MIN_RATE — the key then costs more than it saves — and its
# table is dropped.
_share_types: dict[type, tuple[dict[Any, Any], list[int]]] | None = None
SHARED_TYPE_LIMIT = 1 << 14
SHARE_PROBE = 8192
SHARE_MIN_RATE = 8
# Plain values a parser hands out again for the same text (safeload.JsonList's specs, kept
# by :func:`keep`), by id: [value, type, decoded value] — the value held, so its id is no
# other object's. A shared type's value decoded once from one of them is that value's for
# every item that holds it, found without its key (a marshal of the data: ~10k instructions
# a pod). Within ``sharing()``; emptied when it holds SHARED_TYPE_LIMIT.
_kept: dict[int, list[Any]] | None = None
# the strings of typed str fields (names, nodeName, image, phase...), for as long as the load
_strings: dict[str, str] | None = None
_SHARED_STR_MAX = 256


@contextmanager
def sharing() -> Iterator[None]:
    """Within the block, equal plain sub-values decode to one shared frozen value."""
    global _shared, _strings, _share_types, _kept
    outer, outer_strings, outer_types, outer_kept = _shared, _strings, _share_types, _kept
    if outer is None:
        _shared, _strings, _share_types, _kept = {}, {}, {}, {}
    try:
        yield
    finally:
        _shared, _strings, _share_types, _kept = outer, outer_strings, outer_types, outer_kept


def keep(v: Any) -> None:
    """Within ``sharing()``: the parser will hand out the plain value ``v`` (the very
    object) again, for the same text (safeload.JsonList's ``kept``); the shared type decoded
    from it is then found by its identity (shared_decode). Nothing outside sharing()."""
    kept = _kept
    if kept is not None:
        if len(kept) >= SHARED_TYPE_LIMIT:
            kept.clear()
        kept[id(v)] = [v, None, None]


def register_shared(cls: type) -> type:
    """Decode ``cls`` (an API type, where it is a field of another) to one shared frozen
    value per distinct plain text inside ``sharing()``: pods of one template on one node
    then share their PodSpec, and everything computed from it by identity (the API server's
    defaults, validation, the requests). Values are equal either way; only identity is
    shared."""
    SHARED_TYPES.add(cls)
    return cls


def _shared_decoder(tp: type) -> Decoder:
    def dec_shared(v: Any, path: str) -> Any:
        return shared_decode(tp, v, lambda data: decode(tp, data, path))

    return dec_shared


def shared_decode(tp: type, v: Any, build: Callable[[Any], Any]) -> Any:
    """The value of ``tp`` decoded from ``v`` by ``build(v)``, shared within ``sharing()``
    (register_shared): the plain decoder's way and the compiled one's (codec_shapes) alike."""
    types = _share_types
    if types is None or not isinstance(v, dict) or not v:
        return build(v)
    kept = _kept
    if kept:
        entry = kept.get(id(v))
        if entry is not None:   # (held by the entry: v itself)
            if entry[1] is tp:
                return entry[2]
            if entry[1] is None:
                sink = _strict_sink
                before = len(sink) if sink is not None else 0
                out = _shared_by_key(tp, v, build, types)
                if sink is not None and len(sink) == before:   # as _share_value
                    entry[1], entry[2] = tp, out
                return out
    return _shared_by_key(tp, v, build, types)


def _shared_by_key(tp: type, v: dict, build: Callable[[Any], Any],
                   types: dict[type, tuple[dict[Any, Any], list[int]]]) -> Any:
    """shared_decode's lookup by the data's key (_plain_key)."""
    state = types.get(tp)
    if state is None:
        state = types[tp] = ({}, [0, 0])
    table, counts = state
    tries, hits = counts
    if tries >= SHARE_PROBE and hits * SHARE_MIN_RATE < tries:
        if table:
            table.clear()   # this load's values do not repeat: stop looking
        return build(v)
    key = _plain_key(v)
    hit = table.get(key)
    if hit is not None:
        counts[0] = tries + 1
        counts[1] = hits + 1
        return hit
    sink = _strict_sink
    before = len(sink) if sink is not None else 0
    out = build(v)   # (a try counts once it is done: a build the caller redoes is not two)
    counts[0] += 1
    if sink is not None and len(sink) == before:   # as _share_value
        if len(table) >= SHARED_TYPE_LIMIT:
            table.clear()
        table[key] = out
    return out


def _plain_key(v: Any) -> Any:
    """A key for parsed plain data that is equal only for equal data of equal types (True,
    1, 1.0 and "1" apart; keys in order): its marshal bytes (version 2: no back-references,
    so they do not depend on which objects are shared), ~2.5x quicker than its repr, which
    every pod of a load paid for its spec. Equal data may still give two keys (a string
    interned in one, not in the other): then it is only not shared. Data marshal does not
    take (never from the parsers) keys by its repr — a str, never equal to bytes."""
    try:
        return marshal.dumps(v, 2)
    except ValueError:
        return repr(v)


def _share_value(table: dict[Any, Any], key: Any, build: Callable[[], Any]) -> Any:
    hit = table.get(key)
    if hit is not None:
        return hit
    sink = _strict_sink
    before = len(sink) if sink is not None else 0
    out = build()
    if sink is not None and len(sink) == before:
        if len(table) >= SHARED_LIMIT:
            table.clear()
        table[key] = out
    return out


def _dec_resource_list(v: Any, path: str) -> FrozenDict:
    if v is None:
        return EMPTY
    if not isinstance(v, dict):
        raise _wrong(path, v, "object", "v1.ResourceList")
    table = _shared
    if table is None or not v:
        return _resource_list(v, path)
    # shared like a string map (repr tells "4", 4 and 4.0 apart): 5,000 nodes of a few
    # shapes hold a few capacity maps, and what is computed from one by identity (the
    # kubelet's reported resources) is computed once per shape
    return _share_value(table, (_dec_resource_list, repr(v)), lambda: _resource_list(v, path))


def _resource_list(v: dict, path: str) -> FrozenDict:
    from .quantity import Quantity, QuantityError

    out = {}
    for k, val in v.items():
        if not isinstance(k, str):
            raise _wrong(path, k, "string key")
        if isinstance(val, bool) or not isinstance(val, (str, int, float)):
            raise _wrong(f"{path}.{k}", val, "quantity")
        try:
            out[k] = Quantity.coerce(val)
        except (QuantityError, ValueError) as exc:
            raise FieldError(f"{path}.{k}", val, str(exc)) from None
    return FrozenDict(out) if out else EMPTY


def freeze(v: Any) -> Any:
    """Deep-freeze plain YAML data (lists → tuples, dicts → FrozenDict)."""
    if isinstance(v, dict):
        return FrozenDict({k: freeze(x) for k, x in v.items()})
    if isinstance(v, list):
        return tuple(freeze(x) for x in v)
    return v


def thaw(v: Any) -> Any:
    """The inverse of :func:`freeze`, for output."""
    if isinstance(v, dict):
        return {k: thaw(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return [thaw(x) for x in v]
    return v


_SCALARS: dict[Any, Decoder] = {str: _dec_str, int: _dec_int, float: _dec_float,
                                bool: _dec_bool, Any: _dec_any}


def go_type_name(tp: Any) -> str:
    """The Go type encoding/json names for a field typed ``tp`` (k8s.io/api's: ``[]v1.Toleration``,
    ``map[string]string``, ``v1.PodSpec``); "" when the sandbox cannot say it for sure (then
    a wrong value is refused in the sandbox's own words)."""
    if tp in _GO_SCALARS:
        return _GO_SCALARS[tp]
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        marker = tp.__metadata__[0]
        return {ResourceListMarker: "v1.ResourceList", Int32Marker: "int32",
                IntOrStringMarker: "intstr.IntOrString"}.get(marker, "")
    if origin in (Union, types.UnionType):   # a pointer: Go names the type pointed to
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return go_type_name(args[0]) if len(args) == 1 else ""
    if origin is tuple:
        item = go_type_name(typing.get_args(tp)[0])
        return f"[]{item}" if item else ""
    if tp is FrozenDict or origin in (dict, Mapping, typing.Mapping) or tp is dict:
        return "map[string]string"
    if attrs.has(tp):
        return go_struct_name(tp)
    return ""


_GO_SCALARS: dict[Any, str] = {str: "string", int: "int64", float: "float64", bool: "bool"}
# autoscaling's HorizontalPodAutoscaler types serve v1 and v2 (v2.MetricSpec, ...): which
# package's type the server decodes into depends on the request, so no Go name is given
_NO_GO_NAME = ("HorizontalPodAutoscaler", "CrossVersionObjectReference")


def go_struct_name(cls: type) -> str:
    """``v1.PodSpec`` for an API struct ("" for the HorizontalPodAutoscaler types)."""
    name = cls.__name__
    return "" if name.startswith(_NO_GO_NAME) else f"v1.{name}"


def _decoder_for(tp: Any, owner: str = "") -> Decoder:
    """The decoder of a field typed ``tp`` in the API type named ``owner`` (for messages)."""
    if tp is int:
        return _int_decoder(64, owner)
    if tp in _SCALARS:
        return _SCALARS[tp]
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        marker = tp.__metadata__[0]
        if marker is ResourceListMarker:
            return _dec_resource_list
        if marker is IntOrStringMarker:
            return _dec_int_or_string
        if marker is Int32Marker:
            return _int_decoder(32, owner)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            inner = _decoder_for(args[0], owner)

            def dec_optional(v: Any, path: str) -> Any:
                return None if v is None else inner(v, path)

            dec_optional.__wrapped__ = inner   # type: ignore[attr-defined]  # codec_shapes
            return dec_optional
        if set(args) == {int, str}:
            return _dec_int_or_string
        raise TypeError(f"unsupported union {tp}")
    if origin is tuple:
        item = _decoder_for(typing.get_args(tp)[0], owner)
        go_slice = go_type_name(tp)

        def dec_tuple(v: Any, path: str) -> tuple:
            if v is None:
                return ()
            if not isinstance(v, list):
                raise _wrong(path, v, "array", go_slice)
            table = _shared
            if table is None or not v:
                return tuple(item(x, f"{path}[{i}]") for i, x in enumerate(v))
            return _share_value(table, (dec_tuple, repr(v)), lambda: tuple(
                item(x, f"{path}[{i}]") for i, x in enumerate(v)))

        dec_tuple.item = item   # type: ignore[attr-defined]  # codec_shapes reads it
        return dec_tuple
    if tp is FrozenDict or origin in (dict, Mapping, typing.Mapping) or tp is dict:
        return _dec_str_map
    if attrs.has(tp):
        if tp in SHARED_TYPES:
            return _shared_decoder(tp)
        return lambda v, path: decode(tp, v, path)
    raise TypeError(f"unsupported field type {tp!r}")


class _Compiled:
    __slots__ = ("fields", "by_json", "has_extra", "required")

    def __init__(self, cls: type) -> None:
        module = sys.modules[cls.__module__]
        hints = typing.get_type_hints(cls, vars(module), include_extras=True)
        self.fields: list[tuple[str, str, Decoder, bool, Any]] = []
        self.by_json: dict[str, tuple[str, Decoder]] = {}
        self.has_extra = False
        for f in attrs.fields(cls):
            if _JSON not in f.metadata:
                continue
            key = f.metadata[_JSON]
            if key is None:
                self.has_extra = True
                continue
            dec = _decoder_for(hints[f.name], cls.__name__)
            default = f.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory()
            self.fields.append((f.name, key, dec, f.metadata[_OMIT], default))
            self.by_json[key] = (f.name, dec)


_compiled: dict[type, _Compiled] = {}


def _compile(cls: type) -> _Compiled:
    c = _compiled.get(cls)
    if c is None:
        c = _compiled[cls] = _Compiled(cls)
    return c


# Strict decoding (``ksandbox.api.strict``): class -> the JSON fields upstream's type has. A key
# a listed class does not know is recorded in the active sink (a list of field paths) while
# ``strict_decode`` runs; classes not listed keep every unknown key in ``extra`` silently.
STRICT_FIELDS: dict[type, frozenset[str]] = {}
# The fields of those classes the sandbox does not model (kept in ``extra``): field -> (the JSON
# kind its Go type decodes from, the Go type), so a value of another kind is refused as the
# API server's decoder refuses it. What is inside such a value is not checked.
EXTRA_SHAPES: dict[type, dict[str, tuple[str, str]]] = {}
# Modelled string fields whose Go type is a named one (``imagePullPolicy``: ``v1.PullPolicy``),
# which encoding/json names when the value is of another kind (strict.py fills it).
GO_FIELD_TYPES: dict[type, dict[str, str]] = {}

_strict_sink: list[str] | None = None


def json_kind_is(value: Any, kind: str) -> bool:
    """Whether a decoded JSON value is of ``kind`` (a :func:`errors.type_name` name)."""
    if kind == "integer":
        return (type(value) is int) or (type(value) is float and value.is_integer())
    return type_name(value) == kind


def strict_decode(cls: type, data: Any, path: str = "") -> tuple[Any, list[str]]:
    """``decode`` that also returns the paths of the fields upstream's type does not have."""
    global _strict_sink
    outer, _strict_sink = _strict_sink, []
    try:
        obj = decode(cls, data, path)
        return obj, _strict_sink
    finally:
        _strict_sink = outer


class ShapeMiss(Exception):
    """The compiled decoder (codec_shapes) gives the object to the plain one."""


# class -> its compiled decoder, made at its first decode by ``compile_class`` — which
# codec_shapes sets when it is imported (the manifest loader imports it); None: plain only
_FAST: dict[type, Callable[[Any], Any]] = {}
compile_class: Callable[[type], Callable[[Any], Any]] | None = None


def decode(cls: type, data: Any, path: str = "") -> Any:
    """Build ``cls`` from a YAML mapping; raise FieldError naming the first bad field.

    The decoder compiled for the mapping's keys (codec_shapes) builds it without the paths
    of its fields; anything it does not take as it comes — a problem, an unknown field to
    report — is decoded again by the plain loop below, which names the path."""
    fast = _FAST.get(cls)
    if fast is None:
        if compile_class is None:
            return decode_plain(cls, data, path)
        fast = _FAST[cls] = compile_class(cls)
    try:
        return fast(data)
    except (ShapeMiss, FieldError, TypeError, ValueError):
        pass
    return decode_plain(cls, data, path)


def decode_plain(cls: type, data: Any, path: str = "") -> Any:
    """:func:`decode` field by field, with each field's path (what a compiled decoder is
    held to: tests/api/test_codec_shapes.py)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise _wrong(path or "<root>", data, "object", go_struct_name(cls) if path else "")
    c = _compile(cls)
    kwargs: dict[str, Any] = {}
    extra = None
    prefix = f"{path}." if path else ""
    by_json = c.by_json
    for key, value in data.items():
        spec = by_json.get(key)
        if spec is None:
            if extra is None:
                extra = {}
            shape = EXTRA_SHAPES.get(cls)
            if shape is not None and value is not None and key in shape and \
                    not json_kind_is(value, shape[key][0]):
                raise _wrong(prefix + key, value, shape[key][0], shape[key][1], cls.__name__)
            extra[key] = freeze(value)
            if _strict_sink is not None and cls in STRICT_FIELDS and \
                    key not in STRICT_FIELDS[cls]:
                _strict_sink.append(prefix + key)
            continue
        name, dec = spec
        if value is None:
            continue
        try:
            kwargs[name] = dec(value, prefix + key)
        except GoTypeError as exc:
            if not exc.owner:   # the innermost type holding the field (encoding/json's)
                exc.owner = cls.__name__
                named = GO_FIELD_TYPES.get(cls)
                if named is not None and key in named and exc.path == prefix + key:
                    exc.go_type = named[key]   # a named string type: v1.PullPolicy
            raise
    if extra and c.has_extra:
        kwargs["extra"] = FrozenDict(extra)
    try:
        return cls(**kwargs)
    except FieldError:
        raise
    except (TypeError, ValueError) as exc:  # a converter or validator refused a value
        raise FieldError(path or "<root>", None, str(exc)) from None


def _is_empty(v: Any) -> bool:
    return v is None or v == "" or v == 0 and not isinstance(v, float) or v is False \
        or (isinstance(v, (tuple, list, dict)) and not v)


def encode(obj: Any) -> Any:
    """The manifest form of an API value: camelCase keys, empty fields left out."""
    if obj is None or isinstance(obj, (str, int, float)):
        return obj
    if hasattr(obj, "__ksandbox_encode__"):
        return obj.__ksandbox_encode__()
    if attrs.has(type(obj)):
        c = _compile(type(obj))
        out: dict[str, Any] = {}
        for name, key, _dec, omit, _default in c.fields:
            v = getattr(obj, name)
            if omit and _is_empty(v):
                continue
            if v is None:
                continue
            out[key] = encode(v)
        if c.has_extra:
            for k, v in obj.extra.items():
                out.setdefault(k, thaw(v))
        return out
    if isinstance(obj, tuple):
        return [encode(x) for x in obj]
    if isinstance(obj, dict):
        return {k: encode(v) for k, v in obj.items()}
    return str(obj)  # Quantity and other scalar-like values print their canonical form
