"""The commit gate: the ordered judge chain over the end state a transaction would leave.

The gate asks every judge which rows it needs, fetches them once from the
pending state (then, for judges that name follow-up rows from what was
fetched, in a few more rounds: :mod:`judges.rounds`), and runs the judges in
order over that snapshot and the commit time. The strongest decision wins.
Fail closed: a judge that raises, that is slower than its timeout, whose rows
cannot be read, or that keeps naming new rows past the last round, blocks the
commit with a finding that says so.
Judges are pure and synchronous and run on a worker thread of a
:class:`~guard.judge_pool.JudgePool`, so that a runaway judge times out
instead of stalling the server; a judge that must await a model
(:class:`judges.AsyncJudge`, e.g. the rubric judge) is awaited under the
same timeout.

A judge that hangs is isolated (Requirement G22): its thread is written off
and replaced, so the other judges keep every worker; a judge with too many
hung evaluations is quarantined, and a pool with too many hung threads is
exhausted; both block at once, without running the judge (see
:mod:`guard.judge_pool`). An async judge that times out is cancelled and
given one more timeout to stop; one that ignores its cancellation is left
running, recorded as hung, and no longer awaited. :meth:`CommitGate.hung`
and :meth:`CommitGate.pool_status` report the hung evaluations.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, cast

from guard.clock import Clock, SystemClock
from guard.judge_pool import HungEvaluation, JudgePool, PoolStatus, Refusal
from judges import (
    AsyncJudge,
    CallRecord,
    CommitContext,
    Effect,
    Finding,
    Judge,
    Query,
    Severity,
    StateReader,
    StateSnapshot,
    Verdict,
    combine,
    gather,
    is_async,
)

if TYPE_CHECKING:
    from guard.settings import CommitSettings

__all__ = ["CommitGate", "GateResult"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GateResult:
    verdict: Verdict
    effects: tuple[Effect, ...]
    duration_ms: float


def _failure(judge: str, message: str) -> Verdict:
    return Verdict.of([Finding(judge=judge, severity=Severity.BLOCK, message=message)])


class CommitGate:
    """The judges in order over one snapshot.

    ``workers``, ``max_hung`` and ``max_hung_per_judge`` bound the judge pool (:class:`JudgePool`);
    ``clock`` dates and ages the hung evaluations.
    """

    def __init__(
        self,
        judges: Sequence[Judge | AsyncJudge],
        *,
        judge_timeout_s: float = 2.0,
        workers: int = 4,
        max_hung: int = 16,
        max_hung_per_judge: int = 2,
        clock: Clock | None = None,
    ) -> None:
        names = [j.name for j in judges]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"judge names must be unique: {', '.join(duplicates)}")
        self.judges = tuple(judges)
        self.judge_timeout_s = judge_timeout_s
        self._clock = clock or SystemClock()
        self._pool = JudgePool(
            workers=workers, max_hung=max_hung, max_hung_per_judge=max_hung_per_judge, clock=self._clock
        )
        self._close = weakref.finalize(self, self._pool.close)

    @classmethod
    def from_settings(
        cls, judges: Sequence[Judge | AsyncJudge], commit: CommitSettings, *, clock: Clock | None = None
    ) -> CommitGate:
        """The gate as ``commit:`` configures it (timeout, workers, hung bounds)."""
        return cls(
            judges,
            judge_timeout_s=commit.judge_timeout_s,
            workers=commit.judge_workers,
            max_hung=commit.max_hung_judges,
            max_hung_per_judge=commit.max_hung_per_judge,
            clock=clock,
        )

    async def evaluate(
        self,
        transaction_id: str,
        effects: Sequence[Effect],
        calls: Sequence[CallRecord],
        summary: str,
        reader: StateReader,
        *,
        now: datetime | None = None,
    ) -> GateResult:
        """The chain's verdict on ``effects``; ``now`` is the commit time (the guard's clock) judges see."""
        started = time.perf_counter()
        effects = tuple(effects)

        async def fetch(queries: Sequence[Query]) -> StateSnapshot:
            return await asyncio.wait_for(reader.fetch(queries), timeout=self.judge_timeout_s * 2)

        try:
            gathered = await gather(self.judges, effects, fetch)
        except Exception as exc:
            log.exception("reading the pending state for the judges failed")
            verdict = _failure("gate", f"could not read the pending state for the judges: {exc}")
            return GateResult(verdict, effects, (time.perf_counter() - started) * 1000)
        context = CommitContext(transaction_id, effects, tuple(calls), summary, gathered.snapshot, now)
        verdicts: list[Verdict] = []
        for judge in self.judges:
            problem = gathered.failures.get(judge.name)
            if problem is not None:
                verdicts.append(_failure(judge.name, f"judge {judge.name} failed: {problem}"))
            else:
                verdicts.append(await self._run(judge, context))
        return GateResult(combine(verdicts), effects, (time.perf_counter() - started) * 1000)

    async def _run(self, judge: Judge | AsyncJudge, context: CommitContext) -> Verdict:
        try:
            if is_async(judge):
                verdict = await self._awaited(cast(AsyncJudge, judge), context)
            else:
                verdict = await self._threaded(cast(Judge, judge), context)
        except TimeoutError:
            log.error("judge %s did not answer within %.1fs", judge.name, self.judge_timeout_s)
            return _failure(judge.name, f"judge {judge.name} did not answer within {self.judge_timeout_s:g}s")
        except Exception as exc:
            log.exception("judge %s raised", judge.name)
            return _failure(judge.name, f"judge {judge.name} failed: {type(exc).__name__}: {exc}")
        if isinstance(verdict, Refusal):
            return Verdict.of(
                [Finding(judge.name, Severity.BLOCK, verdict.message, evidence=verdict.evidence)]
            )
        if not isinstance(verdict, Verdict):
            kind = type(verdict).__name__
            return _failure(judge.name, f"judge {judge.name} returned {kind}, not a Verdict")
        return verdict

    async def _threaded(self, judge: Judge, context: CommitContext) -> object:
        """``judge(context)`` on a pool thread; on timeout the pool writes the evaluation off."""
        job = self._pool.submit(judge.name, context.transaction_id, judge, context)
        if isinstance(job, Refusal):
            return job
        try:
            return await asyncio.wait_for(job.future, timeout=self.judge_timeout_s)
        except TimeoutError:
            self._pool.write_off(job)
            raise
        except asyncio.CancelledError:
            self._pool.cancel(job)
            raise

    async def _awaited(self, judge: AsyncJudge, context: CommitContext) -> object:
        """``judge.evaluate(context)`` as a task, never awaited past its timeout plus one more to stop."""
        refusal = self._pool.refusal(judge.name, thread=False)
        if refusal is not None:
            return refusal
        started = self._clock.monotonic()
        task = asyncio.ensure_future(judge.evaluate(context))
        try:
            done, _ = await asyncio.wait((task,), timeout=self.judge_timeout_s)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if done:
            return task.result()
        task.cancel()
        try:
            await asyncio.wait((task,), timeout=self.judge_timeout_s)
        finally:
            self._abandon(judge.name, context.transaction_id, task, started)
        raise TimeoutError

    def _abandon(
        self, judge: str, transaction_id: str, task: asyncio.Future[Verdict], started: float
    ) -> None:
        """Stop caring about a cancelled ``task``; if it still runs, it is hung until it ends."""
        if task.done():
            _retrieve(task)
            return
        token = self._pool.track_task(judge, transaction_id, started)

        def ended(finished: asyncio.Future[Verdict]) -> None:
            self._pool.end_task(token)
            _retrieve(finished)

        task.add_done_callback(ended)

    def hung(self) -> tuple[HungEvaluation, ...]:
        """The judge evaluations that hang now (gave up on, still running), oldest first; read-only."""
        return self._pool.hung()

    def pool_status(self) -> PoolStatus:
        """The judge pool's threads, hung evaluations, quarantined judges and exhaustion; read-only."""
        return self._pool.status()

    def close(self) -> None:
        """Drop queued evaluations and let the idle judge threads end; hung ones end with their judge."""
        self._close()


def _retrieve(task: asyncio.Future[Verdict]) -> None:
    """Mark a given-up task's outcome as seen, so that asyncio does not report it as never retrieved."""
    if not task.cancelled():
        task.exception()
