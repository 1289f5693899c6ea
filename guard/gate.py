"""The commit gate: the ordered judge chain over the end state a transaction would leave.

The gate asks every judge which rows it needs, fetches them once from the
pending state (then, for judges that name follow-up rows from what was
fetched, in a few more rounds: :mod:`judges.rounds`), and runs the judges in
order over that snapshot and the commit time. The strongest decision wins.
Fail closed: a judge that raises, that is slower than its timeout, whose rows
cannot be read, or that keeps naming new rows past the last round, blocks the
commit with a finding that says so.
Judges are pure and synchronous and run on a worker thread, so that a
runaway judge times out instead of stalling the server; a judge that must
await a model (:class:`judges.AsyncJudge`, e.g. the rubric judge) is awaited
under the same timeout.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

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
    def __init__(
        self, judges: Sequence[Judge | AsyncJudge], *, judge_timeout_s: float = 2.0, workers: int = 4
    ) -> None:
        names = [j.name for j in judges]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"judge names must be unique: {', '.join(duplicates)}")
        self.judges = tuple(judges)
        self.judge_timeout_s = judge_timeout_s
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="guard-judge")

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
                decided: Any = cast(AsyncJudge, judge).evaluate(context)
            else:
                decided = asyncio.get_running_loop().run_in_executor(self._pool, cast(Judge, judge), context)
            verdict = await asyncio.wait_for(decided, timeout=self.judge_timeout_s)
        except TimeoutError:
            log.error("judge %s did not answer within %.1fs", judge.name, self.judge_timeout_s)
            return _failure(judge.name, f"judge {judge.name} did not answer within {self.judge_timeout_s:g}s")
        except Exception as exc:
            log.exception("judge %s raised", judge.name)
            return _failure(judge.name, f"judge {judge.name} failed: {type(exc).__name__}: {exc}")
        if not isinstance(verdict, Verdict):
            kind = type(verdict).__name__
            return _failure(judge.name, f"judge {judge.name} returned {kind}, not a Verdict")
        return verdict

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
