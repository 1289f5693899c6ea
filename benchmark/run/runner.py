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

``workers`` > 1 runs the trials in that many processes (sharded by task, so
each golden state is computed in one process), for CPU-bound agents such as
``replay``; the parent alone writes the files.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from benchmark.dataset import Task, TaskSet
from benchmark.domains import Domain, get_domain
from benchmark.errors import BenchmarkError
from benchmark.results import TrialKey, TrialResult, read_results, write_result
from benchmark.run.arms import Arm
from benchmark.run.setup import RunSpec, load_task_set, open_context
from benchmark.run.trial import TrialContext, run_trial, trial_seed
from benchmark.world import State

__all__ = ["RunOptions", "RunSummary", "errors_path", "run", "run_spec"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    trials: int
    arms: tuple[Arm, ...]
    seed: int
    concurrency: int
    out: Path
    workers: int = 1


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


class _Book:
    """The results file, the errors file and the summary, written as trials finish."""

    def __init__(
        self, options: RunOptions, summary: RunSummary, on_result: Callable[[TrialResult], None] | None
    ):
        options.out.parent.mkdir(parents=True, exist_ok=True)
        self._out = options.out.open("a", encoding="utf-8")
        self._errors = errors_path(options.out).open("a", encoding="utf-8")
        self._summary = summary
        self._on_result = on_result

    def add(self, result: TrialResult) -> None:
        write_result(self._out, result)
        summary = self._summary
        summary.ran += 1
        if result.system_error is not None:
            write_result(self._errors, result)
            summary.system_errors += 1
        else:
            summary.finished[result.arm] = summary.finished.get(result.arm, 0) + 1
            summary.passed[result.arm] = summary.passed.get(result.arm, 0) + int(result.passed)
        if self._on_result is not None:
            self._on_result(result)

    def close(self) -> None:
        self._out.close()
        self._errors.close()


def _plan(
    tasks: Sequence[Task], options: RunOptions, agent: str, on_planned: Callable[[int, int], None] | None
) -> tuple[list[tuple[Task, int, Arm]], RunSummary]:
    if options.trials < 1:
        raise BenchmarkError("--trials must be at least 1")
    if options.concurrency < 1 or options.workers < 1:
        raise BenchmarkError("--concurrency and --workers must be at least 1")
    summary = RunSummary()
    jobs = _jobs(tasks, options)
    done = _finished(options.out, tasks, options, agent)
    todo = [job for job in jobs if (job[0].id, job[2], job[1]) not in done]
    summary.planned, summary.skipped = len(jobs), len(jobs) - len(todo)
    for result in done.values():
        summary.finished[result.arm] = summary.finished.get(result.arm, 0) + 1
        summary.passed[result.arm] = summary.passed.get(result.arm, 0) + int(result.passed)
    if on_planned is not None:
        on_planned(len(jobs), summary.skipped)
    return todo, summary


async def _run_jobs(
    jobs: Sequence[tuple[Task, int, Arm]],
    context: TrialContext,
    seed: int,
    concurrency: int,
    deliver: Callable[[TrialResult], None],
) -> None:
    domains: dict[str, Domain] = {task.domain: get_domain(task.domain) for task, _, _ in jobs}
    initial_cache: dict[str, State] = {}
    semaphore = asyncio.Semaphore(concurrency)

    async def one(task: Task, trial: int, arm: Arm) -> None:
        async with semaphore:
            result = await run_trial(task, domains[task.domain], arm, trial, seed, context, initial_cache)
        deliver(result)

    await asyncio.gather(*(one(task, trial, arm) for task, trial, arm in jobs))


async def run(
    tasks: TaskSet,
    context: TrialContext,
    options: RunOptions,
    *,
    on_result: Callable[[TrialResult], None] | None = None,
    on_planned: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Run every trial not yet in ``options.out``, in this process; returns what happened."""
    todo, summary = _plan(tasks.tasks, options, context.agent.name, on_planned)
    book = _Book(options, summary, on_result)
    started = time.perf_counter()
    try:
        await _run_jobs(todo, context, options.seed, options.concurrency, book.add)
    finally:
        book.close()
    summary.seconds = time.perf_counter() - started
    _rewrite(options.out)
    return summary


async def run_spec(
    spec: RunSpec,
    options: RunOptions,
    *,
    on_result: Callable[[TrialResult], None] | None = None,
    on_planned: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Run a whole spec: in this process, or in ``options.workers`` processes sharded by task."""
    tasks = load_task_set(spec)
    if options.workers == 1:
        async with open_context(spec, tasks) as context:
            return await run(tasks, context, options, on_result=on_result, on_planned=on_planned)
    todo, summary = _plan(tasks.tasks, options, spec.agent.name, on_planned)
    order = {task.id: index for index, task in enumerate(tasks.tasks)}
    shards: list[list[tuple[str, int, str]]] = [[] for _ in range(options.workers)]
    for task, trial, arm in todo:
        shards[order[task.id] % options.workers].append((task.id, trial, arm))
    book = _Book(options, summary, on_result)
    started = time.perf_counter()
    try:
        await _fan_out(spec, options, [shard for shard in shards if shard], book)
    finally:
        book.close()
    summary.seconds = time.perf_counter() - started
    _rewrite(options.out)
    return summary


async def _fan_out(
    spec: RunSpec, options: RunOptions, shards: list[list[tuple[str, int, str]]], book: _Book
) -> None:
    context = multiprocessing.get_context("spawn")
    queue: Any = context.Queue()
    processes = [
        context.Process(
            target=_worker_main, args=(spec, shard, options.seed, options.concurrency, queue), daemon=True
        )
        for shard in shards
    ]
    for process in processes:
        process.start()
    running = len(processes)
    failure: str | None = None
    try:
        while running:
            kind, payload = await asyncio.to_thread(queue.get)
            if kind == "result":
                book.add(TrialResult.model_validate_json(payload))
            elif kind == "done":
                running -= 1
            else:
                running -= 1
                failure = failure or payload
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    if failure is not None:
        raise BenchmarkError(f"a worker process failed: {failure}")


def _worker_main(
    spec: RunSpec, jobs: list[tuple[str, int, str]], seed: int, concurrency: int, queue: Any
) -> None:
    try:
        asyncio.run(_worker(spec, jobs, seed, concurrency, queue))
    except BaseException as exc:
        queue.put(("failed", f"{type(exc).__name__}: {exc}"))
        return
    queue.put(("done", ""))


async def _worker(
    spec: RunSpec, jobs: list[tuple[str, int, str]], seed: int, concurrency: int, queue: Any
) -> None:
    tasks = load_task_set(spec)
    by_id = tasks.by_id()
    chosen = [(by_id[task], trial, cast(Arm, arm)) for task, trial, arm in jobs]
    async with open_context(spec, tasks) as context:
        await _run_jobs(
            chosen, context, seed, concurrency, lambda result: queue.put(("result", result.to_json()))
        )
