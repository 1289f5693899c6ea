"""The backtest's driver: replays trajectories through the benchmark's arms and judges the gate.

:func:`backtest` runs the trajectories of an :class:`EvalSpec` with the
benchmark's own runner (:func:`benchmark.run.runner.run_spec`, the replay
agent): the guarded arm, with the domain's judges or those of a deployed
guard config, gives the gate's verdict on each; the grade of each comes from
a results file of ``guard bench`` (its baseline trials) or, without one,
from running the baseline arm too. Trial ``n`` of a task plays the task's
``n``-th trajectory of the file, each once (every golden trajectory once,
without a file): tasks run in groups of equal trajectory counts. The
trials are written to ``out`` (a temporary file unless given; a kept file
resumes like ``guard bench --out``).

Every problem is a :class:`~benchmark.errors.BenchmarkError` with one clear
message: a trial that failed in the harness, a trajectory with no grade, a
grade of another trajectory.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmark.dataset.agent_logs import read_agent_logs
from benchmark.domains import get_domain
from benchmark.domains.coverage import Coverage
from benchmark.errors import BenchmarkError
from benchmark.judges_eval.outcomes import EvalReport, evaluate
from benchmark.results import TrialKey, TrialResult, read_results
from benchmark.run import Arm, RunOptions
from benchmark.run.runner import run_spec
from benchmark.run.setup import AgentSpec, RunSpec

__all__ = ["EvalSpec", "backtest", "grades_from"]


@dataclass(frozen=True, slots=True)
class EvalSpec:
    """What to backtest: the data, the trajectories (goldens if none), the grades and the gate's config."""

    data_dir: Path
    domain: str | None = None
    trajectories: Path | None = None
    grades: Path | None = None
    guard_config: Path | None = None
    out: Path | None = None
    db: str | None = None
    workers: int = 1
    concurrency: int = 4
    seed: int = 0
    conversation: bool = True
    """Whether the replay hands the guard the recorded conversation (off: the judges without it)."""


def _selection(spec: EvalSpec) -> tuple[tuple[str, ...] | None, Counter[str]]:
    """The tasks to run (None: all of the data's) and how many trajectories each task has."""
    if spec.trajectories is None:
        return None, Counter()
    runs = Counter(t.task for t in read_agent_logs(spec.trajectories))
    if not runs:
        raise BenchmarkError(f"{spec.trajectories}: no trajectories")
    return tuple(runs), runs


def _groups(task_ids: tuple[str, ...] | None, runs: Counter[str]) -> list[tuple[int, tuple[str, ...] | None]]:
    """(trials, tasks) of each run: the tasks with that many trajectories; every task once for goldens."""
    if task_ids is None:
        return [(1, None)]
    by_count: dict[int, list[str]] = {}
    for task in task_ids:
        by_count.setdefault(runs[task], []).append(task)
    return [(count, tuple(tasks)) for count, tasks in sorted(by_count.items())]


class _Planned:
    """Adds up what the runs of the groups plan, for one progress total."""

    def __init__(self, report: Callable[[int, int], None] | None) -> None:
        self._report = report
        self._total = 0

    def __call__(self, total: int, skipped: int) -> None:
        self._total += total
        if self._report is not None:
            self._report(self._total, skipped)


def grades_from(results: Iterable[TrialResult], *, source: str) -> dict[TrialKey, TrialResult]:
    """The baseline trials of ``results`` by key; a harness failure among them is refused."""
    grades: dict[TrialKey, TrialResult] = {}
    for result in results:
        if result.arm != "baseline":
            continue
        if result.system_error is not None:
            raise BenchmarkError(
                f"{source}: {result.task} trial {result.trial} failed in the harness "
                f"({result.system_error}); it has no grade"
            )
        grades[result.key] = result
    return grades


def _checked(guarded: list[TrialResult], grades: dict[TrialKey, TrialResult], source: str) -> None:
    for result in guarded:
        grade = grades.get((result.task, "baseline", result.trial))
        if grade is None:
            raise BenchmarkError(
                f"{source} has no baseline trial of {result.task} trial {result.trial} "
                f"({result.trajectory}); run guard bench with the same --trajectories"
            )
        if grade.trajectory and result.trajectory and grade.trajectory != result.trajectory:
            raise BenchmarkError(
                f"{source} graded trajectory {grade.trajectory} as {result.task} trial {result.trial}, "
                f"but that trial plays {result.trajectory} here"
            )


def _guarded(results: list[TrialResult], runs: Counter[str]) -> list[TrialResult]:
    """The guarded trials, one per trajectory (trials past a task's trajectory count repeat one)."""
    failed = [r for r in results if r.system_error is not None]
    if failed:
        first = failed[0]
        raise BenchmarkError(
            f"{len(failed)} trial(s) failed in the harness, e.g. {first.task} {first.arm} "
            f"trial {first.trial}: {first.system_error}"
        )
    return [r for r in results if r.arm == "guarded" and r.trial < (runs[r.task] if runs else 1)]


async def backtest(
    spec: EvalSpec,
    *,
    on_result: Callable[[TrialResult], None] | None = None,
    on_planned: Callable[[int, int], None] | None = None,
) -> EvalReport:
    """Replay, grade and judge every trajectory of ``spec`` (see the module)."""
    started = time.perf_counter()
    given = read_results(spec.grades) if spec.grades is not None else None
    task_ids, runs = _selection(spec)
    arms: tuple[Arm, ...] = ("guarded",) if spec.grades is not None else ("baseline", "guarded")
    run = RunSpec(
        data_dir=spec.data_dir,
        domain=spec.domain,
        task_ids=task_ids,
        agent=AgentSpec("replay", spec.trajectories, conversation=spec.conversation),
        guard_config=spec.guard_config,
        db=spec.db,
    )
    planned = _Planned(on_planned)
    with tempfile.TemporaryDirectory(prefix="guard-judges-eval-") as scratch:
        out = spec.out or Path(scratch) / "trials.jsonl"
        # one run per trajectory count: a task with n trajectories plays trials 0..n-1, no more
        for trials, tasks in _groups(task_ids, runs):
            options = RunOptions(
                trials=trials,
                arms=arms,
                seed=spec.seed,
                concurrency=spec.concurrency,
                out=out,
                workers=spec.workers,
            )
            chosen = replace(run, task_ids=tasks)
            await run_spec(chosen, options, on_result=on_result, on_planned=planned)
        results = read_results(out)
    guarded = _guarded(results, runs)
    source = str(spec.grades) if spec.grades is not None else "the baseline arm"
    grades = grades_from(given if given is not None else results, source=source)
    _checked(guarded, grades, source)
    facts: dict[str, Any] = {
        "data": str(spec.data_dir),
        "data_ref": next((r.data_ref for r in guarded), ""),
        "trajectories": str(spec.trajectories) if spec.trajectories else "golden",
        "grades": source,
        "guard_config": str(spec.guard_config) if spec.guard_config else "the domain's judges (bench chain)",
        "domain": spec.domain or "all",
        "conversation": "handed over" if spec.conversation else "withheld",
        "trials_run": len(results),
        "seconds": round(time.perf_counter() - started, 3),
    }
    return evaluate(grades, guarded, facts=facts, coverage=_coverage(guarded))


def _coverage(results: Iterable[TrialResult]) -> dict[str, Coverage]:
    """The coverage tables of the domains the trials played that declare one."""
    tables: dict[str, Coverage] = {}
    for name in sorted({r.domain for r in results}):
        table = get_domain(name).coverage
        if table is not None:
            tables[name] = table
    return tables
