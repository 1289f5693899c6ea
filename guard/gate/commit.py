"""The commit gate: the judge chain over the end state a transaction would leave, timed and isolated.

The gate is a thin wrapper around :meth:`judges.JudgeChain.decide`, which
reads the rows the judges name from the pending state (in rounds:
:mod:`judges.rounds`), runs the judges in order over that snapshot, the
commit time and the agent's name, combines their verdicts, settles each
finding's mode and fails closed, in its words, for a judge that raises,
returns no verdict, cannot say which rows it needs, or whose rows cannot be
read. A judge's decision is never below its own enforced findings
(Requirement G35). The gate adds three things: each read of the pending
state must end within twice the judge timeout (else it failed, and so did
the judges whose rows it carried); the judges run by the gate's execution,
below; and the duration is measured (:class:`GateResult`).

Shadow mode (Requirement G32): each finding's mode is the rule's, else its
judge's chain entry's, else ``commit.mode`` (:func:`judges.in_modes`), so a
shadowed finding is in the verdict but not in its decision;
:attr:`judges.Verdict.would_decide` is what enforcing it would have decided.
Failing closed holds in every mode (Requirement G5): a judge that cannot
answer (raised, timed out, turned away by the pool, rows unread) blocks
whenever one of its findings could have (a rule's ``mode: enforce`` under a
shadow guard included); only a judge all of whose findings would have been
shadowed fails in shadow (:func:`judges.failure_mode`).

Synchronous judges run on a worker thread of a :class:`~guard.gate.pool.JudgePool`,
so that a runaway judge times out instead of stalling the server; a judge
that must await a model (:class:`judges.AsyncJudge`, e.g. the rubric judge)
is awaited under the same timeout. A judge slower than its timeout blocks:
``judge X did not answer within Ns``.

A judge that hangs is isolated (Requirement G22): its thread is written off
and replaced, so the other judges keep every worker; a judge with too many
hung evaluations for one agent is quarantined for that agent, an agent with
too many hung evaluations is held back, and a pool with too many hung
threads is exhausted; each blocks at once, without running the judge, in the
pool's words (see :mod:`guard.gate.pool`). The agent is the transaction's
principal, passed to :meth:`CommitGate.evaluate`. An async judge that times out is
cancelled and given one more timeout to stop; one that ignores its
cancellation is left running, recorded as hung, and no longer awaited.
:meth:`CommitGate.hung` and :meth:`CommitGate.pool_status` report the hung
evaluations.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from guard.clock import Clock, SystemClock
from guard.errors import ConfigError, GuardError
from guard.gate.pool import HungEvaluation, JudgePool, PoolStatus, Refusal
from guard.tools import Tool
from judges import (
    AsyncJudge,
    CallRecord,
    CommitContext,
    Effect,
    Finding,
    Judge,
    JudgeChain,
    JudgeRefused,
    Mode,
    NamesTables,
    Query,
    Severity,
    StateReader,
    StateSnapshot,
    Turn,
    Verdict,
)
from judges.rules.pack import Rule

if TYPE_CHECKING:
    from guard.settings import CommitSettings

__all__ = ["CommitGate", "GateResult"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GateResult:
    verdict: Verdict
    effects: tuple[Effect, ...]
    duration_ms: float

    @classmethod
    def failed(cls, error: Exception) -> GateResult:
        """The result of a gate that could not judge (``error``): a block, no effects."""
        # the guard's own errors are worded for the agent (a write the triggers could not capture);
        # a foreign one is named by its type only
        why = error.message if isinstance(error, GuardError) else type(error).__name__
        return cls(Verdict.of([Finding("gate", Severity.BLOCK, f"the commit gate failed: {why}")]), (), 0.0)


class CommitGate:
    """The judges in order over one snapshot.

    ``workers``, ``max_hung``, ``max_hung_per_judge`` and ``max_hung_per_agent`` bound the judge pool
    (:class:`JudgePool`); ``clock`` dates and ages the hung evaluations; ``mode`` is the mode of findings
    whose rule and judge declare none.
    """

    def __init__(
        self,
        judges: Sequence[Judge | AsyncJudge],
        *,
        judge_timeout_s: float = 2.0,
        workers: int = 4,
        max_hung: int = 16,
        max_hung_per_judge: int = 2,
        max_hung_per_agent: int = 4,
        clock: Clock | None = None,
        mode: Mode = Mode.ENFORCE,
    ) -> None:
        self.judge_timeout_s = judge_timeout_s
        self.mode = mode
        self._clock = clock or SystemClock()
        self._pool = JudgePool(
            workers=workers,
            max_hung=max_hung,
            max_hung_per_judge=max_hung_per_judge,
            max_hung_per_agent=max_hung_per_agent,
            clock=self._clock,
        )
        self._close = weakref.finalize(self, self._pool.close)
        try:
            self._chain = JudgeChain(
                judges, name="gate", execution=_PoolExecution(self._pool, judge_timeout_s, self._clock)
            )
        except ValueError:
            self._close()
            raise
        self.judges = self._chain.judges

    @classmethod
    def from_settings(
        cls, judges: Sequence[Judge | AsyncJudge], commit: CommitSettings, *, clock: Clock | None = None
    ) -> CommitGate:
        """The gate as ``commit:`` configures it (timeout, workers, hung bounds, mode)."""
        return cls(
            judges,
            judge_timeout_s=commit.judge_timeout_s,
            workers=commit.judge_workers,
            max_hung=commit.max_hung_judges,
            max_hung_per_judge=commit.max_hung_per_judge,
            max_hung_per_agent=commit.max_hung_per_agent,
            clock=clock,
            mode=commit.mode,
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
        principal: str = "",
        claims: Mapping[str, Any] | None = None,
        conversation: tuple[Turn, ...] | None = None,
    ) -> GateResult:
        """The chain's verdict on ``effects``, modes settled; never raises for a judge or a read.

        ``now`` is the commit time (the guard's clock) and ``principal`` the
        agent whose transaction it is (``claims``, its token's): judges see them, and the judge pool
        holds that agent's hung evaluations against that agent only.
        ``conversation`` is what the agent's host handed over of it (None: nothing).
        """
        started = time.perf_counter()
        effects = tuple(effects)
        verdict = await self._chain.decide(
            _BoundedReader(reader, self.judge_timeout_s * 2),
            effects,
            mode=self.mode,
            transaction_id=transaction_id,
            principal=principal,
            claims=claims,
            calls=calls,
            summary=summary,
            now=now,
            conversation=conversation,
        )
        return GateResult(verdict, effects, (time.perf_counter() - started) * 1000)

    def hung(self) -> tuple[HungEvaluation, ...]:
        """The judge evaluations that hang now (gave up on, still running), oldest first; read-only."""
        return self._pool.hung()

    def pool_status(self) -> PoolStatus:
        """The judge pool's threads, hung evaluations, quarantines (per agent) and exhaustion; read-only."""
        return self._pool.status()

    def check_tables(self, known: AbstractSet[str], backend: str) -> None:
        """Refuse (:class:`ConfigError`) judges that name tables outside ``known``, the tables of
        ``backend``: a judge for them would never fire, so the policy would fail open in silence."""
        problems = [
            f"judge {judge.name} names {', '.join(map(repr, unknown))}"
            for judge in self.judges
            if isinstance(judge, NamesTables) and (unknown := sorted(judge.tables_named - known))
        ]
        if problems:
            raise ConfigError(
                f"{'; '.join(problems)}: the backend {backend} has no such table "
                f"(it has {', '.join(sorted(known)) or 'none'})"
            )

    def policy_versions(self) -> tuple[str, ...]:
        """Each judge of the chain by name, a rule pack with its version (``name@version``)."""
        return tuple(
            f"{judge.name}@{version}" if (version := getattr(judge, "version", None)) else judge.name
            for judge in self.judges
        )

    def check_arguments(self, arguments: Mapping[str, frozenset[str]], backend: str) -> None:
        """Refuse (:class:`ConfigError`) rules that read an argument a call table's tool does not take
        (``arguments``: ``call:<tool>`` → the argument names its input schema declares): such a rule
        would fail on every commit it applies to, blocking right work, instead of at start."""
        problems = []
        for judge in self.judges:
            for rule in getattr(judge, "rules", ()):
                if not isinstance(rule, Rule) or rule.tables is None:
                    continue
                for table in sorted(rule.tables & arguments.keys()):
                    if unknown := sorted(rule.fields_read() - arguments[table]):
                        problems.append(
                            f"rule {rule.id} ({judge.name}) reads {', '.join(unknown)} of {table}, whose "
                            f"tool takes {', '.join(sorted(arguments[table])) or 'no arguments'}"
                        )
        if problems:
            raise ConfigError(f"{'; '.join(problems)} (backend {backend})")

    def close(self) -> None:
        """Drop queued evaluations and let the idle judge threads end; hung ones end with their judge."""
        self._close()

    async def aclose_judges(self) -> None:
        """Close what the judges hold open (a model judge's HTTP client); one that fails is logged."""
        for judge in self.judges:
            close = getattr(judge, "aclose", None)
            if close is None:
                continue
            try:
                await close()
            except Exception:
                log.warning("judge %s did not close cleanly", judge.name, exc_info=True)


def call_arguments(tools: Sequence[Tool]) -> dict[str, frozenset[str]]:
    """``call:<tool>`` → the argument names of each write whose input schema lists its properties and
    admits no others (the tables whose effects carry a call's arguments)."""
    found = {}
    for tool in tools:
        properties = tool.input_schema.get("properties")
        if (
            tool.write
            and isinstance(properties, dict)
            and tool.input_schema.get("additionalProperties") is not True
        ):
            found[f"call:{tool.name}"] = frozenset(properties)
    return found


class _BoundedReader:
    """``reader``, each fetch within ``timeout_s``."""

    def __init__(self, reader: StateReader, timeout_s: float) -> None:
        self._reader = reader
        self._timeout_s = timeout_s

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        return await asyncio.wait_for(self._reader.fetch(queries), timeout=self._timeout_s)


class _PoolExecution:
    """The gate's :class:`judges.Execution`: sync judges on the pool's threads, each kind under the timeout.

    A judge the pool turns away, or that does not answer in time, is a :class:`judges.JudgeRefused`.
    """

    def __init__(self, pool: JudgePool, timeout_s: float, clock: Clock) -> None:
        self._pool = pool
        self._timeout_s = timeout_s
        self._clock = clock

    async def run_sync(self, judge: Judge, context: CommitContext) -> object:
        """``judge(context)`` on a pool thread; on timeout the pool writes the evaluation off."""
        job = self._pool.submit(
            judge.name, context.transaction_id, judge, context, principal=context.principal
        )
        if isinstance(job, Refusal):
            raise JudgeRefused(job.message, job.evidence)
        try:
            return await asyncio.wait_for(job.future, timeout=self._timeout_s)
        except TimeoutError as exc:
            self._pool.write_off(job)
            raise self._timed_out(judge.name) from exc
        except asyncio.CancelledError:
            self._pool.cancel(job)
            raise

    async def run_async(self, judge: AsyncJudge, context: CommitContext) -> object:
        """``judge.evaluate(context)`` as a task, never awaited past its timeout plus one more to stop."""
        refusal = self._pool.refusal(judge.name, context.principal, thread=False)
        if refusal is not None:
            raise JudgeRefused(refusal.message, refusal.evidence)
        started = self._clock.monotonic()
        task = asyncio.ensure_future(judge.evaluate(context))
        try:
            done, _ = await asyncio.wait((task,), timeout=self._timeout_s)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if done:
            try:
                return task.result()
            except TimeoutError as exc:
                raise self._timed_out(judge.name) from exc
        task.cancel()
        try:
            await asyncio.wait((task,), timeout=self._timeout_s)
        finally:
            self._abandon(judge.name, context, task, started)
        raise self._timed_out(judge.name)

    def _timed_out(self, judge: str) -> JudgeRefused:
        log.error("judge %s did not answer within %.1fs", judge, self._timeout_s)
        return JudgeRefused(f"judge {judge} did not answer within {self._timeout_s:g}s")

    def _abandon(
        self, judge: str, context: CommitContext, task: asyncio.Future[Verdict], started: float
    ) -> None:
        """Stop caring about a cancelled ``task``; if it still runs, it is hung until it ends."""
        if task.done():
            _retrieve(task)
            return
        token = self._pool.track_task(judge, context.transaction_id, started, principal=context.principal)

        def ended(finished: asyncio.Future[Verdict]) -> None:
            self._pool.end_task(token)
            _retrieve(finished)

        task.add_done_callback(ended)


def _retrieve(task: asyncio.Future[Verdict]) -> None:
    """Mark a given-up task's outcome as seen, so that asyncio does not report it as never retrieved."""
    if not task.cancelled():
        task.exception()
