"""What the guard's own store can hold (:mod:`guard.store.storable`): hostile text and data made storable on
their way in, on SQLite and on PostgreSQL, and read back by every reader (Requirement G41)."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit.log import CallEntry, CommitEntry, TxnRecord
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from guard.store.sql_audit import SqlAudit
from guard.store.storable import (
    MAX_DEPTH,
    REPLACEMENT,
    TOO_DEEP,
    nesting,
    storable_data,
    storable_json,
    storable_text,
)
from guard.transaction.state import CommitStatus, Status
from judges import Decision

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
# what an agent can put in any text: NUL, a lone high and a lone low surrogate, a pair written as two
# code points, markup, a right-to-left override, an emoji (a real astral character)
HOSTILE = "a\x00b \ud800 c\udfff d\ud83d\ude00 <b>x</b> \u202e 😀"


def _nested(depth: int) -> Any:
    value: Any = "core"
    for _ in range(depth):
        value = {"x": value}
    return value


def _strict(text: str) -> Any:
    """``text`` parsed as strict JSON (RFC 8259): no NaN or Infinity."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _clean(value: Any) -> bool:
    """No unpaired surrogate anywhere in ``value`` (each string encodes as UTF-8)."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_clean(k) and _clean(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_clean(v) for v in value)
    return True


def test_text_keeps_everything_but_nul_and_unpaired_surrogates() -> None:
    """Requirement G41: NUL and lone surrogates become U+FFFD; everything else, markup and emoji included,
    is kept as it was; text with neither comes back as the same object."""
    assert storable_text(HOSTILE) == (
        f"a{REPLACEMENT}b {REPLACEMENT} c{REPLACEMENT} d{REPLACEMENT}{REPLACEMENT} <b>x</b> \u202e 😀"
    )
    plain = "plain ascii text"
    assert storable_text(plain) is plain
    assert storable_text("déjà vu ✓") == "déjà vu ✓"


def test_json_data_is_written_as_strict_json_both_stores_take() -> None:
    """Requirement G41: non-finite numbers become their names, lone surrogates U+FFFD (NUL stays, JSON
    escapes it), keys become text, values JSON cannot write become their text, deep nesting is cut."""
    value = {
        "nan": math.nan,
        "inf": [math.inf, -math.inf],
        "text": HOSTILE,
        HOSTILE: 1,
        3: "int key",
        "when": NOW,
        "deep": _nested(MAX_DEPTH + 50),
    }
    stored = _strict(storable_json(value))
    assert stored["nan"] == "NaN"
    assert stored["inf"] == ["Infinity", "-Infinity"]
    assert stored["text"].startswith("a\x00b \ufffd c\ufffd")
    assert stored["3"] == "int key"
    assert stored["when"] == str(NOW)
    assert _clean(stored)
    assert nesting(stored, 1000) == MAX_DEPTH
    assert TOO_DEEP in json.dumps(stored)
    fine = {"a": [1, 2.5, None, True, "déjà"], "b": {"c": _nested(40)}}
    assert storable_json(fine) == json.dumps(fine), "a value that needs nothing is written as it is"


# pieces joined: often the characters stores refuse (NUL, lone surrogates, half of a pair), among any other
hostile_text = st.lists(
    st.sampled_from(["\x00", "\ud800", "\udfff", "\ud83d", "😀"])
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=4),
    max_size=5,
).map("".join)
json_data = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=True, allow_infinity=True)
    | hostile_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(hostile_text, children, max_size=4),
    max_leaves=40,
)


@given(value=json_data, depth=st.integers(min_value=0, max_value=300))
def test_any_data_becomes_strict_readable_json(value: Any, depth: int) -> None:
    """Requirement G41 (property): whatever an agent sends, the stored text is strict JSON without an
    unpaired surrogate, nested no deeper than the readers follow; storing it again changes nothing."""
    for candidate in (value, {"wrapped": value, "deep": _nested(depth)}):
        text = storable_json(candidate)
        stored = _strict(text)
        assert _clean(stored)
        assert nesting(stored, 1000) <= MAX_DEPTH
        assert storable_json(stored) == text, "storable data is a fixed point"
        assert storable_data(stored) == stored


@pytest.fixture
async def engine(store: tuple[str, str | None]) -> AsyncIterator[AsyncEngine]:
    url, schema = store
    engine = create_engine(url, search_path=schema)
    await upgrade(engine)
    yield engine
    await engine.dispose()


async def test_hostile_records_are_written_and_read_back_on_both_stores(engine: AsyncEngine) -> None:
    """Requirement G41: a transaction, a call and a commit attempt full of hostile text, non-finite numbers
    and deep data are all written (PostgreSQL refused NUL, lone surrogates and NaN before) and read back
    as the guard wrote them."""
    audit = SqlAudit(engine)
    record = TxnRecord(
        id="h-1",
        principal="agent",
        instance="guard-1",
        backend="sql",
        status=Status.OPEN,
        opened_at=NOW,
        updated_at=NOW,
    )
    arguments = {"note": HOSTILE, "amount": math.nan, "limit": math.inf, "deep": _nested(MAX_DEPTH + 10)}
    call = CallEntry(
        transaction_id="h-1",
        seq=1,
        tool="update_ticket",
        arguments=arguments,
        write=True,
        outcome="error",
        error_class=None,
        error_message=HOSTILE,
        retries=0,
        latency_ms=1.0,
        started_at=NOW,
    )
    attempt = CommitEntry(
        transaction_id="h-1",
        attempt=1,
        via="tool",
        decision=Decision.BLOCK,
        status=CommitStatus.ROLLED_BACK,
        findings=[{"judge": "j", "severity": "block", "message": HOSTILE, "evidence": {"x": math.nan}}],
        effects=[{"table": "t", "kind": "update", "key": 1, "after": {"note": HOSTILE}}],
        summary=HOSTILE,
        at=NOW,
    )
    try:
        await audit.open_transaction(record)
        await audit.record_call(call)
        ended = TxnRecord(
            id="h-1",
            principal="agent",
            instance="guard-1",
            backend="sql",
            status=Status.ROLLED_BACK,
            opened_at=NOW,
            updated_at=NOW,
            closed_at=NOW,
            close_reason=HOSTILE,
            summary=HOSTILE,
        )
        await audit.record_commit(attempt, ended)
        detail = await audit.get_transaction("h-1")
    finally:
        await audit.close()
    assert detail is not None
    assert detail.transaction.status is Status.ROLLED_BACK
    assert detail.transaction.close_reason == storable_text(HOSTILE)
    (logged,) = detail.calls
    assert logged.arguments["note"].startswith("a\x00b \ufffd"), "NUL kept in JSON, lone surrogate replaced"
    assert (logged.arguments["amount"], logged.arguments["limit"]) == ("NaN", "Infinity")
    assert nesting(logged.arguments, 1000) == MAX_DEPTH
    (committed,) = detail.commits
    assert committed.summary == storable_text(HOSTILE)
    assert committed.findings[0]["evidence"] == {"x": "NaN"}
    json.dumps(detail.to_dict(), allow_nan=False).encode()  # every reader can serialise what it reads
