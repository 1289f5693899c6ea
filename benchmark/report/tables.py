"""The metrics as rich tables on a console (``guard report``)."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from benchmark.metrics import BINS, Estimate, Metrics, Scope
from benchmark.report import present
from benchmark.report.present import Change, LiftMetric

__all__ = ["print_tables", "tables"]

_SHOWN_ERRORS = 20
_STYLE = {Change.GOOD: "green", Change.BAD: "red", Change.NEUTRAL: ""}


def print_tables(metrics: Metrics, console: Console) -> None:
    """Print every table of the report."""
    for renderable in tables(metrics):
        console.print(renderable)


def tables(metrics: Metrics) -> list[RenderableType]:
    """The report's renderables, in reading order."""
    out: list[RenderableType] = [
        Panel(Text(notice, style="bold"), border_style="bold red", title="read this first")
        for notice in present.notices(metrics.meta)
    ]
    out.append(_run(metrics))
    if metrics.meta.warnings:
        out.append(
            Panel(
                Group(*(Text(f"• {w}") for w in metrics.meta.warnings)),
                border_style="yellow",
                title="warnings",
            )
        )
    out.append(_scalars(metrics.overall, metrics.meta.k, title="All tasks"))
    if metrics.overall.moves is not None:
        out.append(_moves(metrics.overall))
    out.append(_signatures(metrics.overall))
    out.append(_domains(metrics))
    out.append(_activity(metrics.overall))
    if metrics.system_errors.count:
        out.append(_system_errors(metrics))
    return out


def _run(metrics: Metrics) -> Table:
    table = Table(title="Run", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for name, value in present.run_facts(metrics):
        table.add_row(name, value)
    return table


def _lift_cell(metric: LiftMetric, estimate: Estimate, *, counted: bool = False) -> Text:
    """The lift, green when it is an improvement for ``metric`` and red when it is a regression."""
    style = _STYLE[present.change_of(metric, estimate)]
    return Text(present.lift_text(estimate, counted=counted, unit=False), style=style)


def _scalars(scope: Scope, k: int, *, title: str) -> Table:
    table = Table(
        title=f"{title} — {scope.tasks} tasks; value \\[interval] in %, lift in percentage points",
        title_justify="left",
        caption="unbiased: mean of C(c,k)/C(n,k); plug-in: mean of (c/n)^k; n trials per task, c passed",
        caption_justify="left",
    )
    table.add_column("metric", style="bold", no_wrap=True)
    for arm in scope.arms:
        table.add_column(arm, justify="right")
    if scope.lift is not None:
        table.add_column("lift, guarded − baseline", justify="right")
    labels = present.metric_labels(k, formulas=False)
    for key in present.RATES:
        cells: list[str | Text] = [present.share(getattr(a, key)) for a in scope.arms.values()]
        if scope.lift is not None:
            cells.append(_lift_cell(key, getattr(scope.lift, key)))
        table.add_row(labels[key], *cells)
    cells = [present.count_share(a.observed_all_k, a.tasks) for a in scope.arms.values()]
    if scope.lift is not None:
        cells.append(_lift_cell("observed_all_k", scope.lift.observed_all_k, counted=True))
    table.add_row(labels["observed_all_k"], *cells)
    for name in BINS:
        cells = [present.count_share(a.bins.get(name), a.tasks) for a in scope.arms.values()]
        if scope.lift is not None:
            cells.append(_lift_cell(name, scope.lift.bins.get(name), counted=True))
        table.add_row(f"bin: {name}", *cells)
    return table


def _moves(scope: Scope) -> Table:
    assert scope.moves is not None
    table = Table(title="Bin moves, baseline → guarded (tasks)", title_justify="left")
    table.add_column("baseline \\ guarded", style="bold")
    for name in BINS:
        table.add_column(name, justify="right")
    for source in BINS:
        cells = []
        for target in BINS:
            count = scope.moves.get(source, target).count
            style = _STYLE[present.move_change(source, target)] if count else ""
            cells.append(Text(str(count), style=style))
        table.add_row(source, *cells)
    return table


def _signatures(scope: Scope) -> Table:
    table = Table(title="Failure signatures (failed trials)", title_justify="left")
    table.add_column("signature", style="bold")
    for arm in scope.arms:
        table.add_column(arm, justify="right")
    for name, cells in present.signature_rows(scope):
        table.add_row(name, *cells)
    return table


def _domains(metrics: Metrics) -> Table:
    k = metrics.meta.k
    table = Table(
        title="Per domain — value \\[interval] in %, lift in percentage points", title_justify="left"
    )
    table.add_column("domain", style="bold", no_wrap=True)
    table.add_column("arm", no_wrap=True)
    table.add_column("pass@1", justify="right")
    table.add_column(f"pass^{k} unbiased", justify="right")
    table.add_column("always", justify="right")
    for scope in (metrics.overall, *metrics.domains):
        name = "all tasks" if scope is metrics.overall else scope.name
        for index, (arm, arm_metrics) in enumerate(scope.arms.items()):
            table.add_row(
                name if index == 0 else "",
                arm,
                present.share(arm_metrics.pass_at_1),
                present.share(arm_metrics.pass_hat_k_unbiased),
                f"{arm_metrics.bins.always.count}/{scope.tasks}",
            )
        if scope.lift is not None:
            always = scope.lift.bins.always
            table.add_row(
                "",
                "lift, guarded − baseline",
                _lift_cell("pass_at_1", scope.lift.pass_at_1),
                _lift_cell("pass_hat_k_unbiased", scope.lift.pass_hat_k_unbiased),
                Text(f"{always.count:+d}", style=_STYLE[present.change_of("always", always)]),
                end_section=True,
            )
        else:
            table.add_section()
    return table


def _activity(scope: Scope) -> Table:
    table = Table(title="Activity and cost", title_justify="left")
    table.add_column("", style="bold")
    for arm in scope.arms:
        table.add_column(arm, justify="right")
    for name, cells in present.activity_rows(scope):
        table.add_row(name, *cells)
    return table


def _system_errors(metrics: Metrics) -> Table:
    errors = metrics.system_errors
    by_arm = ", ".join(f"{arm} {n}" for arm, n in errors.by_arm.items())
    table = Table(
        title=f"System errors — {errors.count} trial(s) left out of the metrics ({by_arm})",
        title_justify="left",
    )
    for name in ("task", "arm", "trial", "error"):
        table.add_column(name)
    for trial in errors.trials[:_SHOWN_ERRORS]:
        table.add_row(trial.task, trial.arm, str(trial.trial), trial.error)
    if errors.count > _SHOWN_ERRORS:
        table.add_row(f"… and {errors.count - _SHOWN_ERRORS} more (see --json)", "", "", "")
    return table
