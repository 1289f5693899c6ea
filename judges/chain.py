"""The judge chain: an ordered list of judges run as one, failing closed.

The chain gathers every judge's queries (deduplicated, in order), lets the
caller fetch them once (and, for judges that follow up, in further rounds:
:mod:`judges.rounds`), and combines the verdicts: the strongest decision
wins (``block`` > ``escalate`` > ``allow``) and findings keep chain order. A
judge that raises, returns something that is not a :class:`Verdict`, or
cannot name its queries yields a blocking finding that names it.

Judges are synchronous and pure (:class:`~judges.verdict.Judge`). A judge
that must wait on a model (the rubric judge) is an :class:`AsyncJudge`; the
chain runs those only on its async path, :meth:`JudgeChain.evaluate`.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from judges.effects import Effect
from judges.rounds import gather
from judges.state import Query, StateReader, StateSnapshot
from judges.verdict import CallRecord, CommitContext, Finding, FollowUp, Judge, Severity, Verdict, combine

__all__ = ["AsyncJudge", "JudgeChain", "is_async", "judge_failure"]

logger = logging.getLogger(__name__)


@runtime_checkable
class AsyncJudge(Protocol):
    """A judge that awaits something (a model) before it can decide."""

    @property
    def name(self) -> str: ...

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]: ...

    async def evaluate(self, context: CommitContext) -> Verdict: ...


def judge_failure(name: str, problem: str) -> Verdict:
    """The blocking verdict for a judge that could not decide."""
    finding = Finding(
        name, Severity.BLOCK, f"judge {name} could not decide: {problem}", evidence={"error": problem}
    )
    return Verdict.of([finding])


def is_async(judge: Judge | AsyncJudge) -> bool:
    """Whether ``judge`` is awaited (an :class:`AsyncJudge` with a coroutine ``evaluate``)."""
    return inspect.iscoroutinefunction(getattr(judge, "evaluate", None))


class JudgeChain:
    """Judges in order, run as one judge named ``name``."""

    def __init__(self, judges: Sequence[Judge | AsyncJudge], name: str = "chain") -> None:
        names = [judge.name for judge in judges]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"judge names must be unique in a chain; repeated: {', '.join(duplicates)}")
        self.name = name
        self.judges: tuple[Judge | AsyncJudge, ...] = tuple(judges)

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
        """Run the synchronous judges; an async judge here blocks (use :meth:`evaluate`)."""
        verdicts: list[Verdict] = []
        for judge in self.judges:
            if is_async(judge):
                verdicts.append(judge_failure(judge.name, "it needs the async path (JudgeChain.evaluate)"))
                continue
            verdicts.append(self._run_sync(judge, context))  # type: ignore[arg-type]
        return combine(verdicts)

    async def evaluate(self, context: CommitContext) -> Verdict:
        """Run every judge, awaiting the async ones, in chain order."""
        verdicts: list[Verdict] = []
        for judge in self.judges:
            if is_async(judge):
                verdicts.append(await self._run_async(judge, context))  # type: ignore[arg-type]
            else:
                verdicts.append(self._run_sync(judge, context))  # type: ignore[arg-type]
        return combine(verdicts)

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
        """The commit gate in one call: read the judges' rows in rounds, evaluate the chain.

        A judge that could not name its rows (it raised, or still named new
        ones after the last round) blocks in its place in the chain.
        """
        effects = tuple(effects)
        gathered = await gather(self.judges, effects, reader.fetch)
        context = CommitContext(transaction_id, effects, tuple(calls), summary, gathered.snapshot, now)
        verdicts: list[Verdict] = []
        for judge in self.judges:
            problem = gathered.failures.get(judge.name)
            if problem is not None:
                verdicts.append(judge_failure(judge.name, problem))
            elif is_async(judge):
                verdicts.append(await self._run_async(judge, context))  # type: ignore[arg-type]
            else:
                verdicts.append(self._run_sync(judge, context))  # type: ignore[arg-type]
        return combine(verdicts)

    def _run_sync(self, judge: Judge, context: CommitContext) -> Verdict:
        try:
            judge.queries(context.effects)
            verdict = judge(context)
        except Exception as exc:
            logger.exception("judge %s failed", judge.name)
            return judge_failure(judge.name, f"{type(exc).__name__}: {exc}")
        return _checked(judge.name, verdict)

    async def _run_async(self, judge: AsyncJudge, context: CommitContext) -> Verdict:
        try:
            judge.queries(context.effects)
            verdict = await judge.evaluate(context)
        except Exception as exc:
            logger.exception("judge %s failed", judge.name)
            return judge_failure(judge.name, f"{type(exc).__name__}: {exc}")
        return _checked(judge.name, verdict)


def _checked(name: str, verdict: object) -> Verdict:
    if not isinstance(verdict, Verdict):
        return judge_failure(name, f"it returned a {type(verdict).__name__}, not a Verdict")
    return verdict
