"""The judge chain: an ordered list of judges run as one, failing closed — the one judge runner.

The chain gathers every judge's queries (deduplicated, in order), lets the
caller fetch them once (and, for judges that follow up, in further rounds:
:mod:`judges.rounds`), runs the judges in order and combines their verdicts:
the strongest decision wins (``block`` > ``escalate`` > ``allow``) and
findings keep chain order. Judge names are unique in a chain.

Fail closed, in the judge's place in the chain and in these words:

* its rows could not be gathered (``queries`` or ``follow_up`` raised, it
  still named new rows after the last round, or the reader failed on its
  rows): ``judge X failed: <problem>``;
* it raised: ``judge X failed: <ExceptionType>: <message>`` (a judge that needs
  the commit time and got none raises :class:`CommitTimeUnknown` here);
* it returned something else than a :class:`Verdict`: ``judge X returned <type>, not a Verdict``;
* its :class:`Execution` did not run it to an answer (:class:`JudgeRefused`):
  the refusal's own text and evidence.

*How* a judge runs is an :class:`Execution`: :data:`INLINE` calls a
synchronous judge (:class:`~judges.verdict.Judge`) and awaits an async one
(:class:`AsyncJudge`, one that waits on a model) in the caller's task; the
commit gate's execution (:mod:`guard.gate`) puts synchronous judges on a
thread pool and both kinds under a timeout. :meth:`JudgeChain.__call__`, the
chain as a synchronous judge, always runs inline and refuses async judges.

The commit time is :attr:`CommitContext.now <judges.verdict.CommitContext.now>`,
the caller's clock (the guard's; the frozen scenario clock in the benchmark).
Judges read it with :func:`commit_time`, never the wall clock.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Coroutine, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from typing_extensions import TypeIs

from judges.effects import Effect
from judges.errors import JudgeRefused
from judges.rounds import gather
from judges.state import Query, StateReader, StateSnapshot
from judges.verdict import CallRecord, CommitContext, Finding, FollowUp, Judge, Severity, Verdict, combine

__all__ = [
    "INLINE",
    "AsyncJudge",
    "Execution",
    "Inline",
    "JudgeChain",
    "is_async",
    "judge_failure",
]

logger = logging.getLogger(__name__)


@runtime_checkable
class AsyncJudge(Protocol):
    """A judge that awaits something (a model) before it can decide."""

    @property
    def name(self) -> str: ...

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]: ...

    async def evaluate(self, context: CommitContext) -> Verdict: ...


def is_async(judge: Judge | AsyncJudge) -> TypeIs[AsyncJudge]:
    """Whether ``judge`` is awaited (an :class:`AsyncJudge` with a coroutine ``evaluate``)."""
    return inspect.iscoroutinefunction(getattr(judge, "evaluate", None))


class Execution(Protocol):
    """How the chain runs one judge: return what the judge returned, raise what it raised.

    Raise :class:`JudgeRefused` for a judge that was not run to an answer.
    """

    async def run_sync(self, judge: Judge, context: CommitContext) -> object: ...

    async def run_async(self, judge: AsyncJudge, context: CommitContext) -> object: ...


class Inline:
    """Call a synchronous judge, await an async one, in the caller's task: no thread, no timeout."""

    async def run_sync(self, judge: Judge, context: CommitContext) -> object:
        return judge(context)

    async def run_async(self, judge: AsyncJudge, context: CommitContext) -> object:
        return await judge.evaluate(context)


INLINE = Inline()
"""The default :class:`Execution`."""


class _SyncOnly(Inline):
    """Inline, refusing async judges: never suspends, so a synchronous caller can drive it."""

    async def run_async(self, judge: AsyncJudge, context: CommitContext) -> object:
        raise JudgeRefused(f"judge {judge.name} was not run: it needs the async path (JudgeChain.evaluate)")


_SYNC_ONLY = _SyncOnly()


def judge_failure(name: str, problem: str) -> Verdict:
    """The blocking verdict for judge ``name`` that failed with ``problem`` (one line)."""
    return _blocked(name, f"judge {name} failed: {problem}")


def _blocked(name: str, message: str, evidence: Mapping[str, Any] | None = None) -> Verdict:
    return Verdict.of([Finding(name, Severity.BLOCK, message, evidence=evidence or {})])


class JudgeChain:
    """Judges in order, run as one judge named ``name``, each by ``execution``."""

    def __init__(
        self, judges: Sequence[Judge | AsyncJudge], name: str = "chain", *, execution: Execution = INLINE
    ) -> None:
        names = [judge.name for judge in judges]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"judge names must be unique; repeated: {', '.join(duplicates)}")
        self.name = name
        self.judges: tuple[Judge | AsyncJudge, ...] = tuple(judges)
        self.execution = execution

    def __repr__(self) -> str:
        return f"JudgeChain({[judge.name for judge in self.judges]!r})"

    def queries(self, effects: Sequence[Effect]) -> list[Query]:
        seen: dict[Query, None] = {}
        for judge in self.judges:
            try:
                wanted = judge.queries(effects)
            except Exception:
                logger.exception("judge %s failed to name its queries", judge.name)
                continue
            for query in wanted:
                seen.setdefault(query, None)
        return list(seen)

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> list[Query]:
        """The follow-up queries of the judges that have them (a chain is itself a :class:`FollowUp`)."""
        seen: dict[Query, None] = {}
        for judge in self.judges:
            if not isinstance(judge, FollowUp):
                continue
            try:
                wanted = judge.follow_up(effects, state)
            except Exception:
                logger.exception("judge %s failed to name its follow-up queries", judge.name)
                continue
            for query in wanted:
                seen.setdefault(query, None)
        return list(seen)

    def __call__(self, context: CommitContext) -> Verdict:
        """Run the judges inline over ``context``; an async judge here blocks (use :meth:`evaluate`)."""
        return _completed(self._judge(context, self._unnamed(context.effects), _SYNC_ONLY))

    async def evaluate(self, context: CommitContext) -> Verdict:
        """Run every judge over ``context`` (whose rows the caller fetched) by the chain's execution."""
        return await self._judge(context, self._unnamed(context.effects), self.execution)

    async def run(
        self,
        reader: StateReader,
        effects: Sequence[Effect],
        *,
        transaction_id: str,
        calls: Sequence[CallRecord] = (),
        summary: str = "",
        now: datetime | None = None,
    ) -> Verdict:
        """The commit gate in one call: read the judges' rows in rounds, run the judges.

        ``now`` is the commit time the judges see. A read that fails fails the
        judges whose rows it carried (:mod:`judges.rounds`).
        """
        effects = tuple(effects)
        gathered = await gather(self.judges, effects, reader.fetch)
        context = CommitContext(transaction_id, effects, tuple(calls), summary, gathered.snapshot, now)
        return await self._judge(context, gathered.failures, self.execution)

    def _unnamed(self, effects: Sequence[Effect]) -> dict[str, str]:
        """The judges whose ``queries`` raise on ``effects`` (rows not gathered by this chain), and why."""
        failures: dict[str, str] = {}
        for judge in self.judges:
            try:
                judge.queries(effects)
            except Exception as exc:
                logger.exception("judge %s failed to name its queries", judge.name)
                failures[judge.name] = f"{type(exc).__name__}: {exc}"
        return failures

    async def _judge(
        self, context: CommitContext, failures: Mapping[str, str], execution: Execution
    ) -> Verdict:
        verdicts: list[Verdict] = []
        for judge in self.judges:
            problem = failures.get(judge.name)
            if problem is None:
                verdicts.append(await _verdict(judge, context, execution))
            else:
                verdicts.append(judge_failure(judge.name, problem))
        return combine(verdicts)


async def _verdict(judge: Judge | AsyncJudge, context: CommitContext, execution: Execution) -> Verdict:
    """``judge``'s verdict on ``context`` run by ``execution``, or the blocking verdict that it failed."""
    try:
        if is_async(judge):
            answer = await execution.run_async(judge, context)
        else:
            answer = await execution.run_sync(judge, context)
    except JudgeRefused as refused:
        return _blocked(judge.name, refused.message, refused.evidence)
    except Exception as exc:
        logger.exception("judge %s failed", judge.name)
        return judge_failure(judge.name, f"{type(exc).__name__}: {exc}")
    if not isinstance(answer, Verdict):
        return _blocked(judge.name, f"judge {judge.name} returned {type(answer).__name__}, not a Verdict")
    return answer


def _completed(run: Coroutine[Any, Any, Verdict]) -> Verdict:
    """The verdict of a run that never suspends (inline, synchronous judges only), driven without a loop."""
    try:
        run.send(None)
    except StopIteration as done:
        verdict: Verdict = done.value
        return verdict
    run.close()
    raise RuntimeError("a synchronous judge chain suspended")
