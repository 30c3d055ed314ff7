"""Label selectors: parsing kubectl's string form, matching, printing, API validation.

Ported tables: ``apimachinery/pkg/labels/selector_test.go`` (TestSelectorParse,
TestDeterministicParse, TestSelectorMatches, TestSetMatches, TestToString,
TestRequirementSelectorMatching, TestSetSelectorParser, TestRequirementConstructor) and the
rules of ``apis/meta/v1/validation/validation.go`` (ValidateLabelSelector). Where ksandbox
deliberately differs (``!=`` is stored as ``NotIn``, ``==`` as ``matchLabels``) the expected
values say so.
"""

from __future__ import annotations

import pytest

from ksandbox.api.codec import decode, encode
from ksandbox.api.errors import CommandError, FieldError
from ksandbox.api.selector_parser import parse_selector
from ksandbox.api.selectors import (
    DOES_NOT_EXIST,
    EXISTS,
    GT,
    IN,
    LT,
    NOT_IN,
    LabelSelector,
    LabelSelectorRequirement,
    format_label_selector,
    requirement_matches,
)

R = LabelSelectorRequirement


def sel(labels=None, *exprs):
    return LabelSelector(match_labels=labels or {}, match_expressions=exprs)


# -- parsing: TestSelectorParse --------------------------------------------------------------

@pytest.mark.parametrize("text, printed", [
    pytest.param("x=a,y=b,z=c", "x=a,y=b,z=c", id="three equalities print back unchanged"),
    pytest.param("", "", id="the empty string is the empty selector"),
    pytest.param("x!=a,y=b", "x notin (a),y=b", id="not-equals is kept as notin"),
    pytest.param("x=", "x=", id="an equality may have an empty value"),
    pytest.param("x= ", "x=", id="trailing spaces after an empty value are ignored"),
    pytest.param("x=,z= ", "x=,z=", id="several empty values parse"),
    pytest.param("x= ,z= ", "x=,z=", id="spaces around empty values are ignored"),
    pytest.param("!x", "!x", id="a bang means does-not-exist"),
    pytest.param("x>1", "x>1", id="greater-than parses"),
    pytest.param("x>1,z<5", "x>1,z<5", id="greater-than and less-than parse together"),
])
def test_good_selector_strings_parse_and_print_back(text, printed):
    assert str(parse_selector(text)) == printed


@pytest.mark.parametrize("text", [
    pytest.param("x=a||y=b", id="double pipes are not an or operator"),
    pytest.param("x==a==b", id="two double-equals in one requirement are refused"),
    pytest.param("!x=a", id="does-not-exist takes no value"),
    pytest.param("x<a", id="less-than needs an integer"),
])
def test_bad_selector_strings_are_refused(text):
    with pytest.raises(CommandError):
        parse_selector(text)


def test_parsing_is_deterministic_whatever_the_order():
    assert str(parse_selector("x=a,a=x")) == str(parse_selector("a=x,x=a")) == "a=x,x=a"


# -- parsing: TestSetSelectorParser ------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    pytest.param("", sel(), id="nothing parses to the empty selector"),
    pytest.param("\rx", sel(None, R("x", EXISTS)), id="a carriage return is whitespace"),
    pytest.param("this-is-a-dns.domain.com/key-with-dash",
                 sel(None, R("this-is-a-dns.domain.com/key-with-dash", EXISTS)),
                 id="a prefixed key alone means exists"),
    pytest.param("this-is-another-dns.domain.com/key-with-dash in (so,what)",
                 sel(None, R("this-is-another-dns.domain.com/key-with-dash", IN, ("so", "what"))),
                 id="a prefixed key takes an in list"),
    pytest.param("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
                 sel(None, R("0.1.2.domain/99", NOT_IN, ("10.10.100.1", "tick.tack.clock"))),
                 id="dotted values in a notin list"),
    pytest.param("foo  in\t (abc)", sel(None, R("foo", IN, ("abc",))),
                 id="tabs and double spaces separate tokens"),
    pytest.param("x notin\n (abc)", sel(None, R("x", NOT_IN, ("abc",))),
                 id="a newline separates tokens"),
    pytest.param("x  notin\t\t\t(abc,def)", sel(None, R("x", NOT_IN, ("abc", "def"))),
                 id="several tabs separate tokens"),
    pytest.param("x in (abc,def)", sel(None, R("x", IN, ("abc", "def"))),
                 id="an in list of two values"),
    pytest.param("x in (abc,)", sel(None, R("x", IN, ("", "abc"))),
                 id="a trailing comma adds the empty value"),
    pytest.param("x in ()", sel(None, R("x", IN, ("",))), id="empty parentheses mean the empty value"),
    pytest.param("x notin (abc,,def),bar,z in (),w",
                 sel(None, R("bar", EXISTS), R("w", EXISTS), R("x", NOT_IN, ("", "abc", "def")),
                     R("z", IN, ("",))),
                 id="requirements are sorted by key"),
    pytest.param("x,y in (a)", sel(None, R("x", EXISTS), R("y", IN, ("a",))),
                 id="an exists requirement before an in requirement"),
    pytest.param("x=a", sel({"x": "a"}), id="an equality becomes a match label"),
    pytest.param("x==a", sel({"x": "a"}), id="a double equality becomes a match label"),
    pytest.param("x>1", sel(None, R("x", GT, ("1",))), id="greater-than becomes a gt expression"),
    pytest.param("x<7", sel(None, R("x", LT, ("7",))), id="less-than becomes an lt expression"),
    pytest.param("x=a,y!=b", sel({"x": "a"}, R("y", NOT_IN, ("b",))),
                 id="not-equals becomes notin with one value"),
    pytest.param("x=a,y!=b,z in (h,i,j)",
                 sel({"x": "a"}, R("y", NOT_IN, ("b",)), R("z", IN, ("h", "i", "j"))),
                 id="equality, not-equals and in together"),
    pytest.param("x notin ( )", sel(None, R("x", NOT_IN, ("",))),
                 id="spaces inside empty parentheses"),
    pytest.param("x notin (, a)", sel(None, R("x", NOT_IN, ("", "a"))),
                 id="a leading comma adds the empty value"),
    pytest.param("a ", sel(None, R("a", EXISTS)), id="a key with a trailing space means exists"),
    pytest.param("a in (x,y,notin, z,in)", sel(None, R("a", IN, ("in", "notin", "x", "y", "z"))),
                 id="in and notin are plain values inside a list"),
    pytest.param("notin=in", sel({"notin": "in"}), id="in and notin are plain words around equals"),
    pytest.param("x=a,x=b", sel({"x": "a"}, R("x", IN, ("b",))),
                 id="a second equality on the same key still applies"),
])
def test_selector_strings_parse_to_selectors(text, expected):
    assert parse_selector(text) == expected


@pytest.mark.parametrize("text, message", [
    pytest.param("x=a||y=b",
                 'unable to parse requirement: values[0][x]: Invalid value: "a||y": a valid label '
                 "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                 "'my_value',  or '12345', regex used for validation is "
                 "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                 id="a bad value is reported at its index and key"),
    pytest.param("x,,y", "found ',', expected: identifier after ','",
                 id="two commas in a row"),
    pytest.param(",x,y", "found ',', expected: !, identifier, or 'end of string'",
                 id="a leading comma"),
    pytest.param("x nott in (y)",
                 "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt",
                 id="a misspelt operator"),
    pytest.param("a in (xyz),", "found '', expected: identifier after ','",
                 id="a trailing comma after a requirement"),
    pytest.param("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'",
                 id="a missing comma between requirements"),
    pytest.param("a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'",
                 id="a missing comma inside a list"),
    pytest.param("a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier",
                 id="an unclosed list"),
    pytest.param("a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt",
                 id="a parenthesis where an operator belongs"),
    pytest.param("(", "found '(', expected: !, identifier, or 'end of string'",
                 id="a parenthesis where a key belongs"),
    pytest.param("x in a", "unable to parse requirement: found 'a' expected: '('",
                 id="an in list without parentheses"),
    pytest.param("x==a==b", "found '==', expected: ',' or 'end of string'",
                 id="two operators in one requirement"),
    pytest.param("!x=a", "found '=', expected: ',' or 'end of string'",
                 id="does-not-exist followed by a value"),
    pytest.param("x<a",
                 "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' "
                 "operators, the value must be an integer",
                 id="less-than with a word"),
    pytest.param("a/b/c",
                 "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key "
                 "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                 "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
                 "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
                 "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                 id="a bad key is reported with go's nil path"),
    pytest.param("!", "unable to parse requirement: found '', expected: identifier",
                 id="a bang with no key"),
])
def test_parse_errors_carry_upstream_messages(text, message):
    with pytest.raises(CommandError) as exc:
        parse_selector(text)
    assert str(exc.value) == message


def test_several_bad_values_are_aggregated_in_brackets():
    with pytest.raises(CommandError) as exc:
        parse_selector("x in (-a,-b)")
    text = str(exc.value)
    assert text.startswith('unable to parse requirement: [values[0][x]: Invalid value: "-a": ')
    assert ', values[1][x]: Invalid value: "-b": ' in text and text.endswith("]")


# -- matching: TestSelectorMatches, TestSetMatches ---------------------------------------------

@pytest.mark.parametrize("text, labels, match", [
    pytest.param("", {"x": "y"}, True, id="the empty selector matches anything"),
    pytest.param("x=y", {"x": "y"}, True, id="an equality matches the same value"),
    pytest.param("x=y,z=w", {"x": "y", "z": "w"}, True, id="two equalities both hold"),
    pytest.param("x!=y,z!=w", {"x": "z", "z": "a"}, True, id="two inequalities both hold"),
    pytest.param("notin=in", {"notin": "in"}, True, id="keywords work as key and value"),
    pytest.param("x", {"x": "z"}, True, id="exists matches a present key"),
    pytest.param("!x", {"y": "z"}, True, id="does-not-exist matches an absent key"),
    pytest.param("x>1", {"x": "2"}, True, id="greater-than compares as integers"),
    pytest.param("x<1", {"x": "0"}, True, id="less-than compares as integers"),
    pytest.param("x=z", {}, False, id="an equality needs the key"),
    pytest.param("x=y", {"x": "z"}, False, id="an equality needs the same value"),
    pytest.param("x=y,z=w", {"x": "w", "z": "w"}, False, id="one failed equality fails all"),
    pytest.param("x!=y,z!=w", {"x": "z", "z": "w"}, False, id="one failed inequality fails all"),
    pytest.param("x", {"y": "z"}, False, id="exists fails on an absent key"),
    pytest.param("!x", {"x": "z"}, False, id="does-not-exist fails on a present key"),
    pytest.param("x>1", {"x": "0"}, False, id="greater-than fails on a smaller number"),
    pytest.param("x<1", {"x": "2"}, False, id="less-than fails on a larger number"),
    pytest.param("foo=bar", {"foo": "bar", "baz": "blah"}, True, id="one of two labels matches"),
    pytest.param("baz=blah", {"foo": "bar", "baz": "blah"}, True, id="the other label matches"),
    pytest.param("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True,
                 id="both labels match"),
    pytest.param("foo=blah", {"foo": "bar", "baz": "blah"}, False, id="a wrong value fails"),
    pytest.param("baz=bar", {"foo": "bar", "baz": "blah"}, False, id="a swapped value fails"),
    pytest.param("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False,
                 id="an extra required label fails"),
    pytest.param("x notin (a)", {}, True, id="notin matches when the key is absent"),
])
def test_parsed_selectors_match_like_upstream(text, labels, match):
    assert parse_selector(text).matches(labels) is match


@pytest.mark.parametrize("match_labels", [
    pytest.param({}, id="an empty set"),
    pytest.param({"foo": "bar"}, id="one label"),
    pytest.param({"baz": "blah"}, id="the other label"),
    pytest.param({"foo": "bar", "baz": "blah"}, id="both labels"),
])
def test_match_labels_select_a_superset(match_labels):
    assert sel(match_labels).matches({"foo": "bar", "baz": "blah"})


# -- matching: TestRequirementSelectorMatching ------------------------------------------------

@pytest.mark.parametrize("labels, selector, match", [
    pytest.param({"x": "foo", "y": "baz"}, sel(None, R("x", IN, ("foo",)), R("y", NOT_IN, ("alpha",))),
                 True, id="in and notin both hold"),
    pytest.param({"x": "foo", "y": "baz"}, sel(None, R("x", IN, ("foo",)), R("y", IN, ("alpha",))),
                 False, id="a failing in fails the selector"),
    pytest.param({"y": ""}, sel(None, R("x", NOT_IN, ("",)), R("y", EXISTS)),
                 True, id="notin on an absent key with exists on an empty label"),
    pytest.param({"y": ""}, sel(None, R("x", DOES_NOT_EXIST), R("y", EXISTS)),
                 True, id="does-not-exist with exists"),
    pytest.param({"y": ""}, sel(None, R("x", NOT_IN, ("",)), R("y", DOES_NOT_EXIST)),
                 False, id="does-not-exist fails on an empty-valued label"),
    pytest.param({"y": "baz"}, sel(None, R("x", IN, ("",))),
                 False, id="in the empty value still needs the key"),
    pytest.param({"z": "2"}, sel(None, R("z", GT, ("1",))), True, id="gt on a larger number"),
    pytest.param({"z": "v2"}, sel(None, R("z", GT, ("1",))), False, id="gt on a non-number fails"),
    pytest.param({"x": "foo"}, sel(None, R("x", "Bogus", ("foo",))), False,
                 id="an unknown operator matches nothing"),
    pytest.param({"x": "a"}, sel(None, R("x", IN, ("a", "b", "c"))), True,
                 id="in over a several-value set"),
    pytest.param({"x": "d"}, sel(None, R("x", NOT_IN, ("a", "b", "c"))), True,
                 id="notin over a several-value set"),
    pytest.param({"x": "b"}, sel(None, R("x", NOT_IN, ("a", "b", "c"))), False,
                 id="notin fails on a listed value"),
])
def test_requirements_match_like_upstream(labels, selector, match):
    assert selector.matches(labels) is match


# -- requirement_matches, including Gt/Lt (node-selector operators) ---------------------------

@pytest.mark.parametrize("operator, values, labels, match", [
    pytest.param(GT, ["1"], {"k": "2"}, True, id="gt holds for a larger integer"),
    pytest.param(GT, ["1"], {"k": "1"}, False, id="gt is strict"),
    pytest.param(LT, ["10"], {"k": "9"}, True, id="lt holds for a smaller integer"),
    pytest.param(LT, ["10"], {"k": "-20"}, True, id="negative integers compare"),
    pytest.param(GT, ["1"], {}, False, id="gt needs the key"),
    pytest.param(GT, ["1"], {"k": "1.5"}, False, id="gt needs an integer label"),
    pytest.param(GT, ["x"], {"k": "3"}, False, id="gt needs an integer value"),
    pytest.param(GT, ["1", "2"], {"k": "3"}, False, id="gt needs exactly one value"),
    pytest.param(GT, ["1"], {"k": " 3"}, False, id="gt does not trim spaces"),
    pytest.param(GT, ["1"], {"k": "9223372036854775808"}, False, id="gt rejects numbers past int64"),
    pytest.param(IN, ["a", "b"], {"k": "b"}, True, id="in holds for a listed value"),
    pytest.param(NOT_IN, ["a"], {}, True, id="notin holds for an absent key"),
    pytest.param(EXISTS, [], {"k": ""}, True, id="exists holds for an empty label"),
    pytest.param(DOES_NOT_EXIST, [], {"k": ""}, False, id="does-not-exist fails for an empty label"),
    pytest.param("Equal", ["a"], {"k": "a"}, False, id="an unknown operator never matches"),
])
def test_requirement_matches(operator, values, labels, match):
    assert requirement_matches(operator, "k", values, labels) is match


# -- printing: TestToString --------------------------------------------------------------------

@pytest.mark.parametrize("selector, text", [
    pytest.param(sel(None, R("x", IN, ("abc", "def")), R("y", NOT_IN, ("jkl",)), R("z", EXISTS)),
                 "x in (abc,def),y notin (jkl),z", id="in, notin and exists"),
    pytest.param(sel(None, R("x", NOT_IN, ("abc", "def")), R("y", NOT_IN, ("jkl",)),
                     R("z", DOES_NOT_EXIST)),
                 "x notin (abc,def),y notin (jkl),!z", id="notin and does-not-exist"),
    pytest.param(sel(None, R("x", NOT_IN, ("abc",)), R("y", IN, ("jkl", "mno")), R("z", NOT_IN, ("",))),
                 "x notin (abc),y in (jkl,mno),z notin ()", id="the empty value prints as empty parentheses"),
    pytest.param(sel({"x": "abc"}, R("z", NOT_IN, ("a",)), R("z", EXISTS)),
                 "x=abc,z notin (a),z", id="same-key requirements keep their order"),
    pytest.param(sel(None, R("x", GT, ("2",)), R("y", LT, ("8",)), R("z", EXISTS)),
                 "x>2,y<8,z", id="gt and lt print as comparisons"),
    pytest.param(sel({"app": "web"}, R("tier", IN, ("b", "a")), R("f", DOES_NOT_EXIST)),
                 "app=web,!f,tier in (a,b)", id="requirements sort by key and values sort"),
    pytest.param(sel(), "", id="the empty selector prints as nothing"),
])
def test_selectors_print_in_kubectl_form(selector, text):
    assert str(selector) == text


@pytest.mark.parametrize("selector, text", [
    pytest.param(None, "<none>", id="a missing selector describes as none"),
    pytest.param(sel(), "<none>", id="an empty selector describes as none"),
    pytest.param(sel({"app": "web"}), "app=web", id="a selector describes as its string"),
    pytest.param(sel(None, R("x", "Bogus")), "<error>", id="an unknown operator describes as error"),
])
def test_format_label_selector(selector, text):
    assert format_label_selector(selector) == text


# -- the API type: TestRequirementConstructor and ValidateLabelSelector ------------------------

@pytest.mark.parametrize("req, ok", [
    pytest.param(R("x", IN, ()), False, id="in without values is invalid"),
    pytest.param(R("x", NOT_IN, ()), False, id="notin without values is invalid"),
    pytest.param(R("x", IN, ("foo",)), True, id="in with a value is valid"),
    pytest.param(R("x", NOT_IN, ("foo",)), True, id="notin with a value is valid"),
    pytest.param(R("x", EXISTS), True, id="exists without values is valid"),
    pytest.param(R("x", DOES_NOT_EXIST), True, id="does-not-exist without values is valid"),
    pytest.param(R("1foo", IN, ("bar",)), True, id="a key may start with a digit"),
    pytest.param(R("1234", IN, ("bar",)), True, id="a key may be all digits"),
    pytest.param(R("a" * 254, EXISTS), False, id="a key longer than 253 bytes is invalid"),
    pytest.param(R("y", GT, ("1",)), False, id="gt is not a label selector operator"),
])
def test_requirement_validity(req, ok):
    assert (req.validate("r") == []) is ok


@pytest.mark.parametrize("data, message", [
    pytest.param({"matchExpressions": [{"key": "k", "operator": "In"}]},
                 "spec.selector.matchExpressions[0].values: Required value: must be specified "
                 "when `operator` is 'In' or 'NotIn'",
                 id="in without values is required"),
    pytest.param({"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["a"]}]},
                 "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
                 "`operator` is 'Exists' or 'DoesNotExist'",
                 id="exists with values is forbidden"),
    pytest.param({"matchExpressions": [{"key": "k", "operator": "Equals", "values": ["a"]}]},
                 'spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid '
                 "selector operator",
                 id="an unknown operator is invalid"),
    pytest.param({"matchExpressions": [{"key": "bad key", "operator": "Exists"}]},
                 'spec.selector.matchExpressions[0].key: Invalid value: "bad key": name part must '
                 "consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                 "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                 "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                 id="a bad key is reported at the key"),
    pytest.param({"matchExpressions": [{"key": "k", "operator": "In", "values": ["ok", "-no"]}]},
                 'spec.selector.matchExpressions[0].values[1]: Invalid value: "-no": a valid label '
                 "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                 "'my_value',  or '12345', regex used for validation is "
                 "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                 id="a bad value is reported at its index"),
    pytest.param({"matchLabels": {"app": "a b"}},
                 'spec.selector.matchLabels: Invalid value: "a b": a valid label must be an empty '
                 "string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
                 "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                 "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                 id="a bad match label value is reported at the map"),
    pytest.param({"matchLabels": {"app": 1}},
                 "spec.selector.matchLabels.app: Invalid value: 1: expected string, got integer",
                 id="a number as a label value is a type error"),
    pytest.param({"matchExpressions": {"key": "k"}},
                 'spec.selector.matchExpressions: Invalid value: "object": expected array, got object',
                 id="match expressions must be a list"),
    pytest.param(["app"], '<root>: Invalid value: "array": expected object, got array',
                 id="a selector must be a mapping"),
])
def test_from_dict_raises_the_first_api_server_error(data, message):
    path = "" if isinstance(data, list) else "spec.selector"
    with pytest.raises(FieldError) as exc:
        LabelSelector.from_dict(data, path)
    assert str(exc.value) == message


def test_validate_lists_every_problem_in_upstream_order():
    selector = sel({"-bad": "v"}, R("k", "Nope", ("a",)), R("", IN, ()))
    paths = [e.path for e in selector.validate("spec.selector")]
    assert paths == [
        "spec.selector.matchLabels",
        "spec.selector.matchExpressions[0].operator",
        "spec.selector.matchExpressions[1].values",
        "spec.selector.matchExpressions[1].key", "spec.selector.matchExpressions[1].key",
    ]


def test_from_dict_and_to_dict_round_trip():
    data = {"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]},
                                 {"key": "canary", "operator": "DoesNotExist"}]}
    selector = LabelSelector.from_dict(data, "spec.selector")
    assert selector.to_dict() == data
    assert selector.match_expressions[0].values == ("b", "a")
    assert LabelSelector.from_dict(None) == sel()
    assert sel().to_dict() == {}


def test_selectors_are_hashable_and_equal_by_value():
    a = sel({"app": "web"}, R("tier", IN, ["a", "b"]))
    b = LabelSelector(match_labels=[("app", "web")], match_expressions=[R("tier", IN, ("a", "b"))])
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1


def test_the_empty_selector_is_empty_and_matches_everything():
    assert sel().empty and sel().matches({}) and sel().matches({"a": "b"})
    assert not sel({"a": "b"}).empty


def test_the_codec_decodes_and_encodes_selectors():
    data = {"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]}
    selector = decode(LabelSelector, data, "spec.selector")
    assert selector == sel({"app": "web"}, R("tier", NOT_IN, ("db",)))
    assert selector.matches({"app": "web"}) and not selector.matches({"app": "web", "tier": "db"})
    assert encode(selector) == data
