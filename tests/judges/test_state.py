"""Queries and the in-memory state reader."""

from __future__ import annotations

import pytest

from judges import MemoryState, Query, StateSnapshot

ROWS = {
    "shipments": [
        {"id": 1, "order_id": "O1", "late": True},
        {"id": 2, "order_id": "O1", "late": False},
        {"id": 3, "order_id": "O2", "late": 1},
    ]
}


def test_query_of_sorts_filters() -> None:
    assert Query.of("t", None, b=1, a=2) == Query("t", (("a", 2), ("b", 1)))


def test_answers_by_index_with_limit() -> None:
    state = MemoryState(ROWS)
    assert [r["id"] for r in state.answer(Query.of("shipments", None, order_id="O1"))] == [1, 2]
    assert [r["id"] for r in state.answer(Query.of("shipments", 1, order_id="O1"))] == [1]
    assert state.answer(Query.of("shipments", None, order_id="O9")) == ()


def test_bool_is_not_int_and_one_equals_one_point_zero() -> None:
    state = MemoryState(ROWS)
    assert [r["id"] for r in state.answer(Query.of("shipments", None, late=True))] == [1]
    assert [r["id"] for r in state.answer(Query.of("shipments", None, late=1))] == [3]
    assert [r["id"] for r in state.answer(Query.of("shipments", None, id=2.0))] == [2]


def test_unknown_tables_and_undeclared_queries_are_errors() -> None:
    with pytest.raises(KeyError, match="unknown table 'nope'"):
        MemoryState(ROWS).answer(Query.of("nope", None, id=1))
    with pytest.raises(KeyError, match="query was not declared"):
        StateSnapshot().find("shipments", id=1)


async def test_fetch_gives_a_snapshot() -> None:
    query = Query.of("shipments", None, order_id="O2")
    snapshot = await MemoryState(ROWS).fetch([query])
    assert snapshot.get("shipments", order_id="O2") == {"id": 3, "order_id": "O2", "late": 1}
    assert snapshot.rows(query) == ({"id": 3, "order_id": "O2", "late": 1},)


def test_a_null_key_matches_no_row_even_a_null_one() -> None:
    """As SQL's ``col = NULL``: a where value of None never matches, in memory too."""
    state = MemoryState({"shipments": [*ROWS["shipments"], {"id": 4, "order_id": None, "late": None}]})
    query = Query.of("shipments", None, order_id=None)
    assert query.null_key
    assert not Query.of("shipments", None, order_id="O1").null_key
    assert not query.matches({"id": 4, "order_id": None})
    assert state.answer(query) == ()
    assert state.answer(Query.of("shipments", None, order_id="O1", late=None)) == ()
