"""Name and label syntax checks, ported from upstream's tables.

Success/failure lists: ``api/validate/content/kube_test.go`` (TestIsLabelKey,
TestIsLabelValue) and ``content/dns_test.go`` (TestIsDNS1123Label, TestIsDNS1123Subdomain).
Exact messages: the message builders in ``content/kube.go``, ``content/errors.go`` and
``util/validation/validation.go``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.errors import FieldError
from ksandbox.api.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    regex_error,
    validate_label_name,
    validate_labels,
    validate_object_meta_name,
    validate_object_name,
)

LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
NAME_PART_REGEX = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    f"used for validation is '{LABEL_KEY_FMT}')"
)
LABEL_VALUE_REGEX = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
SUBDOMAIN_FMT = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
SUBDOMAIN_REGEX = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    f"used for validation is '{SUBDOMAIN_FMT}')"
)
LABEL_REGEX = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


# -- RegexError ------------------------------------------------------------------------------

@pytest.mark.parametrize("examples, expected", [
    pytest.param((), "msg (regex used for validation is 'RE')",
                 id="without examples only the regex is named"),
    pytest.param(("a",), "msg (e.g. 'a', regex used for validation is 'RE')",
                 id="one example is followed by a comma"),
    pytest.param(("a", "b", "c"),
                 "msg (e.g. 'a',  or 'b',  or 'c', regex used for validation is 'RE')",
                 id="several examples are joined with a double space before or"),
])
def test_regex_error_formats_examples_like_upstream(examples, expected):
    assert regex_error("msg", "RE", *examples) == expected


# -- label keys (TestIsLabelKey) ----------------------------------------------------------------

@pytest.mark.parametrize("key", [
    "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple",
    "now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple",
    "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678",
    "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
    pytest.param("a" * 63, id="a 63-byte name"),
    pytest.param("a" * 253 + "/" + "b" * 63, id="a 253-byte prefix and a 63-byte name"),
])
def test_valid_label_keys_are_accepted(key):
    assert is_qualified_name(key) == []


@pytest.mark.parametrize("key", [
    "nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash",
    "Example.com/abc", "example_com/abc", "example.com/", "/simple",
    pytest.param("a" * 64, id="a 64-byte name"),
    pytest.param("a" * 254 + "/abc", id="a 254-byte prefix"),
])
def test_invalid_label_keys_are_rejected(key):
    assert is_qualified_name(key) != []


@pytest.mark.parametrize("key, expected", [
    pytest.param("", ["name part must be non-empty", NAME_PART_REGEX],
                 id="an empty key reports an empty name and the name regex"),
    pytest.param("example.com/", ["name part must be non-empty", NAME_PART_REGEX],
                 id="a prefix with nothing after the slash reports an empty name"),
    pytest.param("/simple", ["prefix part must be non-empty"],
                 id="a slash with nothing before it reports an empty prefix"),
    pytest.param("a" * 64, ["name part must be no more than 63 bytes"],
                 id="a 64-byte name is too long in bytes"),
    pytest.param("bad key", [NAME_PART_REGEX], id="a space breaks the name regex"),
    pytest.param("Example.com/abc", ["prefix part " + SUBDOMAIN_REGEX],
                 id="an uppercase prefix is not a lowercase subdomain"),
    pytest.param("a" * 254 + "/abc", ["prefix part must be no more than 253 bytes"],
                 id="a 254-byte prefix is too long in bytes"),
    pytest.param("only/one/slash", [
        "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        f"'123-abc', regex used for validation is '{LABEL_KEY_FMT}') with an optional DNS "
        "subdomain prefix and '/' (e.g. 'example.com/MyName')"],
        id="more than one slash gets the whole-key message alone"),
])
def test_label_key_messages_match_upstream(key, expected):
    assert is_qualified_name(key) == expected


# -- label values (TestIsLabelValue) ----------------------------------------------------------

@pytest.mark.parametrize("value", [
    "simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234",
    pytest.param("a" * 63, id="a 63-byte value"),
    pytest.param("", id="the empty value"),
])
def test_valid_label_values_are_accepted(value):
    assert is_valid_label_value(value) == []


@pytest.mark.parametrize("value", [
    "nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes\\are\\bad",
    "-starts-with-dash", "ends-with-dash-", ".starts.with.dot", "ends.with.dot.",
    pytest.param("a" * 64, id="a 64-byte value"),
])
def test_invalid_label_values_are_rejected(value):
    assert is_valid_label_value(value) != []


@pytest.mark.parametrize("value, expected", [
    pytest.param("a" * 64, ["must be no more than 63 bytes"], id="a long value is too long"),
    pytest.param("-x", [LABEL_VALUE_REGEX], id="a leading dash breaks the value regex"),
    pytest.param("-" * 64, ["must be no more than 63 bytes", LABEL_VALUE_REGEX],
                 id="a long bad value reports both problems in order"),
    pytest.param("é" * 32, ["must be no more than 63 bytes", LABEL_VALUE_REGEX],
                 id="length is counted in utf-8 bytes"),
])
def test_label_value_messages_match_upstream(value, expected):
    assert is_valid_label_value(value) == expected


# -- DNS names (TestIsDNS1123Label, TestIsDNS1123Subdomain) ------------------------------------

@pytest.mark.parametrize("value", [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2",
    pytest.param("a" * 63, id="63 characters"),
])
def test_valid_dns1123_labels_are_accepted(value):
    assert is_dns1123_label(value) == []


@pytest.mark.parametrize("value", [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2",
    pytest.param("a" * 64, id="64 characters"),
])
def test_invalid_dns1123_labels_are_rejected(value):
    assert is_dns1123_label(value) != []


@pytest.mark.parametrize("value, expected", [
    pytest.param("a.b", ["must not contain dots"], id="a valid subdomain is told about its dots"),
    pytest.param("A", [LABEL_REGEX], id="an uppercase letter breaks the label regex"),
    pytest.param("a" * 64, ["must be no more than 63 characters"],
                 id="a long label is too long in characters"),
])
def test_dns1123_label_messages_match_upstream(value, expected):
    assert is_dns1123_label(value) == expected


@pytest.mark.parametrize("value", [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2",
    "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a",
    "a.1", "ab.1", "abc.1", "a1.1", "a-1.1", "a--1--2--b.1",
    "0.a", "01.a", "012.a", "1a.a", "1-a.a",
    "0.1", "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1",
    "a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55",
    pytest.param("a" * 253, id="253 characters"),
])
def test_valid_dns1123_subdomains_are_accepted(value):
    assert is_dns1123_subdomain(value) == []


@pytest.mark.parametrize("value", [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a..b", "1.", ".1", "1..2",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2",
    "A.a", "aB.a", "ab.A", "A1.a", "a1.A", "A.1", "aB.1", "A1.1", "1A.1",
    "0.A", "01.A", "012.A", "1A.a", "1a.A", "A.B.C.D.E", "AA.BB.CC.DD.EE", "a.B.c.d.e",
    "aa.bB.cc.dd.ee", "a@b", "a,b", "a;b", "a:b", "a%b", "a?b", "a$b",
    pytest.param("a" * 254, id="254 characters"),
    pytest.param("a\n", id="a trailing newline"),
])
def test_invalid_dns1123_subdomains_are_rejected(value):
    assert is_dns1123_subdomain(value) != []


def test_a_long_subdomain_is_too_long_in_characters():
    assert is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]


@pytest.mark.parametrize("value, ok", [
    pytest.param("a", True, id="a single letter is a dns-1035 label"),
    pytest.param("my-name", True, id="letters and dashes are a dns-1035 label"),
    pytest.param("abc-123", True, id="a label may end in digits"),
    pytest.param("1abc", False, id="a label may not start with a digit"),
    pytest.param("a-", False, id="a label may not end with a dash"),
    pytest.param("A", False, id="a label may not be uppercase"),
    pytest.param("a" * 64, False, id="a label may not be 64 characters long"),
])
def test_dns1035_labels(value, ok):
    assert (is_dns1035_label(value) == []) is ok


# -- metadata.name -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, name, expected", [
    pytest.param("Pod", "web-0.example", [], id="a pod name may contain dots"),
    pytest.param("Node", "node-1.zone-a", [], id="a node name may contain dots"),
    pytest.param("Namespace", "team.a", ["must not contain dots"],
                 id="a namespace name must be a dns label"),
    pytest.param("Service", "1svc", [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
        "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
        "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"],
        id="a service name must start with a letter"),
    pytest.param("Deployment", "Web", [SUBDOMAIN_REGEX],
                 id="a deployment name must be lowercase"),
    pytest.param("Pod", "", ["name or generateName is required"],
                 id="an empty name is required"),
])
def test_object_names_follow_the_rule_of_their_kind(kind, name, expected):
    assert validate_object_name(kind, name) == expected


def test_object_meta_name_errors_are_field_errors():
    assert [str(e) for e in validate_object_meta_name("Pod", "")] == [
        "metadata.name: Required value: name or generateName is required"]
    assert [str(e) for e in validate_object_meta_name("Pod", "Web")] == [
        f'metadata.name: Invalid value: "Web": {SUBDOMAIN_REGEX}']


# -- label maps (ValidateLabels) ------------------------------------------------------------------

def test_valid_labels_have_no_errors():
    assert validate_labels({"app": "web", "example.com/tier": "", "a": "1.2"},
                           "metadata.labels") == []


@pytest.mark.parametrize("labels, expected", [
    pytest.param({"bad key": "v"},
                 [f'metadata.labels: Invalid value: "bad key": {NAME_PART_REGEX}'],
                 id="a bad key is reported against the whole label map"),
    pytest.param({"app": "-web"},
                 [f'metadata.labels: Invalid value: "-web": {LABEL_VALUE_REGEX}'],
                 id="a bad value is reported with the value as the bad value"),
    pytest.param({"": "x-"}, [
        'metadata.labels: Invalid value: "": name part must be non-empty',
        f'metadata.labels: Invalid value: "": {NAME_PART_REGEX}',
        f'metadata.labels: Invalid value: "x-": {LABEL_VALUE_REGEX}'],
        id="key errors come before the value error of the same entry"),
])
def test_label_errors_read_like_the_api_server(labels, expected):
    errs = validate_labels(labels, "metadata.labels")
    assert all(isinstance(e, FieldError) for e in errs)
    assert [str(e) for e in errs] == expected


def test_validate_label_name_gives_one_error_per_message():
    errs = validate_label_name("", "spec.key")
    assert [e.detail for e in errs] == ["name part must be non-empty", NAME_PART_REGEX]
    assert {e.path for e in errs} == {"spec.key"}


def _plain_label_errors(labels, path):
    """ValidateLabels as written before: every key and value checked on its own."""
    from ksandbox.api.validation import is_qualified_name, is_valid_label_value

    out = []
    for key, value in labels.items():
        out.extend((path, key, m) for m in is_qualified_name(key))
        out.extend((path, value, m) for m in is_valid_label_value(value))
    return out


_LABEL_TEXT = st.text(alphabet="aZ09-_./", max_size=70) | st.sampled_from(
    ["kubernetes.io/hostname", "node-1", "x" * 64, "a/b/c", "/x", "Ex.com/y", ""])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(_LABEL_TEXT, _LABEL_TEXT, max_size=4), min_size=1, max_size=4))
def test_label_checks_remembered_by_string_give_the_plain_messages(maps):
    """Keys and values are checked once per distinct string (api/validation._label_messages);
    every map's errors are still those of checking each key and value (upstream
    apimachinery validation.ValidateLabels), in order, however often a string comes again."""
    for labels in maps + maps:
        got = [(e.path, e.value, e.detail) for e in validate_labels(labels, "metadata.labels")]
        assert got == _plain_label_errors(labels, "metadata.labels")


def test_each_label_key_and_value_is_checked_once(monkeypatch):
    """5,000 nodes' labels: the same keys, one hostname each — a key is checked once."""
    from ksandbox.api import validation

    monkeypatch.setattr(validation, "_KEY_MESSAGES", {})
    monkeypatch.setattr(validation, "_VALUE_MESSAGES", {})
    calls = []
    real = validation.is_qualified_name
    monkeypatch.setattr(validation, "is_qualified_name", lambda k: calls.append(k) or real(k))
    for i in range(100):
        assert validate_labels({"kubernetes.io/hostname": f"node-{i}",
                                "topology.kubernetes.io/zone": f"zone-{i % 3}",
                                "kubernetes.io/os": "linux"}, "metadata.labels") == []
    assert sorted(calls) == ["kubernetes.io/hostname", "kubernetes.io/os",
                             "topology.kubernetes.io/zone"]
