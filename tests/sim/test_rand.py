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


def _plain_uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@given(seed=st.integers(min_value=0, max_value=2**64),
       runs=st.lists(st.tuples(st.integers(0, 700),
                               st.sampled_from(["random", "uniform", "randrange", "suffix",
                                                "getstate", "setstate", "none"])),
                     max_size=6))
def test_uids_drawn_ahead_are_the_uids_drawn_one_by_one(seed: int, runs: list) -> None:
    """Long runs of uids come from a pool drawn ahead (SimRandom.uid): the same uids, and
    any other draw, getstate or setstate between them sees the stream as if each uid had
    been drawn when asked."""
    from ksandbox.sim import rand as rand_mod

    assert rand_mod.POOL_AFTER + rand_mod.POOL_SIZE < 700   # runs that empty a pool, too
    fast = SimRandom(seed)
    plain = random.Random(seed)
    for count, other in runs:
        for _ in range(count):
            assert fast.uid() == _plain_uid(plain)
        if other == "random":
            assert fast.random() == plain.random()
        elif other == "uniform":
            assert fast.uniform(1.0, 3.0) == plain.uniform(1.0, 3.0)
        elif other == "randrange":
            assert fast.randrange(1000) == plain.randrange(1000)
        elif other == "suffix":
            assert fast.name_suffix(5) == _plain_suffix(plain, 5)
        elif other == "getstate":
            assert fast.getstate() == plain.getstate()
        elif other == "setstate":
            state = random.Random(seed + 1).getstate()
            fast.setstate(state)
            plain.setstate(state)
    assert fast.getstate() == plain.getstate()


def test_a_long_run_of_uids_is_drawn_from_the_pool() -> None:
    """Past POOL_AFTER uids in a row, the next ones come from the pool (what makes a load's
    uids cheap), and a copy of the generator mid-pool goes on alike."""
    import copy

    from ksandbox.sim import rand as rand_mod

    fast = SimRandom(3)
    plain = random.Random(3)
    for _ in range(rand_mod.POOL_AFTER + 1):
        assert fast.uid() == _plain_uid(plain)
    assert len(fast._uids) == rand_mod.POOL_SIZE - 1
    twin = copy.deepcopy(fast)
    for _ in range(10):
        assert fast.uid() == _plain_uid(plain)
    other = random.Random()
    other.setstate(plain.getstate())
    assert fast.random() == plain.random()
    for _ in range(10):
        twin.uid()
    assert twin.random() == other.random()
