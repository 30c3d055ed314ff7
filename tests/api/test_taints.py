"""Taints and tolerations: matching, validation and ``kubectl taint``.

Ported tables: ``api/core/v1/toleration_test.go`` (TestTolerationToleratesTaint),
``api/core/v1/taint_test.go`` (TestTaintToString, TestMatchTaint),
``pkg/apis/core/v1/helper/helpers_test.go`` (TestTolerationsTolerateTaintsWithFilter),
``kubectl/pkg/cmd/taint/utils_test.go`` (TestParseTaints, TestReorganizeTaints,
TestCheckIfTaintsAlreadyExists, TestDeleteTaint, TestDeleteTaintByKey) and
``kubectl/pkg/cmd/taint/taint_test.go`` (TestTaint), plus the API-server messages of
``pkg/apis/core/validation/validation.go``.
"""

from __future__ import annotations

import pytest

from ksandbox.api.codec import decode, encode
from ksandbox.api.errors import CommandError, FieldError
from ksandbox.api.taints import (
    MODIFIED,
    NO_EXECUTE,
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    TAINT_CONTROL_PLANE,
    TAINT_EXTERNAL_CLOUD_PROVIDER,
    TAINT_HINT,
    TAINT_NODE_DISK_PRESSURE,
    TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
    TAINTED,
    UNTAINTED,
    Taint,
    Toleration,
    apply_taint_changes,
    find_untolerated_taint,
    parse_taint_args,
    tolerations_tolerate_taint,
    validate_taints,
    validate_tolerations,
)

NAME_PART_REGEX = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_REGEX = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
EFFECTS = 'supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"'


# -- ToleratesTaint ------------------------------------------------------------------------------

@pytest.mark.parametrize("toleration, taint, tolerated", [
    pytest.param(Toleration("foo", "Exists", effect=NO_SCHEDULE), Taint("foo", effect=NO_SCHEDULE),
                 True, id="exists with the same key and effect tolerates a taint without value"),
    pytest.param(Toleration("foo", "Exists", effect=NO_SCHEDULE), Taint("foo", "bar", NO_SCHEDULE),
                 True, id="exists with the same key and effect tolerates a taint with a value"),
    pytest.param(Toleration("", "Exists", effect=NO_SCHEDULE), Taint("foo", "bar", NO_SCHEDULE),
                 True, id="exists with an empty key tolerates every key of that effect"),
    pytest.param(Toleration("foo", "Equal", "bar", NO_SCHEDULE), Taint("foo", "bar", NO_SCHEDULE),
                 True, id="equal with the same key effect and value tolerates"),
    pytest.param(Toleration("foo", "Equal", "value1", NO_SCHEDULE),
                 Taint("foo", "value2", NO_SCHEDULE),
                 False, id="equal with a different value does not tolerate"),
    pytest.param(Toleration("foo", "Equal", "bar", NO_SCHEDULE), Taint("foo", "bar", NO_EXECUTE),
                 False, id="equal with a different effect does not tolerate"),
    pytest.param(Toleration("foo", "Equal", "bar"), Taint("foo", "bar", NO_EXECUTE),
                 True, id="an empty effect tolerates every effect"),
    pytest.param(Toleration("foo", "", "bar", NO_SCHEDULE), Taint("foo", "bar", NO_SCHEDULE),
                 True, id="an empty operator means equal"),
    pytest.param(Toleration("foo", "", "", NO_SCHEDULE), Taint("foo", "bar", NO_SCHEDULE),
                 False, id="an empty operator compares the value"),
    pytest.param(Toleration(operator="Exists"), Taint("anything", "at-all", NO_EXECUTE),
                 True, id="exists with no key and no effect tolerates everything"),
    pytest.param(Toleration("foo", "Exists", effect=NO_SCHEDULE), Taint("bar", effect=NO_SCHEDULE),
                 False, id="exists with another key does not tolerate"),
    pytest.param(Toleration("foo", "In", "bar"), Taint("foo", "bar", NO_SCHEDULE),
                 False, id="an unknown operator tolerates nothing"),
    pytest.param(Toleration("node.kubernetes.io/sla", "Gt", "950", NO_SCHEDULE),
                 Taint("node.kubernetes.io/sla", "800", NO_SCHEDULE),
                 False, id="gt does not tolerate a smaller taint value"),
    pytest.param(Toleration("node.kubernetes.io/sla", "Gt", "750", NO_SCHEDULE),
                 Taint("node.kubernetes.io/sla", "950", NO_SCHEDULE),
                 True, id="gt tolerates a larger taint value"),
    pytest.param(Toleration("node.kubernetes.io/sla", "Lt", "800", NO_SCHEDULE),
                 Taint("node.kubernetes.io/sla", "950", NO_SCHEDULE),
                 False, id="lt does not tolerate a larger taint value"),
    pytest.param(Toleration("node.kubernetes.io/sla", "Lt", "950", NO_SCHEDULE),
                 Taint("node.kubernetes.io/sla", "800", NO_SCHEDULE),
                 True, id="lt tolerates a smaller taint value"),
    pytest.param(Toleration("node.kubernetes.io/sla", "Gt", "950", NO_SCHEDULE),
                 Taint("node.kubernetes.io/sla", "950", NO_SCHEDULE),
                 False, id="gt does not tolerate an equal taint value"),
    pytest.param(Toleration("node.kubernetes.io/sla", "Gt", "950", NO_SCHEDULE),
                 Taint("node.kubernetes.io/sla", "high", NO_SCHEDULE),
                 False, id="gt does not tolerate a non-numeric taint value"),
    pytest.param(Toleration("test-key", "Gt", "-100", NO_SCHEDULE),
                 Taint("test-key", "-200", NO_SCHEDULE),
                 False, id="gt compares negative numbers"),
    pytest.param(Toleration("test-key", "Gt", "9223372036854775806", NO_SCHEDULE),
                 Taint("test-key", "100", NO_SCHEDULE),
                 False, id="gt compares large int64 values"),
])
def test_tolerates_taint(toleration, taint, tolerated):
    assert toleration.tolerates(taint) is tolerated


# -- MatchTaint and ToString ---------------------------------------------------------------------

@pytest.mark.parametrize("a, b, match", [
    pytest.param(Taint("foo", "bar", NO_SCHEDULE), Taint("foo", "bar", NO_SCHEDULE), True,
                 id="same key value and effect match"),
    pytest.param(Taint("foo", "bar", NO_SCHEDULE), Taint("foo", "different-value", NO_SCHEDULE),
                 True, id="same key and effect match whatever the value"),
    pytest.param(Taint("foo", "bar", NO_SCHEDULE), Taint("different-key", "bar", NO_SCHEDULE),
                 False, id="different keys never match"),
    pytest.param(Taint("foo", "bar", NO_SCHEDULE), Taint("foo", "bar", PREFER_NO_SCHEDULE),
                 False, id="different effects never match"),
])
def test_match_taint(a, b, match):
    assert a.matches(b) is match


@pytest.mark.parametrize("taint, text", [
    pytest.param(Taint("foo", "bar", NO_SCHEDULE), "foo=bar:NoSchedule", id="key value and effect"),
    pytest.param(Taint("foo", effect=NO_SCHEDULE), "foo:NoSchedule", id="key and effect"),
    pytest.param(Taint("foo"), "foo", id="key alone"),
    pytest.param(Taint("foo", "bar"), "foo=bar:", id="key and value keep the colon"),
])
def test_taint_to_string(taint, text):
    assert taint.to_string() == text


# -- TolerationsTolerateTaintsWithFilter, as find_untolerated_taint -----------------------------

FOO_EXISTS_NOSCHEDULE = Toleration("foo", "Exists", effect=NO_SCHEDULE)


@pytest.mark.parametrize("tolerations, taints, effects, untolerated", [
    pytest.param([], [], {NO_SCHEDULE, NO_EXECUTE}, None,
                 id="no tolerations tolerate no taints"),
    pytest.param([FOO_EXISTS_NOSCHEDULE], [], {NO_SCHEDULE}, None,
                 id="some tolerations tolerate no taints"),
    pytest.param([FOO_EXISTS_NOSCHEDULE], [Taint("foo", effect=NO_SCHEDULE)], {NO_SCHEDULE}, None,
                 id="tolerations matching every taint leave nothing untolerated"),
    pytest.param([FOO_EXISTS_NOSCHEDULE], [Taint("bar", effect=NO_SCHEDULE)], set(), None,
                 id="taints outside the filter are ignored"),
    pytest.param([FOO_EXISTS_NOSCHEDULE], [Taint("bar", effect=NO_SCHEDULE)], None,
                 Taint("bar", effect=NO_SCHEDULE),
                 id="without a filter every taint counts"),
    pytest.param([Toleration("foo", "Exists", effect=NO_EXECUTE)],
                 [Taint("foo", effect=NO_EXECUTE), Taint("bar", effect=NO_SCHEDULE)], {NO_EXECUTE},
                 None, id="only the filtered effects need tolerating"),
    pytest.param([], [Taint("a", effect=PREFER_NO_SCHEDULE), Taint("b", effect=NO_SCHEDULE),
                      Taint("c", effect=NO_EXECUTE)], {NO_SCHEDULE, NO_EXECUTE},
                 Taint("b", effect=NO_SCHEDULE), id="the first untolerated taint is returned"),
])
def test_find_untolerated_taint(tolerations, taints, effects, untolerated):
    assert find_untolerated_taint(taints, tolerations, effects) == untolerated


def test_tolerations_tolerate_taint_needs_just_one():
    taint = Taint("dedicated", "gpu", NO_SCHEDULE)
    assert tolerations_tolerate_taint([Toleration("x", "Exists"), Toleration("dedicated", "Equal", "gpu")],
                                      taint)
    assert not tolerations_tolerate_taint([Toleration("x", "Exists")], taint)
    assert not tolerations_tolerate_taint([], taint)


# -- describe's toleration line ------------------------------------------------------------------

@pytest.mark.parametrize("toleration, text", [
    pytest.param(Toleration(TAINT_NODE_NOT_READY, "Exists", effect=NO_EXECUTE, toleration_seconds=300),
                 "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                 id="the default not-ready toleration"),
    pytest.param(Toleration(operator="Exists"), "op=Exists", id="the tolerate-everything toleration"),
    pytest.param(Toleration("dedicated", "Equal", "gpu", NO_SCHEDULE), "dedicated=gpu:NoSchedule",
                 id="an equal toleration shows key value and effect"),
    pytest.param(Toleration("dedicated", "Exists"), "dedicated op=Exists", id="exists with a key only"),
    pytest.param(Toleration(operator="Exists", effect=NO_SCHEDULE), ":NoSchedule op=Exists",
                 id="exists with an effect only"),
    pytest.param(Toleration("k", "Exists", effect=NO_EXECUTE, toleration_seconds=0),
                 "k:NoExecute op=Exists for 0s", id="zero seconds is still shown"),
])
def test_toleration_to_string_matches_describe(toleration, text):
    assert toleration.to_string() == text


# -- API-server validation -----------------------------------------------------------------------

def test_valid_taints_have_no_errors():
    taints = [Taint("dedicated", "gpu", NO_SCHEDULE), Taint("dedicated", "gpu", NO_EXECUTE),
              Taint(TAINT_CONTROL_PLANE, effect=NO_SCHEDULE)]
    assert validate_taints(taints, "spec.taints") == []


@pytest.mark.parametrize("taints, messages", [
    pytest.param([Taint("dedicated")], ["spec.taints[0].effect: Required value"],
                 id="a taint needs an effect"),
    pytest.param([Taint("dedicated", effect="NoSchedul")],
                 [f'spec.taints[0].effect: Unsupported value: "NoSchedul": {EFFECTS}'],
                 id="a misspelt effect is unsupported"),
    pytest.param([Taint("app", "hapi", PREFER_NO_SCHEDULE), Taint("app", "portal", PREFER_NO_SCHEDULE)],
                 ['spec.taints[1]: Duplicate value: core.Taint{Key:"app", Value:"portal", '
                  'Effect:"PreferNoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by '
                  "key and effect pair"],
                 id="two taints with the same key and effect are duplicates"),
    pytest.param([Taint("bad key", effect=NO_SCHEDULE)],
                 [f'spec.taints[0].key: Invalid value: "bad key": {NAME_PART_REGEX}'],
                 id="a bad key is invalid"),
    pytest.param([Taint("", effect=NO_SCHEDULE)],
                 ['spec.taints[0].key: Invalid value: "": name part must be non-empty',
                  f'spec.taints[0].key: Invalid value: "": {NAME_PART_REGEX}'],
                 id="an empty key breaks two rules"),
    pytest.param([Taint("k", "-v", NO_SCHEDULE)],
                 [f'spec.taints[0].value: Invalid value: "-v": {LABEL_VALUE_REGEX}'],
                 id="a bad value is invalid"),
])
def test_taint_errors_read_like_the_api_server(taints, messages):
    assert [str(e) for e in validate_taints(taints, "spec.taints")] == messages


def test_valid_tolerations_have_no_errors():
    tolerations = [Toleration(operator="Exists"), Toleration("k", "Equal", "v", NO_SCHEDULE),
                   Toleration("k", "", "v"),
                   Toleration(TAINT_NODE_NOT_READY, "Exists", effect=NO_EXECUTE, toleration_seconds=300)]
    assert validate_tolerations(tolerations, "spec.tolerations") == []


@pytest.mark.parametrize("toleration, messages", [
    pytest.param(Toleration("pool", "Exists", "build", NO_SCHEDULE),
                 ['spec.tolerations[0].operator: Invalid value: "build": value must be empty when '
                  "`operator` is 'Exists'"],
                 id="exists with a value is invalid"),
    pytest.param(Toleration("k", "Exists", effect=NO_SCHEDULE, toleration_seconds=60),
                 ['spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be '
                  "'NoExecute' when `tolerationSeconds` is set"],
                 id="toleration seconds need the noexecute effect"),
    pytest.param(Toleration("", "Equal"),
                 ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists '
                  'when `key` is empty, which means "match all values and all keys"'],
                 id="an empty key needs exists"),
    pytest.param(Toleration("", ""),
                 ['spec.tolerations[0].operator: Invalid value: "": operator must be Exists when '
                  '`key` is empty, which means "match all values and all keys"'],
                 id="an empty key with no operator shows the empty operator"),
    pytest.param(Toleration("k", "In", "v"),
                 ['spec.tolerations[0].operator: Unsupported value: "In": supported values: '
                  '"Equal", "Exists"'],
                 id="an unknown operator is unsupported"),
    pytest.param(Toleration("k", "Gt", "5"),
                 ['spec.tolerations[0].operator: Unsupported value: "Gt": supported values: '
                  '"Equal", "Exists"'],
                 id="gt is refused as with the feature gate off"),
    pytest.param(Toleration("k", "Exists", effect="NoSchedul"),
                 [f'spec.tolerations[0].effect: Unsupported value: "NoSchedul": {EFFECTS}'],
                 id="a misspelt effect is unsupported"),
    pytest.param(Toleration("bad key", "Exists"),
                 [f'spec.tolerations[0].key: Invalid value: "bad key": {NAME_PART_REGEX}'],
                 id="a bad key is invalid"),
    pytest.param(Toleration("k", "Equal", "-v"),
                 [f'spec.tolerations[0].operator: Invalid value: "-v": {LABEL_VALUE_REGEX}'],
                 id="a bad value is reported under operator as upstream does"),
])
def test_toleration_errors_read_like_the_api_server(toleration, messages):
    errs = validate_tolerations([toleration], "spec.tolerations")
    assert all(isinstance(e, FieldError) for e in errs)
    assert [str(e) for e in errs] == messages


# -- decoding and encoding -----------------------------------------------------------------------

@pytest.mark.parametrize("data, taint", [
    pytest.param({"key": "k", "value": "v", "effect": NO_SCHEDULE}, Taint("k", "v", NO_SCHEDULE),
                 id="a plain taint"),
    pytest.param({"key": "k", "effect": NO_EXECUTE, "timeAdded": 12}, Taint("k", "", NO_EXECUTE, 12.0),
                 id="a numeric time added is simulated seconds"),
    pytest.param({"key": "k", "effect": NO_EXECUTE, "timeAdded": "2024-05-01T10:00:00Z"},
                 Taint("k", "", NO_EXECUTE, None), id="a real timestamp is ignored"),
])
def test_taint_from_dict(data, taint):
    assert Taint.from_dict(data, "spec.taints[0]") == taint
    assert decode(Taint, data, "spec.taints[0]") == taint


def test_taint_from_dict_rejects_wrong_types():
    with pytest.raises(FieldError) as exc:
        Taint.from_dict({"key": 1}, "spec.taints[0]")
    assert str(exc.value) == "spec.taints[0].key: Invalid value: 1: expected string, got integer"


def test_taint_to_dict_leaves_out_empties():
    assert Taint("k", effect=NO_SCHEDULE).to_dict() == {"key": "k", "effect": NO_SCHEDULE}
    assert Taint("k", "v", NO_EXECUTE, 5.0).to_dict() == {
        "key": "k", "value": "v", "effect": NO_EXECUTE, "timeAdded": 5.0}
    assert encode(Taint("k", effect=NO_SCHEDULE)) == {"key": "k", "effect": NO_SCHEDULE}


def test_toleration_round_trips_and_keeps_a_missing_operator_empty():
    data = {"key": "k", "effect": NO_EXECUTE, "tolerationSeconds": 300}
    t = Toleration.from_dict(data, "spec.tolerations[0]")
    assert t == Toleration("k", "", "", NO_EXECUTE, 300)
    assert t.to_dict() == data
    assert decode(Toleration, data) == t and encode(t) == data


def test_toleration_seconds_must_be_an_integer():
    with pytest.raises(FieldError) as exc:
        Toleration.from_dict({"key": "k", "tolerationSeconds": "300"}, "spec.tolerations[0]")
    assert str(exc.value) == ('spec.tolerations[0].tolerationSeconds: Invalid value: "300": '
                              "expected integer, got string")


def test_taints_and_tolerations_are_hashable_values():
    assert len({Taint("a", effect=NO_SCHEDULE), Taint("a", effect=NO_SCHEDULE)}) == 1
    assert len({Toleration("a", "Exists"), Toleration("a", "Exists")}) == 1


def test_well_known_taint_keys():
    assert [TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE,
            TAINT_NODE_MEMORY_PRESSURE, TAINT_NODE_DISK_PRESSURE, TAINT_NODE_PID_PRESSURE,
            TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_CONTROL_PLANE, TAINT_EXTERNAL_CLOUD_PROVIDER] == [
        "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
        "node.kubernetes.io/unschedulable", "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/disk-pressure", "node.kubernetes.io/pid-pressure",
        "node.kubernetes.io/network-unavailable", "node-role.kubernetes.io/control-plane",
        "node.cloudprovider.kubernetes.io/uninitialized"]


# -- kubectl taint: parseTaints --------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    pytest.param([""], f"invalid taint spec: , name part must be non-empty; {NAME_PART_REGEX}",
                 id="an empty spec has an empty key"),
    pytest.param(["foo=abc"], f"invalid taint spec: foo=abc, {NAME_PART_REGEX}",
                 id="a spec without an effect keeps the equals sign in the key"),
    pytest.param(["foo=abc=xyz:NoSchedule"], "invalid taint spec: foo=abc=xyz:NoSchedule",
                 id="two equals signs are refused"),
    pytest.param(["foo=abc:xyz:NoSchedule"], "invalid taint spec: foo=abc:xyz:NoSchedule",
                 id="two colons are refused"),
    pytest.param(["foo"], "invalid taint spec: foo", id="adding a taint needs an effect"),
    pytest.param(["foo=abc:invalid_effect"],
                 "invalid taint effect: invalid_effect, unsupported taint effect",
                 id="an unknown effect is refused when adding"),
    pytest.param(["foo:invalid_effect-"],
                 "invalid taint effect: invalid_effect, unsupported taint effect",
                 id="an unknown effect is refused when removing"),
    pytest.param(["a=b=c:NoSchedule"], "invalid taint spec: a=b=c:NoSchedule",
                 id="the brief's two-equals example"),
    pytest.param(["a:b:c"], "invalid taint spec: a:b:c", id="the brief's two-colons example"),
    pytest.param(["bad!key=v:NoSchedule"], f"invalid taint spec: bad!key=v:NoSchedule, {NAME_PART_REGEX}",
                 id="a bad key carries the validation message"),
    pytest.param(["k=-v:NoSchedule"], f"invalid taint spec: k=-v:NoSchedule, {LABEL_VALUE_REGEX}",
                 id="a bad value carries the validation message"),
    pytest.param(["nospecialchars^@=banana:NoSchedule"],
                 f"invalid taint spec: nospecialchars^@=banana:NoSchedule, {NAME_PART_REGEX}",
                 id="special characters in the key are refused"),
    pytest.param(["foo=bar:NoExcute"], "invalid taint effect: NoExcute, unsupported taint effect",
                 id="a misspelt effect is refused"),
    pytest.param(["foo=bar:NoSchedul"], "invalid taint effect: NoSchedul, unsupported taint effect",
                 id="the brief's misspelt effect"),
    pytest.param(["foo:"], "invalid taint effect: , unsupported taint effect",
                 id="an empty effect after a colon is refused"),
    pytest.param(["foo=bar:NoSchedule", "foo=barz:NoSchedule"],
                 "duplicated taints with the same key and effect: {foo barz NoSchedule <nil>}",
                 id="two taints with the same key and effect are duplicates"),
])
def test_parse_taint_args_usage_errors(args, message):
    with pytest.raises(CommandError) as exc:
        parse_taint_args(args)
    assert exc.value.message == message
    assert exc.value.hint == TAINT_HINT


@pytest.mark.parametrize("args, to_add, to_remove", [
    pytest.param(["foo=abc:NoSchedule", "bar=abc:NoSchedule", "baz:NoSchedule", "qux:NoSchedule",
                  "foobar=:NoSchedule"],
                 [Taint("foo", "abc", NO_SCHEDULE), Taint("bar", "abc", NO_SCHEDULE),
                  Taint("baz", "", NO_SCHEDULE), Taint("qux", "", NO_SCHEDULE),
                  Taint("foobar", "", NO_SCHEDULE)], [],
                 id="new taints with and without values"),
    pytest.param(["foo:NoSchedule-", "bar:NoSchedule-", "qux=:NoSchedule-", "dedicated-"], [],
                 [Taint("foo", effect=NO_SCHEDULE), Taint("bar", effect=NO_SCHEDULE),
                  Taint("qux", effect=NO_SCHEDULE), Taint("dedicated")],
                 id="removals keep only key and effect"),
    pytest.param(["foo=v:NoSchedule-"], [], [Taint("foo", effect=NO_SCHEDULE)],
                 id="a removal drops the value"),
    pytest.param(["foo=bar:NoSchedule", "foo=bar:NoExecute"],
                 [Taint("foo", "bar", NO_SCHEDULE), Taint("foo", "bar", NO_EXECUTE)], [],
                 id="the same key with two effects is allowed"),
    pytest.param(["foo=bar:NoSchedule", "foo:NoExecute-"],
                 [Taint("foo", "bar", NO_SCHEDULE)], [Taint("foo", effect=NO_EXECUTE)],
                 id="adding and removing other effects of one key is allowed"),
])
def test_parse_taint_args(args, to_add, to_remove):
    assert parse_taint_args(args) == (to_add, to_remove)


@pytest.mark.parametrize("args, conflicts", [
    pytest.param(["foo=abc:NoSchedule", "bar=abc:NoSchedule", "baz:NoSchedule", "qux:NoSchedule",
                  "foobar=:NoSchedule", "foo:NoSchedule-", "bar:NoSchedule-", "baz=:NoSchedule-"],
                 '{"foo":"NoSchedule"}, {"bar":"NoSchedule"}, {"baz":"NoSchedule"}',
                 id="upstream's add-and-delete table entry is refused by validate"),
    pytest.param(["foo=:NoSchedule", "foo=:NoSchedule-"], '{"foo":"NoSchedule"}',
                 id="adding and removing the same key and effect"),
    pytest.param(["foo=:NoSchedule", "foo-"], '{"foo":""}',
                 id="adding a key while removing every effect of it"),
])
def test_adding_and_removing_the_same_taint_is_a_plain_error(args, conflicts):
    with pytest.raises(CommandError) as exc:
        parse_taint_args(args)
    assert exc.value.message == ("can not both modify and remove the following taint(s) in the "
                                 f"same command: {conflicts}")
    assert exc.value.hint is None


# -- kubectl taint: reorganizeTaints and friends -------------------------------------------------

FOO_BAR = Taint("foo", "bar", NO_SCHEDULE)


@pytest.mark.parametrize("overwrite, add, remove, taints, operation", [
    pytest.param(True, [], [], (FOO_BAR,), MODIFIED, id="no changes with overwrite is modified"),
    pytest.param(False, [], [], (FOO_BAR,), UNTAINTED, id="no changes without overwrite is untainted"),
    pytest.param(False, [Taint("foo_1", effect=NO_EXECUTE)], [],
                 (Taint("foo_1", effect=NO_EXECUTE, time_added=7.0), FOO_BAR), TAINTED,
                 id="adding a new taint is tainted and puts it first"),
    pytest.param(False, [], [Taint("foo", effect=NO_SCHEDULE)], (), UNTAINTED,
                 id="deleting by key and effect is untainted"),
    pytest.param(False, [], [Taint("foo")], (), UNTAINTED,
                 id="deleting by key alone is untainted"),
    pytest.param(False, [Taint("foo_1", effect=NO_SCHEDULE)], [Taint("foo", effect=NO_SCHEDULE)],
                 (Taint("foo_1", effect=NO_SCHEDULE),), MODIFIED,
                 id="adding one and deleting another is modified"),
])
def test_reorganize_taints(overwrite, add, remove, taints, operation):
    assert apply_taint_changes((FOO_BAR,), add, remove, overwrite, "node-name", 7.0) == (
        taints, operation)


@pytest.mark.parametrize("current, remove, message", [
    pytest.param((FOO_BAR,), [Taint("foo_1", effect=NO_SCHEDULE)],
                 'taint "foo_1:NoSchedule" not found', id="deleting a taint that is not there"),
    pytest.param((Taint("foo", effect=NO_SCHEDULE),), [Taint("foo", effect=NO_EXECUTE)],
                 'taint "foo:NoExecute" not found', id="deleting a taint with another effect"),
    pytest.param((), [Taint("foo", effect=NO_SCHEDULE)], 'taint "foo:NoSchedule" not found',
                 id="deleting from a node without taints"),
    pytest.param((FOO_BAR,), [Taint("foo_1")], 'taint "foo_1" not found',
                 id="deleting by a key that is not there"),
    pytest.param((), [Taint("foo")], 'taint "foo" not found',
                 id="deleting by key from a node without taints"),
    pytest.param((), [Taint("a"), Taint("b", effect=NO_SCHEDULE)],
                 '[taint "a" not found, taint "b:NoSchedule" not found]',
                 id="several missing taints are aggregated"),
    pytest.param((Taint("dedicated", effect=NO_SCHEDULE),), [Taint("dedicated", effect=NO_SCHEDULE)]
                 * 2, 'taint "dedicated:NoSchedule" not found',
                 id="removing the same taint twice fails the second time"),
])
def test_deleting_missing_taints_fails(current, remove, message):
    with pytest.raises(CommandError) as exc:
        apply_taint_changes(current, [], remove, False, "node-name", 0.0)
    assert exc.value.message == message


OLD = (Taint("foo_1", "bar", NO_SCHEDULE), Taint("foo_2", "bar", NO_SCHEDULE),
       Taint("foo_3", "bar", NO_SCHEDULE))


@pytest.mark.parametrize("add, clashing", [
    pytest.param([], None, id="adding nothing clashes with nothing"),
    pytest.param([Taint("foo_1", effect=NO_EXECUTE)], None, id="another effect does not clash"),
    pytest.param([Taint("foo_2", effect=NO_SCHEDULE)], "foo_2", id="one taint clashes"),
    pytest.param([Taint("foo_2", effect=NO_SCHEDULE), Taint("foo_3", effect=NO_SCHEDULE)],
                 "foo_2,foo_3", id="two clashing keys are joined with a comma"),
])
def test_existing_taints_need_overwrite(add, clashing):
    if clashing is None:
        apply_taint_changes(OLD, add, [], False, "foo", 0.0)
        return
    with pytest.raises(CommandError) as exc:
        apply_taint_changes(OLD, add, [], False, "foo", 0.0)
    assert exc.value.message == (f"node foo already has {clashing} taint(s) with same effect(s) "
                                 "and --overwrite is false")
    apply_taint_changes(OLD, add, [], True, "foo", 0.0)  # --overwrite lets it through


# -- kubectl taint end to end (TestTaint) ----------------------------------------------------------

DEDICATED_NS = Taint("dedicated", "namespaceA", NO_SCHEDULE)
DEDICATED_PNS = Taint("dedicated", "namespaceA", PREFER_NO_SCHEDULE)


@pytest.mark.parametrize("old, args, overwrite, new, operation", [
    pytest.param((), ["foo=bar:NoSchedule"], False, {Taint("foo", "bar", NO_SCHEDULE)}, TAINTED,
                 id="taints a node with effect noschedule"),
    pytest.param((), ["foo=bar:PreferNoSchedule"], False,
                 {Taint("foo", "bar", PREFER_NO_SCHEDULE)}, TAINTED,
                 id="taints a node with effect prefernoschedule"),
    pytest.param((FOO_BAR,), ["foo=barz:NoSchedule"], True, {Taint("foo", "barz", NO_SCHEDULE)},
                 MODIFIED, id="updates an existing taint with overwrite"),
    pytest.param((), ["dedicated=namespaceA:NoSchedule", "foo=bar:PreferNoSchedule"], False,
                 {DEDICATED_NS, Taint("foo", "bar", PREFER_NO_SCHEDULE)}, TAINTED,
                 id="taints a node with two taints"),
    pytest.param((DEDICATED_NS, DEDICATED_PNS), ["dedicated:NoSchedule-"], False, {DEDICATED_PNS},
                 UNTAINTED, id="removes one of two same-key taints by key and effect"),
    pytest.param((DEDICATED_NS, DEDICATED_PNS), ["dedicated-"], False, set(), UNTAINTED,
                 id="removes every effect of a key"),
    pytest.param((DEDICATED_NS, Taint("foo", "bar", PREFER_NO_SCHEDULE)),
                 ["dedicated:NoSchedule-", "foo=barz:PreferNoSchedule"], True,
                 {Taint("foo", "barz", PREFER_NO_SCHEDULE)}, MODIFIED,
                 id="updates one taint and removes the other"),
])
def test_kubectl_taint_end_to_end(old, args, overwrite, new, operation):
    add, remove = parse_taint_args(args)
    taints, op = apply_taint_changes(old, add, remove, overwrite, "node-name", 0.0)
    assert set(taints) == new and len(taints) == len(new)
    assert op == operation


def test_updating_without_overwrite_is_refused():
    add, remove = parse_taint_args(["foo=bar:NoSchedule"])
    with pytest.raises(CommandError) as exc:
        apply_taint_changes((FOO_BAR,), add, remove, False, "node-name", 0.0)
    assert exc.value.message == ("node node-name already has foo taint(s) with same effect(s) and "
                                 "--overwrite is false")


def test_dedicated_taint_not_found_message():
    add, remove = parse_taint_args(["dedicated:NoSchedule-"])
    with pytest.raises(CommandError) as exc:
        apply_taint_changes((), add, remove, False, "foo", 0.0)
    assert str(exc.value) == 'taint "dedicated:NoSchedule" not found'


# -- TimeAdded on NoExecute taints -----------------------------------------------------------------

@pytest.mark.parametrize("current, spec, expected", [
    pytest.param((), "k=v:NoExecute", Taint("k", "v", NO_EXECUTE, 42.0),
                 id="a new noexecute taint is stamped with now"),
    pytest.param((), "k=v:NoSchedule", Taint("k", "v", NO_SCHEDULE, None),
                 id="a new noschedule taint is not stamped"),
    pytest.param((Taint("k", "v", NO_EXECUTE, 3.0),), "k=v:NoExecute", Taint("k", "v", NO_EXECUTE, 3.0),
                 id="re-adding an identical noexecute taint keeps its time"),
    pytest.param((Taint("k", "v", NO_EXECUTE, 3.0),), "k=w:NoExecute", Taint("k", "w", NO_EXECUTE, 42.0),
                 id="changing a noexecute taint's value restamps it"),
])
def test_noexecute_taints_get_time_added(current, spec, expected):
    add, remove = parse_taint_args([spec])
    taints, _ = apply_taint_changes(current, add, remove, True, "n", 42.0)
    assert taints[0] == expected and taints[0].time_added == expected.time_added


def test_untouched_taints_keep_their_time_added():
    old = (Taint("a", effect=NO_EXECUTE, time_added=1.0), Taint("b", effect=NO_EXECUTE, time_added=2.0))
    add, remove = parse_taint_args(["c:NoSchedule", "a-"])
    taints, op = apply_taint_changes(old, add, remove, False, "n", 9.0)
    assert taints == (Taint("c", effect=NO_SCHEDULE), Taint("b", effect=NO_EXECUTE, time_added=2.0))
    assert op == MODIFIED
