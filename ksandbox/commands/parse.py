"""Tokens and flags: how one command line becomes a verb, flag values and positionals.

A line is split like a POSIX shell would (``shlex``), an optional leading ``kubectl`` (or
``k``) is dropped, and the rest is parsed the way kubectl's flag library (spf13/pflag under
cobra) parses it: ``--flag=value`` and ``--flag value``, ``-n value``, ``-nvalue`` and
``-n=value``, bundled boolean shorthands, flags before or after positionals, ``--`` ending the
flags, and ``--dry-run`` as a flag whose bare form means ``client`` (pflag's NoOptDefVal: a bare
``--dry-run`` never takes the next word). Errors use pflag's and kubectl's words::

    error: unknown flag: --foo
    See 'kubectl get --help' for usage.

Also here: the resource arguments shared by most verbs (``pods a b``, ``pods/a deploy/b``,
``pods,deploy``) resolved through ``ksandbox.api.kinds.lookup_resource``, and Go-style
durations (``5m30s``) for ``--timeout``.

Not here: what each verb does with its flags (one module per verb group).
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Iterable, Sequence

import attrs

from ..api.errors import CommandError
from ..api.kinds import KindInfo, lookup_resource

# Flag kinds: LIST is pflag's StringSlice (comma-separated, repeatable), ARRAY its StringArray
# (repeatable, commas kept).
BOOL, STR, INT, INT32, LIST, ARRAY = "bool", "str", "int", "int32", "list", "array"


@attrs.frozen
class Flag:
    name: str
    kind: str = STR
    short: str = ""
    default: Any = None
    no_opt: str | None = None      # pflag NoOptDefVal: the value of the bare flag
    # A flag kubectl has that the sandbox does not take: why (saying "unknown flag" would tell
    # the user kubectl has no such flag). Refused when given a true value.
    unsupported: str | None = None

    @property
    def display(self) -> str:
        return f"-{self.short}, --{self.name}" if self.short else f"--{self.name}"


# Flags many verbs share (kubectl registers them per command; -n is global).
NAMESPACE = Flag("namespace", STR, "n", "")
ALL_NAMESPACES = Flag("all-namespaces", BOOL, "A", False)
SELECTOR = Flag("selector", STR, "l", "")
OUTPUT = Flag("output", STR, "o", "")
DRY_RUN = Flag("dry-run", STR, "", "none", no_opt="unchanged")
ALL = Flag("all", BOOL, "", False)
OVERWRITE = Flag("overwrite", BOOL, "", False)
FILENAME = Flag("filename", LIST, "f", ())


@attrs.frozen
class Args:
    """One parsed command line: the verb, flag values (all flags, defaults filled in),
    positionals, and which flags the user actually gave."""

    verb: str
    flags: dict = attrs.field(factory=dict)
    positionals: tuple[str, ...] = ()
    given: frozenset = frozenset()
    args_len_at_dash: int = -1

    def __getitem__(self, name: str) -> Any:
        return self.flags[name]

    def has(self, name: str) -> bool:
        return name in self.given


def usage_error(verb: str, message: str, hint: str | None = None) -> CommandError:
    """cobra/pflag flag errors, as kubectl's templater prints them."""
    return CommandError(message, hint=hint or f"See 'kubectl {verb} --help' for usage.")


def help_error(verb: str, message: str) -> CommandError:
    """cmdutil.UsageErrorf: the message plus "See 'kubectl <verb> -h' for help and examples"."""
    return CommandError(message, hint=f"See 'kubectl {verb} -h' for help and examples")


def tokenize(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError as exc:  # an unterminated quote or escape
        raise CommandError(f"cannot parse command line: {exc}") from None


_BOOL_TRUE = {"1", "t", "T", "true", "TRUE", "True"}
_BOOL_FALSE = {"0", "f", "F", "false", "FALSE", "False"}


def go_parse_int(text: str, bits: int = 64) -> int:
    """Go's ``strconv.ParseInt(text, 0, bits)``, which pflag's int, int32 and int64 flags
    call: an optional sign, then ``0x``/``0o``/``0b`` prefixes or a leading ``0`` for octal
    (``--replicas=07`` is 7, ``08`` is an error), ``_`` between digits. Raises ValueError
    with Go's reason: ``invalid syntax`` or ``value out of range``."""
    s = text
    neg = False
    if s[:1] in ("+", "-"):
        neg = s[0] == "-"
        s = s[1:]
    if not s:
        raise ValueError("invalid syntax")
    base = 10
    if s[0] == "0":
        low = s[1:2].lower()
        if len(s) >= 3 and low in ("b", "o", "x"):
            base = {"b": 2, "o": 8, "x": 16}[low]
            s = s[2:]
        else:
            base = 8
            s = s[1:]
    max_unsigned = (1 << bits) - 1
    n = 0
    underscores = False
    for c in s:
        if c == "_":
            underscores = True
            continue
        d = int(c, 36) if c.isascii() and c.isalnum() else 99
        if d >= base:
            raise ValueError("invalid syntax")
        n = n * base + d
        if n > max_unsigned:        # ParseUint stops at the first digit past the range
            raise ValueError("value out of range")
    if underscores and not _underscore_ok(text):
        raise ValueError("invalid syntax")
    cutoff = 1 << (bits - 1)
    if (neg and n > cutoff) or (not neg and n >= cutoff):
        raise ValueError("value out of range")
    return -n if neg else n


def _underscore_ok(s: str) -> bool:
    """strconv's underscoreOK: each ``_`` sits between digits (a base prefix counts as one)."""
    if s[:1] in ("+", "-"):
        s = s[1:]
    saw, i, hexa = "^", 0, False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in ("b", "o", "x"):
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    for c in s[i:]:
        if c.isdigit() and c.isascii() or hexa and c.lower() in "abcdef":
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _convert(verb: str, flag: Flag, value: str, hint: str | None = None) -> Any:
    if flag.kind == BOOL:
        if value in _BOOL_TRUE:
            return True
        if value in _BOOL_FALSE:
            return False
        raise usage_error(verb, f'invalid argument "{value}" for "{flag.display}" flag: '
                                f'strconv.ParseBool: parsing "{value}": invalid syntax', hint)
    if flag.kind in (INT, INT32):
        try:
            return go_parse_int(value, 32 if flag.kind == INT32 else 64)
        except ValueError as exc:
            raise usage_error(verb, f'invalid argument "{value}" for "{flag.display}" flag: '
                                    f'strconv.ParseInt: parsing "{_go_quote(value)}": {exc}',
                              hint) from None
    return value


def _go_quote(s: str) -> str:
    """strconv.Quote's body for printable ASCII (what a flag value nearly always is)."""
    return s.replace("\\", "\\\\").replace('"', '\\"')


def parse_flags(verb: str, tokens: Sequence[str], specs: Iterable[Flag],
                hint: str | None = None) -> Args:
    """pflag's parse over ``tokens`` (the words after the verb); ``hint`` replaces kubectl's
    "See 'kubectl <verb> --help'" line (the sandbox's own verbs have no --help)."""
    specs = list(specs)
    by_long = {f.name: f for f in specs}
    by_short = {f.short: f for f in specs if f.short}
    values: dict[str, Any] = {f.name: f.default for f in specs}
    given: set[str] = set()
    positionals: list[str] = []
    dash_at = -1

    def store(flag: Flag, value: Any) -> None:
        if flag.unsupported is not None and value not in (False, "false", "False", "0"):
            raise CommandError(f"kubectl {verb} --{flag.name} is not supported by ksandbox "
                               f"({flag.unsupported})")
        given.add(flag.name)
        if flag.kind == LIST:
            parts = [p for p in str(value).split(",")] if value != "" else [""]
            values[flag.name] = tuple(values[flag.name] or ()) + tuple(parts)
        elif flag.kind == ARRAY:
            values[flag.name] = tuple(values[flag.name] or ()) + (str(value),)
        else:
            values[flag.name] = _convert(verb, flag, value, hint) if isinstance(value, str) \
                else value

    i = 0
    tokens = list(tokens)
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok == "--":
            dash_at = len(positionals)
            positionals.extend(tokens[i:])
            break
        if tok.startswith("--") and len(tok) > 2:
            name, eq, value = tok[2:].partition("=")
            flag = by_long.get(name)
            if flag is None:
                raise usage_error(verb, f"unknown flag: --{name}", hint)
            if eq:
                store(flag, value)
            elif flag.kind == BOOL:
                store(flag, True)
            elif flag.no_opt is not None:
                store(flag, flag.no_opt)
            elif i < len(tokens):
                store(flag, tokens[i])
                i += 1
            else:
                raise usage_error(verb, f"flag needs an argument: --{name}", hint)
            continue
        if tok.startswith("-") and len(tok) > 1:
            shorts = tok[1:]
            j = 0
            while j < len(shorts):
                c = shorts[j]
                flag = by_short.get(c)
                if flag is None:
                    raise usage_error(verb, f"unknown shorthand flag: '{c}' in -{shorts}", hint)
                rest = shorts[j + 1:]
                if rest.startswith("="):
                    store(flag, rest[1:])
                    break
                if flag.kind == BOOL:
                    store(flag, True)
                    j += 1
                    continue
                if flag.no_opt is not None and not rest:
                    store(flag, flag.no_opt)
                elif rest:
                    store(flag, rest)
                elif i < len(tokens):
                    store(flag, tokens[i])
                    i += 1
                else:
                    raise usage_error(verb, f"flag needs an argument: '{c}' in -{shorts}", hint)
                break
            continue
        positionals.append(tok)
    return Args(verb, values, tuple(positionals), frozenset(given), dash_at)


# -- common flag values ----------------------------------------------------------------------

def dry_run_strategy(args: Args) -> str:
    """cmdutil.GetDryRunStrategy: ``none``, ``client`` or ``server`` (bare flag: client)."""
    value = args["dry-run"] if "dry-run" in args.flags else "none"
    if value == "unchanged":
        return "client"
    if value in ("client", "server", "none"):
        return value
    raise CommandError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')


def dry_run_suffix(strategy: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(strategy, "")


def namespace_of(args: Args) -> str:
    return args["namespace"] or "default"


# -- resource arguments (cli-runtime resource.Builder.ResourceTypeOrNameArgs) -----------------

@attrs.frozen
class Target:
    """One resource type and the names asked for (empty: every object of the type)."""

    info: KindInfo
    names: tuple[str, ...] = ()


def resolve_kind(name: str) -> KindInfo:
    info = lookup_resource(name)
    if info is None:
        raise CommandError(f'the server doesn\'t have a resource type "{name}"')
    return info


def parse_targets(verb: str, args: Sequence[str]) -> tuple[Target, ...]:
    """``pods a b``, ``pods/a deployments/b``, ``pods,deployments`` → targets in order."""
    if not args:
        return ()
    slashed = sum(1 for a in args if "/" in a)
    if slashed:
        if slashed != len(args):
            # resource.hasCombinedTypeArgs; upstream's example always says "get".
            raise CommandError(
                "there is no need to specify a resource type as a separate argument when "
                "passing arguments in resource/name form (e.g. 'kubectl get "
                "resource/<resource_name>' instead of 'kubectl get resource "
                "resource/<resource_name>'")
        targets: list[Target] = []
        for a in args:
            kind, _, name = a.partition("/")
            if "/" in name:
                raise CommandError("arguments in resource/name form may not have more than "
                                   "one slash")
            if not kind or not name:
                raise CommandError("arguments in resource/name form must have a single "
                                   "resource and name")
            info = resolve_kind(kind)
            if targets and targets[-1].info is info:
                targets[-1] = Target(info, targets[-1].names + (name,))
            else:
                targets.append(Target(info, (name,)))
        return tuple(targets)
    kinds = [resolve_kind(k) for k in args[0].split(",") if k]
    if not kinds:
        raise CommandError(f'the server doesn\'t have a resource type "{args[0]}"')
    names = tuple(args[1:])
    return tuple(Target(k, names) for k in kinds)


# -- Go durations (time.ParseDuration) -------------------------------------------------------

_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0,
                   "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"([0-9]*\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds from a Go duration (``0``, ``90s``, ``1h30m``, ``-5s``); ValueError if bad."""
    s = text
    sign = 1.0
    if s[:1] in "+-" and s:
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise ValueError(text)
    total, pos = 0.0, 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None or m.group(1) in ("", "."):
            raise ValueError(text)
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    return sign * total


def duration_flag(verb: str, args: Args, name: str) -> float:
    raw = args[name]
    if isinstance(raw, (int, float)):
        return float(raw)
    try:
        return parse_duration(raw)
    except ValueError:
        raise usage_error(verb, f'invalid argument "{raw}" for "--{name}" flag: '
                                f'time: invalid duration "{raw}"') from None
