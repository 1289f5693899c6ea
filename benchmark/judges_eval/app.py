"""``guard judges``: commands about the judges; ``guard judges eval`` backtests a gate on graded runs.

Plugged into the ``guard`` CLI as the entry point ``judges`` of the group
``guard.cli``; imported only when ``guard judges`` runs or shows its help.
The command is :func:`~benchmark.judges_eval.backtest.backtest` plus a
renderer: tables on stdout, or ``--json``, and ``--html FILE``. Any problem
is one line on stderr and exit code 2.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from benchmark.console import fail, show
from benchmark.domains import domain_names
from benchmark.errors import BenchmarkError
from benchmark.judges_eval.backtest import EvalSpec, backtest
from benchmark.judges_eval.outcomes import EvalReport
from benchmark.judges_eval.render import print_tables, render_json
from benchmark.results import TrialResult
from guard.errors import GuardError

__all__ = ["judges_app"]


judges_app = typer.Typer(help="The judges: backtest a gate on graded agent runs before enforcing it.")


@judges_app.callback()
def judges() -> None:
    """The judges: backtest a gate on graded agent runs before enforcing it."""


def _run(spec: EvalSpec, *, quiet: bool) -> EvalReport:
    progress = Progress(
        TextColumn("[bold]guard judges eval[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=quiet or not sys.stderr.isatty(),
    )
    bar = progress.add_task("trials", total=None)

    def planned(total: int, skipped: int) -> None:
        """``total`` so far over every group of tasks, ``skipped`` of this group (already done)."""
        progress.update(bar, total=total)
        progress.advance(bar, skipped)

    def finished(result: TrialResult) -> None:
        progress.update(bar, advance=1)

    with progress:
        return asyncio.run(backtest(spec, on_result=finished, on_planned=planned))


@judges_app.command("eval")
def eval_command(
    data: Annotated[
        Path | None,
        typer.Option("--data", help="A thinkingbox-data checkout, or tau-bench's airline folder."),
    ] = None,
    domain: Annotated[str | None, typer.Option(help="One domain (default: every task selected).")] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="A deployed guard config: its judges (default: the domain's)."),
    ] = None,
    trajectories: Annotated[
        Path | None,
        typer.Option(help="Agent logs: our JSONL or a tau-bench results file (default: the goldens)."),
    ] = None,
    grades: Annotated[
        Path | None,
        typer.Option(help="A `guard bench` results file of the same trajectories (default: run them)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Keep the replayed trials here (JSONL; rerun to resume).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON document instead of tables.")
    ] = False,
    html: Annotated[Path | None, typer.Option("--html", help="Also write an HTML page here.")] = None,
    db: Annotated[
        str | None, typer.Option(help="Database for the worlds (default: SQLite in memory).")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Processes.")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="Trials run at once in each process.")] = 4,
    conversation: Annotated[
        bool,
        typer.Option(
            help="Hand the guard the recorded conversation; off to see what the judges do without it."
        ),
    ] = True,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Backtest the gate on graded runs: would it have stopped each commit?

    Prints the confusion against the grade per domain and per rule, and the false blocks and misses to
    review."""
    if data is None:
        raise fail("--data DIR is required: a thinkingbox-data checkout or tau-bench's airline folder")
    if domain is not None and domain not in domain_names():
        raise fail(f"unknown domain {domain!r}; use one of {', '.join(domain_names())}")
    spec = EvalSpec(
        data_dir=data,
        domain=domain,
        trajectories=trajectories,
        grades=grades,
        guard_config=config,
        out=out,
        db=db,
        workers=workers,
        concurrency=concurrency,
        conversation=conversation,
    )
    try:
        report = _run(spec, quiet=quiet)
        if html is not None:
            from benchmark.report.eval_page import render_eval_html

            html.write_text(render_eval_html(report), encoding="utf-8")
    except (BenchmarkError, GuardError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write {html}: {exc.strerror or exc}") from None
    show(report, as_json=as_json, render_json=render_json, print_tables=print_tables, html=html)
