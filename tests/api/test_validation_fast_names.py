"""The DNS-1123 subdomain check answers a good name before its full checks (every create's
name passes through it); the answer must be the full checks' for every string."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ksandbox.api import validation as v

# Around the rule's edges: its alphabet, upper case, dots and dashes at the ends, non-ASCII
# (one character, several bytes), and lengths about the 253 limit.
TEXT = st.text(alphabet="az09.-Zé_", max_size=12)
LONG = st.builds(lambda part, n, tail: part * n + tail,
                 st.sampled_from(["a", "a.", "é", "ab-"]), st.integers(60, 260), TEXT)


@settings(max_examples=400, deadline=None)
@given(st.one_of(TEXT, LONG), st.sampled_from(["characters", "bytes"]))
@example("a" * 253, "characters")
@example("a" * 254, "characters")
@example("é" * 127, "bytes")
@example("", "characters")
def test_the_quick_answer_is_the_full_checks(value, unit):
    assert v.is_dns1123_subdomain(value, unit) == v._dns1123_subdomain_errors(value, unit)


def test_the_full_checks_refuse_what_they_refused():
    """The plain path still runs for a bad name (both messages for a long bad one)."""
    assert v.is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]
    assert len(v.is_dns1123_subdomain("A" * 254)) == 2
    assert v.is_dns1123_subdomain("pod-1.default") == []
