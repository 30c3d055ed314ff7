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
from typing import Any

# kubernetes/apimachinery pkg/util/rand: generated name suffixes use this alphabet
# (no vowels, no confusable characters).
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_NAME_BASE = len(_NAME_ALPHABET)
_NAME_BITS = _NAME_BASE.bit_length()   # what randrange(27) draws per try
# A uid's groups (SimRandom.uid)
_UID_PARTS = operator.itemgetter(slice(0, 8), slice(8, 12), slice(12, 16), slice(16, 20),
                                 slice(20, 32))
_join_dashed = "-".join

# SimRandom's uid pool: after POOL_AFTER uids in a row with no other draw between (a load's
# creates, a controller's burst of pods), the next POOL_SIZE uids are drawn at once.
POOL_AFTER = 16
POOL_SIZE = 256
# Where each of a uid's 32 hex digits goes in its 37 characters (8-4-4-4-12 and a space):
# (digit, position) pairs, and the positions of the dashes.
_DIGIT_AT = tuple((d, d + (d >= 8) + (d >= 12) + (d >= 16) + (d >= 20)) for d in range(32))
_DASHES = (8, 13, 18, 23)


class SimRandom:
    def __init__(self, seed: int) -> None:
        self.seed = int(seed)
        self._rng = random.Random(self.seed)
        # The uid pool (uid): the uids drawn ahead, the next one last; the generator's state
        # before they were drawn and how many there were (so any other draw first puts the
        # stream where the uids handed out left it: _settle); uids in a row so far.
        self._uids: list[str] = []
        self._before: Any = None
        self._pooled = 0
        self._run = 0

    def child(self, name: str) -> "SimRandom":
        """An independent stream for one component, derived from the seed and a name."""
        return SimRandom((self.seed * 1_000_003) ^ zlib.crc32(name.encode()))

    def random(self) -> float:
        self._run = 0
        if self._uids:
            self._settle()
        return self._rng.random()

    def uniform(self, a: float, b: float) -> float:
        self._run = 0
        if self._uids:
            self._settle()
        return self._rng.uniform(a, b)

    def randrange(self, n: int) -> int:
        self._run = 0
        if self._uids:
            self._settle()
        return self._rng.randrange(n)

    def choice(self, seq):
        return seq[self.randrange(len(seq))]

    def name_suffix(self, length: int = 5) -> str:
        """A suffix like upstream's generateName: ``web-7d9c8`` style.

        Each character is ``_NAME_ALPHABET[randrange(27)]``, drawn as randrange draws it —
        ``getrandbits(5)`` again until below 27 (random.Random._randbelow) — without its
        argument checks and two calls per character: every ReplicaSet pod's name is drawn
        here. The same characters and the same stream after (tests/sim/test_rand.py holds it
        to randrange)."""
        self._run = 0
        if self._uids:
            self._settle()
        bits = self._rng.getrandbits
        out = []
        for _ in range(length):
            r = bits(_NAME_BITS)
            while r >= _NAME_BASE:
                r = bits(_NAME_BITS)
            out.append(_NAME_ALPHABET[r])
        return "".join(out)

    def hex(self, length: int) -> str:
        return "".join("0123456789abcdef"[self.randrange(16)] for _ in range(length))

    def uid(self) -> str:
        """8-4-4-4-12 hex digits of a 128-bit draw (upstream's textual UUID form).

        Every created object draws one (~7k instructions each, drawn one by one: a load's
        150,000). After POOL_AFTER in a row, POOL_SIZE are drawn at once — one
        getrandbits(128 * POOL_SIZE) is the POOL_SIZE draws of 128 bits in a row, the first
        in its lowest bits — and cut by C calls over all of them (_draw_pool), and the pool
        hands them out in order. Any other draw (or getstate) first puts the generator where
        the uids handed out so far leave it (_settle): the same uids and the same stream as
        drawing each when asked (tests/sim/test_rand.py)."""
        uids = self._uids
        if uids:
            return uids.pop()
        self._run += 1
        if self._run > POOL_AFTER:
            return self._draw_pool()
        # five slices cut and joined by C calls (five slices and an f-string were ~1.4k
        # instructions more; a format specifier instead of % costs ~0.9k of that back)
        return _join_dashed(_UID_PARTS("%032x" % self._rng.getrandbits(128)))  # noqa: UP031

    def _draw_pool(self) -> str:
        """Draw POOL_SIZE uids at once; the first of them."""
        rng = self._rng
        self._before = rng.getstate()
        n = self._pooled = POOL_SIZE
        digits = ("%0*x" % (32 * n, rng.getrandbits(128 * n))).encode()  # noqa: UP031
        # the hex of the last uid drawn comes first: its 32 digits, then the one before, ...
        out = bytearray(b" " * (37 * n))
        for d, at in _DIGIT_AT:
            out[at::37] = digits[d::32]
        dash = b"-" * n
        for at in _DASHES:
            out[at::37] = dash
        uids = self._uids = out.decode().split()
        return uids.pop()

    def _settle(self) -> None:
        """Put the generator where the uids handed out leave it, the others dropped."""
        used = self._pooled - len(self._uids)
        self._rng.setstate(self._before)
        if used:
            self._rng.getrandbits(128 * used)
        self._uids = []
        self._before = None

    def getstate(self):
        self._run = 0
        if self._uids:
            self._settle()
        return self._rng.getstate()

    def setstate(self, state) -> None:
        self._run = 0
        self._uids = []
        self._before = None
        self._rng.setstate(state)
