"""The canonical form and hash of a state, row by row, remembering rows already seen.

Every state a benchmark grades is its domain's seed plus a few changed rows,
and some domains' seeds are large (tau-bench's airline: 2,500 records). This
module gives exactly what :func:`judges.canonical.canonical_state` and
:func:`judges.canonical.state_hash` give — the same canonical rows in the same
order, the same hash — but keeps, per domain, table and row key, the last row
seen with its canonical form and canonical JSON: a row equal to the one
remembered (deep equality) reuses them, so only changed rows cost work.

The remembered row is the graded state's own (rows of a dumped state are
shared and never changed: :mod:`benchmark.world.sqlite_plan`). A table whose rows do not each have a distinct
single-column key is done the ordinary way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from judges.canonical import CanonicalState, TableSpec, canonical_json, canonical_state, canonical_value

__all__ = ["canonical_with_hash", "clear_canonical_memo"]

_Entry = tuple[Any, dict[str, Any], str]
_MEMO: dict[tuple[str, str], dict[str, _Entry]] = {}


def clear_canonical_memo() -> None:
    _MEMO.clear()


def _ident(value: Any) -> str:
    # as canonical_state orders rows with a single-column key
    return canonical_json(value) if isinstance(value, dict | list) else str(value)


def _table(
    scope: str, name: str, rows: Sequence[Mapping[str, Any]], spec: TableSpec
) -> tuple[list[dict[str, Any]], list[str]]:
    if len(spec.key) == 1:
        memo = _MEMO.setdefault((scope, name), {})
        entries: dict[str, _Entry] = {}
        for row in rows:
            ident = _ident(row.get(spec.key[0], ""))
            if ident in entries:
                break
            entry = memo.get(ident)
            if entry is None or not (entry[0] is row or entry[0] == row):
                canonical = {k: v for k, v in canonical_value(row).items() if k not in spec.unstable}
                entry = (row, canonical, canonical_json(canonical))
                memo[ident] = entry
            entries[ident] = entry
        else:
            ordered = [entries[ident] for ident in sorted(entries)]
            return [entry[1] for entry in ordered], [entry[2] for entry in ordered]
    plain = canonical_state({name: rows}, {name: spec})[name]
    return plain, [canonical_json(row) for row in plain]


def canonical_with_hash(
    scope: str, state: Mapping[str, Sequence[Mapping[str, Any]]], specs: Mapping[str, TableSpec]
) -> tuple[CanonicalState, str]:
    """``canonical_state(state, specs)`` and its ``state_hash``; ``scope`` names whose rows are remembered."""
    canonical: CanonicalState = {}
    texts: dict[str, list[str]] = {}
    for name, rows in state.items():
        canonical[name], texts[name] = _table(scope, name, rows, specs.get(name) or TableSpec(name))
    # the text canonical_json(canonical) would be: tables in key order, rows in list order
    body = ",".join(
        f"{json.dumps(name, ensure_ascii=False)}:[{','.join(texts[name])}]" for name in sorted(canonical)
    )
    return canonical, hashlib.sha256(f"{{{body}}}".encode()).hexdigest()
