"""The judge chain: an ordered list of judges run as one, failing closed.

The chain gathers every judge's queries (deduplicated, in order), lets the
caller fetch them once, and combines the verdicts: the strongest decision
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
from typing import Protocol, runtime_checkable

from judges.effects import Effect
from judges.state import Query, StateReader
from judges.verdict import CallRecord, CommitContext, Finding, Judge, Severity, Verdict, combine

__all__ = ["AsyncJudge", "JudgeChain", "judge_failure"]

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


def _is_async(judge: Judge | AsyncJudge) -> bool:
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

    def __call__(self, context: CommitContext) -> Verdict:
        """Run the synchronous judges; an async judge here blocks (use :meth:`evaluate`)."""
        verdicts: list[Verdict] = []
        for judge in self.judges:
            if _is_async(judge):
                verdicts.append(judge_failure(judge.name, "it needs the async path (JudgeChain.evaluate)"))
                continue
            verdicts.append(self._run_sync(judge, context))  # type: ignore[arg-type]
        return combine(verdicts)

    async def evaluate(self, context: CommitContext) -> Verdict:
        """Run every judge, awaiting the async ones, in chain order."""
        verdicts: list[Verdict] = []
        for judge in self.judges:
            if _is_async(judge):
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
    ) -> Verdict:
        """The commit gate in one call: gather queries, fetch them once, evaluate the chain."""
        effects = tuple(effects)
        snapshot = await reader.fetch(self.queries(effects))
        context = CommitContext(transaction_id, effects, tuple(calls), summary, snapshot)
        return await self.evaluate(context)

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
