"""Reading the pending state in rounds: follow-up queries, null keys, and the round limit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import count

import pytest

from judges import (
    MAX_ROUNDS,
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Finding,
    FollowUp,
    JudgeChain,
    MemoryState,
    Query,
    Severity,
    StateSnapshot,
    Verdict,
    gather,
    gather_memory,
)

ROW = {"id": "T1", "requester_id": 7}
TICKET = Effect("tickets", ("T1",), EffectKind.UPDATE, ROW, ROW, ())
OFFICE = MemoryState(
    {
        "users": [{"id": 7, "email": "ann@x.com"}, {"id": 8, "email": None}],
        "employees": [
            {"id": "E1", "email": "ann@x.com", "manager_id": "E2", "on_leave": False},
            {"id": "E2", "email": "bob@x.com", "manager_id": None, "on_leave": True},
        ],
    }
)


@dataclass
class ManagerOnLeave:
    """Ticket → its requester (users) → the employee with that email → their manager: three rounds."""

    name: str = "manager"
    follow_ups: list[int] = field(default_factory=list)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return [Query.of("users", 1, id=e.row["requester_id"]) for e in effects]

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        self.follow_ups.append(len(state.answers))
        wanted: list[Query] = []
        for effect in effects:
            user = state.rows(Query.of("users", 1, id=effect.row["requester_id"]))
            employee_query = Query.of("employees", 1, email=user[0]["email"] if user else None)
            wanted.append(employee_query)
            employee = state.answers.get(employee_query)
            if employee:
                wanted.append(Query.of("employees", 1, id=employee[0]["manager_id"]))
        return wanted

    def __call__(self, context: CommitContext) -> Verdict:
        findings = []
        for query in self.follow_up(context.effects, context.state):
            for row in context.state.rows(query):
                if row["on_leave"]:
                    findings.append(Finding(self.name, Severity.BLOCK, f"manager {row['id']} is on leave"))
        return Verdict.of(findings)


@dataclass
class OneShot:
    """A judge with no follow-up: asked once."""

    name: str = "one-shot"
    asked: int = 0

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        self.asked += 1
        return [Query.of("users", None, id=7)]

    def __call__(self, context: CommitContext) -> Verdict:
        context.state.rows(Query.of("users", None, id=7))
        return Verdict.allow()


class Endless:
    """A buggy judge: every round it names a row it has not seen yet."""

    name = "endless"

    def __init__(self) -> None:
        self._ids = count()

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return [Query.of("users", None, id=next(self._ids))]

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        return self.queries(effects)

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.allow()


class BrokenFollowUp(OneShot):
    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        raise LookupError("no email column")


class RecordingReader:
    def __init__(self, state: MemoryState) -> None:
        self.state = state
        self.fetches: list[list[Query]] = []

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        self.fetches.append(list(queries))
        return await self.state.fetch(queries)


def test_a_judge_with_follow_up_is_a_follow_up_judge_and_plain_judges_are_not() -> None:
    assert isinstance(ManagerOnLeave(), FollowUp)
    assert not isinstance(OneShot(), FollowUp)


async def test_each_round_fetches_the_follow_ups_of_the_rows_before_it() -> None:
    reader = RecordingReader(OFFICE)
    judge, plain = ManagerOnLeave(), OneShot()
    gathered = await gather([judge, plain], [TICKET], reader.fetch)
    assert reader.fetches == [
        [Query.of("users", 1, id=7), Query.of("users", None, id=7)],
        [Query.of("employees", 1, email="ann@x.com")],
        [Query.of("employees", 1, id="E2")],
    ]
    assert (gathered.rounds, gathered.fetched, gathered.failures) == (3, 4, {})
    assert judge.follow_ups == [2, 3, 4]
    assert plain.asked == 1
    assert gathered.snapshot.rows(Query.of("employees", 1, id="E2"))[0]["on_leave"] is True


def test_memory_rounds_answer_the_same() -> None:
    gathered = gather_memory([ManagerOnLeave()], [TICKET], OFFICE)
    assert gathered.rounds == 3
    assert len(gathered.snapshot.answers) == 3


async def test_a_null_key_is_answered_empty_without_the_reader() -> None:
    """Requester 8 has no email: the employee query has a null key and is never sent."""
    reader = RecordingReader(OFFICE)
    effect = Effect("tickets", ("T2",), EffectKind.INSERT, None, {"id": "T2", "requester_id": 8}, ())
    gathered = await gather([ManagerOnLeave()], [effect], reader.fetch)
    assert reader.fetches == [[Query.of("users", 1, id=8)]]
    assert gathered.snapshot.rows(Query.of("employees", 1, email=None)) == ()
    assert (gathered.rounds, gathered.skipped) == (1, 1)


async def test_no_queries_means_no_fetch() -> None:
    reader = RecordingReader(OFFICE)
    gathered = await gather([], [TICKET], reader.fetch)
    assert reader.fetches == []
    assert gathered.snapshot.answers == {}


async def test_a_judge_still_naming_rows_after_the_last_round_fails_and_the_others_are_read() -> None:
    reader = RecordingReader(MemoryState({"users": []}))
    gathered = await gather([Endless(), ManagerOnLeave()], [TICKET], reader.fetch)
    assert len(reader.fetches) == MAX_ROUNDS
    assert gathered.failures == {"endless": f"it still named rows to read after {MAX_ROUNDS} rounds"}
    assert Query.of("employees", 1, email=None) in gathered.snapshot.answers


def test_a_follow_up_that_raises_fails_its_judge_only() -> None:
    gathered = gather_memory([BrokenFollowUp(), ManagerOnLeave()], [TICKET], OFFICE)
    assert gathered.failures == {"one-shot": "LookupError: no email column"}
    assert Query.of("employees", 1, id="E2") in gathered.snapshot.answers


async def test_a_chain_runs_the_rounds_and_blocks_for_a_judge_past_the_limit() -> None:
    chain = JudgeChain([ManagerOnLeave(), Endless()])
    assert chain.follow_up([TICKET], StateSnapshot({Query.of("users", 1, id=7): ({"email": "a"},)})) == [
        Query.of("employees", 1, email="a"),
        Query.of("users", None, id=0),
    ]
    verdict = await chain.run(RecordingReader(OFFICE), [TICKET], transaction_id="t")
    assert verdict.decision is Decision.BLOCK
    assert [f.message for f in verdict.findings] == [
        "manager E2 is on leave",
        f"judge endless failed: it still named rows to read after {MAX_ROUNDS} rounds",
    ]


@pytest.mark.parametrize("rounds", [1, 2])
def test_the_round_limit_is_a_parameter(rounds: int) -> None:
    gathered = gather_memory([ManagerOnLeave()], [TICKET], OFFICE, max_rounds=rounds)
    assert gathered.rounds == rounds
    assert gathered.failures == {"manager": f"it still named rows to read after {rounds} rounds"}


@dataclass
class Reads:
    """A judge that reads the rows it is given, in one round."""

    name: str
    wanted: tuple[Query, ...]

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return self.wanted

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.allow()


GONE = Query.of("nowhere", None, id=1)
"""A row of a table the reader does not have: its fetch fails."""


async def test_a_failed_fetch_fails_the_judges_whose_rows_it_carried_and_the_rounds_go_on() -> None:
    """Requirement G5: the judges whose rows a failed fetch carried fail, each in its words; a judge that
    named no rows that round is judged, and a follow-up judge's later rounds are still read."""
    reader = RecordingReader(OFFICE)
    judges = [Reads("bad", (GONE,)), Reads("beside", (Query.of("users", None, id=7),)), ManagerOnLeave()]
    gathered = await gather(judges, [TICKET], reader.fetch)
    problem = "could not read the pending state: KeyError: \"unknown table 'nowhere'\""
    assert gathered.failures == {"bad": problem, "beside": problem, "manager": problem}
    assert len(reader.fetches) == 1
    assert gathered.rounds == 1


async def test_the_rows_of_judges_set_apart_are_read_apart_when_a_fetch_fails() -> None:
    """Requirement G5: a failed fetch is read again in two parts, the other judges' rows (a row both
    want included) and then the rows of the judges set apart (those that cannot stop the commit), so
    that a shadowed judge's bad lookup fails that judge alone; the rounds go on for the others."""
    reader = RecordingReader(OFFICE)
    shared = Query.of("users", None, id=7)
    judges = [Reads("trial", (GONE, shared)), ManagerOnLeave(), Reads("kept", (shared,))]
    gathered = await gather(judges, [TICKET], reader.fetch, apart={"trial"})
    assert reader.fetches[:3] == [
        [GONE, shared, Query.of("users", 1, id=7)],
        [shared, Query.of("users", 1, id=7)],
        [GONE],
    ]
    assert gathered.failures == {
        "trial": "could not read the pending state: KeyError: \"unknown table 'nowhere'\""
    }
    assert gathered.snapshot.rows(Query.of("employees", 1, id="E2"))[0]["on_leave"] is True
    assert (gathered.rounds, len(reader.fetches)) == (5, 5)


def test_memory_rounds_fail_the_same_way() -> None:
    """Requirement G5."""
    gathered = gather_memory([Reads("trial", (GONE,)), Reads("kept", ())], [TICKET], OFFICE, apart={"trial"})
    assert list(gathered.failures) == ["trial"]
