"""What rules see: effects and rows as plain CEL data, trimmed to the fields a pack names."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal
from enum import Enum, StrEnum
from uuid import UUID

from judges import Effect, EffectKind
from judges.rules.engine import Environment, compile_expression
from judges.rules.view import effect_view, rows_view, to_cel


class Color(Enum):
    RED = "red"


class Level(StrEnum):
    HIGH = "high"


def test_to_cel_normalises_values() -> None:
    naive = datetime(2025, 10, 1, 13, 0)
    value = {
        "dec": Decimal("2.50"),
        "whole": Decimal("3.0"),
        "enum": Color.RED,
        "strenum": Level.HIGH,
        "when": naive,
        "day": date(2025, 10, 1),
        "at": time(13, 0),
        "uuid": UUID("12345678-1234-5678-1234-567812345678"),
        "set": frozenset({1}),
        "tuple": (1, 2),
        "nested": {"a": [{"b": Decimal("1")}]},
        "other": object,
    }
    out = to_cel(value, None)
    assert out["dec"] == 2.5
    assert out["whole"] == 3
    assert type(out["whole"]) is int
    assert out["enum"] == "red"
    assert out["strenum"] == "high"
    assert out["when"] == naive.replace(tzinfo=UTC)
    assert out["day"] == "2025-10-01"
    assert out["at"] == "13:00:00"
    assert out["uuid"] == "12345678-1234-5678-1234-567812345678"
    assert out["set"] == [1]
    assert out["tuple"] == [1, 2]
    assert out["nested"] == {"a": [{"b": 1}]}
    assert out["other"] == str(object)
    Environment({"value": out})


def test_projection_keeps_named_keys_at_every_depth() -> None:
    assert to_cel({"a": 1, "b": {"a": 2, "c": 3}, "c": [{"a": 4, "d": 5}]}, {"a", "b", "c"}) == {
        "a": 1,
        "b": {"a": 2, "c": 3},
        "c": [{"a": 4}],
    }


def test_effect_view() -> None:
    effect = Effect("t", ("A", 7), EffectKind.UPDATE, {"x": 1, "y": 2}, {"x": 3, "y": 2}, ("x",))
    assert effect_view(effect, None) == {
        "table": "t",
        "key": "A/7",
        "kind": "update",
        "before": {"x": 1, "y": 2},
        "after": {"x": 3, "y": 2},
        "changed": ["x"],
    }
    assert effect_view(effect, frozenset({"after", "x"})) == {"after": {"x": 3}}


def test_rows_view() -> None:
    rows = ({"id": 1, "n": "a"}, {"id": 2, "n": "b"})
    assert rows_view(rows, frozenset({"id"}), one=False) == [{"id": 1}, {"id": 2}]
    assert rows_view(rows, None, one=True) == {"id": 1, "n": "a"}
    assert rows_view((), None, one=True) is None


def test_cel_reads_the_view() -> None:
    effect = Effect("t", (1,), EffectKind.INSERT, None, {"amount": Decimal("9.5")}, ("amount",))
    environment = Environment({"effect": effect_view(effect, None)})
    assert (
        compile_expression("effect.before == null && effect.after.amount > 9.0").evaluate(environment) is True
    )
