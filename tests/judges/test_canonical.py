"""Canonical state: the hash ignores what must not count and sees everything that must."""

from __future__ import annotations

from decimal import Decimal
from enum import Enum
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from judges import (
    DiffEntry,
    TableSpec,
    canonical_json,
    canonical_state,
    canonical_value,
    diff_states,
    state_hash,
)

FIELDS = ("id", "status", "amount", "tags", "note", "updated_at", "meta", "flag")
UNSTABLE = frozenset({"note", "updated_at"})
STABLE = tuple(f for f in FIELDS if f not in UNSTABLE)
SPECS = {"tickets": TableSpec("tickets", ("id",), UNSTABLE), "orders": TableSpec("orders", ("id",), UNSTABLE)}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=8),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), scalars, max_size=3),
    st.lists(st.dictionaries(st.sampled_from(["x", "y"]), scalars, max_size=2), max_size=3),
)
rows = st.dictionaries(st.sampled_from(FIELDS), values, min_size=1)
states = st.fixed_dictionaries({"tickets": st.lists(rows, max_size=6), "orders": st.lists(rows, max_size=4)})


def digest(state: dict[str, list[dict[str, Any]]]) -> str:
    return state_hash(canonical_state(state, SPECS))


def canonical_row(row: dict[str, Any]) -> str:
    return canonical_json(canonical_state({"tickets": [row]}, SPECS))


@given(states, st.randoms(use_true_random=False))
def test_hash_ignores_row_order(state: dict[str, list[dict[str, Any]]], rnd: Any) -> None:
    shuffled = {table: rnd.sample(rows_, len(rows_)) for table, rows_ in state.items()}
    assert digest(shuffled) == digest(state)


@given(states, st.randoms(use_true_random=False))
def test_hash_ignores_key_order(state: dict[str, list[dict[str, Any]]], rnd: Any) -> None:
    def reorder(row: dict[str, Any]) -> dict[str, Any]:
        keys = list(row)
        rnd.shuffle(keys)
        return {key: reorder(row[key]) if isinstance(row[key], dict) else row[key] for key in keys}

    reordered = {table: [reorder(row) for row in rows_] for table, rows_ in reversed(list(state.items()))}
    assert digest(reordered) == digest(state)


@given(states, st.data())
def test_hash_ignores_unstable_fields(state: dict[str, list[dict[str, Any]]], data: st.DataObject) -> None:
    changed = {
        table: [
            {
                **{k: v for k, v in row.items() if k not in UNSTABLE},
                **data.draw(st.dictionaries(st.sampled_from(sorted(UNSTABLE)), values)),
            }
            for row in rows_
        ]
        for table, rows_ in state.items()
    }
    assert digest(changed) == digest(state)


@given(states, st.data())
def test_hash_changes_when_a_stable_field_changes(
    state: dict[str, list[dict[str, Any]]], data: st.DataObject
) -> None:
    table = data.draw(st.sampled_from([t for t, rows_ in state.items() if rows_] or ["tickets"]))
    assume(state[table])
    index = data.draw(st.integers(0, len(state[table]) - 1))
    field = data.draw(st.sampled_from(STABLE))
    row = state[table][index]
    new_row = {**row, field: data.draw(values)}
    assume(canonical_row(new_row) != canonical_row(row))
    changed = {**state, table: [*state[table][:index], new_row, *state[table][index + 1 :]]}
    assert digest(changed) != digest(state)


@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_integral_float_equals_int(number: int) -> None:
    assert digest({"tickets": [{"id": 1, "amount": float(number)}]}) == digest(
        {"tickets": [{"id": 1, "amount": number}]}
    )


class Tier(Enum):
    GOLD = "gold"


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (1, 1.0),
        (Decimal("2.50"), 2.5),
        (Decimal("3"), 3),
        (None, "<missing>"),
        (["b", "a"], ["a", "b"]),
        (Tier.GOLD, "gold"),
        ({"a": None, "b": 1}, {"b": 1}),
    ],
)
def test_values_that_are_the_same(left: Any, right: Any) -> None:
    def state(value: Any) -> dict[str, list[dict[str, Any]]]:
        row: dict[str, Any] = {"id": 1}
        if value != "<missing>":
            row["x"] = value
        return {"t": [row]}

    assert digest(state(left)) == digest(state(right))


@pytest.mark.parametrize(
    ("left", "right"),
    [(True, 1), (False, 0), (1, "1"), (0, None), ([{"a": 1}, {"a": 2}], [{"a": 2}, {"a": 1}]), (1.5, 1)],
)
def test_values_that_differ(left: Any, right: Any) -> None:
    assert digest({"t": [{"id": 1, "x": left}]}) != digest({"t": [{"id": 1, "x": right}]})


def test_canonical_value_rejects_unknown_objects() -> None:
    with pytest.raises(TypeError, match="object"):
        canonical_value(object())


def test_tables_without_a_key_ignore_row_order() -> None:
    specs = {"log": TableSpec("log", key=())}
    a = {"log": [{"event": "a", "n": 1}, {"event": "b", "n": 2}]}
    b = {"log": [{"n": 2, "event": "b"}, {"event": "a", "n": 1}]}
    assert state_hash(canonical_state(a, specs)) == state_hash(canonical_state(b, specs))


def test_diff_names_path_kind_result_and_expected() -> None:
    result = canonical_state(
        {
            "zendesk_tickets": [
                {"id": "6", "status": "solved", "tags": ["a"]},
                {"id": "7", "status": "open"},
            ],
            "orders": [{"id": "O1", "lines": [{"sku": "A", "qty": 2}]}],
        }
    )
    golden = canonical_state(
        {
            "zendesk_tickets": [{"id": "6", "status": "hold", "priority": "high", "tags": ["a"]}],
            "orders": [{"id": "O1", "lines": [{"sku": "A", "qty": 1}]}],
            "refunds": [],
        }
    )
    assert diff_states(result, golden) == [
        DiffEntry("orders[O1].lines[0].qty", "changed", 2, 1),
        DiffEntry("refunds", "missing", None, []),
        DiffEntry("zendesk_tickets[6].priority", "missing", None, "high"),
        DiffEntry("zendesk_tickets[6].status", "changed", "solved", "hold"),
        DiffEntry("zendesk_tickets[7]", "unexpected", {"id": "7", "status": "open"}, None),
    ]


def test_one_extra_row_is_one_diff_entry() -> None:
    golden = {"t": [{"id": i, "v": i} for i in range(1, 20)]}
    result = {"t": [{"id": 0, "v": 0}, *golden["t"]]}
    entries = diff_states(canonical_state(result), canonical_state(golden))
    assert [(e.path, e.kind) for e in entries] == [("t[0]", "unexpected")]


def test_diff_reports_bool_against_int() -> None:
    entries = diff_states(
        canonical_state({"t": [{"id": 1, "x": True}]}), canonical_state({"t": [{"id": 1, "x": 1}]})
    )
    assert entries == [DiffEntry("t[1].x", "changed", True, 1)]
    assert entries[0].to_dict() == {"path": "t[1].x", "kind": "changed", "result": True, "expected": 1}


def test_diff_leaves_out_unstable_fields() -> None:
    specs = {"t": TableSpec("t", unstable=frozenset({"note"}))}
    result = canonical_state({"t": [{"id": 1, "note": "a"}]}, specs)
    golden = canonical_state({"t": [{"id": 1, "note": "b"}]}, specs)
    assert diff_states(result, golden, specs) == []


def test_composite_keys_name_the_row() -> None:
    specs = {"lines": TableSpec("lines", key=("order", "n"))}
    result = canonical_state({"lines": [{"order": "O1", "n": 2, "qty": 1}]}, specs)
    golden = canonical_state({"lines": [{"order": "O1", "n": 2, "qty": 3}]}, specs)
    assert diff_states(result, golden, specs) == [DiffEntry("lines[O1/2].qty", "changed", 1, 3)]
