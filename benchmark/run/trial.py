"""One trial: a fresh world, the agent through one arm, and the grade.

The trial's seed is derived from the run's seed, the task and the trial
number, not from the arm, so both arms of a trial see the same simulated
faults and the same injected tool failures.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.agents.base import Agent, AgentOutcome, AgentTask
from benchmark.dataset import Scenario, Task
from benchmark.domains import Domain
from benchmark.results import FaultCounts, RubricResult, TokenUsage, TrialResult
from benchmark.run.arms import Arm, open_arm
from benchmark.run.faults import FaultPlan, faulty_registry
from benchmark.run.hub import ToolHub
from benchmark.world import Golden, State, golden, grade, open_world, outputs_said
from benchmark.world.canon_memo import canonical_with_hash
from guard.clock import FixedClock
from guard.errors import GuardError
from guard.gate.commit import CommitGate
from guard.settings import GuardSettings
from judges import signature_of_canonical

__all__ = ["TrialContext", "run_trial", "trial_seed"]

log = logging.getLogger(__name__)


def _jsonable(notes: Any) -> dict[str, Any]:
    try:
        return dict(json.loads(json.dumps(dict(notes), default=str)))
    except (TypeError, ValueError):
        return {"unreadable": repr(notes)[:2000]}


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside task-group wrappers (an agent's error comes out of the MCP client's)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def trial_seed(seed: int, task: str, trial: int) -> int:
    digest = hashlib.sha256(f"{seed}:{task}:{trial}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


@dataclass(frozen=True)
class TrialContext:
    """What every trial of a run shares."""

    data_dir: Path
    agent: Agent
    settings: GuardSettings
    gates: dict[str, CommitGate]
    scenarios: dict[str, Scenario]
    fault_rate: float = 0.0
    db_url: str | None = None
    rubric: Any = None
    data_ref: str = ""
    task_set_hash: str = ""
    sleep_backoff: bool = False
    hub: ToolHub | None = None


async def _initial(task: Task, context: TrialContext, domain: Domain, cache: dict[str, State]) -> State:
    if task.id not in cache:
        async with open_world(domain, task, data_dir=context.data_dir, url=context.db_url) as world:
            cache[task.id] = await world.state()
    return cache[task.id]


async def _rubrics(task: Task, context: TrialContext, message: str) -> list[RubricResult]:
    if not task.rubrics:
        return []
    if context.rubric is None:
        return [
            RubricResult(question=r.question, error="not judged: no judge model configured")
            for r in task.rubrics
        ]
    results = []
    for rubric in task.rubrics:
        try:
            answer = await context.rubric.ask(rubric.question, message)
        except Exception as exc:
            results.append(RubricResult(question=rubric.question, error=f"{type(exc).__name__}: {exc}"))
            continue
        yes = bool(answer.answer)
        results.append(RubricResult(question=rubric.question, answer="yes" if yes else "no", passed=yes))
    return results


def _output_checks(task: Task, outcome: AgentOutcome) -> list[RubricResult]:
    """tau-bench's output check, one result per required output (none for tasks without outputs).

    The agent's texts are its messages when the outcome has them, and its final message.
    """
    if not task.outputs:
        return []
    texts = [*getattr(outcome, "messages", ()), outcome.final_message]
    return [
        RubricResult(question=f"the agent says {output!r}", answer="yes" if said else "no", passed=said)
        for output, said in outputs_said(task.outputs, texts)
    ]


async def run_trial(
    task: Task,
    domain: Domain,
    arm: Arm,
    trial: int,
    seed: int,
    context: TrialContext,
    initial_cache: dict[str, State],
) -> TrialResult:
    """Run one trial; a harness failure comes back as a result with ``system_error`` set."""
    started = time.perf_counter()
    tseed = trial_seed(seed, task.id, trial)
    base: dict[str, Any] = {
        "task": task.id,
        "domain": task.domain,
        "arm": arm,
        "trial": trial,
        "seed": tseed,
        "run_seed": seed,
        "agent": context.agent.name,
        "data_ref": context.data_ref,
        "task_set_hash": context.task_set_hash,
    }
    try:
        expected = await golden(task, data_dir=context.data_dir)
        scenario = context.scenarios[task.domain]
        plan = FaultPlan(context.fault_rate, tseed)
        registry = faulty_registry(domain.registry, plan)
        async with (
            open_world(
                domain, task, data_dir=context.data_dir, scenario=scenario, url=context.db_url
            ) as world,
            open_arm(
                arm,
                engine=world.engine,
                registry=registry,
                metadata=domain.metadata,
                clock=FixedClock(domain.scenario_now),
                settings=context.settings,
                gate=context.gates.get(task.domain),
                transaction=f"{task.test}-{arm}-{trial}",
                plan=plan,
                sleep_backoff=context.sleep_backoff,
                hub=context.hub,
            ) as session,
        ):
            view = AgentTask(
                id=task.id,
                domain=task.domain,
                query=task.query,
                user_context=task.user_context,
                instructions=scenario.bot_instructions,
                arm=arm,
                trial=trial,
                seed=tseed,
            )
            guard_error: str | None = None
            try:
                outcome = await context.agent.run(view, session.channel, random.Random(tseed))
            except GuardError as exc:
                guard_error = f"{type(exc).__name__}: {exc.message}"
                outcome = AgentOutcome(final_message="")
            try:
                verdicts = await session.finish(outcome.final_message, outcome.final_turns)
            except GuardError as exc:
                guard_error = guard_error or f"{type(exc).__name__}: {exc.message}"
                verdicts = []
            final = await world.state()
        return await _graded(
            task,
            domain,
            context,
            base,
            expected,
            final,
            outcome,
            session,
            verdicts,
            plan,
            guard_error,
            initial_cache,
            started,
        )
    except Exception as exc:
        cause = _leaf(exc)
        # one line a trial (the results' errors file keeps the cause); the traceback with --debug
        log.error(
            "trial %s %s #%d failed in the harness: %s: %s", task.id, arm, trial, type(cause).__name__, cause
        )
        log.debug("trial %s %s #%d: the harness failure's traceback", task.id, arm, trial, exc_info=True)
        return TrialResult(
            **base,
            passed=False,
            state_passed=False,
            system_error=f"{type(cause).__name__}: {cause}",
            seconds=time.perf_counter() - started,
        )


async def _graded(
    task: Task,
    domain: Domain,
    context: TrialContext,
    base: dict[str, Any],
    expected: Golden,
    final: State,
    outcome: AgentOutcome,
    session: Any,
    verdicts: list[Any],
    plan: FaultPlan,
    guard_error: str | None,
    initial_cache: dict[str, State],
    started: float,
) -> TrialResult:
    graded = grade(final, expected, domain)
    rubrics = await _rubrics(task, context, outcome.final_message)
    if context.rubric is not None and any(r.error for r in rubrics):
        problem = next(r.error for r in rubrics if r.error)
        raise RuntimeError(f"the rubric judge could not answer: {problem}")
    rubrics += _output_checks(task, outcome)
    rubric_ok = all(r.passed is not False for r in rubrics)
    passed = graded.passed and rubric_ok and guard_error is None
    signature = None
    if not passed:
        initial, _ = canonical_with_hash(
            domain.name, await _initial(task, context, domain, initial_cache), domain.specs
        )
        final_canonical = graded.canonical
        if final_canonical is None:
            final_canonical, _ = canonical_with_hash(domain.name, final, domain.specs)
        try:
            signature = signature_of_canonical(
                session.channel.trace,
                final_canonical,
                graded.diff,
                initial,
                domain.specs,
                rubric_passed=rubric_ok,
            ).signature.value
        except ValueError:
            signature = "incomplete_resolution"
    channel = session.channel
    return TrialResult(
        **base,
        trajectory=outcome.trajectory,
        passed=passed,
        state_passed=graded.passed,
        state_hash=graded.state_hash,
        golden_hash=graded.golden_hash,
        diff=[entry.to_dict() for entry in graded.diff],
        rubrics=rubrics,
        verdicts=verdicts,
        signature=signature,
        tool_calls=channel.tool_calls,
        tool_errors=channel.tool_errors,
        retries=session.retries,
        commit_attempts=len(verdicts),
        faults=FaultCounts(
            injected=len({(call, attempt) for call, attempt, _ in plan.injected}),
            before=sum(1 for *_, kind in plan.injected if kind == "before"),
            after=sum(1 for *_, kind in plan.injected if kind == "after"),
            surfaced=channel.surfaced_faults,
        ),
        tokens=TokenUsage(prompt=outcome.prompt_tokens, completion=outcome.completion_tokens),
        seconds=time.perf_counter() - started,
        final_message=outcome.final_message,
        agent_notes=_jsonable(outcome.notes),
        guard_error=guard_error,
    )
