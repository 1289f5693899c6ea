"""The ``simulated`` agent: golden trajectories played by a seeded model of an imperfect agent.

It exists to exercise and calibrate the harness; its results are labelled
simulated and are never a model's result. One trial:

1. The plan (:mod:`.plan`) is drawn from the trial's random stream before the
   first call, so the baseline and the guarded arm of a trial get the same
   faults. Which calls write comes from the channel's tool annotations (a
   tool not annotated read-only, or not listed, writes).
2. The planned steps are played in order. With ``give_up`` armed, the first
   tool error ends the play at that call; ``stop_early`` ends it at its cut.
   Either way the agent reports success unless it gave up.
3. In the guarded arm the agent then calls the commit tool, with its final
   message as the summary. While the commit is blocked, each fault that has
   taken effect, has not been decided yet and that a finding points at
   (:mod:`.pointing`) gets one draw from the repair stream (seeded from the
   plan, apart from the fault draws); with probability ``repair`` it is
   repaired:

   * ``wrong_value``, ``missing_effect``: the golden call is played;
   * ``stop_early``, ``give_up``: the agent resumes its planned steps where
     it stopped (a resumed call that fails may make it give up again);
   * ``extra_effect``: nothing can undo a write inside the transaction, so
     it is recorded as unrepairable.

   When something was repaired and the guard has attempts left, it commits
   again; otherwise it stops and leaves the transaction to the runner.

``AgentOutcome.notes``: ``simulated`` (always true), ``rates``, ``repair``,
``faults`` (the plan: class, golden call index, tool, and for a wrong value
the field with its golden and wrong values), ``inapplicable``,
``give_up_armed``, ``halts`` (each stop: class, call, tool, error),
``repairs`` (fault → ``repaired`` / ``declined`` / ``unrepairable``),
``tool_calls``, ``commits`` (status, findings, attempts left, what was
repaired), ``commit_calls``, ``commit_status`` (the last) and ``committed``.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.agents.base import AgentOutcome, AgentTask, ToolChannel, ToolInfo
from benchmark.agents.commit import CommitReply, read_commit
from benchmark.agents.simulated.plan import Call, Step, TrialPlan, draw_plan
from benchmark.agents.simulated.pointing import Markers, markers_of, points_at
from benchmark.agents.simulated.rates import FaultClass, FaultRates
from benchmark.dataset import GoldenCall, Task

__all__ = ["DONE_MESSAGE", "SimulatedAgent"]

DONE_MESSAGE = "I have taken care of your request."
GoldenInput = GoldenCall | tuple[str, Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class _Candidate:
    name: str
    kind: FaultClass
    markers: Markers
    repair: Callable[[], Awaitable[None]] | None


class SimulatedAgent:
    """Plays each task's golden calls with faults drawn at the ``faults`` rates.

    ``golden`` maps a task id to its golden calls (:class:`GoldenCall` or
    ``(tool, arguments)`` pairs); ``repair`` is the probability of repairing
    a fault that a blocked commit's findings point at.
    """

    name = "simulated"

    def __init__(
        self,
        golden: Mapping[str, Sequence[GoldenInput]],
        faults: FaultRates | None = None,
        repair: float = 0.5,
    ) -> None:
        if not 0.0 <= repair <= 1.0:
            raise ValueError(f"repair probability must be between 0 and 1, got {repair!r}")
        self.faults = faults if faults is not None else FaultRates()
        self.repair = repair
        self._golden = {task: tuple(_call(item) for item in calls) for task, calls in golden.items()}

    @classmethod
    def from_tasks(
        cls, tasks: Sequence[Task], faults: FaultRates | None = None, repair: float = 0.5
    ) -> SimulatedAgent:
        return cls({task.id: task.golden for task in tasks}, faults, repair)

    @property
    def tasks(self) -> set[str]:
        return set(self._golden)

    def plan(self, task_id: str, tools: Sequence[ToolInfo], rng: random.Random) -> TrialPlan:
        """The trial's plan; takes a fixed number of draws from ``rng`` and touches nothing else."""
        calls = self._golden.get(task_id)
        if calls is None:
            raise KeyError(f"no golden trajectory for task {task_id}")
        listed = {tool.name: tool for tool in tools}

        def is_write(name: str) -> bool:
            tool = listed.get(name)
            return tool is None or tool.read_only is not True

        def schema_of(name: str) -> Mapping[str, Any]:
            tool = listed.get(name)
            return tool.input_schema if tool is not None else {}

        return draw_plan(calls, is_write=is_write, schema_of=schema_of, rates=self.faults, rng=rng)

    async def run(self, task: AgentTask, channel: ToolChannel, rng: random.Random) -> AgentOutcome:
        plan = self.plan(task.id, channel.tools, rng)
        trial = _Trial(channel, plan, random.Random(plan.repair_seed), self.repair)
        await trial.play(0, len(plan.steps) if plan.stop_at is None else plan.stop_at)
        if channel.commit_tool is not None:
            await trial.commit(channel.commit_tool)
        return AgentOutcome(
            final_message=trial.final_message,
            trajectory=f"simulated:{task.id}",
            notes={"simulated": True, "rates": str(self.faults), "repair": self.repair} | trial.notes(),
        )


def _call(item: GoldenInput) -> Call:
    if isinstance(item, GoldenCall):
        return Call(item.tool, dict(item.arguments))
    tool, arguments = item
    return Call(tool, dict(arguments))


class _Trial:
    """One run's mutable state: how far the play got, where it halted, what was decided."""

    def __init__(self, channel: ToolChannel, plan: TrialPlan, rng: random.Random, repair: float) -> None:
        self.channel = channel
        self.plan = plan
        self.rng = rng
        self.repair = repair
        self.reached = 0
        self.halt: tuple[FaultClass, int] | None = None
        self.halts: list[dict[str, Any]] = []
        self.done: set[int] = set()
        self.decisions: dict[str, str] = {}
        self.commits: list[dict[str, Any]] = []
        self.results: dict[int, Mapping[str, Any]] = {}
        self.calls = 0

    @property
    def final_message(self) -> str:
        if self.halt is not None and self.halt[0] is FaultClass.GIVE_UP:
            return f"I could not complete your request: {self.plan.steps[self.halt[1]].call.tool} failed."
        return DONE_MESSAGE

    async def play(self, start: int, end: int) -> None:
        steps = self.plan.steps
        for position in range(start, end):
            if position in self.done:
                continue
            step = steps[position]
            error = await self._call(step.call, position)
            self.reached = max(self.reached, position + 1)
            if error is not None and self.plan.give_up:
                self._halted(FaultClass.GIVE_UP, position, error)
                return
        self.halt = None
        if end < len(steps):
            self._halted(FaultClass.STOP_EARLY, end, None)

    async def _call(self, call: Call, position: int | None) -> str | None:
        """Play ``call`` (step ``position``, if it is one); its error text when it failed."""
        self.calls += 1
        result = await self.channel.call(call.tool, call.arguments)
        if result.is_error:
            return result.text or "tool error"
        if position is not None and result.structured is not None:
            self.results[position] = result.structured
        return None

    def _markers(self, positions: Sequence[int], **change: Any) -> Markers:
        calls = [self.plan.steps[p].call for p in positions]
        return markers_of(calls, results=[self.results[p] for p in positions if p in self.results], **change)

    def _halted(self, kind: FaultClass, position: int, error: str | None) -> None:
        self.halt = (kind, position)
        step = self.plan.steps[position]
        entry: dict[str, Any] = {"class": kind.value, "call": step.index, "tool": step.call.tool}
        if error is not None:
            entry["error"] = error[:300]
        self.halts.append(entry)

    async def commit(self, tool: str) -> None:
        while True:
            reply = read_commit(await self.channel.call(tool, {"summary": self.final_message}))
            record: dict[str, Any] = {
                "status": reply.status,
                "findings": len(reply.findings),
                "attempts_left": reply.attempts_left,
            }
            self.commits.append(record)
            if reply.status != "blocked":
                return
            repaired = await self._repair(reply)
            record["repaired"] = repaired
            if not repaired or reply.attempts_left <= 0:
                return

    async def _repair(self, reply: CommitReply) -> list[str]:
        repaired: list[str] = []
        for candidate in self._candidates():
            if candidate.name in self.decisions:
                continue
            if not any(points_at(finding, candidate.markers) for finding in reply.findings):
                continue
            if candidate.repair is None:
                self.decisions[candidate.name] = "unrepairable"
            elif self.rng.random() < self.repair:
                self.decisions[candidate.name] = "repaired"
                await candidate.repair()
                repaired.append(candidate.name)
            else:
                self.decisions[candidate.name] = "declined"
        return repaired

    def _candidates(self) -> list[_Candidate]:
        """The faults that have taken effect so far, in a fixed order, the halt last."""
        plan, steps = self.plan, self.plan.steps
        found: list[_Candidate] = []
        halt_at = len(steps) if self.halt is None else self.halt[1]
        wrong = plan.fault(FaultClass.WRONG_VALUE)
        if wrong is not None:
            position = _position(steps, wrong.call, FaultClass.WRONG_VALUE)
            if position is not None and position < self.reached:
                markers = self._markers([position], field=wrong.path[-1], value=wrong.wrong)
                found.append(
                    _Candidate(wrong.kind.value, wrong.kind, markers, self._golden_call(wrong.call, position))
                )
        extra = plan.fault(FaultClass.EXTRA_EFFECT)
        if extra is not None:
            position = _position(steps, extra.call, FaultClass.EXTRA_EFFECT)
            if position is not None and position < self.reached:
                found.append(_Candidate(extra.kind.value, extra.kind, self._markers([position]), None))
        missing = plan.fault(FaultClass.MISSING_EFFECT)
        if missing is not None:
            spot = next((p for p, step in enumerate(steps) if step.index > missing.call), len(steps))
            if self.halt is None or spot < halt_at:
                markers = markers_of([plan.calls[missing.call]])
                found.append(
                    _Candidate(
                        missing.kind.value, missing.kind, markers, self._golden_call(missing.call, None)
                    )
                )
        if self.halt is not None:
            kind, position = self.halt
            pending = [position] + [
                later for later in range(position + 1, len(steps)) if steps[later].index in plan.writes
            ]
            name = f"{kind.value}:{steps[position].index}"
            found.append(_Candidate(name, kind, self._markers(pending), self._resume(position)))
        return found

    def _golden_call(self, index: int, position: int | None) -> Callable[[], Awaitable[None]]:
        async def repair() -> None:
            if position is not None:
                self.done.add(position)
            await self._call(self.plan.calls[index], None)

        return repair

    def _resume(self, position: int) -> Callable[[], Awaitable[None]]:
        async def repair() -> None:
            await self.play(position, len(self.plan.steps))

        return repair

    def notes(self) -> dict[str, Any]:
        plan = self.plan
        last = self.commits[-1]["status"] if self.commits else None
        return {
            "faults": [fault.describe() for fault in plan.faults],
            "inapplicable": [kind.value for kind in plan.inapplicable],
            "give_up_armed": plan.give_up,
            "halts": self.halts,
            "repairs": dict(self.decisions),
            "tool_calls": self.calls,
            "commits": self.commits,
            "commit_calls": len(self.commits),
            "commit_status": last,
            "committed": last == "committed",
        }


def _position(steps: Sequence[Step], index: int, fault: FaultClass) -> int | None:
    return next((p for p, step in enumerate(steps) if step.index == index and step.fault is fault), None)
