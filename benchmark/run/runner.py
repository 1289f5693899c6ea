"""The runner: tasks × trials × arms, interleaved, concurrent, seeded and resumable.

Order: trial by trial, task by task, and for each (task, trial) both arms one
after the other in an order drawn from the seed, so that an endpoint that
drifts during the run hurts both arms alike. ``concurrency`` trials run at
once. Every finished trial is appended to the results file at once; trials
that ended in a system error go to the errors file too and are not counted
as finished, so running again with the same ``--out`` reruns them and skips
everything else. When a run completes, the results file is rewritten in the
canonical order (task, trial, arm), so an interrupted and resumed run leaves
the same records, in the same order, as an uninterrupted one (their
``seconds`` differ, being measurements).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.dataset import Task, TaskSet
from benchmark.domains import Domain, get_domain
from benchmark.errors import BenchmarkError
from benchmark.results import TrialKey, TrialResult, read_results, write_result
from benchmark.run.arms import Arm
from benchmark.run.trial import TrialContext, run_trial, trial_seed
from benchmark.world import State

__all__ = ["RunOptions", "RunSummary", "errors_path", "run"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    trials: int
    arms: tuple[Arm, ...]
    seed: int
    concurrency: int
    out: Path


@dataclass
class RunSummary:
    planned: int = 0
    skipped: int = 0
    ran: int = 0
    system_errors: int = 0
    passed: dict[str, int] = field(default_factory=dict)
    finished: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def throughput(self) -> float:
        return self.ran / self.seconds if self.seconds > 0 else 0.0


def errors_path(out: Path) -> Path:
    return out.with_name(out.stem + ".errors.jsonl")


def _jobs(tasks: Sequence[Task], options: RunOptions) -> list[tuple[Task, int, Arm]]:
    jobs: list[tuple[Task, int, Arm]] = []
    for trial in range(options.trials):
        for task in tasks:
            arms = list(options.arms)
            random.Random(trial_seed(options.seed, task.id, trial)).shuffle(arms)
            jobs.extend((task, trial, arm) for arm in arms)
    return jobs


def _finished(
    out: Path, tasks: Sequence[Task], options: RunOptions, agent: str
) -> dict[TrialKey, TrialResult]:
    """Trials already done in ``out``; refuses a file written by another run configuration."""
    if not out.exists():
        return {}
    known = {task.id for task in tasks}
    done: dict[TrialKey, TrialResult] = {}
    for result in read_results(out):
        if result.task not in known or result.arm not in options.arms or result.trial >= options.trials:
            continue
        if result.agent != agent or result.seed != trial_seed(options.seed, result.task, result.trial):
            raise BenchmarkError(
                f"{out} holds trials of another run (agent {result.agent}, a different --seed); "
                "use another --out, or the same options to resume"
            )
        if result.system_error is None:
            done[result.key] = result
    return done


def _rewrite(out: Path) -> None:
    ordered = sorted(read_results(out), key=lambda r: (r.task, r.trial, r.arm))
    temporary = out.with_name(out.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for result in ordered:
            write_result(handle, result)
    temporary.replace(out)


async def run(
    tasks: TaskSet,
    context: TrialContext,
    options: RunOptions,
    *,
    on_result: Callable[[TrialResult], None] | None = None,
    on_planned: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Run every trial not yet in ``options.out``; returns what happened."""
    if options.trials < 1:
        raise BenchmarkError("--trials must be at least 1")
    if options.concurrency < 1:
        raise BenchmarkError("--concurrency must be at least 1")
    summary = RunSummary()
    jobs = _jobs(tasks.tasks, options)
    done = _finished(options.out, tasks.tasks, options, context.agent.name)
    todo = [job for job in jobs if (job[0].id, job[2], job[1]) not in done]
    summary.planned, summary.skipped = len(jobs), len(jobs) - len(todo)
    for result in done.values():
        summary.finished[result.arm] = summary.finished.get(result.arm, 0) + 1
        summary.passed[result.arm] = summary.passed.get(result.arm, 0) + int(result.passed)
    if on_planned is not None:
        on_planned(len(jobs), summary.skipped)
    domains: dict[str, Domain] = {task.domain: get_domain(task.domain) for task in tasks.tasks}
    initial_cache: dict[str, State] = {}
    options.out.parent.mkdir(parents=True, exist_ok=True)
    semaphore = asyncio.Semaphore(options.concurrency)
    started = time.perf_counter()
    with (
        options.out.open("a", encoding="utf-8") as out,
        errors_path(options.out).open("a", encoding="utf-8") as errs,
    ):

        async def one(task: Task, trial: int, arm: Arm) -> None:
            async with semaphore:
                result = await run_trial(
                    task, domains[task.domain], arm, trial, options.seed, context, initial_cache
                )
            write_result(out, result)
            summary.ran += 1
            if result.system_error is not None:
                write_result(errs, result)
                summary.system_errors += 1
            else:
                summary.finished[arm] = summary.finished.get(arm, 0) + 1
                summary.passed[arm] = summary.passed.get(arm, 0) + int(result.passed)
            if on_result is not None:
                on_result(result)

        await asyncio.gather(*(one(task, trial, arm) for task, trial, arm in todo))
    summary.seconds = time.perf_counter() - started
    _rewrite(options.out)
    return summary
