"""The judge chain: an ordered list of judges run as one, failing closed — the one judge runner.

The chain gathers every judge's queries (deduplicated, in order), lets the
caller fetch them once (and, for judges that follow up, in further rounds:
:mod:`judges.rounds`), runs the judges in order and combines their verdicts:
the strongest decision wins (``block`` > ``escalate`` > ``allow``) and
findings keep chain order. Judge names are unique in a chain.

A judge's answer enters the chain once, through :meth:`Verdict.explained
<judges.verdict.Verdict.explained>`: its decision is what its findings say,
never less (``Verdict(ALLOW, [block finding])`` blocks).

Fail closed, in the judge's place in the chain and in these words:

* its rows could not be gathered (``queries`` or ``follow_up`` raised, it
  still named new rows after the last round, or the reader failed on its
  rows): ``judge X failed: <problem>``;
* it raised: ``judge X failed: <ExceptionType>: <message>`` (a judge that needs
  the commit time and got none raises :class:`CommitTimeUnknown` here);
* it returned something else than a :class:`Verdict`: ``judge X returned <type>, not a Verdict``;
* its :class:`Execution` did not run it to an answer (:class:`JudgeRefused`):
  the refusal's own text and evidence.

Every such finding is made by one function and takes the judge's
:func:`~judges.verdict.failure_mode`: a judge that could have stopped the
commit blocks it in every guard mode; one all of whose findings would have
been shadowed fails in shadow. :meth:`JudgeChain.decide` is the commit
gate's whole verdict: the rounds, the judges, and the modes settled
(:func:`~judges.verdict.in_modes`); it reads the rows of the judges that
cannot stop the commit apart from the others' when a read fails, so that
their failure never fails a judge that could.

*How* a judge runs is an :class:`Execution`: :data:`INLINE` calls a
synchronous judge (:class:`~judges.verdict.Judge`) and awaits an async one
(:class:`AsyncJudge`, one that waits on a model) in the caller's task; the
commit gate's execution (:mod:`guard.gate.commit`) puts synchronous judges on a
thread pool and both kinds under a timeout. :meth:`JudgeChain.__call__`, the
chain as a synchronous judge, always runs inline and refuses async judges.

The commit time is :attr:`CommitContext.now <judges.verdict.CommitContext.now>`,
the caller's clock (the guard's; the frozen scenario clock in the benchmark).
Judges read it with :func:`commit_time`, never the wall clock.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from typing_extensions import TypeIs

from judges.effects import Effect
from judges.errors import JudgeRefused
from judges.rounds import gather
from judges.state import Query, StateReader, StateSnapshot
from judges.verdict import (
    CallRecord,
    CommitContext,
    Finding,
    FollowUp,
    Judge,
    Mode,
    Severity,
    Turn,
    Verdict,
    combine,
    failure_mode,
    finding_modes,
    in_modes,
)

__all__ = [
    "INLINE",
    "AsyncJudge",
    "Execution",
    "InMode",
    "Inline",
    "JudgeChain",
    "is_async",
    "judge_failure",
    "judge_modes",
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


class InMode:
    """A judge with the mode its chain entry gave it; everything else is the judge's own.

    The mode is data for the gate (:func:`judge_modes`, :func:`judges.in_modes`),
    which applies it to every finding named after the judge that declares no
    mode of its own, its failures included (:attr:`finding_modes`).
    """

    def __init__(self, judge: Judge | AsyncJudge, mode: Mode) -> None:
        self.judge = judge
        self.mode = mode

    def __repr__(self) -> str:
        return f"InMode({self.judge!r}, {self.mode.value})"

    @property
    def name(self) -> str:
        return self.judge.name

    @property
    def finding_modes(self) -> frozenset[Mode | None]:
        """The judge's findings' modes, with this entry's mode for those that declare none."""
        return frozenset(self.mode if mode is None else mode for mode in finding_modes(self.judge))

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return self.judge.queries(effects)

    def __call__(self, context: CommitContext) -> Verdict:
        if is_async(self.judge):
            raise TypeError(f"judge {self.judge.name} is awaited: call its evaluate")
        return self.judge(context)

    def __getattr__(self, attribute: str) -> Any:
        # evaluate, follow_up, tables_named, ...: present exactly when the judge has them
        if attribute == "judge":
            raise AttributeError(attribute)
        return getattr(self.judge, attribute)


def judge_modes(judges: Iterable[Judge | AsyncJudge]) -> dict[str, Mode]:
    """The modes chain entries gave their judges, by judge name."""
    return {judge.name: judge.mode for judge in judges if isinstance(judge, InMode)}


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


def judge_failure(
    name: str, problem: str, *, mode: Mode | None = None, evidence: Mapping[str, Any] | None = None
) -> Verdict:
    """The blocking verdict for judge ``name`` that failed with ``problem`` (one line), in ``mode``.

    ``mode`` is the failed judges' :func:`~judges.verdict.failure_mode`; None follows the guard's.
    """
    return _failed(name, f"judge {name} failed: {problem}", mode, evidence)


def _failed(name: str, message: str, mode: Mode | None, evidence: Mapping[str, Any] | None = None) -> Verdict:
    """The one maker of failure findings: a block in the mode of the findings the judge could have given."""
    return Verdict.of([Finding(name, Severity.BLOCK, message, evidence=evidence or {}, mode=mode)])


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
        self.entry_modes = judge_modes(self.judges)
        self._failing = {judge.name: failure_mode([judge]) for judge in self.judges}
        self._apart = {
            guard: frozenset(name for name, mode in self._failing.items() if (mode or guard) is Mode.SHADOW)
            for guard in Mode
        }

    def __repr__(self) -> str:
        return f"JudgeChain({[judge.name for judge in self.judges]!r})"

    @property
    def finding_modes(self) -> frozenset[Mode | None]:
        """The modes its judges' findings may declare (a chain is itself a judge)."""
        return frozenset().union(*(finding_modes(judge) for judge in self.judges))

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
        principal: str = "",
        claims: Mapping[str, Any] | None = None,
        calls: Sequence[CallRecord] = (),
        summary: str = "",
        now: datetime | None = None,
        conversation: tuple[Turn, ...] | None = None,
        apart: AbstractSet[str] = frozenset(),
    ) -> Verdict:
        """Read the judges' rows in rounds and run the judges; modes are not settled (see :meth:`decide`).

        ``now`` is the commit time the judges see, ``principal`` the agent
        whose commit it is and ``claims`` its token's, ``conversation`` what the host handed over of it
        (None: nothing). A read that fails fails the judges whose rows it
        carried; ``apart`` names judges whose rows are then read again apart
        from the others' (:func:`judges.rounds.read_rounds`).
        """
        effects = tuple(effects)
        gathered = await gather(self.judges, effects, reader.fetch, apart=apart)
        context = CommitContext(
            transaction_id,
            effects,
            tuple(calls),
            summary,
            gathered.snapshot,
            now,
            principal,
            conversation,
            dict(claims or {}),
        )
        return await self._judge(context, gathered.failures, self.execution)

    async def decide(
        self,
        reader: StateReader,
        effects: Sequence[Effect],
        *,
        mode: Mode,
        transaction_id: str,
        principal: str = "",
        claims: Mapping[str, Any] | None = None,
        calls: Sequence[CallRecord] = (),
        summary: str = "",
        now: datetime | None = None,
        conversation: tuple[Turn, ...] | None = None,
    ) -> Verdict:
        """The commit gate's verdict under guard mode ``mode``: :meth:`run`, then each finding's mode settled.

        The rows of the judges that cannot stop the commit under ``mode`` are
        read apart from the others' when a read fails. Never raises for a
        judge or a read; anything else that goes wrong fails every judge (in
        :func:`~judges.verdict.failure_mode` of them all), named after the chain.
        """
        try:
            verdict = await self.run(
                reader,
                effects,
                transaction_id=transaction_id,
                principal=principal,
                claims=claims,
                calls=calls,
                summary=summary,
                now=now,
                conversation=conversation,
                apart=self._apart[mode],
            )
        except Exception as exc:
            logger.exception("the judge chain %s failed", self.name)
            verdict = _failed(
                self.name, f"the judges could not run: {type(exc).__name__}: {exc}", failure_mode(self.judges)
            )
        return in_modes(verdict, self.entry_modes, mode)

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
                verdicts.append(await self._verdict(judge, context, execution))
            else:
                verdicts.append(judge_failure(judge.name, problem, mode=self._failing[judge.name]))
        return combine(verdicts)

    async def _verdict(
        self, judge: Judge | AsyncJudge, context: CommitContext, execution: Execution
    ) -> Verdict:
        """``judge``'s answer on ``context`` by ``execution`` (explained), or the verdict that it failed."""
        mode = self._failing[judge.name]
        try:
            if is_async(judge):
                answer = await execution.run_async(judge, context)
            else:
                answer = await execution.run_sync(judge, context)
        except JudgeRefused as refused:
            return _failed(judge.name, refused.message, mode, refused.evidence)
        except Exception as exc:
            logger.exception("judge %s failed", judge.name)
            return judge_failure(judge.name, f"{type(exc).__name__}: {exc}", mode=mode)
        if not isinstance(answer, Verdict):
            return _failed(
                judge.name, f"judge {judge.name} returned {type(answer).__name__}, not a Verdict", mode
            )
        return answer.explained(judge.name, mode)


def _completed(run: Coroutine[Any, Any, Verdict]) -> Verdict:
    """The verdict of a run that never suspends (inline, synchronous judges only), driven without a loop."""
    try:
        run.send(None)
    except StopIteration as done:
        verdict: Verdict = done.value
        return verdict
    run.close()
    raise RuntimeError("a synchronous judge chain suspended")
