"""The sandbox's one seeded random source.

Everything that would be random in a real cluster (container start delays, pod name suffixes,
uids, tie-breaks between equally scored nodes) draws from one :class:`SimRandom`, seeded from
the session's seed, so the same inputs and seed give the same run, byte for byte. Components
take a named child stream (:meth:`SimRandom.child`) so that adding draws in one component does
not shift the numbers another one sees.
"""

from __future__ import annotations

import operator
import random
import zlib

# kubernetes/apimachinery pkg/util/rand: generated name suffixes use this alphabet
# (no vowels, no confusable characters).
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_NAME_BASE = len(_NAME_ALPHABET)
_NAME_BITS = _NAME_BASE.bit_length()   # what randrange(27) draws per try
# A uid's groups (SimRandom.uid)
_UID_PARTS = operator.itemgetter(slice(0, 8), slice(8, 12), slice(12, 16), slice(16, 20),
                                 slice(20, 32))
_join_dashed = "-".join


class SimRandom:
    def __init__(self, seed: int) -> None:
        self.seed = int(seed)
        self._rng = random.Random(self.seed)

    def child(self, name: str) -> "SimRandom":
        """An independent stream for one component, derived from the seed and a name."""
        return SimRandom((self.seed * 1_000_003) ^ zlib.crc32(name.encode()))

    def random(self) -> float:
        return self._rng.random()

    def uniform(self, a: float, b: float) -> float:
        return self._rng.uniform(a, b)

    def randrange(self, n: int) -> int:
        return self._rng.randrange(n)

    def choice(self, seq):
        return seq[self._rng.randrange(len(seq))]

    def name_suffix(self, length: int = 5) -> str:
        """A suffix like upstream's generateName: ``web-7d9c8`` style.

        Each character is ``_NAME_ALPHABET[randrange(27)]``, drawn as randrange draws it —
        ``getrandbits(5)`` again until below 27 (random.Random._randbelow) — without its
        argument checks and two calls per character: every ReplicaSet pod's name is drawn
        here. The same characters and the same stream after (tests/sim/test_rand.py holds it
        to randrange)."""
        bits = self._rng.getrandbits
        out = []
        for _ in range(length):
            r = bits(_NAME_BITS)
            while r >= _NAME_BASE:
                r = bits(_NAME_BITS)
            out.append(_NAME_ALPHABET[r])
        return "".join(out)

    def hex(self, length: int) -> str:
        return "".join("0123456789abcdef"[self._rng.randrange(16)] for _ in range(length))

    def uid(self) -> str:
        # 8-4-4-4-12 hex digits of a 128-bit draw, cut and joined by C calls (five slices
        # and an f-string were ~1.4k instructions more: every created object draws one; a
        # format specifier instead of % costs ~0.9k of that back)
        return _join_dashed(_UID_PARTS("%032x" % self._rng.getrandbits(128)))  # noqa: UP031

    def getstate(self):
        return self._rng.getstate()

    def setstate(self, state) -> None:
        self._rng.setstate(state)
