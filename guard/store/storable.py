"""What the guard's own store can hold: agent text and data made storable before they are written.

Agents choose the text and data the audit log records (arguments, reasons,
summaries) and some of what the outbox keeps. Not all of it fits a database:
PostgreSQL refuses NUL (U+0000) in text and unpaired surrogates (U+D800 to
U+DFFF alone) anywhere, its ``json`` type refuses ``NaN`` and ``Infinity``;
SQLite's driver cannot encode an unpaired surrogate; and a reader of the log
(the admin API serialises through pydantic, 255 levels at most) fails on data
nested deeper than it can follow. A record the store refuses must not stop
the log (:mod:`guard.audit.backlog`), and one it takes must be readable by every
reader, so each value is made storable on its way in, by the column types
below (:class:`StorableText`, :class:`StorableJSON`, used by
:mod:`guard.store.tables`):

* text: NUL and unpaired surrogates become U+FFFD (the replacement character);
* JSON data: unpaired surrogates become U+FFFD in strings and keys (NUL stays:
  JSON writes it as ``\\u0000``, which both stores keep); ``NaN``,
  ``Infinity`` and ``-Infinity`` become those words as strings; keys that are
  not strings become their text; a value JSON cannot write becomes its text;
  anything nested deeper than :data:`MAX_DEPTH` levels becomes the string
  :data:`TOO_DEEP`.

Everything else is written exactly as given. The common case costs one
``json.dumps``, the serialisation the column needs anyway, and a scan of its
output; only a value that needs a change is walked.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sqlalchemy import JSON, Text
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

__all__ = [
    "MAX_DEPTH",
    "REPLACEMENT",
    "TOO_DEEP",
    "StorableJSON",
    "StorableText",
    "nesting",
    "storable_data",
    "storable_json",
    "storable_text",
]

REPLACEMENT = "\ufffd"
"""What stands in for a character the store cannot hold."""
MAX_DEPTH = 128
"""Nesting levels a stored JSON value keeps (arguments are refused past ``limits.max_argument_depth``)."""
TOO_DEEP = f"[nested deeper than {MAX_DEPTH} levels: left out]"

_UNSTORABLE_TEXT = re.compile("[\x00\ud800-\udfff]")
_UNPAIRED = re.compile("[\ud800-\udfff]")
# json.dumps writes every non-ASCII character as \\uXXXX, a surrogate pair as two; an escape of a
# surrogate without its partner is what the stores refuse (an escaped backslash before it only makes
# a false alarm, which costs a walk)
_LONE_ESCAPE = re.compile(
    r"\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}"
)
_NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def storable_text(value: str) -> str:
    """``value`` with NUL and unpaired surrogates replaced by U+FFFD; the same object when it has none."""
    if value.isascii() and "\x00" not in value:
        return value
    return _UNSTORABLE_TEXT.sub(REPLACEMENT, value)


def _string(value: str) -> str:
    """A JSON string's text as stored: only unpaired surrogates need replacing (JSON escapes NUL)."""
    if value.isascii():
        return value
    return _UNPAIRED.sub(REPLACEMENT, value)


def storable_data(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data both stores take and every reader can read back (module docstring)."""
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return _NON_FINITE.get(value, value)
    if depth >= MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {_string(str(k)): storable_data(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable_data(v, depth + 1) for v in value]
    return _string(str(value))


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


def _deeper_than_allowed(text: str, value: Any) -> bool:
    """Whether ``value`` nests past :data:`MAX_DEPTH`; walked only when its text has that many brackets."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    return nesting(value, MAX_DEPTH + 1) > MAX_DEPTH


def nesting(value: Any, stop: int) -> int:
    """How deep JSON data ``value`` nests (a scalar 0, ``[]`` 1, ``{"a": []}`` 2), counting no further
    than ``stop`` (so that a hostile value costs no more than ``stop`` levels of recursion)."""
    if stop <= 0 or not isinstance(value, (dict, list, tuple)):
        return 0
    children = value.values() if isinstance(value, dict) else value
    deepest = 0
    for child in children:
        deepest = max(deepest, nesting(child, stop - 1))
        if deepest >= stop - 1:
            break
    return 1 + deepest


def storable_json(value: Any) -> str:
    """``value`` as the JSON text a store keeps: ``json.dumps``, repaired where it must be."""
    try:
        text = _dumps(value)
    except (ValueError, TypeError, RecursionError):
        return _dumps(storable_data(value))
    if ("\\ud" in text and _LONE_ESCAPE.search(text)) or _deeper_than_allowed(text, value):
        return _dumps(storable_data(value))
    return text


class StorableText(TypeDecorator[str]):
    """A text column whose values are made storable (:func:`storable_text`) on their way in."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else storable_text(value)


class StorableJSON(TypeDecorator[Any]):
    """A JSON column whose values are written as :func:`storable_json` makes them; read as JSON is."""

    impl = JSON
    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> Any:
        return storable_json  # None as JSON ``null``, as the JSON type writes it
