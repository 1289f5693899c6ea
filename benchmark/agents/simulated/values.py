"""Plausible wrong values for one argument of a tool call: the ``wrong_value`` fault's vocabulary.

An argument is addressed by its *path*, the keys from the call's arguments
down to a scalar (nested objects are walked; lists and nulls are left
alone). :func:`alternatives` gives the wrong values a careless agent could
plausibly write there, in a fixed order, first rule that applies:

1. another member of the enum the tool's input schema declares for it;
2. a boolean flipped;
3. another value the trajectory passes under the same argument name (a
   different id or amount from the same conversation), for numbers and for
   strings without whitespace;
4. a number shifted: an integer by one either way, a fractional one by 10 %;
   a decimal string likewise, keeping its decimals;
5. an id (``ORD-10000020``, ``"6"``) bumped by one either way, keeping its width;
6. a date or datetime moved by a day either way.

Free text (a string with whitespace), e-mail addresses, names and the like
have no plausible wrong value here: the benchmark's hash leaves most free
text out, so changing it would not be a fault anyone could see. Nor do the
*selectors* in :data:`SELECTORS` (Zendesk's ``table``, the ``action`` of the
multi-purpose tools): they choose the operation, not a value in it, and
another member would be a different call altogether.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["SELECTORS", "ArgPath", "alternatives", "enum_at", "leaves", "with_value"]

ArgPath = tuple[str, ...]

SELECTORS = frozenset({"table", "action", "operation"})
"""Argument names that pick the operation rather than carry a value; never given a wrong value."""

_ID = re.compile(r"^(?P<prefix>[A-Za-z][A-Za-z_-]*?[-_]?)?(?P<digits>\d+)$")
_DECIMAL = re.compile(r"^-?\d+\.\d+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
_MAX_DEPTH = 12


def leaves(arguments: Mapping[str, Any], prefix: ArgPath = ()) -> Iterator[tuple[ArgPath, Any]]:
    """Every scalar argument with its path, keys in sorted order; nulls and lists are skipped."""
    for key in sorted(arguments):
        value = arguments[key]
        path = (*prefix, key)
        if isinstance(value, Mapping):
            yield from leaves(value, path)
        elif value is not None and not isinstance(value, (list, tuple)):
            yield path, value


def with_value(arguments: Mapping[str, Any], path: ArgPath, value: Any) -> dict[str, Any]:
    """A copy of ``arguments`` with the argument at ``path`` set to ``value``."""
    copy = dict(arguments)
    head, *rest = path
    copy[head] = with_value(copy[head], tuple(rest), value) if rest else value
    return copy


def enum_at(schema: Mapping[str, Any], path: ArgPath) -> tuple[Any, ...]:
    """The enum members the input schema declares at ``path``, through ``$ref`` and ``anyOf`` branches."""
    nodes: list[Mapping[str, Any]] = [schema]
    for key in path:
        nodes = [
            child
            for node in nodes
            for branch in _branches(node, schema)
            if isinstance(props := branch.get("properties"), Mapping)
            and isinstance(child := props.get(key), Mapping)
        ]
    members: list[Any] = []
    for node in nodes:
        for branch in _branches(node, schema):
            found = branch.get("enum")
            for member in found if isinstance(found, list) else ():
                if member not in members:
                    members.append(member)
    return tuple(members)


def _branches(node: Mapping[str, Any], root: Mapping[str, Any], depth: int = 0) -> list[Mapping[str, Any]]:
    if depth > _MAX_DEPTH:
        return []
    found = [node]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        if isinstance(target, Mapping):
            found.extend(_branches(target, root, depth + 1))
    for word in ("anyOf", "oneOf", "allOf"):
        for child in node.get(word) or ():
            if isinstance(child, Mapping):
                found.extend(_branches(child, root, depth + 1))
    return found


def alternatives(value: Any, *, enum: Sequence[Any] = (), same_key: Sequence[Any] = ()) -> tuple[Any, ...]:
    """Plausible wrong values for ``value`` (see the module docstring); empty when there is none.

    ``enum`` is what :func:`enum_at` found for the argument, ``same_key`` the
    other values the trajectory passes under the same argument name.
    """
    if value in enum and len(enum) > 1:
        return tuple(member for member in enum if member != value)
    if isinstance(value, bool):
        return (not value,)
    if isinstance(value, str) and (not value or any(ch.isspace() for ch in value)):
        return ()
    others = _distinct(other for other in same_key if type(other) is type(value) and other != value)
    if others:
        return others
    if isinstance(value, int):
        return (value + 1, value - 1) if value > 0 else (value + 1,)
    if isinstance(value, float):
        return (round(value * 1.1, 2), round(value * 0.9, 2)) if value else (1.0,)
    if isinstance(value, str):
        return _string(value)
    return ()


def _distinct(values: Iterator[Any]) -> tuple[Any, ...]:
    unique: dict[str, Any] = {}
    for value in values:
        unique.setdefault(repr(value), value)
    return tuple(unique[key] for key in sorted(unique))


def _string(value: str) -> tuple[str, ...]:
    if _DECIMAL.match(value):
        return _decimal(value)
    match = _ID.match(value)
    if match is not None:
        prefix, digits = match.group("prefix") or "", match.group("digits")
        number = int(digits)
        bumped = [number + 1] + ([number - 1] if number > 0 else [])
        return tuple(f"{prefix}{n:0{len(digits)}d}" for n in bumped)
    if _DATE.match(value):
        try:
            day = date.fromisoformat(value)
        except ValueError:
            return ()
        return ((day + timedelta(days=1)).isoformat(), (day - timedelta(days=1)).isoformat())
    if _DATETIME.match(value):
        return _datetime(value)
    return ()


def _decimal(value: str) -> tuple[str, ...]:
    try:
        number = Decimal(value)
    except InvalidOperation:
        return ()
    exponent = number.as_tuple().exponent
    if not isinstance(exponent, int):
        return ()
    places = Decimal(1).scaleb(exponent)
    if not number:
        return (str(Decimal(1).quantize(places)),)
    return tuple(str((number * factor).quantize(places)) for factor in (Decimal("1.1"), Decimal("0.9")))


def _datetime(value: str) -> tuple[str, ...]:
    zulu = value.endswith("Z")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return ()

    def text(shifted: datetime) -> str:
        out = shifted.isoformat()
        return out.removesuffix("+00:00") + "Z" if zulu else out

    return (text(moment + timedelta(days=1)), text(moment - timedelta(days=1)))
