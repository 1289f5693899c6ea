"""Whether a commit finding points at a fault: the simulated agent's reading of the guard's findings.

The agent knows its calls, not the tables behind them, so it reads a finding
for the names it used itself. A finding points at a call when its message,
hint or evidence names

* one of the call's record keys: the value of an argument (or of a field of
  the call's structured result, where a created record's new id shows up)
  called ``id`` or ``…_id`` / ``…_ref`` / ``…reference`` / ``…number``, or
  any id-shaped string (``ORD-10000020``). A key that is digits only
  (``"20"``) must be the value of a key-like evidence field (``key``,
  ``id``, ``…_id``, ``duplicate_of``): a bare number in a sentence, or a
  trace index in the evidence, names no record;
* the call's tool (the failed-write and no-effect judges name tools); or,
  for a ``wrong_value`` fault,
* the mutated field together with the wrong value (``status 'solved'``).

A finding that names only a table does not point at anything: most writes of
the benchmark touch the tickets table, so a table name would point at
nearly every fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.agents.simulated.plan import Call
from benchmark.agents.simulated.values import leaves

__all__ = ["Markers", "finding_tokens", "markers_of", "points_at"]

_KEY_NAME = re.compile(r"(?:^|_)(?:id|ids|ref|reference|number)$", re.IGNORECASE)
_ID_SHAPE = re.compile(r"^[A-Za-z]{2,}[-_]?\d{2,}[A-Za-z0-9-]*$")
_EVIDENCE_KEY = re.compile(r"(?:^|_)(?:key|keys|id|ids|of)$", re.IGNORECASE)
_TOKEN = re.compile(r"[\w@.+:-]+")
_TRIM = ".:-+"


@dataclass(frozen=True, slots=True)
class Markers:
    """What a finding must name to point at a fault."""

    keys: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    field: str | None = None
    value: str | None = None


def markers_of(
    calls: Sequence[Call],
    *,
    results: Sequence[Mapping[str, Any]] = (),
    field: str | None = None,
    value: Any = None,
) -> Markers:
    """The markers of a fault about ``calls`` and their ``results`` (for a wrong value, also the change)."""
    keys: set[str] = set()
    for arguments in [call.arguments for call in calls] + list(results):
        for path, leaf in leaves(arguments):
            if isinstance(leaf, bool):
                continue
            if _KEY_NAME.search(path[-1]) or (isinstance(leaf, str) and _ID_SHAPE.match(leaf)):
                keys.add(str(leaf))
    return Markers(
        frozenset(keys),
        frozenset(call.tool for call in calls),
        field,
        None if value is None else _text(value),
    )


def finding_tokens(finding: Mapping[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
    """(words of the whole finding, values of its key-like evidence fields) as text."""
    evidence = list(_scalars(finding.get("evidence")))
    values = {value for _, value in evidence}
    words: set[str] = set()
    for text in (finding.get("message"), finding.get("hint"), *values):
        if isinstance(text, str):
            words.update(word.strip(_TRIM) for word in _TOKEN.findall(text))
    words.discard("")
    keys = frozenset(value for name, value in evidence if _EVIDENCE_KEY.search(name))
    return frozenset(words | values), keys


def points_at(finding: Mapping[str, Any], markers: Markers) -> bool:
    """Whether ``finding`` names one of ``markers`` (see the module docstring)."""
    words, keyed = finding_tokens(finding)
    for key in markers.keys:
        if key in (keyed if key.isdigit() else words):
            return True
    if markers.tools & words:
        return True
    return markers.field is not None and markers.value is not None and {markers.field, markers.value} <= words


def _scalars(value: Any, name: str = "") -> Iterator[tuple[str, str]]:
    """Every scalar in ``value`` with the name of the field that holds it (a list's, for its items)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _scalars(item, str(key))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _scalars(item, name)
    elif value is not None:
        yield name, _text(value)


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
