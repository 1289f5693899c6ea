"""The data a rule sees: effects and rows as plain CEL values, trimmed to what the pack reads.

``effect`` is a map ``{table, key, kind, before, after, changed}``: ``key`` is
the record key as text (``"20"``, or ``"A/7"`` for a composite key), ``kind``
one of ``insert``/``update``/``delete``/``call``, ``before``/``after`` the row
or null, ``changed`` the names of the fields that differ. For an outbox write
(``kind == 'call'``, table ``call:<tool>``) ``after`` holds the call's
arguments.

Projection: handing a value to CEL costs about half a microsecond per string
or map key, so by default a map reaches CEL with only the keys that some
expression of the pack mentions (as an identifier or a string literal). A rule
that reads a field by name always sees it; only whole-map operations
(``size(row)``, iterating a row's keys, comparing whole rows) notice the
missing keys. A pack that needs whole rows sets ``project: false``.

Values are normalised so that CEL can hold them: ``Decimal`` becomes an int
or a double, an ``Enum`` its value, a naive ``datetime`` a UTC timestamp, a
``date``/``time``/``UUID`` its ISO text, tuples and sets lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from datetime import UTC, date, datetime, time
from decimal import Decimal
from enum import Enum
from typing import Any
from uuid import UUID

from judges.effects import Effect

__all__ = ["effect_view", "rows_view", "to_cel"]

_SCALARS = (str, int, float, bool, type(None), bytes)


def to_cel(value: Any, fields: Set[str] | None) -> Any:
    """``value`` as plain data CEL accepts, maps trimmed to ``fields`` (all keys when None)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if isinstance(value, Mapping):
        if fields is None:
            return {str(k): v if type(v) in _SCALARS else to_cel(v, fields) for k, v in value.items()}
        return {k: v if type(v) in _SCALARS else to_cel(v, fields) for k, v in value.items() if k in fields}
    if isinstance(value, (list, tuple)):
        return [to_cel(item, fields) for item in value]
    return _other(value, fields)


def _other(value: Any, fields: Set[str] | None) -> Any:
    if isinstance(value, Enum):
        return to_cel(value.value, fields)
    if isinstance(value, (str, int, float, bytes)):
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, (date, time, UUID)):
        return value.isoformat() if not isinstance(value, UUID) else str(value)
    if isinstance(value, (set, frozenset)):
        return [to_cel(item, fields) for item in value]
    return str(value)


def effect_view(effect: Effect, fields: Set[str] | None) -> dict[str, Any]:
    """The ``effect`` variable of a rule (only the parts the pack names, when projecting)."""
    view: dict[str, Any] = {}
    if fields is None or "table" in fields:
        view["table"] = effect.table
    if fields is None or "key" in fields:
        view["key"] = effect.key_text
    if fields is None or "kind" in fields:
        view["kind"] = effect.kind.value
    if fields is None or "before" in fields:
        view["before"] = None if effect.before is None else to_cel(effect.before, fields)
    if fields is None or "after" in fields:
        view["after"] = None if effect.after is None else to_cel(effect.after, fields)
    if fields is None or "changed" in fields:
        view["changed"] = list(effect.changed_fields)
    return view


def rows_view(rows: tuple[Mapping[str, Any], ...], fields: Set[str] | None, one: bool) -> Any:
    """A lookup's value: the list of rows, or the first row (null if none) for ``one: true``."""
    if one:
        return to_cel(rows[0], fields) if rows else None
    return [to_cel(row, fields) for row in rows]
