"""Kubernetes resource quantities (``100m``, ``1.5Gi``, ``1e3``), exact and immutable.

A port of the behaviour of apimachinery's ``pkg/api/resource`` (quantity.go, suffix.go,
amount.go, math.go in k8s.io/apimachinery): the same grammar, the same three formats
(``DecimalSI``, ``BinarySI``, ``DecimalExponent``), the same rounding on parse and the same
canonical string, so ``str(Quantity.parse(s))`` is what ``kubectl get -o yaml`` would show.

Representation: one Python ``int`` counting nano-units plus the format. Upstream also rounds
every parsed value to a whole nano (away from zero), so nothing is lost; sums are exact.

Not here, on purpose: upstream's int64 overflow (our integer accessors never wrap or saturate;
only BinarySI *parsing* keeps upstream's silent cap at 2^63-1), sub-nano scales (upstream's
``NewScaledQuantity(1, -12)``; ``from_scaled`` rounds those up to 1n like a parse would),
JSON/CBOR/protobuf codecs, and ``RoundUp``/``Mul``. Decimal exponents that would make the
value more than ~4000 digits long are refused with the numeric error (upstream wraps them in an
int32), and unknown format names raise instead of silently becoming ``DecimalExponent``.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal

from .errors import KsandboxError

__all__ = [
    "Quantity", "QuantityError", "ZERO", "DECIMAL_SI", "BINARY_SI", "DECIMAL_EXPONENT",
    "ERR_FORMAT_WRONG", "ERR_NUMERIC", "ERR_SUFFIX", "format_resource", "resource_amount",
]

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"
_FORMATS = frozenset((DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT))

# quantity.go: the three parse errors, with upstream's exact wording.
ERR_FORMAT_WRONG = ("quantities must match the regular expression "
                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"


class QuantityError(KsandboxError, ValueError):
    """A string that is not a quantity; ``str()`` is upstream's error text."""


# quantity.go parseQuantityString, as one anchored pattern: sign, digits, optional ".digits",
# then suffix letters, at most one sign and digits. Every part may be empty, so "+", "." and
# "Ki" scan (and parse as zero), exactly as upstream's hand-written scanner allows.
_SCAN = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)").fullmatch

# suffix.go newSuffixer: suffix -> (base, exponent, format).
_SUFFIXES = {
    "": (10, 0, DECIMAL_SI), "n": (10, -9, DECIMAL_SI), "u": (10, -6, DECIMAL_SI),
    "m": (10, -3, DECIMAL_SI), "k": (10, 3, DECIMAL_SI), "M": (10, 6, DECIMAL_SI),
    "G": (10, 9, DECIMAL_SI), "T": (10, 12, DECIMAL_SI), "P": (10, 15, DECIMAL_SI),
    "E": (10, 18, DECIMAL_SI),
    "Ki": (2, 10, BINARY_SI), "Mi": (2, 20, BINARY_SI), "Gi": (2, 30, BINARY_SI),
    "Ti": (2, 40, BINARY_SI), "Pi": (2, 50, BINARY_SI), "Ei": (2, 60, BINARY_SI),
}
_DEC_SUFFIX = {e: s for s, (b, e, _) in _SUFFIXES.items() if b == 10}
_BIN_SUFFIX = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)").fullmatch

_NANO = 10 ** 9
_POW10 = tuple(10 ** i for i in range(64))
_MAX_BINARY_NANO = (2 ** 63 - 1) * _NANO  # quantity.go ParseQuantity: BinarySI caps at max int64
_MAX_DIGITS = 4000  # parse refuses values longer than this (a guard against "1e999999999")


def _pow10(n: int) -> int:
    return _POW10[n] if n < 64 else 10 ** n


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


class Quantity:
    """An exact quantity and the format it prints in; equal, hashed and ordered by value only."""

    __slots__ = ("_n", "_fmt", "_s")

    def __deepcopy__(self, memo: dict) -> "Quantity":
        return self  # immutable: a fork of the sandbox shares it

    def __copy__(self) -> "Quantity":
        return self

    def __new__(cls, value: "str | int | float | Quantity") -> "Quantity":
        return cls.coerce(value)

    @staticmethod
    def parse(text: str) -> "Quantity":
        """Upstream ``ParseQuantity``: strict (no surrounding blanks), cached per string."""
        return _parse_cached(text)

    @staticmethod
    def coerce(value: "str | int | float | Quantity") -> "Quantity":
        """What a manifest may hold: a string (blanks trimmed, as upstream's UnmarshalJSON
        does), a YAML int/float (``cpu: 2``, ``cpu: 0.5``) or a Quantity."""
        t = type(value)
        if t is str:
            return _coerce_cached(value)
        if t is Quantity:
            return value  # type: ignore[return-value]
        if t is int:
            return _make(value * _NANO, DECIMAL_SI)  # type: ignore[operator]
        if t is float:
            if not math.isfinite(value):  # type: ignore[arg-type]
                raise QuantityError(ERR_FORMAT_WRONG)
            # Plain positional digits, like a JSON number would be written (no "1e-05").
            return _parse_cached(format(Decimal(repr(value)), "f"))
        if isinstance(value, str):  # str subclasses
            return _coerce_cached(str(value))
        raise QuantityError(f"cannot use a {t.__name__} as a quantity")

    @staticmethod
    def from_scaled(value: int, scale: int, fmt: str = DECIMAL_SI) -> "Quantity":
        """``value * 10**scale`` (upstream NewScaledQuantity, with a format); below 1n rounds
        away from zero, as parsing does."""
        if fmt not in _FORMATS:
            raise ValueError(f"unknown quantity format {fmt!r}")
        value = value.__index__()
        shift = scale + 9
        if shift >= 0:
            return _make(value * _pow10(shift), fmt)
        mag = _ceil_div(abs(value), _pow10(-shift))
        return _make(mag if value >= 0 else -mag, fmt)

    @staticmethod
    def from_int(value: int, fmt: str = DECIMAL_SI) -> "Quantity":
        """Upstream NewQuantity."""
        return Quantity.from_scaled(value, 0, fmt)

    @staticmethod
    def from_milli(value: int, fmt: str = DECIMAL_SI) -> "Quantity":
        """Upstream NewMilliQuantity: ``value / 1000``."""
        return Quantity.from_scaled(value, -3, fmt)

    @property
    def format(self) -> str:
        return self._fmt

    def scaled_value(self, scale: int) -> int:
        """ceil(|q| / 10**scale) with q's sign (upstream ScaledValue; never overflows here)."""
        shift = scale + 9
        n = self._n
        if shift <= 0:
            return n * _pow10(-shift)
        mag = _ceil_div(abs(n), _pow10(shift))
        return mag if n >= 0 else -mag

    def value(self) -> int:
        """Upstream Value: whole units, fractions rounded away from zero."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """Upstream MilliValue: thousandths, rounded away from zero."""
        return self.scaled_value(-3)

    def is_zero(self) -> bool:
        return self._n == 0

    def sign(self) -> int:
        return (self._n > 0) - (self._n < 0)

    def cmp(self, other: "Quantity") -> int:
        """-1, 0 or 1, as upstream Cmp."""
        return (self._n > other._n) - (self._n < other._n)

    def __float__(self) -> float:
        try:
            return self._n / _NANO  # int/int true division is correctly rounded
        except OverflowError:
            return math.inf if self._n > 0 else -math.inf

    # -- arithmetic: upstream Add/Sub keep the receiver's format unless it is zero ------------

    def __add__(self, other: "Quantity") -> "Quantity":
        if type(other) is not Quantity:
            return NotImplemented
        return _make(self._n + other._n, other._fmt if self._n == 0 else self._fmt)

    def __sub__(self, other: "Quantity") -> "Quantity":
        if type(other) is not Quantity:
            return NotImplemented
        return _make(self._n - other._n, other._fmt if self._n == 0 else self._fmt)

    def __neg__(self) -> "Quantity":
        return _make(-self._n, self._fmt)

    def __eq__(self, other: object) -> bool:
        return self._n == other._n if type(other) is Quantity else NotImplemented  # type: ignore[union-attr]

    def __lt__(self, other: "Quantity") -> bool:
        return self._n < other._n if type(other) is Quantity else NotImplemented

    def __le__(self, other: "Quantity") -> bool:
        return self._n <= other._n if type(other) is Quantity else NotImplemented

    def __gt__(self, other: "Quantity") -> bool:
        return self._n > other._n if type(other) is Quantity else NotImplemented

    def __ge__(self, other: "Quantity") -> bool:
        return self._n >= other._n if type(other) is Quantity else NotImplemented

    def __hash__(self) -> int:
        return hash(self._n)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Quantity is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Quantity is immutable")

    def __reduce__(self):
        return (_make, (self._n, self._fmt))

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __str__(self) -> str:
        s = self._s
        if s is None:
            s = _canonical(self._n, self._fmt)
            _set_s(self, s)
        return s


_new = object.__new__
_set_n = Quantity._n.__set__  # type: ignore[attr-defined]
_set_fmt = Quantity._fmt.__set__  # type: ignore[attr-defined]
_set_s = Quantity._s.__set__  # type: ignore[attr-defined]


def _make(n: int, fmt: str) -> Quantity:
    q = _new(Quantity)
    _set_n(q, n)
    _set_fmt(q, fmt)
    _set_s(q, None)
    return q


def _parse(text: str) -> Quantity:
    # quantity.go ParseQuantity.
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    m = _SCAN(text)
    if m is None:
        raise QuantityError(ERR_FORMAT_WRONG)
    sign, num, frac, suffix = m.groups()
    spec = _SUFFIXES.get(suffix)
    if spec is None:
        # suffix.go interpret: anything else must be e/E and an int64 exponent.
        spec = (10, _exponent(suffix), DECIMAL_EXPONENT)
    base, exp, fmt = spec
    frac = frac or ""
    digits = num + frac
    try:
        d = int(digits) if digits else 0
    except ValueError:  # more digits than CPython converts
        raise QuantityError(ERR_NUMERIC) from None
    if base == 10:
        shift = exp - len(frac) + 9  # power of ten that turns the digits into nano-units
        if shift >= 0:
            if not d:
                n = 0
            elif len(digits) + shift > _MAX_DIGITS and len(digits.lstrip("0")) + shift > _MAX_DIGITS:
                raise QuantityError(ERR_NUMERIC)
            else:
                n = d * _pow10(shift)
        elif not digits:
            # Upstream's slow path hands inf.Dec a number with no digits, which it rejects.
            raise QuantityError(ERR_NUMERIC)
        elif -shift > len(digits):
            n = 1 if d else 0  # under 1n: round away from zero to 1n
        else:
            n = _ceil_div(d, _pow10(-shift))
    else:
        n = _ceil_div((d << exp) * _NANO, _pow10(len(frac)))
        if n > _MAX_BINARY_NANO:
            n = _MAX_BINARY_NANO
        elif 0 < n < _NANO:
            fmt = DECIMAL_SI  # a binary fraction of one prints (and parses) as DecimalSI
    return _make(-n if sign == "-" else n, fmt)


def _exponent(suffix: str) -> int:
    # suffix.go interpret: any other suffix must be e/E and an int64 (Go ParseInt) exponent.
    m = _EXPONENT(suffix)
    if m is None:
        raise QuantityError(ERR_SUFFIX)
    text = m.group(1)
    if len(text.lstrip("+-0")) > 19:
        raise QuantityError(ERR_SUFFIX)
    exp = int(text)
    if not -2 ** 63 <= exp < 2 ** 63:
        raise QuantityError(ERR_SUFFIX)
    return exp


def _canonical(n: int, fmt: str) -> str:
    # quantity.go CanonicalizeBytes + amount.go AsCanonicalBytes/AsCanonicalBase1024Bytes.
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    a = -n if n < 0 else n
    if fmt == BINARY_SI and a >= 1024 * _NANO and a % _NANO == 0:
        # Whole and at least 1Ki: pull out factors of 1024. (Ei is the largest suffix;
        # upstream would drop the suffix past it, we keep multiplying instead.)
        v, e = a // _NANO, 0
        while e < 6 and v & 1023 == 0:
            v >>= 10
            e += 1
        return f"{sign}{v}{_BIN_SUFFIX[e]}"
    # Decimal: move trailing zeros into the exponent, then lower it to a multiple of 3.
    # str() of an int is capped at 4300 digits by CPython; Decimal is not.
    digits = str(a) if a.bit_length() < 14000 else format(Decimal(a), "f")
    mantissa = digits.rstrip("0")
    exp = len(digits) - len(mantissa) - 9
    r = exp % 3
    if r:
        mantissa += "00"[:r]
        exp -= r
    if fmt != DECIMAL_EXPONENT:
        suffix = _DEC_SUFFIX.get(exp)
        if suffix is not None:
            return sign + mantissa + suffix
        # Past "E" there is no SI suffix: upstream falls back to exponent notation.
    return f"{sign}{mantissa}e{exp}" if exp else sign + mantissa


_parse_cached = functools.lru_cache(maxsize=16384)(_parse)


@functools.lru_cache(maxsize=16384)
def _coerce_cached(text: str) -> Quantity:
    return _parse_cached(text.strip())


ZERO = _make(0, DECIMAL_SI)

# Resources whose scheduling integer is bytes and which kubectl shows in BinarySI.
_BYTE_RESOURCES = frozenset(("memory", "ephemeral-storage", "storage"))


def _base_name(name: str) -> str:
    # ResourceQuota keys: "requests.cpu", "limits.memory".
    for prefix in ("requests.", "limits."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


_INT64_MAX = 2 ** 63 - 1


def resource_amount(name: str, q: Quantity) -> int:
    """The integer the scheduler adds up: millicores for cpu, whole units otherwise —
    saturated to int64 (upstream's Value()/MilliValue() wrap past it; a node of 2^63 bytes
    stays huge here, and the scheduler's int64 columns can hold every amount)."""
    n = q.milli_value() if _base_name(name) == "cpu" else q.value()
    return n if -_INT64_MAX - 1 <= n <= _INT64_MAX else (_INT64_MAX if n > 0 else -_INT64_MAX - 1)


@functools.lru_cache(maxsize=8192)
def format_resource(name: str, amount: int) -> str:
    """Print a :func:`resource_amount` integer back the way kubectl shows that resource.

    Cached: the sim JSON prints a few resources of thousands of nodes with a few distinct
    amounts, and building a Quantity's string costs ~100 us."""
    base = _base_name(name)
    if base == "cpu":
        return str(Quantity.from_milli(amount))
    if base in _BYTE_RESOURCES or base.startswith("hugepages-"):
        return str(Quantity.from_int(amount, BINARY_SI))
    return str(amount)
