"""Canonical form, hash and diff of a state (tables of rows).

The canonical form makes equal states equal byte for byte:

* fields declared unstable for a table (free text, timestamps that vary) are
  left out;
* a null field and a missing field are the same (nulls are dropped);
* numbers are normalised: an integral float is written as an integer, a
  ``Decimal`` as the number it is, and booleans stay booleans;
* lists whose items are all scalars are sorted (they are sets in every domain
  we grade); lists of objects keep their order;
* rows are ordered by the table's key (``id`` unless declared), and by their
  own canonical text when a table has no key, so row order never matters;
* keys are sorted when the form is written as JSON.

The hash is the SHA-256 of that JSON. The diff compares two canonical states
record by record (by key), so one extra row is one entry, not a shifted tail.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import Any, Literal

__all__ = [
    "CanonicalState",
    "DiffEntry",
    "TableSpec",
    "canonical_json",
    "canonical_state",
    "canonical_value",
    "diff_states",
    "state_hash",
]

Row = Mapping[str, Any]
CanonicalState = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What counts in a table: its identity columns and the fields left out of the hash."""

    name: str
    key: tuple[str, ...] = ("id",)
    unstable: frozenset[str] = field(default_factory=frozenset)


def canonical_value(value: Any) -> Any:
    """The canonical form of one JSON-like value."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)
        return value
    if isinstance(value, Decimal):
        return canonical_value(float(value)) if value != value.to_integral_value() else int(value)
    if isinstance(value, Enum):
        return canonical_value(value.value)
    if isinstance(value, Mapping):
        return {str(k): canonical_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [canonical_value(v) for v in value]
        if all(item is None or isinstance(item, (bool, int, float, str)) for item in items):
            items.sort(key=_scalar_order)
        return items
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    raise TypeError(f"cannot put a {type(value).__name__} into a canonical state")


def _scalar_order(item: Any) -> tuple[int, Any]:
    if item is None:
        return (0, 0)
    if isinstance(item, bool):
        return (1, int(item))
    if isinstance(item, (int, float)):
        return (2, item)
    return (3, item)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _row_order(spec: TableSpec) -> Any:
    if spec.key:
        columns = spec.key

        def by_key(row: dict[str, Any]) -> tuple[str, str]:
            if len(columns) == 1:
                value = row.get(columns[0], "")
                # a structured key is ordered by its canonical text, which ignores its key order
                ident = canonical_json(value) if isinstance(value, (dict, list)) else str(value)
            else:
                ident = canonical_json([row.get(c) for c in columns])
            return (ident, canonical_json(row))

        return by_key
    return canonical_json


def canonical_state(
    state: Mapping[str, Iterable[Row]], specs: Mapping[str, TableSpec] | None = None
) -> CanonicalState:
    """The canonical form of a whole state; tables without a spec use ``id`` and keep every field."""
    specs = specs or {}
    out: CanonicalState = {}
    for table, rows in state.items():
        spec = specs.get(table) or TableSpec(table)
        unstable = spec.unstable
        canonical_rows = [
            {k: v for k, v in canonical_value(row).items() if k not in unstable} for row in rows
        ]
        canonical_rows.sort(key=_row_order(spec))
        out[table] = canonical_rows
    return out


def state_hash(state: CanonicalState) -> str:
    """SHA-256 (hex) of the canonical JSON of a canonical state."""
    return hashlib.sha256(canonical_json(state).encode()).hexdigest()


DiffKind = Literal["changed", "missing", "unexpected"]


@dataclass(frozen=True, slots=True)
class DiffEntry:
    """One difference: where, what kind, the value found and the value expected.

    ``missing`` means the expected state has it and the result does not;
    ``unexpected`` the other way round.
    """

    path: str
    kind: DiffKind
    result: Any
    expected: Any

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "result": self.result, "expected": self.expected}


def diff_states(
    result: CanonicalState, expected: CanonicalState, specs: Mapping[str, TableSpec] | None = None
) -> list[DiffEntry]:
    """Record-by-record differences between two canonical states, in a stable order."""
    specs = specs or {}
    entries: list[DiffEntry] = []
    for table in sorted(result.keys() | expected.keys()):
        if table not in result:
            entries.append(DiffEntry(table, "missing", None, expected[table]))
            continue
        if table not in expected:
            entries.append(DiffEntry(table, "unexpected", result[table], None))
            continue
        if _same_rows(result[table], expected[table]):
            continue  # the very same rows in the same order (states sharing them): nothing to key
        spec = specs.get(table) or TableSpec(table)
        got = _keyed(result[table], spec)
        want = _keyed(expected[table], spec)
        for ident in sorted(got.keys() | want.keys()):
            if got.get(ident, got) is want.get(ident):
                continue  # one row object in both states: nothing to say (equality would take True for 1)
            path = f"{table}[{ident}]"
            if ident not in got:
                entries.append(DiffEntry(path, "missing", None, want[ident]))
            elif ident not in want:
                entries.append(DiffEntry(path, "unexpected", got[ident], None))
            else:
                _diff_value(path, got[ident], want[ident], entries)
    return entries


def _same_rows(result: list[dict[str, Any]], expected: list[dict[str, Any]]) -> bool:
    """Whether both lists hold the same row objects in the same order (identity, never equality)."""
    return len(result) == len(expected) and all(a is b for a, b in zip(result, expected, strict=True))


def _keyed(rows: list[dict[str, Any]], spec: TableSpec) -> dict[str, dict[str, Any]]:
    keyed: dict[str, dict[str, Any]] = {}
    for row in rows:
        if spec.key and all(c in row for c in spec.key):
            ident = "/".join(str(row[c]) for c in spec.key)
        else:
            ident = hashlib.sha256(canonical_json(row).encode()).hexdigest()[:12]
        while ident in keyed:
            ident += "'"
        keyed[ident] = row
    return keyed


def _diff_value(path: str, got: Any, want: Any, entries: list[DiffEntry]) -> None:
    if isinstance(got, dict) and isinstance(want, dict):
        for name in sorted(got.keys() | want.keys()):
            sub = f"{path}.{name}"
            if name not in got:
                entries.append(DiffEntry(sub, "missing", None, want[name]))
            elif name not in want:
                entries.append(DiffEntry(sub, "unexpected", got[name], None))
            else:
                _diff_value(sub, got[name], want[name], entries)
        return
    if (
        isinstance(got, list)
        and isinstance(want, list)
        and len(got) == len(want)
        and got != want
        and all(isinstance(item, dict) for item in got + want)
    ):
        for index, (g, w) in enumerate(zip(got, want, strict=True)):
            _diff_value(f"{path}[{index}]", g, w, entries)
        return
    if got != want or (type(got) is not type(want) and (isinstance(got, bool) or isinstance(want, bool))):
        entries.append(DiffEntry(path, "changed", got, want))
