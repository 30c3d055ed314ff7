"""SimRandom's name suffixes are drawn as randrange draws them: the same characters and the
same stream afterwards (name_suffix draws its bits directly, without randrange's calls)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from ksandbox.sim.rand import _NAME_ALPHABET, SimRandom


def _plain_suffix(rng: random.Random, length: int) -> str:
    return "".join(_NAME_ALPHABET[rng.randrange(len(_NAME_ALPHABET))] for _ in range(length))


@given(seed=st.integers(min_value=0, max_value=2**64), length=st.integers(0, 64),
       draws=st.integers(1, 8))
def test_name_suffix_draws_what_randrange_draws(seed: int, length: int, draws: int) -> None:
    fast = SimRandom(seed)
    plain = random.Random(seed)
    for _ in range(draws):
        assert fast.name_suffix(length) == _plain_suffix(plain, length)
    # the stream goes on where randrange's would
    assert fast.random() == plain.random()
    assert fast.getstate() == plain.getstate()


@given(seed=st.integers(min_value=0, max_value=2**64), draws=st.integers(1, 8))
def test_uid_is_the_128_bit_draw_in_8_4_4_4_12_hex(seed: int, draws: int) -> None:
    """A uid is upstream's textual UUID form of getrandbits(128): its 32 hex digits (leading
    zeros kept) as 8-4-4-4-12, and the stream goes on where that draw leaves it."""
    fast = SimRandom(seed)
    plain = random.Random(seed)
    for _ in range(draws):
        h = f"{plain.getrandbits(128):032x}"
        assert fast.uid() == f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    assert fast.getstate() == plain.getstate()
