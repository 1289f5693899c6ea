"""``guard bench``: the benchmark's run command, plugged into the ``guard`` CLI.

The guard does not import the benchmark. Each of the benchmark's commands is
an entry point of the group ``guard.cli`` named by the command
(``bench = "benchmark.cli:bench_app"``, ``report =
"benchmark.report.command:report"``); the guard lists them from that metadata
and imports this module only when ``guard bench`` runs or shows its help.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from benchmark.console import fail
from benchmark.dataset import load_task
from benchmark.domains import domain_names
from benchmark.errors import BenchmarkError
from benchmark.results import TrialResult
from benchmark.run import Arm, RunOptions, RunSummary, errors_path
from benchmark.run.runner import run_spec
from benchmark.run.setup import AgentSpec, RunSpec, default_workers, guard_settings
from guard.errors import GuardError

__all__ = ["bench_app"]

T = TypeVar("T")

console = Console()
errors = Console(stderr=True)

bench_app = typer.Typer(
    help="Replay ThinkingBox-Bench v1.0 with and without the guard and report the lift.",
    invoke_without_command=True,
)

Data = Annotated[
    Path | None,
    typer.Option(
        "--data",
        help="A thinkingbox-data checkout (dataset/, servers/), or tau-bench's airline folder "
        "(tasks.json, …).",
    ),
]


def _run(work: Coroutine[Any, Any, T]) -> T:
    try:
        return asyncio.run(work)
    except (BenchmarkError, GuardError) as exc:
        raise fail(str(exc)) from None


def _summary_table(summary: RunSummary, out: Path) -> Table:
    table = Table("arm", "passed", "finished", "pass rate", title=f"guard bench → {out}")
    for arm in sorted(summary.finished):
        done = summary.finished[arm]
        passed = summary.passed.get(arm, 0)
        table.add_row(arm, str(passed), str(done), f"{passed / done:.1%}" if done else "-")
    return table


@bench_app.callback()
def bench(
    ctx: typer.Context,
    data: Data = None,
    domain: Annotated[str | None, typer.Option(help="One domain (default: all in the task list).")] = None,
    tasks_file: Annotated[
        Path | None, typer.Option("--tasks", help="A task list YAML (default: canonical).")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N tasks.")] = None,
    trials: Annotated[int, typer.Option(min=1, help="Trials per task and arm (k).")] = 1,
    arms: Annotated[str, typer.Option(help="Comma-separated: baseline, guarded.")] = "baseline,guarded",
    agent: Annotated[str, typer.Option(help="replay | simulated | openai")] = "replay",
    trajectories: Annotated[
        Path | None, typer.Option(help="--agent replay: our JSONL or a tau-bench results file.")
    ] = None,
    conversation: Annotated[
        bool, typer.Option(help="Hand the guard the conversation (replay, openai); off to compare judges.")
    ] = True,
    fault_rate: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Transient tool failures per call.")
    ] = 0.0,
    concurrency: Annotated[int, typer.Option(min=1, help="Trials run at once in each process.")] = 4,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Processes (default: one per core this process may use).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seeds trials, faults and arm order.")] = 0,
    out: Annotated[Path | None, typer.Option(help="Results file (JSONL); rerun with it to resume.")] = None,
    db: Annotated[
        str | None, typer.Option(help="Database for the worlds (default: SQLite in memory).")
    ] = None,
    guard_config: Annotated[
        Path | None, typer.Option(help="Settings of the guard in the guarded arm.")
    ] = None,
    model: Annotated[str | None, typer.Option(help="--agent openai: the model.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="--agent openai: an OpenAI-compatible endpoint.")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable that holds the API key.")
    ] = "OPENAI_API_KEY",
    user_model: Annotated[
        str | None, typer.Option(help="Model of the simulated user (default: --model).")
    ] = None,
    judge_model: Annotated[str | None, typer.Option(help="Model that answers the yes/no rubrics.")] = None,
    faults: Annotated[
        str | None, typer.Option(help="--agent simulated: fault rates, e.g. wrong_value=0.1")
    ] = None,
    repair: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="--agent simulated: repair probability.")
    ] = 0.5,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Run tasks × trials × arms and write one result per trial (see `guard report`)."""
    if ctx.invoked_subcommand is not None:
        return
    options = {name: value for name, value in locals().items() if name != "ctx"}
    try:
        spec, run_options = parse_bench(**options)
    except BenchmarkError as exc:
        raise fail(str(exc)) from None
    _run_with_progress(spec, run_options, quiet=quiet)


def _arms(arms: str) -> tuple[Arm, ...]:
    """``--arms``: baseline and/or guarded, once each."""
    chosen = tuple(part.strip() for part in arms.split(",") if part.strip())
    if not chosen or any(a not in ("baseline", "guarded") for a in chosen) or len(set(chosen)) != len(chosen):
        raise BenchmarkError(f"--arms must name baseline and/or guarded once each, not {arms!r}")
    return cast(tuple[Arm, ...], chosen)


def parse_bench(
    *,
    data: Path | None,
    domain: str | None,
    tasks_file: Path | None,
    limit: int | None,
    trials: int,
    arms: str,
    agent: str,
    trajectories: Path | None,
    conversation: bool,
    fault_rate: float,
    concurrency: int,
    workers: int | None,
    seed: int,
    out: Path | None,
    db: str | None,
    guard_config: Path | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str,
    user_model: str | None,
    judge_model: str | None,
    faults: str | None,
    repair: float,
    quiet: bool,
) -> tuple[RunSpec, RunOptions]:
    """``guard bench``'s command line as one parsed run: what to run, and how; BenchmarkError if unusable."""
    if data is None:
        raise BenchmarkError(
            "--data DIR is required: a thinkingbox-data checkout or tau-bench's airline folder"
        )
    if out is None:
        raise BenchmarkError("--out results.jsonl is required (rerun with the same file to resume)")
    if domain is not None and domain not in domain_names():
        raise BenchmarkError(f"unknown domain {domain!r}; use one of {', '.join(domain_names())}")
    chosen = _arms(arms)
    spec = RunSpec(
        data_dir=data,
        domain=domain,
        tasks_file=tasks_file,
        limit=limit,
        agent=AgentSpec(
            agent, trajectories, model, base_url, api_key_env, user_model, faults, repair, conversation
        ),
        guard_config=guard_config,
        fault_rate=fault_rate,
        db=db,
        judge_model=judge_model,
    )
    run = RunOptions(
        trials=trials,
        arms=chosen,
        seed=seed,
        concurrency=concurrency,
        out=out,
        workers=workers or default_workers(),
    )
    return spec, run


def _run_with_progress(spec: RunSpec, options: RunOptions, *, quiet: bool) -> None:
    out = options.out
    progress = Progress(
        TextColumn("[bold]guard bench[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f} trials/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=errors,
        disable=quiet or not sys.stderr.isatty(),
    )
    bar = progress.add_task("trials", total=None, rate=0.0)
    started = time.perf_counter()
    ran = 0

    def planned(total: int, skipped: int) -> None:
        progress.update(bar, total=total, completed=skipped)
        if skipped:
            errors.print(f"resuming {out}: {skipped} of {total} trials already done")

    def finished(result: TrialResult) -> None:
        nonlocal ran
        ran += 1
        progress.update(bar, advance=1, rate=ran / max(time.perf_counter() - started, 1e-9))

    with progress:
        summary = _run(run_spec(spec, options, on_result=finished, on_planned=planned))
    console.print(_summary_table(summary, out))
    console.print(
        f"{summary.ran} trials in {summary.seconds:.1f} s: {summary.throughput:.1f} trials/s"
        + (f"; {summary.skipped} already done" if summary.skipped else "")
    )
    console.print(f"report: guard report {out}")
    if summary.system_errors:
        # the results lack these trials: a script (CI) must not take them as a finished run
        raise fail(
            f"{summary.system_errors} of {summary.ran} trial(s) ended in a system error (not counted; in "
            f"{errors_path(out)}): the results are incomplete; rerun the same command to retry them",
            code=1,
        )


@bench_app.command("serve")
def serve(
    task: Annotated[str, typer.Option(help="The task, <file>.py:<test>.")],
    data: Data = None,
    guarded: Annotated[bool, typer.Option("--guarded", help="Put the guard in front of the tools.")] = False,
    host: str = "127.0.0.1",
    port: int = 8765,
    db: Annotated[
        str | None, typer.Option(help="A PostgreSQL URL for the world (default: a SQLite file).")
    ] = None,
    guard_config: Annotated[Path | None, typer.Option(help="Settings of the guard (with --guarded).")] = None,
) -> None:
    """Serve one task's world over MCP (streamable HTTP) for any agent; POST /bench/grade grades it."""
    import uvicorn

    from benchmark.serve import serve_task

    if data is None:
        raise fail("--data DIR is required: a thinkingbox-data checkout")
    try:
        settings = guard_settings(guard_config)
    except GuardError as exc:
        raise fail(exc.message) from None
    # the guarded app's Host policy and exposure check read where it is served
    settings = settings.model_copy(
        update={"server": settings.server.model_copy(update={"host": host, "port": port})}
    )
    data_dir = data

    async def work() -> None:
        chosen = load_task(data_dir, task)
        async with serve_task(chosen, data_dir=data_dir, guarded=guarded, settings=settings, db=db) as app:
            errors.print(
                f"{chosen.id} ({'guarded' if guarded else 'no guard'}): MCP at http://{host}:{port}/mcp, "
                f"grade with POST http://{host}:{port}/bench/grade"
            )
            await uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).serve()

    _run(work())
