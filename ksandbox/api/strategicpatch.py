"""Strategic merge patch over plain JSON values (apimachinery ``pkg/util/strategicpatch``).

Two halves, as upstream:

* :func:`apply_patch` — the API server's side (StrategicMergeMapPatch), what ``kubectl patch``
  sends and what ``kubectl apply`` sends: maps merge key by key and ``null`` deletes; the lists
  the API types mark ``patchStrategy: merge`` merge item by item on their ``patchMergeKey``
  (lists of scalars: a set union); every other list is replaced whole. The directives:
  ``$patch: replace|delete`` in a map or a list item, ``$retainKeys`` (a map keeps only those
  keys), ``$deleteFromPrimitiveList/<field>`` and ``$setElementOrder/<field>`` (the order of a
  merged list). A merged list's order is upstream's normalizeElementOrder: the patch's items in
  the patch's (or $setElementOrder's) order, the live object's other items slotted in by their
  live order — so a new item of a plain patch comes first, as with kubectl.
* :func:`three_way` — ``kubectl apply``'s patch (CreateThreeWayMergePatch): what changed from
  the live object to the new manifest, without deletions, plus what the manifest dropped since
  the last applied one. Fields nobody's manifest ever set (defaults, controllers' fields,
  ``kubectl label`` / ``scale`` changes the manifest does not name) stay.

The patch metadata upstream reads from the Go types' struct tags is the table below, keyed by
field name (the names are unambiguous in the kinds the sandbox has; ``ports`` is a container's
by ``containerPort`` and a Service's by ``port``).

Values are what ``json.loads`` gives (dict, list, str, int, float, bool, None); the functions
copy nothing they are handed except as said, and the results may share parts of the inputs.
"""

from __future__ import annotations

import copy
from typing import Any

from .errors import CommandError

# patchStrategy "merge" with its patchMergeKey (k8s.io/api struct tags).
MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name",
              "env": "name", "volumes": "name", "imagePullSecrets": "name",
              "volumeMounts": "mountPath", "volumeDevices": "devicePath",
              "conditions": "type", "ownerReferences": "uid",
              "topologySpreadConstraints": "topologyKey", "hostAliases": "ip",
              "resourceClaims": "name", "schedulingGates": "name"}
# patchStrategy "merge" on a list of scalars (ObjectMeta.Finalizers).
_SCALAR_SETS = frozenset({"finalizers"})
# patchStrategy "retainKeys": DeploymentSpec.Strategy (a map), PodSpec.Volumes' items.
_RETAIN_KEYS = frozenset({"strategy", "volumes"})

_DIRECTIVE = "$patch"
_RETAIN = "$retainKeys"
_DELETE_LIST = "$deleteFromPrimitiveList"
_ORDER = "$setElementOrder"


class PatchError(CommandError):
    """A patch the strategic merge cannot take (upstream's mergepatch errors)."""


def merge_key(field: str, items: list) -> str | None:
    """The patchMergeKey of a list field (None: not a merging list of maps)."""
    if field == "ports":
        return "containerPort" if any(isinstance(i, dict) and "containerPort" in i
                                      for i in items) else "port"
    return MERGE_KEYS.get(field)


def _strategy(field: str, items: list) -> tuple[str, str]:
    """(patch strategy, merge key) of a list field: ("merge", key), ("merge", "") for a set of
    scalars, ("", "") for a list replaced whole."""
    key = merge_key(field, items)
    if key is not None:
        return "merge", key
    if field in _SCALAR_SETS:
        return "merge", ""
    return "", ""


def _go_type(v: Any) -> Any:
    """The Go type json.Unmarshal gives a value (apimachinery's: integral numbers int64)."""
    t = type(v)
    return int if t is float and v.is_integer() else t


def _v(x: Any) -> str:
    """fmt's %v of a scalar, the text upstream sorts merge keys and scalars by."""
    if x is True:
        return "true"
    if x is False:
        return "false"
    if x is None:
        return "<nil>"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


# -- the server's side: applying a patch ------------------------------------------------------

def apply_patch(original: Any, patch: Any) -> Any:
    """StrategicMergeMapPatch(original, patch): the patched value (``original`` is copied)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    target = copy.deepcopy(original) if isinstance(original, dict) else {}
    return _merge_map(target, copy.deepcopy(patch), server=True)


def _merge_map(original: dict | None, patch: dict, server: bool) -> dict:
    """mergeMap; ``server``: MergeParallelList and IgnoreUnmatchedNulls (the API server's
    merge) — else the client's merge of two patches (three_way). Mutates both."""
    if _DIRECTIVE in patch:
        directive = patch[_DIRECTIVE]
        if directive == "replace":
            del patch[_DIRECTIVE]
            return patch
        if directive == "delete":
            return {}
        raise PatchError(f"Unable to find patch directive {directive!r}")
    if original is None:
        original = {}
    _apply_retain_keys(original, patch, server)
    _merge_ordered_lists(original, patch, server)
    for k in list(patch):
        pv = patch[k]
        delete_list = False
        if k.startswith(_DELETE_LIST + "/"):
            if not server:
                original[k] = pv
                continue
            k, delete_list = k.split("/", 1)[1], True
        if pv is None:
            original.pop(k, None)
            if server:
                continue
        if k not in original:
            original[k] = pv
            continue
        ov = original[k]
        if _go_type(ov) is not _go_type(pv):
            original[k] = pv
        elif isinstance(pv, dict):
            original[k] = _merge_map(ov, pv, server)
        elif isinstance(pv, list):
            original[k] = _merge_list(k, ov, pv, delete_list, server)
        else:
            original[k] = pv
    return original


def _apply_retain_keys(original: dict, patch: dict, server: bool) -> None:
    """applyRetainKeysDirective: the server keeps only the listed keys; merging two patches
    carries the directive over (they must agree)."""
    if _RETAIN not in patch:
        return
    keep = patch.pop(_RETAIN)
    if not server:
        if _RETAIN in original and original[_RETAIN] != keep:
            raise PatchError(f"{original[_RETAIN]} and {keep} are not deep equal: this may "
                             "happen when calculating the 3-way diff patch")
        original[_RETAIN] = keep
        return
    if not isinstance(keep, list):
        raise PatchError("invalid patch: the $retainKeys directive must be a list")
    for k in list(original):
        if k not in keep:
            del original[k]


def _merge_list(field: str, original: list, patch: list, delete_list: bool,
                server: bool) -> list:
    """mergeSliceHandler: a merging list merged (mergeSlice), any other one replaced."""
    strategy, key = _strategy(field, original + patch)
    if strategy != "merge":
        return patch
    return _merge_slice(original, patch, key, delete_list, server)


def _is_maps(*lists: list) -> bool:
    for lst in lists:
        for item in lst:
            return isinstance(item, dict)
    return False


def _merge_slice(original: list, patch: list, key: str, delete_list: bool,
                 server: bool) -> list:
    if not original and not patch:
        return original
    maps = _is_maps(original, patch)
    if not maps:
        if server and delete_list:
            gone = [_v(x) for x in patch]
            return [x for x in original if _v(x) not in gone]
        merged = _dedupe(original + patch)
    else:
        if not key:
            raise PatchError("cannot merge lists without merge key for type map")
        original, patch = _special_items(original, patch, key)
        merged = list(original)
        for item in patch:
            if key not in item:
                raise PatchError(f"map: {item} does not contain declared merge key: {key}")
            at = _find(merged, key, item[key])
            if at is None:
                merged.append(item)
            else:
                merged[at] = _merge_map(merged[at], item, server)
    in_patch, server_only = _partition(merged, patch, key, maps)
    return _normalize_order(in_patch, server_only, patch, original, key, maps)


def _special_items(original: list, patch: list, key: str) -> tuple[list, list]:
    """mergeSliceWithSpecialElements: ``$patch: delete`` items remove their match,
    ``$patch: replace`` makes the patch's other items the list."""
    plain = []
    replace = False
    for item in patch:
        directive = item.get(_DIRECTIVE) if isinstance(item, dict) else None
        if directive is None:
            plain.append(item)
        elif directive == "delete":
            if key not in item:
                raise PatchError(f"map: {item} does not contain declared merge key: {key}")
            original = [x for x in original if not (isinstance(x, dict) and key in x
                                                    and x[key] == item[key])]
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise PatchError("merging lists cannot yet be specified in the patch")
        else:
            raise PatchError(f"Unable to find patch directive {directive!r}")
    if replace:
        return plain, []
    return original, plain


def _find(items: list, key: str, value: Any) -> int | None:
    for i, x in enumerate(items):
        if isinstance(x, dict) and key in x and x[key] == value:
            return i
    return None


def _dedupe(items: list) -> list:
    """deduplicateScalars, in upstream's order: a duplicate's slot takes the last item."""
    s = list(items)
    n = len(s) - 1
    i = 0
    while i < n:
        j = i + 1
        while j <= n:
            if s[i] == s[j] and type(s[i]) is type(s[j]):
                s[j] = s[n]
                s = s[:n]
                n -= 1
                j -= 1
            j += 1
        i += 1
    return s


def _partition(merged: list, by: list, key: str, maps: bool) -> tuple[list, list]:
    """The merged items present in ``by`` (by merge key, or by value) and the others."""
    if maps:
        present = [b.get(key) for b in by if isinstance(b, dict)]
        inside = [m for m in merged if m.get(key) in present]
        return inside, [m for m in merged if m.get(key) not in present]
    return [m for m in merged if m in by], [m for m in merged if m not in by]


def _index(items: list, value: Any, key: str, maps: bool) -> int:
    want = value.get(key) if maps and isinstance(value, dict) else value
    for i, x in enumerate(items):
        have = x.get(key) if maps and isinstance(x, dict) else x
        if have == want:
            return i
    return -1


def _sort_by(items: list, order: list, key: str, maps: bool) -> list:
    """normalizeSliceOrder: a stable sort by the position in ``order`` (``$patch: delete``
    items last), with upstream's comparator (an item not in ``order`` goes before)."""
    deletes: list = []
    if maps:
        deletes = [x for x in items if isinstance(x, dict) and x.get(_DIRECTIVE) == "delete"]
        items = [x for x in items if not (isinstance(x, dict)
                                          and x.get(_DIRECTIVE) == "delete")]
    s = list(items)

    def less(a: Any, b: Any) -> bool:
        ia = _index(order, a, key, maps)
        if ia >= 0:
            ib = _index(order, b, key, maps)
            if ib >= 0:
                return ia < ib
        return True

    for i in range(1, len(s)):   # Go's sort.SliceStable on short lists: insertion sort
        j = i
        while j > 0 and less(s[j], s[j - 1]):
            s[j], s[j - 1] = s[j - 1], s[j]
            j -= 1
    return s + deletes


def _normalize_order(in_patch: list, server_only: list, patch_order: list,
                     server_order: list, key: str, maps: bool) -> list:
    """normalizeElementOrder + mergeSortedSlice: the patch's items in the patch's order, the
    server-only items slotted in before the first patch item that comes after them live."""
    right = _sort_by(in_patch, patch_order, key, maps)
    left = _sort_by(server_only, server_order, key, maps)
    out = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = _index(server_order, left[i], key, maps)
            ri = _index(server_order, right[j], key, maps)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _merge_ordered_lists(original: dict, patch: dict, server: bool) -> None:
    """mergePatchIntoOriginal: each ``$setElementOrder/<field>`` with its list, merged and put
    in that order (the client's merge of two patches keeps the directive)."""
    for k in [k for k in patch if k.startswith(_ORDER + "/")]:
        order = patch.pop(k)
        if not server:
            if k in original and original[k] != order:
                raise PatchError("invalid patch: the $setElementOrder lists do not agree")
            original[k] = order
        if not isinstance(order, list):
            raise PatchError("invalid patch: a $setElementOrder directive must be a list")
        field = k.split("/", 1)[1]
        have, given = field in original, field in patch
        live = original.get(field) if have else []
        sent = patch.get(field) if given else []
        if not isinstance(live, list) or not isinstance(sent, list):
            raise PatchError(f"invalid patch: {field} is not a list")
        strategy, key = _strategy(field, live + sent + order)
        if have and not given:
            merged = live
        elif given and not have:
            merged = sent
        elif have and given:
            merged = _merge_list(field, live, sent, False, server) if strategy == "merge" \
                else sent
        else:
            continue
        maps = _is_maps(live, sent)
        in_order, server_only = _partition(merged, order, key, maps)
        original[field] = _normalize_order(in_order, server_only, order, live, key, maps)
        patch.pop(field, None)


# -- the client's side: computing kubectl apply's patch ---------------------------------------

class _Opts:
    __slots__ = ("ignore_changes", "ignore_deletions", "retain")

    def __init__(self, ignore_changes: bool = False, ignore_deletions: bool = False,
                 retain: bool = False) -> None:
        self.ignore_changes = ignore_changes
        self.ignore_deletions = ignore_deletions
        self.retain = retain

    def with_retain(self, retain: bool) -> "_Opts":
        return _Opts(self.ignore_changes, self.ignore_deletions, retain)


def three_way(original: dict | None, modified: dict, current: dict) -> dict:
    """CreateThreeWayMergePatch(original, modified, current), overwrite=true: the patch that
    takes ``current`` (the live object) to ``modified`` (the new manifest) without undoing
    what others changed, deleting what ``original`` (the last applied manifest; None when
    the live object has none) set and ``modified`` no longer does."""
    delta = _diff_maps(current, modified, _Opts(ignore_deletions=True))
    deletions = _diff_maps(original or {}, modified, _Opts(ignore_changes=True))
    return _merge_map(deletions, delta, server=False)


def _diff_maps(original: dict, modified: dict, opts: _Opts) -> dict:
    """diffMaps: the patch taking ``original`` to ``modified`` (with SetElementOrder)."""
    patch: dict = {}
    retain = [k for k, v in modified.items() if v is not None] if opts.retain else []
    for key, mv in modified.items():
        if key not in original:
            if not opts.ignore_changes:
                patch[key] = mv
            continue
        ov = original[key]
        if key == _DIRECTIVE:
            if ov != mv:
                patch[key] = mv
            continue
        if _go_type(ov) is not _go_type(mv):
            if not opts.ignore_changes:
                patch[key] = mv
            continue
        if isinstance(mv, dict):
            sub = _diff_maps(ov, mv, opts.with_retain(key in _RETAIN_KEYS))
            if sub:
                patch[key] = sub
        elif isinstance(mv, list):
            _diff_list_field(key, ov, mv, patch, opts)
        elif not opts.ignore_changes and ov != mv:
            patch[key] = mv
    if not opts.ignore_deletions:
        for key in original:
            if key not in modified:
                patch[key] = None
    if retain and (patch or any(v is not None and k not in modified
                                for k, v in original.items())):
        patch[_RETAIN] = sorted(retain, key=_v)
    return patch


def _diff_list_field(key: str, ov: list, mv: list, patch: dict, opts: _Opts) -> None:
    """handleSliceDiff."""
    strategy, merge_on = _strategy(key, ov + mv)
    if strategy != "merge":
        if not opts.ignore_changes and ov != mv:
            patch[key] = mv
        return
    add, delete, order = _diff_lists(ov, mv, merge_on, opts.with_retain(key in _RETAIN_KEYS))
    if add:
        patch[key] = add
    if delete:
        patch[f"{_DELETE_LIST}/{key}"] = delete
    if order:
        patch[f"{_ORDER}/{key}"] = order


def _diff_lists(original: list, modified: list, key: str,
                opts: _Opts) -> tuple[list, list, list]:
    """diffLists: (patch list, deletion list, $setElementOrder list)."""
    if not original:
        if not modified or opts.ignore_changes:
            return [], [], []
        return modified, [], []
    if _is_maps(original, modified):
        if not key:
            raise PatchError("cannot merge lists without merge key for type map")
        changed, deleted = _diff_lists_of_maps(original, modified, key, opts)
        changed = _sort_by(changed, modified, key, True)
        same_order = len(original) == len(modified) and all(
            isinstance(o, dict) and isinstance(m, dict) and o.get(key) == m.get(key)
            for o, m in zip(original, modified))
        changed += deleted
        order: list = []
        if (not opts.ignore_changes and (changed or not same_order)) or \
                (not opts.ignore_deletions and changed):
            order = [{key: m.get(key)} for m in modified]
        return changed, [], order
    added, removed = _diff_lists_of_scalars(original, modified, opts)
    added = _sort_by(added, modified, "", False)
    order = []
    if (not opts.ignore_deletions and removed) or \
            (not opts.ignore_changes and original != modified):
        order = modified
    return added, removed, order


def _diff_lists_of_maps(original: list, modified: list, key: str,
                        opts: _Opts) -> tuple[list, list]:
    """diffListsOfMaps: both sorted by their merge key's text, walked side by side."""
    for lst in (original, modified):
        for item in lst:
            if not isinstance(item, dict) or key not in item:
                raise PatchError(f"map: {item} does not contain declared merge key: {key}")
    a = sorted(original, key=lambda m: _v(m[key]))
    b = sorted(modified, key=lambda m: _v(m[key]))
    patch: list = []
    deletions: list = []
    i = j = 0
    while i < len(a) or j < len(b):
        if i < len(a) and j < len(b) and _v(a[i][key]) == _v(b[j][key]):
            sub = _diff_maps(a[i], b[j], opts)
            if sub:
                sub[key] = b[j][key]
                patch.append(sub)
            i += 1
            j += 1
        elif i >= len(a) or (j < len(b) and _v(a[i][key]) > _v(b[j][key])):
            if not opts.ignore_changes:
                patch.append(b[j])
            j += 1
        else:
            if not opts.ignore_deletions:
                deletions.append({key: a[i][key], _DIRECTIVE: "delete"})
            i += 1
    return patch, deletions


def _diff_lists_of_scalars(original: list, modified: list, opts: _Opts) -> tuple[list, list]:
    """diffListsOfScalars: additions and (deduplicated) deletions of two sorted lists."""
    a = sorted(original, key=_v)
    b = sorted(modified, key=_v)
    added: list = []
    removed: list = []
    i = j = 0
    while i < len(a) or j < len(b):
        if i < len(a) and j < len(b) and _v(a[i]) == _v(b[j]):
            i += 1
            j += 1
        elif i >= len(a) or (j < len(b) and _v(a[i]) > _v(b[j])):
            if not opts.ignore_changes:
                added.append(b[j])
            j += 1
        else:
            if not opts.ignore_deletions:
                removed.append(a[i])
            i += 1
    return added, _dedupe(removed)
