"""Name and label syntax checks, with the API server's exact wording.

Each ``is_*`` function returns a list of messages (empty means valid), phrased as upstream
phrases them, so callers can wrap them in a :class:`FieldError` the way the API server does:
``metadata.labels: Invalid value: "bad key": name part must consist of ...``.

What is here:

* ``is_qualified_name`` (label keys, taint keys, annotation keys), ``is_valid_label_value``,
  ``is_dns1123_label``, ``is_dns1123_subdomain``, ``is_dns1035_label``;
* ``validate_object_name`` / ``validate_object_meta_name`` for ``metadata.name`` (which rule
  applies depends on the kind);
* ``validate_label_name`` / ``validate_labels``, the FieldError-returning wrappers upstream
  calls ValidateLabelName / ValidateLabels.

What is not: selector and taint rules (``selectors.py``, ``taints.py``), annotation size limits,
``generateName`` handling, and the rest of ObjectMeta validation.

Upstream sources (ported, not copied):

* ``staging/src/k8s.io/apimachinery/pkg/api/validate/content/kube.go`` (IsLabelKey,
  IsLabelValue) and ``content/dns.go`` + ``content/errors.go`` — the newer helpers, which say
  "bytes" in length messages;
* ``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go`` (IsDNS1123Label,
  IsDNS1123Subdomain, IsDNS1035Label, RegexError, MaxLenError) — these still say "characters";
* ``staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go`` and
  ``objectmeta.go`` (which name rule a kind uses, "name or generateName is required");
* ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go``
  (ValidateLabelName, ValidateLabels).

Lengths are measured in UTF-8 bytes, as Go's ``len`` does.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping

from .errors import FieldError

__all__ = [
    "regex_error", "max_len_error", "empty_error",
    "is_qualified_name", "is_valid_label_value",
    "is_dns1123_label", "is_dns1123_subdomain", "is_dns1035_label",
    "name_rule_for_kind", "validate_object_name", "validate_object_meta_name",
    "validate_label_name", "validate_labels",
    "LABEL_VALUE_MAX_LENGTH", "QUALIFIED_NAME_MAX_LENGTH",
    "DNS1123_LABEL_MAX_LENGTH", "DNS1123_SUBDOMAIN_MAX_LENGTH", "DNS1035_LABEL_MAX_LENGTH",
]


# -- message builders (util/validation/validation.go, api/validate/content/errors.go) -------

def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """The text upstream's RegexError builds.

    Each example is followed by ``", "`` and joined with ``" or "``, which is where the
    famous double space comes from: ``(e.g. 'MyName',  or 'my.name',  or '123-abc', regex
    used for validation is '...')``.
    """
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    quoted = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {quoted}regex used for validation is '{fmt}')"


def max_len_error(length: int, unit: str = "characters") -> str:
    """util/validation says "characters"; the newer content package says "bytes"."""
    return f"must be no more than {length} {unit}"


def empty_error() -> str:
    return "must be non-empty"


def _blen(value: str) -> int:
    # Go measures strings in bytes; ASCII-only inputs give the same answer as len().
    return len(value) if value.isascii() else len(value.encode("utf-8"))


# -- label keys and values (content/kube.go) ------------------------------------------------

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                  "and end with an alphanumeric character")
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
QUALIFIED_NAME_MAX_LENGTH = 63

_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric "
                    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                    "character")
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
LABEL_VALUE_MAX_LENGTH = 63

_NAME_PART_REGEX_ERROR = "name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT,
                                                      "MyName", "my.name", "123-abc")
_TOO_MANY_SLASHES_ERROR = ("a valid label key "
                           + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT,
                                         "MyName", "my.name", "123-abc")
                           + " with an optional DNS subdomain prefix and '/' "
                             "(e.g. 'example.com/MyName')")
_LABEL_VALUE_REGEX_ERROR = regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT,
                                       "MyValue", "my_value", "12345")


def is_qualified_name(value: str) -> list[str]:
    """Label-key syntax: ``[prefix/]name`` (IsLabelKey / IsQualifiedName).

    The name is at most 63 bytes of ``[A-Za-z0-9_.-]``, starting and ending alphanumeric; the
    optional prefix is a lowercase DNS-1123 subdomain of at most 253 bytes.
    """
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = value
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix, "bytes"))
    else:
        return [_TOO_MANY_SLASHES_ERROR]
    if not name:
        errs.append("name part " + empty_error())
    elif _blen(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH, "bytes"))
    if _LABEL_KEY_RE.fullmatch(name) is None:
        errs.append(_NAME_PART_REGEX_ERROR)
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """Label-value syntax: empty, or up to 63 bytes like a label name (IsLabelValue)."""
    errs: list[str] = []
    if _blen(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH, "bytes"))
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        errs.append(_LABEL_VALUE_REGEX_ERROR)
    return errs


# -- DNS names (util/validation/validation.go, content/dns.go) ------------------------------

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                      "characters or '-', and must start and end with an alphanumeric character")
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
DNS1123_LABEL_MAX_LENGTH = 63

_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + r"(\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case "
                          "alphanumeric characters, '-' or '.', and must start and end with an "
                          "alphanumeric character")
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
DNS1123_SUBDOMAIN_MAX_LENGTH = 253

_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or "
                      "'-', start with an alphabetic character, and end with an alphanumeric "
                      "character")
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
DNS1035_LABEL_MAX_LENGTH = 63


def is_dns1123_subdomain(value: str, unit: str = "characters") -> list[str]:
    """RFC 1123 subdomain: dot-separated labels, at most 253 characters (``unit``: what the
    length limit's message counts, "bytes" for a label key's prefix)."""
    # Every create checks its name here (150,000 pods in a load): a name the pattern matches
    # is ASCII, so its byte length is its length, and a short one has no error — the common
    # case answered before the plain checks below (tests/api/test_validation_fast_names.py).
    if len(value) <= DNS1123_SUBDOMAIN_MAX_LENGTH and \
            _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None:
        return []
    return _dns1123_subdomain_errors(value, unit)


def _dns1123_subdomain_errors(value: str, unit: str) -> list[str]:
    """IsDNS1123Subdomain's messages, checked in full."""
    errs: list[str] = []
    if _blen(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH, unit))
    if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is None:
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_label(value: str) -> list[str]:
    """RFC 1123 label: lowercase alphanumerics and '-', at most 63 characters."""
    errs: list[str] = []
    if _blen(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if _DNS1123_LABEL_RE.fullmatch(value) is None:
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None:
            # A fine subdomain but not a label: the only difference left is the dots.
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """RFC 1035 label: like a 1123 label but must start with a letter (Service names)."""
    errs: list[str] = []
    if _blen(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if _DNS1035_LABEL_RE.fullmatch(value) is None:
        errs.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


# -- metadata.name (api/validation/generic.go, objectmeta.go) -------------------------------

# Kinds whose names are not DNS-1123 subdomains. Namespace: ValidateNamespaceName
# (NameIsDNSLabel); Service: ValidateServiceName (NameIsDNS1035Label); StatefulSet:
# ValidateStatefulSetName (NameIsDNSLabel in current upstream, leaving room for the pod
# ordinal suffix). Everything else ksandbox models (Pod, Node, Deployment, ReplicaSet, ...)
# uses NameIsDNSSubdomain.
_NAME_RULES = {
    "Namespace": is_dns1123_label,
    "Service": is_dns1035_label,
    "StatefulSet": is_dns1123_label,
}


def is_path_segment_name(name: str) -> list[str]:
    """path.IsValidPathSegmentName: RBAC objects' names (ValidateRBACName)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


for _kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"):
    _NAME_RULES[_kind] = is_path_segment_name

NAME_REQUIRED = "name or generateName is required"


def name_rule_for_kind(kind: str):
    """The ``is_*`` function upstream applies to ``metadata.name`` of ``kind``."""
    return _NAME_RULES.get(kind, is_dns1123_subdomain)


def validate_object_name(kind: str, name: str) -> list[str]:
    """Messages for a bad ``metadata.name`` of ``kind``; empty names get the Required text."""
    if not name:
        return [NAME_REQUIRED]
    # (name_rule_for_kind's lookup, inline: every create of a load's 150,000 asks it)
    return _NAME_RULES.get(kind, is_dns1123_subdomain)(name)


def validate_object_meta_name(kind: str, name: str,
                              path: str = "metadata.name") -> list[FieldError]:
    """The FieldErrors ValidateObjectMeta gives for ``metadata.name``.

    ``metadata.name: Required value: name or generateName is required`` when empty, else one
    ``Invalid value`` per failed rule.
    """
    if not name:
        return [FieldError.required(path, NAME_REQUIRED)]
    return [FieldError(path, name, msg) for msg in name_rule_for_kind(kind)(name)]


# -- FieldError wrappers (apis/meta/v1/validation/validation.go) ----------------------------

def validate_label_name(key: str, path: str) -> list[FieldError]:
    """One ``Invalid value`` per label-key rule broken (upstream ValidateLabelName)."""
    return [FieldError(path, key, msg) for msg in is_qualified_name(key)]


def validate_labels(labels: Mapping[str, str] | Iterable[tuple[str, str]],
                    path: str) -> list[FieldError]:
    """Key and value checks for a label map, all reported at ``path`` (ValidateLabels).

    Upstream walks a Go map (random order); here the mapping's own order is used. Keys come
    before the value of the same entry.
    """
    items = labels.items() if isinstance(labels, Mapping) else labels
    errs: list[FieldError] = []
    for key, value in items:
        msgs = _label_messages(_KEY_MESSAGES, is_qualified_name, key)
        if msgs:
            errs.extend(FieldError(path, key, msg) for msg in msgs)
        msgs = _label_messages(_VALUE_MESSAGES, is_valid_label_value, value)
        if msgs:
            errs.extend(FieldError(path, value, msg) for msg in msgs)
    return errs


# The messages of each label key and value checked so far (none for a good one): 5,000 nodes
# carry the same few keys (kubernetes.io/hostname, topology zones, os, arch) and mostly the
# same values, each node's labels a map of its own (its hostname) — checked string by string,
# once. Bounded: a table starts over when full.
_KEY_MESSAGES: dict[str, tuple[str, ...]] = {}
_VALUE_MESSAGES: dict[str, tuple[str, ...]] = {}
_LABEL_CACHE_LIMIT = 4096


def _label_messages(table: dict[str, tuple[str, ...]], check: Callable[[str], list[str]],
                    text: Any) -> tuple[str, ...] | list[str]:
    if type(text) is not str:
        return check(text)
    msgs = table.get(text)
    if msgs is None:
        if len(table) >= _LABEL_CACHE_LIMIT:
            table.clear()
        msgs = table[text] = tuple(check(text))
    return msgs
