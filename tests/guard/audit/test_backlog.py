"""The audit backlog (:mod:`guard.audit.backlog`): one transaction's write that cannot land holds back only
that transaction's later writes; a write the store refuses for what it holds is quarantined (its stand-in is
written); a store that is down stops the round (Requirement G16)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from guard.audit.backlog import AuditBacklog
from guard.errors import RecordRefused


class FakeStore:
    """Writes land in ``landed`` unless ``down``, or the write's text is in ``refused``."""

    def __init__(self) -> None:
        self.landed: list[str] = []
        self.tried: list[str] = []
        self.down = False
        self.refused: set[str] = set()

    def write(self, text: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            self.tried.append(text)
            if self.down:
                raise ConnectionError("the store is down")
            if text in self.refused:
                raise RecordRefused(
                    f"the audit store refused the record: DataError: NUL in {text}",
                    reason="DataError",
                    record=text,
                )
            self.landed.append(text)

        return run

    def fallback(self, text: str) -> Callable[[str], Awaitable[None]]:
        async def run(reason: str) -> None:
            await self.write(f"{text} (without its text: {reason})")()

        return run


async def test_a_refused_write_is_quarantined_and_holds_back_nothing() -> None:
    """Requirement G16: the stand-in (same outcome, text left out, why said) lands at once; nothing waits."""
    store, backlog = FakeStore(), AuditBacklog()
    store.refused.add("end of t-1")
    done: list[str] = []
    assert await backlog.write(
        "end of t-1",
        store.write("end of t-1"),
        key="t-1",
        fallback=store.fallback("end of t-1"),
        done=lambda: done.append("t-1"),
    )
    assert await backlog.write("end of t-2", store.write("end of t-2"), key="t-2")
    assert store.landed == [
        "end of t-1 (without its text: DataError)",
        "end of t-2",
    ]
    assert len(backlog) == 0
    assert done == ["t-1"], "a quarantined write is done: its transaction's mark can go"


async def test_a_write_that_cannot_land_holds_back_only_its_own_transaction() -> None:
    """Requirement G16: no stand-in (or a refused one): that transaction's later writes wait behind it in
    order; every other transaction's writes land, now and on every retry."""
    store, backlog = FakeStore(), AuditBacklog()
    store.refused.add("t-1 attempt 1")
    assert not await backlog.write("t-1 attempt 1", store.write("t-1 attempt 1"), key="t-1")
    assert not await backlog.write("t-1 end", store.write("t-1 end"), key="t-1")
    assert await backlog.write("t-2 end", store.write("t-2 end"), key="t-2")
    assert await backlog.retry() == 2
    assert store.landed == ["t-2 end"]
    assert "t-1 end" not in store.tried, "a transaction's writes land in order, never past a stuck one"
    store.refused.clear()
    assert await backlog.retry() == 0
    assert store.landed == ["t-2 end", "t-1 attempt 1", "t-1 end"]


async def test_a_store_that_is_down_stops_the_round_and_everything_lands_in_order_after() -> None:
    """Requirement G16: a failure that is not a refusal stops the round (every other write would wait just
    the same); once the store is back each transaction's writes land in the order they were made."""
    store, backlog = FakeStore(), AuditBacklog()
    store.down = True
    for write in ("t-1 a", "t-2 a", "t-1 b"):
        assert not await backlog.write(write, store.write(write), key=write.split()[0])
    store.tried.clear()
    assert await backlog.retry() == 3
    assert store.tried == ["t-1 a"], "one failed try, not one per waiting write"
    store.down = False
    assert await backlog.retry() == 0
    assert store.landed == ["t-1 a", "t-2 a", "t-1 b"]


@pytest.mark.parametrize("refuses_the_stand_in", [True, False])
async def test_a_stand_in_that_fails_too_keeps_the_write_waiting(refuses_the_stand_in: bool) -> None:
    """Requirement G16: nothing is dropped: a stand-in the store refuses (or cannot take) leaves the
    original waiting for the next retry."""
    store, backlog = FakeStore(), AuditBacklog()
    store.refused.add("t-1 end")
    stand_in = "t-1 end (without its text: DataError)"

    async def failing(reason: str) -> None:
        if refuses_the_stand_in:
            store.refused.add(stand_in)
        else:
            store.down = True
        await store.fallback("t-1 end")(reason)

    assert not await backlog.write("t-1 end", store.write("t-1 end"), key="t-1", fallback=failing)
    assert len(backlog) == 1
    store.refused.clear()
    store.down = False
    assert await backlog.retry() == 0
    assert store.landed == ["t-1 end"]
