"""Reading the pending state in rounds: the queries judges name, then the follow-ups they name after.

Round one fetches what every judge names with ``queries(effects)``. A judge
that needs rows whose keys it only learns from other rows (a ticket's
requester, then the employee with that email) also has ``follow_up(effects,
snapshot)`` (:class:`~judges.verdict.FollowUp`): after each round it gets
everything fetched so far and names the queries it needs next. Each round's
new queries are fetched together, once; reading stops when no judge names a
query that is not fetched yet. A judge that still does after
:data:`MAX_ROUNDS` rounds has a bug: it fails (blocks), the others are judged.
A judge whose ``queries`` or ``follow_up`` raises fails the same way.

A query with a None ``where`` value is answered with no rows without asking
the reader (:attr:`~judges.state.Query.null_key`).

A fetch that fails (the reader raised, or timed out) fails the judges whose
rows it carried, each in its own words (``could not read the pending state:
<problem>``); the others are judged, and the rounds go on for them. Judges
named ``apart`` (the chain's judges that cannot stop the commit) then have
their rows read again apart from the others': one fetch for the rest, one
for them, so that a shadowed judge's bad lookup never fails a judge that
could block, and no more than two extra fetches a failed round.

:func:`read_rounds` is the protocol as a generator (sans I/O): it yields the
queries of a round and is sent their snapshot, or has the fetch's exception
thrown in. :func:`gather` drives it against an async fetch (the gate,
:meth:`~judges.chain.JudgeChain.run`) and :func:`gather_memory` against a
:class:`~judges.state.MemoryState` (tests).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Protocol, cast

from judges.effects import Effect
from judges.state import MemoryState, Query, Row, StateSnapshot
from judges.verdict import FollowUp

__all__ = ["MAX_ROUNDS", "Gathered", "Naming", "gather", "gather_memory", "read_rounds"]

logger = logging.getLogger(__name__)

MAX_ROUNDS = 4
"""Fetch rounds a commit may take; a judge still naming new rows after that many fails."""


@dataclass(frozen=True, slots=True)
class Gathered:
    """The state the judges asked for, and the judges that could not say what they need.

    ``failures`` maps a judge's name to the problem (one line); such a judge
    must not be run, it fails. ``rounds`` counts the fetches from the reader
    (a failed one and those retried apart included), ``fetched`` the queries
    sent to it, ``skipped`` the null-key queries answered without it.
    """

    snapshot: StateSnapshot
    failures: Mapping[str, str] = field(default_factory=dict)
    rounds: int = 0
    fetched: int = 0
    skipped: int = 0


RoundReader = Generator[list[Query], StateSnapshot, Gathered]


class Naming(Protocol):
    """What the rounds read of a judge (every :class:`~judges.verdict.Judge` and ``AsyncJudge`` has it)."""

    @property
    def name(self) -> str: ...

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]: ...


def read_rounds(
    judges: Sequence[Naming],
    effects: Sequence[Effect],
    *,
    max_rounds: int = MAX_ROUNDS,
    apart: AbstractSet[str] = frozenset(),
) -> RoundReader:
    """Yield each round's queries (never an empty list); send back their snapshot; return what was gathered.

    Throw in the exception of a fetch that failed instead: the judges whose
    rows it carried fail, after the rows of the judges named ``apart`` are
    read apart from the others' (when the fetch carried both kinds). A round
    whose new queries all have null keys needs no fetch, but counts towards
    ``max_rounds`` like any other.
    """
    answers: dict[Query, tuple[Row, ...]] = {}
    failures: dict[str, str] = {}
    steps = rounds = fetched = skipped = 0
    wanted = _named(judges, failures, lambda judge: judge.queries(effects))
    followers = [judge for judge in judges if _follows(judge)]
    while True:
        new = list(dict.fromkeys(query for queries in wanted.values() for query in queries))
        if answers:
            new = [query for query in new if query not in answers]
        if not new:
            break
        if steps == max_rounds:
            for name, queries in wanted.items():
                if any(query not in answers for query in queries):
                    failures[name] = f"it still named rows to read after {max_rounds} rounds"
            break
        steps += 1
        asked = []
        for query in new:
            if query.null_key:
                answers[query] = ()
                skipped += 1
            else:
                asked.append(query)
        if asked:
            try:
                snapshot = yield asked
            except Exception as exc:
                logger.error("reading the pending state for the judges failed: %s", _problem(exc))
                read = yield from _apart(asked, wanted, apart, failures, _problem(exc))
            else:
                read = _Read(snapshot.answers, 1, len(asked))
            rounds += read.rounds
            fetched += read.fetched
            # A query the reader left out stays unanswered: the judge reading it fails closed.
            answers.update(read.answers)
        following = [judge for judge in followers if judge.name not in failures]
        wanted = _named(following, failures, _follow_up(effects, StateSnapshot(dict(answers))))
    return Gathered(StateSnapshot(answers), failures, rounds, fetched, skipped)


@dataclass(frozen=True, slots=True)
class _Read:
    """What one round's fetches answered, how many fetches and queries they took."""

    answers: Mapping[Query, tuple[Row, ...]]
    rounds: int
    fetched: int


def _apart(
    asked: list[Query],
    wanted: Mapping[str, list[Query]],
    apart: AbstractSet[str],
    failures: dict[str, str],
    problem: str,
) -> Generator[list[Query], StateSnapshot, _Read]:
    """After the fetch of ``asked`` failed with ``problem``: read the rest's rows, then ``apart``'s rows.

    Only when the fetch carried rows of both; a row both want goes with the
    rest. Each judge with a row of ``asked`` left unread fails with the
    problem of the fetch that carried it.
    """
    mine = {query for name, queries in wanted.items() if name not in apart for query in queries}
    parts = [[query for query in asked if query in mine], [query for query in asked if query not in mine]]
    answers: dict[Query, tuple[Row, ...]] = {}
    unread = dict.fromkeys(asked, problem)
    rounds, fetched = 1, len(asked)
    if all(parts):
        for part in parts:
            rounds, fetched = rounds + 1, fetched + len(part)
            try:
                snapshot = yield part
            except Exception as exc:
                logger.error("reading the pending state for the judges failed again: %s", _problem(exc))
                unread.update(dict.fromkeys(part, _problem(exc)))
            else:
                answers.update(snapshot.answers)
    for name, queries in wanted.items():
        missing = next((query for query in queries if query in unread and query not in answers), None)
        if missing is not None and name not in failures:
            failures[name] = f"could not read the pending state: {unread[missing]}"
    return _Read(answers, rounds, fetched)


def _problem(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _follows(judge: object) -> bool:
    # a duck-typed check: isinstance against the runtime-checkable protocol costs tens of µs a judge
    return callable(getattr(judge, "follow_up", None))


def _follow_up(effects: Sequence[Effect], known: StateSnapshot) -> Callable[[Naming], Sequence[Query]]:
    return lambda judge: cast(FollowUp, judge).follow_up(effects, known)


def _named(
    judges: Sequence[Naming], failures: dict[str, str], ask: Callable[[Naming], Sequence[Query]]
) -> dict[str, list[Query]]:
    wanted: dict[str, list[Query]] = {}
    for judge in judges:
        try:
            wanted[judge.name] = list(ask(judge))
        except Exception as exc:
            logger.exception("judge %s failed to name its queries", judge.name)
            failures[judge.name] = f"{type(exc).__name__}: {exc}"
    return wanted


async def gather(
    judges: Sequence[Naming],
    effects: Sequence[Effect],
    fetch: Callable[[Sequence[Query]], Awaitable[StateSnapshot]],
    *,
    max_rounds: int = MAX_ROUNDS,
    apart: AbstractSet[str] = frozenset(),
) -> Gathered:
    """Read the judges' rows round by round with ``fetch`` (a reader's ``fetch``).

    A fetch's error fails the judges whose rows it carried (:func:`read_rounds`);
    a cancellation propagates.
    """
    rounds = read_rounds(judges, effects, max_rounds=max_rounds, apart=apart)
    try:
        queries = next(rounds)
        while True:
            try:
                snapshot = await fetch(queries)
            except Exception as exc:
                queries = rounds.throw(exc)
            else:
                queries = rounds.send(snapshot)
    except StopIteration as done:
        gathered: Gathered = done.value
        return gathered


def gather_memory(
    judges: Sequence[Naming],
    effects: Sequence[Effect],
    state: MemoryState,
    *,
    max_rounds: int = MAX_ROUNDS,
    apart: AbstractSet[str] = frozenset(),
) -> Gathered:
    """The same rounds answered synchronously from rows in memory (a table it lacks fails its readers)."""
    rounds = read_rounds(judges, effects, max_rounds=max_rounds, apart=apart)
    try:
        queries = next(rounds)
        while True:
            try:
                snapshot = state.snapshot(queries)
            except Exception as exc:
                queries = rounds.throw(exc)
            else:
                queries = rounds.send(snapshot)
    except StopIteration as done:
        gathered: Gathered = done.value
        return gathered
