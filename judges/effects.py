"""Effects: the changes a transaction would make, one per record it touched.

An effect is ``(table, key, kind, before, after, changed_fields)``. Effects
come from row changes captured inside a transaction (each a table, an
operation and the old and new row), folded so that a record touched many
times gives one effect from its first ``before`` to its last ``after``; or
from a before/after view of the touched rows. A write buffered in an outbox
is an effect of kind ``call`` on the pseudo-table ``call:<tool>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "Effect",
    "EffectKind",
    "RowChange",
    "call_effect",
    "diff_fields",
    "effects_between",
    "fold_changes",
]

Row = Mapping[str, Any]


class EffectKind(StrEnum):
    INSERT = "insert"
    UPDATE = "update"
    DELETE = "delete"
    CALL = "call"


@dataclass(frozen=True, slots=True)
class Effect:
    """The net change to one record."""

    table: str
    key: tuple[Any, ...]
    kind: EffectKind
    before: Row | None
    after: Row | None
    changed_fields: tuple[str, ...]

    @property
    def key_text(self) -> str:
        return "/".join(str(part) for part in self.key)

    @property
    def row(self) -> Row:
        """The record as the transaction leaves it (its last state, for a delete)."""
        row = self.after if self.after is not None else self.before
        return row if row is not None else {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "key": self.key_text,
            "kind": self.kind.value,
            "before": None if self.before is None else dict(self.before),
            "after": None if self.after is None else dict(self.after),
            "changed_fields": list(self.changed_fields),
        }


@dataclass(frozen=True, slots=True)
class RowChange:
    """One captured row operation, in the order the database applied it."""

    table: str
    op: EffectKind
    old: Row | None
    new: Row | None


def diff_fields(before: Row | None, after: Row | None) -> tuple[str, ...]:
    """The sorted names of fields whose values differ (a missing field equals null)."""
    b = before or {}
    a = after or {}
    return tuple(sorted(name for name in b.keys() | a.keys() if not _same(b.get(name), a.get(name))))


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    return bool(left == right)


def _key_of(row: Row, key_columns: Sequence[str]) -> tuple[Any, ...]:
    return tuple(row.get(column) for column in key_columns)


def fold_changes(changes: Iterable[RowChange], keys: Mapping[str, Sequence[str]]) -> list[Effect]:
    """Fold captured row changes into one effect per record, in first-touch order.

    ``keys`` gives each table's key columns. A record inserted and then deleted
    inside the transaction leaves no effect; so does a record updated back to
    what it was.
    """
    first_before: dict[tuple[str, tuple[Any, ...]], Row | None] = {}
    last_after: dict[tuple[str, tuple[Any, ...]], Row | None] = {}
    for change in changes:
        key_columns = keys[change.table]
        if change.op is EffectKind.INSERT:
            assert change.new is not None
            ident = (change.table, _key_of(change.new, key_columns))
            first_before.setdefault(ident, None)
            last_after[ident] = change.new
        elif change.op is EffectKind.DELETE:
            assert change.old is not None
            ident = (change.table, _key_of(change.old, key_columns))
            first_before.setdefault(ident, change.old)
            last_after[ident] = None
        else:
            assert change.old is not None
            assert change.new is not None
            old_ident = (change.table, _key_of(change.old, key_columns))
            new_ident = (change.table, _key_of(change.new, key_columns))
            if old_ident != new_ident:
                first_before.setdefault(old_ident, change.old)
                last_after[old_ident] = None
                first_before.setdefault(new_ident, None)
            else:
                first_before.setdefault(old_ident, change.old)
            last_after[new_ident] = change.new
    effects: list[Effect] = []
    for ident, before in first_before.items():
        after = last_after[ident]
        effect = _effect(ident[0], ident[1], before, after)
        if effect is not None:
            effects.append(effect)
    return effects


def _effect(table: str, key: tuple[Any, ...], before: Row | None, after: Row | None) -> Effect | None:
    if before is None and after is None:
        return None
    changed = diff_fields(before, after)
    if before is None:
        return Effect(table, key, EffectKind.INSERT, None, after, changed)
    if after is None:
        return Effect(table, key, EffectKind.DELETE, before, None, changed)
    if not changed:
        return None
    return Effect(table, key, EffectKind.UPDATE, before, after, changed)


def effects_between(
    before: Mapping[str, Iterable[Row]],
    after: Mapping[str, Iterable[Row]],
    keys: Mapping[str, Sequence[str]],
) -> list[Effect]:
    """Effects from a before and an after view of the rows of the touched tables."""
    effects: list[Effect] = []
    for table in sorted(before.keys() | after.keys()):
        key_columns = keys[table]
        old = {_key_of(row, key_columns): row for row in before.get(table, ())}
        new = {_key_of(row, key_columns): row for row in after.get(table, ())}
        for key in list(old) + [k for k in new if k not in old]:
            effect = _effect(table, key, old.get(key), new.get(key))
            if effect is not None:
                effects.append(effect)
    return effects


def call_effect(tool: str, idempotency_key: str, arguments: Row) -> Effect:
    """The effect of a write buffered in the outbox: the call it will make at commit."""
    return Effect(
        f"call:{tool}", (idempotency_key,), EffectKind.CALL, None, dict(arguments), tuple(sorted(arguments))
    )
