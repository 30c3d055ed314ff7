"""Reading manifests: multi-document YAML and ``kind: List`` into typed objects.

``load_manifests(text, source)`` returns every object of a file or refuses the whole file with
one :class:`ManifestError` naming the file, the document (1-based) and the field path — the
loader is all-or-nothing so a bad document never leaves half a file applied. Text is parsed
only by ``safeload`` (limits on size, depth and aliases; duplicate keys refused).
Configuration documents (KubeSchedulerConfiguration, Policy, KubeletConfiguration) come back as :class:`ConfigDocument` for their component to read.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any, Iterable, NamedTuple

import attrs

from .. import gcpolicy
from . import (
    codec,
    codec_shapes,  # noqa: F401 - codec.decode's compiled decoders
    loadprogress,
)
from .codec import NumberRangeError, sharing, strict_decode
from .errors import FieldError, GoTypeError, ManifestError, ServerDecodeError
from .kinds import BY_KIND, CONFIG_KINDS
from .safeload import Documents, JsonList, NotStreamable, looks_like_json, read_source
from .strict import strict_error


@attrs.frozen
class ConfigDocument:
    """A component configuration (not an API object), kept as plain data."""

    kind: str
    api_version: str
    data: dict
    source: str
    document: int


def iter_documents(text: str, source: str) -> Documents:
    """(document number, data) for each non-empty document, through the safe loader (size,
    depth, alias and duplicate-key limits: see safeload.py), parsed as it is iterated."""
    return Documents(text, source)


def decode_object(data: Any, source: str, doc: int, path: str = "") -> Any:
    """One mapping → a typed object (or ConfigDocument); ManifestError on any problem."""
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise ManifestError(source, doc, f"{path or 'document'}: expected a mapping (an object "
                                         f"with apiVersion and kind), got {kind}")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not api_version or not kind:
        missing = [f"{f} not set" for f, v in (("apiVersion", api_version), ("kind", kind))
                   if not v]
        raise ManifestError(source, doc, f"error validating data: [{', '.join(missing)}]")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise ManifestError(source, doc, "apiVersion and kind must be strings")
    if kind in CONFIG_KINDS and api_version in CONFIG_KINDS[kind]:
        return ConfigDocument(kind, api_version, data, source, doc)
    info = BY_KIND.get(kind)
    if info is None or api_version not in info.versions:
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        raise ManifestError(source, doc, f'resource mapping not found for name: '
                                         f'"{meta.get("name", "")}": no matches for kind '
                                         f'"{kind}" in version "{api_version}"')
    prefix = f"{path}." if path else ""

    def refused_by_the_server(answer: str) -> ServerDecodeError:
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        name, namespace = meta.get("name"), meta.get("namespace")
        where = f"{path}: " if path else ""
        return ServerDecodeError(source, doc, where + answer, answer=answer, kind=kind,
                                 name=name if isinstance(name, str) else "",
                                 namespace=namespace if isinstance(namespace, str) else "",
                                 data=data)

    try:
        obj, unknown = strict_decode(info.type, data, path)
    except FieldError as exc:
        if isinstance(exc, NumberRangeError) or isinstance(exc, GoTypeError) and exc.owner:
            # a number out of its Go type's range, a value of the wrong JSON kind: the API
            # server's JSON decoder refuses it before validation (a 400, not a 422)
            version = api_version.rsplit("/", 1)[-1]
            raise refused_by_the_server(f"{kind} in version \"{version}\" cannot be handled "
                                        f"as a {kind}: {exc.json_message(path)}") from None
        raise ManifestError(source, doc, f"{prefix}{exc}" if path and not str(exc).startswith(path)
                            else str(exc)) from None
    if unknown:
        # Paths inside a List item are the item's own, as the server decodes each object.
        n = len(prefix)
        raise refused_by_the_server(strict_error(kind, api_version,
                                                 [u[n:] if n else u for u in unknown]))
    if not obj.metadata.name and not obj.metadata.generate_name:
        raise ManifestError(source, doc, f"{prefix}metadata.name: Required value: name or "
                                         f"generateName is required")
    return obj


class KnownKinds:
    """:func:`decode_object` for the many objects of one load, with what it found out about
    their ``(apiVersion, kind)`` kept: a pair it decoded as an API object once (a string
    pair, not a configuration, a kind and version the API has) passes the same checks every
    time — they read nothing else — so the next object of that pair goes straight to the
    strict decode. Whatever that decode does not take as it comes (an unknown field, no
    name, a refusal) is decoded again by decode_object, which says what is wrong; so an
    object comes out exactly as decode_object gives it (tests/api/test_known_kinds.py).
    A 150,000-pod export asked BY_KIND, the versions and the kind's class of each pod."""

    __slots__ = ("_types",)

    def __init__(self) -> None:
        self._types: dict[tuple[Any, Any], type] = {}   # (str, str) pairs

    def decode(self, data: Any, source: str, doc: int) -> Any:
        """decode_object(data, source, doc)."""
        if type(data) is dict:
            try:
                cls = self._types.get((data.get("apiVersion"), data.get("kind")))
            except TypeError:   # an unhashable apiVersion or kind: decode_object refuses it
                cls = None
            if cls is not None:
                try:
                    obj, unknown = strict_decode(cls, data)
                except FieldError:
                    obj = unknown = None
                if not unknown and obj is not None and \
                        (obj.metadata.name or obj.metadata.generate_name):
                    return obj
        obj = decode_object(data, source, doc)
        if not isinstance(obj, ConfigDocument):
            self._types[(data["apiVersion"], data["kind"])] = type(obj)
        return obj


class Origin(NamedTuple):
    """Where an object came from, so a later refusal can name the file and document.

    ``item``: the object is item N of a ``kind: List`` document (its path is ``items[N]``);
    the path's text is made only when it is read — a 150,000-item export held 150,000 path
    strings (~60 bytes each) through its load for the one refusal that might name one.

    A named tuple, made in the loader's loops by :data:`_origin` (tuple.__new__, no Python
    frame): an attrs class was ~5.6k instructions per object of a load, ~0.7k this way."""

    source: str
    document: int | None = None
    item: int | str | None = None

    @property
    def path(self) -> str:
        if self.item is None:
            return ""
        # an item of a List nested in the document's List is named by its path (a str)
        return self.item if isinstance(self.item, str) else f"items[{self.item}]"

    def error(self, message: str) -> ManifestError:
        where = f"{self.path}: " if self.path else ""
        return ManifestError(self.source, self.document, where + message)


# Origin(source, document, item) as tuple.__new__ makes it: the three fields given, in order.
_origin: Any = tuple.__new__


def load_manifests_with_origins(text: str, source: str = "<stdin>") -> list[tuple[Any, Origin]]:
    """Every object in a YAML text (``kind: List`` expanded) with its origin."""
    gcpolicy.tune()  # parsing makes millions of objects: see gcpolicy.py
    with gcpolicy.decoding(len(text)):
        if looks_like_json(text):
            try:
                return _decode_json_list(text, source)
            except NotStreamable:   # not a List export as it reads them: the plain way says it
                pass
        return decode_documents(iter_documents(text, source), source)


def _decode_json_list(text: str, source: str) -> list[tuple[Any, Origin]]:
    """A JSON List export decoded item by item as it is parsed (safeload.JsonList), so the
    whole parsed export is never held: the same objects and origins as parsing it first, and
    the same refusal — a refused item is reported only once the rest has parsed (if it does
    not, the plain way reports that)."""
    stream = JsonList(text, kept=codec.keep)   # (a spec met again: one value, one decode)
    out: list[tuple[Any, Origin]] = []
    failed: ManifestError | None = None
    report = loadprogress.current()
    if report is not None:   # parsing and decoding are one pass: progress by characters
        report(loadprogress.PARSING, 0, len(text))
    step = loadprogress.STEP
    known = KnownKinds()
    nested: list[tuple[str, Any]] = []   # Lists among the items: flattened after them
    with sharing():
        for i, (item, end) in enumerate(stream.items()):
            if failed is not None:
                continue   # the rest must still parse
            try:
                try:
                    obj = known.decode(item, source, 1)   # without its path: see below
                except ManifestError:
                    if _is_list(item):
                        nested.append((f"items[{i}]", item))
                        continue
                    obj = decode_object(item, source, 1, f"items[{i}]")
            except ManifestError as exc:
                failed = exc
                continue
            out.append((obj, _origin(Origin, (source, 1, i))))
            if report is not None and not len(out) % step:
                report(loadprogress.PARSING, end, len(text))
        if failed is None and nested:
            try:
                for path, item in _flattened(nested, source, 1):
                    out.append((decode_object(item, source, 1, path),
                                _origin(Origin, (source, 1, path))))
            except ManifestError as exc:
                failed = exc
    if failed is not None:
        raise failed
    return out


def decode_documents(docs: Iterable[tuple[int, Any]], source: str) -> list[tuple[Any, Origin]]:
    """Parsed documents ``(number, data)`` → every object (``kind: List`` expanded) with its
    origin, or one ManifestError."""
    with sharing():  # pods of one template share their containers, labels, ...: codec.py
        return _decode_documents(docs, source)


def _decode_documents(docs: Iterable[tuple[int, Any]], source: str
                      ) -> list[tuple[Any, Origin]]:
    """Each document is decoded as it comes (``docs`` may parse it only then: a Documents
    stream), so the parsed data of the documents before it can go. A document the decoder
    refuses is reported only once the rest of the text has parsed: a parse error anywhere
    in the text is the one reported, as when every document was parsed before any was
    decoded."""
    out: list[tuple[Any, Origin]] = []
    report = loadprogress.current()
    total = 0
    expected = None
    if report is not None:
        expected = getattr(docs, "expected", None)
        if expected is None:  # JSON (one document), the plain path: count them first
            docs = list(docs)
            total = sum(_size(d) for _, d in docs)
        else:
            total = expected
    step = loadprogress.STEP
    it = iter(docs)
    last = 0
    known = KnownKinds()
    for doc, data in it:
        try:
            if expected is not None:
                # the stream's count included empty documents; a List counts its items
                total += _size(data) - (doc - last)
                last = doc
            _decode_document(doc, data, source, out, report, step, total, known)
        except ManifestError:
            del data
            for _ in it:   # the rest still parses: its parse error comes first
                pass
            raise
    return out


def _size(data: Any) -> int:
    """How many objects a document holds (a List's items)."""
    return len(data["items"]) if _is_list(data) and isinstance(data["items"], list) else 1


def _flattened(lists: list[tuple[str, Any]], source: str, doc: int
               ) -> list[tuple[str, Any]]:
    """The objects of Lists nested in a document's List, each with its path (``items[1].
    items[0]``), in the order kubectl visits them: cli-runtime's FlattenListVisitor takes a
    List's items in turn and puts the Lists among them at the back of its queue, so the
    objects of a nested List come after every object beside it (breadth first)."""
    out: list[tuple[str, Any]] = []
    queue = list(lists)
    for path, data in queue:   # (the queue grows as it is read)
        if not _is_list(data):
            out.append((path, data))
            continue
        items = data.get("items") or []
        if not isinstance(items, list):
            raise ManifestError(source, doc, f"{path}.items: expected a list")
        queue.extend((f"{path}.items[{i}]", item) for i, item in enumerate(items))
    return out


def _decode_document(doc: int, data: Any, source: str, out: list[tuple[Any, Origin]],
                     report: Any, step: int, total: int, known: KnownKinds) -> None:
    if _is_list(data):
        items = data.get("items") or []
        if not isinstance(items, list):
            raise ManifestError(source, doc, "items: expected a list")
        nested: list[tuple[str, Any]] = []
        for i, item in enumerate(items):
            try:
                # Decoded without its path first: every field's path string ("items[7].
                # spec.containers[0]...") is built only for an error message, and a
                # 150,000-item export would build millions. Decoding is deterministic, so
                # a refused item is decoded again with its path, for the message.
                obj = known.decode(item, source, doc)
            except ManifestError:
                if _is_list(item):   # a List in the List: kubectl flattens it (below)
                    nested.append((f"items[{i}]", item))
                    continue
                obj = decode_object(item, source, doc, f"items[{i}]")
            out.append((obj, _origin(Origin, (source, doc, i))))
            if report is not None and not len(out) % step:
                report(loadprogress.DECODING, len(out), total)
        for path, item in _flattened(nested, source, doc) if nested else ():
            out.append((decode_object(item, source, doc, path),
                        _origin(Origin, (source, doc, path))))
    else:
        out.append((known.decode(data, source, doc), _origin(Origin, (source, doc, None))))
        if report is not None and not len(out) % step:
            report(loadprogress.DECODING, len(out), total)


def _is_list(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == "List" and "items" in data


def load_manifests(text: str, source: str = "<stdin>") -> list[Any]:
    """Every object in a YAML text (``kind: List`` expanded), or one ManifestError."""
    return [obj for obj, _ in load_manifests_with_origins(text, source)]


def load_manifests_with_data(text: str, source: str = "<stdin>") -> list[tuple[Any, Any]]:
    """Every object of a YAML text with the document (or List item) it was decoded from, as
    plain data: kubectl apply remembers the manifest as written (commands/last_applied.py).
    The text is parsed a second time for the data: apply's files are small, and the load
    path (load_manifests_with_origins) keeps no document."""
    objs = load_manifests(text, source)
    data: list[Any] = []
    for number, doc in iter_documents(text, source):
        if _is_list(doc):
            items = doc.get("items") or []
            data.extend(item for item in items if not _is_list(item))
            nested = [(f"items[{i}]", item) for i, item in enumerate(items) if _is_list(item)]
            data.extend(item for _, item in _flattened(nested, source, number))
        else:
            data.append(doc)
    assert len(data) == len(objs)
    return list(zip(objs, data))


def read_text(path: str | Path, stdin: str | None = None) -> str:
    """A manifest file's text (``-`` is standard input), or kubectl's error for a path that
    does not exist; devices, FIFOs and oversized files are refused (safeload.read_source)."""
    return read_source(path, stdin)


def _source_name(path: str | Path) -> str:
    return "STDIN" if str(path) == "-" else str(path)


def load_file_with_origins(path: str | Path, stdin: str | None = None
                           ) -> list[tuple[Any, Origin]]:
    return load_manifests_with_origins(read_text(path, stdin), _source_name(path))


def load_file(path: str | Path, stdin: str | None = None) -> list[Any]:
    return load_manifests(read_text(path, stdin), _source_name(path))


_RAW = -zlib.MAX_WBITS   # SourceTexts: deflate without the zlib wrapper


class SourceTexts:
    """The texts a session was loaded from, kept compressed, to decode its objects again.

    A session keeps what it started from for replays, undo and recordings
    (``Session.initial_objects``). Keeping the decoded objects costs ~240 bytes per pod (a
    Pod and its ObjectMeta besides the stored ones: the API server's admission rebuilds
    both); the text, compressed as it is read, costs 10-20 bytes per pod of a big export
    (~0.3 CPU s for a 115 MiB JSON export) and decodes to the very same objects — decoding
    is deterministic and the text cannot change under the session. Immutable once built;
    forks share it.
    """

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        self._texts: list[tuple[str, bytes]] = []

    def add(self, source: str, text: str) -> None:
        # surrogatepass: any str read_source gives round-trips exactly. Raw deflate
        # (_RAW): no zlib header and no Adler-32 of the text (~3.5 instructions a byte, 0.4
        # G of a 115 MiB export) — the bytes never leave this object, so nothing can change
        # them for a checksum to catch.
        deflate = zlib.compressobj(1, zlib.DEFLATED, _RAW)
        data = deflate.compress(text.encode("utf-8", "surrogatepass"))
        self._texts.append((source, data + deflate.flush()))

    def objects(self) -> list[Any]:
        """The objects of the texts in order (their configuration documents left out), as
        the first load decoded them."""
        out: list[Any] = []
        for source, data in self._texts:
            text = zlib.decompress(data, wbits=_RAW).decode("utf-8", "surrogatepass")
            out.extend(o for o, _ in load_manifests_with_origins(text, source)
                       if not isinstance(o, ConfigDocument))
        return out

    def __deepcopy__(self, memo: Any) -> "SourceTexts":
        return self


def load_files_with_sources(paths: Iterable[str | Path], *, keep: bool = True
                            ) -> tuple[list[tuple[Any, Origin]], SourceTexts | None]:
    """Every object of the files (``load_file_with_origins`` each) and their texts kept for a
    session to decode again (SourceTexts); None for the texts when not ``keep`` (a run that
    never replays: the compression is ~2 % of a pod's cost in ``sim``)."""
    loaded: list[tuple[Any, Origin]] = []
    texts = SourceTexts() if keep else None
    for p in paths:
        text = read_text(p)
        name = _source_name(p)
        loaded.extend(load_manifests_with_origins(text, name))
        if texts is not None:
            texts.add(name, text)
    return loaded, texts
