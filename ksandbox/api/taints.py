"""Taints and tolerations: the API types, the toleration rules, validation, ``kubectl taint``.

What is here:

* :class:`Taint` and :class:`Toleration` — ``core/v1`` Taint and Toleration as frozen,
  slotted attrs values the codec can decode; ``from_dict`` / ``to_dict`` for direct use.
* ``Toleration.tolerates`` — upstream ToleratesTaint, the scheduler's hot path (no allocation);
  :func:`tolerations_tolerate_taint` and :func:`find_untolerated_taint` on top of it.
* :func:`validate_taints` / :func:`validate_tolerations` — what the API server says about bad
  ``spec.taints`` / ``spec.tolerations``, word for word.
* :func:`parse_taint_args` and :func:`apply_taint_changes` — ``kubectl taint``'s argument
  parsing and its merge of old and new taints, with kubectl's error messages and its
  ``tainted`` / ``untainted`` / ``modified`` verdict.
* Effect names and the well-known taint keys.

What is not here: the TaintToleration scheduler plugin (scoring, PreferNoSchedule counting),
the NoExecute eviction manager, the node lifecycle controller that adds ``not-ready`` /
``unreachable`` taints, and the command wiring (resource/selector arguments, printing).

Times are simulated seconds: ``Taint.time_added`` is a float, not a timestamp.

Upstream sources (ported, not copied): ``staging/src/k8s.io/api/core/v1/taint.go`` (MatchTaint,
ToString), ``.../core/v1/toleration.go`` (ToleratesTaint), ``.../core/v1/well_known_taints.go``,
``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go``
(TolerationsTolerateTaint, FindMatchingUntoleratedTaint), ``pkg/apis/core/validation/
validation.go`` (validateNodeTaints, validateTaintEffect, ValidateTolerations),
``staging/src/k8s.io/kubectl/pkg/cmd/taint/utils.go`` and ``taint.go`` (parseTaints,
reorganizeTaints, checkIfTaintsAlreadyExists, Validate, updateTaints), and
``staging/src/k8s.io/kubectl/pkg/describe/describe.go`` (printTolerationsMultilineWithIndent).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

import attrs

from .codec import j, slot_setter_init
from .errors import DUPLICATE, CommandError, FieldError
from .errors import join_path as _join
from .errors import type_name as _type_name
from .errors import wrong_type as _wrong
from .selectors import parse_int64
from .validation import is_qualified_name, is_valid_label_value

__all__ = [
    "NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE", "TAINT_EFFECTS",
    "OP_EQUAL", "OP_EXISTS", "OP_LT", "OP_GT",
    "TAINT_NODE_NOT_READY", "TAINT_NODE_UNREACHABLE", "TAINT_NODE_UNSCHEDULABLE",
    "TAINT_NODE_MEMORY_PRESSURE", "TAINT_NODE_DISK_PRESSURE", "TAINT_NODE_PID_PRESSURE",
    "TAINT_NODE_NETWORK_UNAVAILABLE", "TAINT_NODE_OUT_OF_SERVICE", "TAINT_CONTROL_PLANE",
    "TAINT_EXTERNAL_CLOUD_PROVIDER",
    "TAINTED", "UNTAINTED", "MODIFIED", "TAINT_HINT",
    "Taint", "Toleration", "tolerations_tolerate_taint", "find_untolerated_taint",
    "validate_taints", "validate_tolerations", "parse_taint_args", "apply_taint_changes",
]

# core/v1 TaintEffect values.
NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
TAINT_EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)

# core/v1 TolerationOperator values (Lt/Gt: alpha, feature-gated upstream; see tolerates()).
OP_EQUAL = "Equal"
OP_EXISTS = "Exists"
OP_LT = "Lt"
OP_GT = "Gt"

# staging/src/k8s.io/api/core/v1/well_known_taints.go
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
TAINT_NODE_OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
# The control-plane taint kubeadm sets (cmd/kubeadm/app/constants) and the cloud-provider
# taint (staging/src/k8s.io/cloud-provider/api/well_known_taints.go).
TAINT_CONTROL_PLANE = "node-role.kubernetes.io/control-plane"
TAINT_EXTERNAL_CLOUD_PROVIDER = "node.cloudprovider.kubernetes.io/uninitialized"

# kubectl/pkg/cmd/taint/utils.go: the operation word printed as "node/<name> <word>".
MODIFIED = "modified"
TAINTED = "tainted"
UNTAINTED = "untainted"

TAINT_HINT = "See 'kubectl taint -h' for help and examples"








def _str_field(data: dict, key: str, path: str) -> str:
    v = data.get(key)
    if v is None:
        return ""
    if not isinstance(v, str):
        raise _wrong(_join(path, key), v, "string")
    return v


def _coerce_time_added(value: Any) -> float | None:
    """``timeAdded``: simulated seconds. A real cluster's RFC 3339 timestamp is dropped."""
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"timeAdded: expected number or timestamp, got {_type_name(value)}")
    return float(value)


def _go_quote(s: str) -> str:
    # Go's %q for the strings that reach these messages (label-ish ASCII).
    return json.dumps(s, ensure_ascii=False)


# -- the API types --------------------------------------------------------------------------

@slot_setter_init
@attrs.frozen(slots=True)
class Taint:
    """A node taint: ``key=value:effect``, plus when it was added (simulated seconds)."""

    key: str = j("key", "")
    value: str = j("value", "")
    effect: str = j("effect", "")
    # Annotated Any so the codec passes a real cluster's timestamp string through to the
    # converter (which drops it); the stored value is always ``float | None``.
    time_added: Any = attrs.field(default=None, converter=_coerce_time_added,
                                  metadata=j("timeAdded", None).metadata)

    def matches(self, other: "Taint") -> bool:
        """Same key and effect: taints are unique by that pair (MatchTaint)."""
        return self.key == other.key and self.effect == other.effect

    def to_string(self) -> str:
        """Taint.ToString: ``key=value:effect``, ``key:effect``, ``key=value:`` or ``key``."""
        if not self.effect:
            return f"{self.key}={self.value}:" if self.value else self.key
        if not self.value:
            return f"{self.key}:{self.effect}"
        return f"{self.key}={self.value}:{self.effect}"

    def go_value(self) -> str:
        """How Go's ``%v`` prints a ``v1.Taint`` value (kubectl's duplicate-taint message)."""
        added = "<nil>" if self.time_added is None else f"{self.time_added:g}s"
        return f"{{{self.key} {self.value} {self.effect} {added}}}"

    def go_syntax(self) -> str:
        """How Go's ``%#v`` prints a ``core.Taint`` (the API server's Duplicate message).

        A set ``TimeAdded`` is a pointer Go prints as an address; a fixed one is shown.
        """
        added = "(*v1.Time)(nil)" if self.time_added is None else "(*v1.Time)(0xc000010000)"
        return (f"core.Taint{{Key:{_go_quote(self.key)}, Value:{_go_quote(self.value)}, "
                f"Effect:{_go_quote(self.effect)}, TimeAdded:{added}}}")

    def to_dict(self) -> dict[str, Any]:
        """camelCase manifest form; ``timeAdded`` in simulated seconds, empties left out."""
        out: dict[str, Any] = {"key": self.key}
        if self.value:
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        if self.time_added is not None:
            out["timeAdded"] = self.time_added
        return out

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> "Taint":
        """Decode one taint (types only; :func:`validate_taints` checks the rules)."""
        if not isinstance(data, dict):
            raise _wrong(path or "<root>", data, "object")
        added = data.get("timeAdded")
        if added is not None and (isinstance(added, bool)
                                  or not isinstance(added, (int, float, str))):
            raise _wrong(_join(path, "timeAdded"), added, "number or timestamp")
        return cls(key=_str_field(data, "key", path), value=_str_field(data, "value", path),
                   effect=_str_field(data, "effect", path), time_added=added)


@slot_setter_init
@attrs.frozen(slots=True)
class Toleration:
    """A pod toleration. ``operator`` ``""`` (the API's zero value) means ``Equal``."""

    key: str = j("key", "")
    operator: str = j("operator", "")
    value: str = j("value", "")
    effect: str = j("effect", "")
    toleration_seconds: int | None = j("tolerationSeconds", None)

    def tolerates(self, taint: Taint) -> bool:
        """ToleratesTaint.

        An empty effect matches every effect; an empty key (with ``Exists``) every key;
        ``Exists`` ignores the value; ``Equal`` (or ``""``) compares it. ``Lt``/``Gt`` compare
        the values as integers (upstream's alpha comparison operators; validation still
        refuses them, as upstream does with its feature gate off). Any other operator: no.
        """
        effect = self.effect
        if effect and effect != taint.effect:
            return False
        key = self.key
        if key and key != taint.key:
            return False
        op = self.operator
        if op == OP_EQUAL or not op:
            return self.value == taint.value
        if op == OP_EXISTS:
            return True
        if op == OP_LT or op == OP_GT:
            mine, theirs = parse_int64(self.value), parse_int64(taint.value)
            if mine is None or theirs is None:
                return False
            return theirs < mine if op == OP_LT else theirs > mine
        return False

    def to_string(self) -> str:
        """One toleration as ``kubectl describe pod`` lists it.

        ``node.kubernetes.io/not-ready:NoExecute op=Exists for 300s``, ``key=value:Effect``,
        and a bare ``op=Exists`` for the tolerate-everything toleration.
        """
        text = self.key
        if self.value:
            text += f"={self.value}"
        if self.effect:
            text += f":{self.effect}"
        if self.operator == OP_EXISTS and not self.value:
            text += " op=Exists" if (self.key or self.effect) else "op=Exists"
        if self.toleration_seconds is not None:
            text += f" for {self.toleration_seconds}s"
        return text

    def to_dict(self) -> dict[str, Any]:
        """camelCase manifest form; empty strings and an unset ``tolerationSeconds`` left out."""
        out: dict[str, Any] = {}
        if self.key:
            out["key"] = self.key
        if self.operator:
            out["operator"] = self.operator
        if self.value:
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out

    def validate(self, path: str) -> list[FieldError]:
        """ValidateTolerations for this one entry (``path`` is e.g. ``spec.tolerations[0]``)."""
        errs: list[FieldError] = []
        key_path, op_path, effect_path = (_join(path, "key"), _join(path, "operator"),
                                          _join(path, "effect"))
        if self.key:
            errs.extend(FieldError(key_path, self.key, m) for m in is_qualified_name(self.key))
        if not self.key and self.operator != OP_EXISTS:
            errs.append(FieldError(op_path, self.operator,
                                   "operator must be Exists when `key` is empty, which means "
                                   "\"match all values and all keys\""))
        if self.toleration_seconds is not None and self.effect != NO_EXECUTE:
            errs.append(FieldError(effect_path, self.effect,
                                   "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        # Upstream reports value problems under ".operator", and joins them with ";".
        if self.operator in (OP_EQUAL, ""):
            msgs = is_valid_label_value(self.value)
            if msgs:
                errs.append(FieldError(op_path, self.value, ";".join(msgs)))
        elif self.operator == OP_EXISTS:
            if self.value:
                errs.append(FieldError(op_path, self.value,
                                       "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(FieldError.not_supported(op_path, self.operator, (OP_EQUAL, OP_EXISTS)))
        if self.effect:
            errs.extend(_validate_effect(self.effect, effect_path))
        return errs

    _validate = validate  # the hook the codec documents for API-server validation

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> "Toleration":
        """Decode one toleration (types only; :meth:`validate` checks the rules).

        A missing ``operator`` stays ``""``, as in the API, so round trips and messages match.
        """
        if not isinstance(data, dict):
            raise _wrong(path or "<root>", data, "object")
        secs = data.get("tolerationSeconds")
        if secs is not None:
            if isinstance(secs, float) and secs.is_integer():
                secs = int(secs)
            if isinstance(secs, bool) or not isinstance(secs, int):
                raise _wrong(_join(path, "tolerationSeconds"), secs, "integer")
        return cls(key=_str_field(data, "key", path), operator=_str_field(data, "operator", path),
                   value=_str_field(data, "value", path), effect=_str_field(data, "effect", path),
                   toleration_seconds=secs)


# -- scheduling helpers (component-helpers/scheduling/corev1/helpers.go) --------------------

def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """Whether any toleration tolerates ``taint``."""
    for t in tolerations:
        if t.tolerates(taint):
            return True
    return False


def find_untolerated_taint(taints: Iterable[Taint], tolerations: Sequence[Toleration],
                           effects: Iterable[str] | None = None) -> Taint | None:
    """The first taint whose effect is in ``effects`` that no toleration tolerates.

    ``effects=None`` considers every taint (upstream's nil filter). ``None`` when all the
    considered taints are tolerated.
    """
    for taint in taints:
        if effects is not None and taint.effect not in effects:
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


# -- API-server validation (pkg/apis/core/validation/validation.go) -------------------------

class _GoSyntaxFieldError(FieldError):
    """A FieldError whose bad value prints as Go syntax (``core.Taint{...}``), unquoted."""

    def body(self) -> str:
        text = f"{self.kind}: {self.value}"
        return f"{text}: {self.detail}" if self.detail else text


def _validate_effect(effect: str, path: str) -> list[FieldError]:
    if effect in TAINT_EFFECTS:
        return []
    return [FieldError.not_supported(path, effect, TAINT_EFFECTS)]


def validate_taints(taints: Sequence[Taint], path: str) -> list[FieldError]:
    """validateNodeTaints: key, value, effect (required), and key+effect uniqueness.

    ``path`` is the list's path, e.g. ``spec.taints``.
    """
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        idx = f"{path}[{i}]"
        key_path = _join(idx, "key")
        errs.extend(FieldError(key_path, taint.key, m) for m in is_qualified_name(taint.key))
        msgs = is_valid_label_value(taint.value)
        if msgs:
            errs.append(FieldError(_join(idx, "value"), taint.value, ";".join(msgs)))
        if not taint.effect:
            errs.append(FieldError.required(_join(idx, "effect")))
        else:
            errs.extend(_validate_effect(taint.effect, _join(idx, "effect")))
        pair = (taint.key, taint.effect)
        if pair in seen:
            errs.append(_GoSyntaxFieldError(idx, taint.go_syntax(),
                                            "taints must be unique by key and effect pair",
                                            DUPLICATE))
            continue
        seen.add(pair)
    return errs


def validate_tolerations(tolerations: Sequence[Toleration], path: str) -> list[FieldError]:
    """ValidateTolerations over a list (``path`` e.g. ``spec.tolerations``)."""
    errs: list[FieldError] = []
    for i, toleration in enumerate(tolerations):
        errs.extend(toleration.validate(f"{path}[{i}]"))
    return errs


# -- kubectl taint (kubectl/pkg/cmd/taint) ---------------------------------------------------

def _usage_error(message: str) -> CommandError:
    return CommandError(message, hint=TAINT_HINT)


def _parse_one(spec: str) -> Taint:
    """parseTaint: ``key=value:effect``, ``key:effect`` or ``key``."""
    parts = spec.split(":")
    value = effect = ""
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        if effect not in TAINT_EFFECTS:
            raise _usage_error(f"invalid taint effect: {effect}, unsupported taint effect")
        kv = parts[0].split("=")
        if len(kv) > 2:
            raise _usage_error(f"invalid taint spec: {spec}")
        key = kv[0]
        if len(kv) == 2:
            value = kv[1]
            msgs = is_valid_label_value(value)
            if msgs:
                raise _usage_error(f"invalid taint spec: {spec}, {'; '.join(msgs)}")
    else:
        raise _usage_error(f"invalid taint spec: {spec}")
    msgs = is_qualified_name(key)
    if msgs:
        raise _usage_error(f"invalid taint spec: {spec}, {'; '.join(msgs)}")
    return Taint(key=key, value=value, effect=effect)


def parse_taint_args(args: Sequence[str]) -> tuple[list[Taint], list[Taint]]:
    """kubectl taint's parseTaints plus the add/remove conflict check of its Validate.

    Returns (taints to add, taints to remove); a removal carries only key and effect
    (``key:Effect-``) or only the key (``key-``, every effect). Parse errors are usage errors
    (with kubectl's "See 'kubectl taint -h'" hint); the add/remove conflict is a plain error,
    as in kubectl.
    """
    to_add: list[Taint] = []
    to_remove: list[Taint] = []
    seen: set[tuple[str, str]] = set()
    for spec in args:
        if spec.endswith("-"):
            t = _parse_one(spec[:-1])
            to_remove.append(Taint(key=t.key, effect=t.effect))
            continue
        t = _parse_one(spec)
        if not t.effect:
            raise _usage_error(f"invalid taint spec: {spec}")
        if (t.effect, t.key) in seen:
            raise _usage_error(f"duplicated taints with the same key and effect: {t.go_value()}")
        seen.add((t.effect, t.key))
        to_add.append(t)
    conflicts = [f'{{"{r.key}":"{r.effect}"}}' for a in to_add for r in to_remove
                 if a.key == r.key and (not r.effect or a.effect == r.effect)]
    if conflicts:
        raise CommandError("can not both modify and remove the following taint(s) in the "
                           "same command: " + ", ".join(conflicts))
    return to_add, to_remove


def apply_taint_changes(current: Sequence[Taint], add: Sequence[Taint], remove: Sequence[Taint],
                        overwrite: bool, node_name: str,
                        now: float) -> tuple[tuple[Taint, ...], str]:
    """kubectl taint's updateTaints / reorganizeTaints on one node.

    Returns the node's new taints (the added ones first, then the old ones they did not
    replace, in order) and the word kubectl prints: ``modified`` with ``--overwrite`` or when
    taints were both added and removed, ``tainted`` when the count of taints changed by adding,
    ``untainted`` otherwise (including a pure removal).

    Raises :class:`CommandError` for ``node <name> already has <keys> taint(s) with same
    effect(s) and --overwrite is false`` and ``taint "<key[:effect]>" not found`` (several
    missing taints are reported together as ``[a, b]``, like Go's error aggregate).

    New ``NoExecute`` taints get ``time_added = now`` (the API server stamps TimeAdded on
    them); an added taint identical to the one it replaces keeps the old ``time_added``.
    """
    if not overwrite:
        clashing = [t.key for t in add for old in current
                    if t.key == old.key and t.effect == old.effect]
        if clashing:
            raise CommandError(f"node {node_name} already has {','.join(clashing)} taint(s) "
                               "with same effect(s) and --overwrite is false")

    new: list[Taint] = []
    for t in add:
        prior = next((old for old in current if old.matches(t)), None)
        if prior is not None and prior.value == t.value:
            t = attrs.evolve(t, time_added=prior.time_added)
        elif t.effect == NO_EXECUTE:
            t = attrs.evolve(t, time_added=now)
        new.append(t)
    for old in current:
        if not any(t.matches(old) for t in new):
            new.append(old)
    added = len(current) != len(new)

    errors: list[str] = []
    deleted = False
    for r in remove:
        before = len(new)
        if r.effect:
            new = [t for t in new if not r.matches(t)]
        else:
            new = [t for t in new if t.key != r.key]
        deleted = len(new) != before  # upstream keeps only the last removal's outcome
        if not deleted:
            errors.append(f"taint {_go_quote(r.to_string())} not found")
    if errors:
        raise CommandError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")

    if (added and deleted) or overwrite:
        operation = MODIFIED
    elif added:
        operation = TAINTED
    else:
        operation = UNTAINTED
    return tuple(new), operation
