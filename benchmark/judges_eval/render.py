"""The backtest as terminal tables (rich) and as one JSON document.

The JSON document (``guard judges eval --json``, ``"schema": 1``) has these keys:

* ``facts``: what was run (data, trajectories, grades, guard config, seconds);
* ``total`` and ``domains`` (by domain): the confusion, each with
  ``true_stops`` (wrong commits stopped), ``false_blocks`` (right commits
  stopped), ``misses`` (wrong commits allowed), ``right_allowed``,
  ``no_change`` (commits that changed nothing), ``total``,
  ``stop_rate_wrong`` (share of wrong commits stopped) and
  ``false_block_rate`` (share of right commits stopped), rates null when
  undefined;
* ``rules``: per rule (or judge) that stopped a commit, ``true_stops`` and
  ``false_blocks``, most stops first;
* ``classes``: per input class of the stopping rules (``state``, ``trace``,
  ``conversation``, ``other``), ``true_stops`` and ``false_blocks`` (empty
  when no domain of the run declares a coverage table);
* ``clauses``: every clause of those domains' coverage tables (``domain``,
  ``clause``, ``section``, ``rules``, ``none``: why no rule judges it),
  with ``true_stops`` and ``false_blocks``;
* ``false_blocks`` and ``misses``: the trajectories to review;
* ``trajectories``: every trajectory (``trajectory``, ``task``, ``domain``,
  ``trial``, ``right``, ``stopped``, ``effects``, ``outcome``, ``rules``,
  ``findings``, ``why_wrong``).

Agents' and findings' texts are printed as text, never as markup.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from benchmark.judges_eval.outcomes import Confusion, EvalReport, Outcome, TrajectoryEval

__all__ = [
    "COLUMNS",
    "EVAL_SCHEMA",
    "RATES",
    "confusion_cells",
    "first_finding",
    "print_tables",
    "rate",
    "render_json",
    "tables",
    "to_document",
]

EVAL_SCHEMA = 1

COLUMNS = ("runs", "true stops", "false blocks", "misses", "right allowed", "no change")
"""The confusion's counts as every rendering names them."""
RATES = ("wrong stopped", "right blocked")
"""Its rates: the share of wrong commits stopped, of right commits stopped."""


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def confusion_cells(counts: Confusion) -> list[str]:
    """A confusion as table cells: the five counts, then the two rates."""
    return [
        str(counts.total),
        str(counts.true_stops),
        str(counts.false_blocks),
        str(counts.misses),
        str(counts.right_allowed),
        str(counts.no_change),
        rate(counts.stop_rate_wrong),
        rate(counts.false_block_rate),
    ]


def first_finding(item: TrajectoryEval) -> str:
    """The first stopping finding's message, or why the trajectory is wrong."""
    if item.findings:
        return str(item.findings[0].get("message", ""))
    return item.why_wrong


def to_document(report: EvalReport) -> dict[str, Any]:
    return {
        "schema": EVAL_SCHEMA,
        "facts": dict(report.facts),
        "total": report.total.to_dict(),
        "domains": {name: counts.to_dict() for name, counts in report.domains.items()},
        "rules": [rule.to_dict() for rule in report.rules],
        "classes": [counts.to_dict() for counts in report.classes],
        "clauses": [counts.to_dict() for counts in report.clauses],
        "false_blocks": [t.to_dict() for t in report.of(Outcome.FALSE_BLOCK)],
        "misses": [t.to_dict() for t in report.of(Outcome.MISS)],
        "trajectories": [t.to_dict() for t in report.trajectories],
    }


def render_json(report: EvalReport) -> str:
    return json.dumps(to_document(report), indent=2, ensure_ascii=False, sort_keys=False, default=str) + "\n"


def _confusion(report: EvalReport) -> Table:
    table = Table(title="guard judges eval: the gate against the grade")
    table.add_column("domain", no_wrap=True)
    for name in (*COLUMNS, *RATES):
        table.add_column(name, justify="right")
    for name, counts in report.domains.items():
        table.add_row(Text(name), *confusion_cells(counts))
    table.add_section()
    table.add_row(Text("all", style="bold"), *confusion_cells(report.total))
    return table


def _rules(report: EvalReport) -> Table:
    table = Table(
        "rule", "true stops", "false blocks", title="per rule (a commit stopped by two counts for each)"
    )
    for rule in report.rules:
        table.add_row(Text(rule.rule), str(rule.true_stops), str(rule.false_blocks))
    return table


def _classes(report: EvalReport) -> Table:
    table = Table(
        "reads",
        "true stops",
        "false blocks",
        title="per input class of the stopping rules (state, trace, conversation)",
    )
    for counts in report.classes:
        table.add_row(Text(counts.input_class), str(counts.true_stops), str(counts.false_blocks))
    return table


def _clauses(report: EvalReport) -> Table:
    table = Table(
        "clause", "section", "rules (or why none)", "true stops", "false blocks", title="per policy clause"
    )
    for counts in report.clauses:
        rules = ", ".join(counts.rules) if counts.rules else f"none: {counts.none}"
        table.add_row(
            Text(counts.clause),
            Text(counts.section),
            Text(rules),
            str(counts.true_stops),
            str(counts.false_blocks),
        )
    return table


def _review(title: str, items: list[TrajectoryEval], what: str) -> Table:
    table = Table("trajectory", "rules", what, title=title)
    for item in items:
        table.add_row(Text(item.trajectory), Text(", ".join(item.rules) or "-"), Text(first_finding(item)))
    return table


def tables(report: EvalReport) -> list[RenderableType]:
    out: list[RenderableType] = [_confusion(report)]
    if report.rules:
        out.append(_rules(report))
    if report.classes:
        out.append(_classes(report))
    if report.clauses:
        out.append(_clauses(report))
    false_blocks, misses = report.of(Outcome.FALSE_BLOCK), report.of(Outcome.MISS)
    if false_blocks:
        out.append(
            _review(f"false blocks: {len(false_blocks)} right commits stopped", false_blocks, "finding")
        )
    if misses:
        out.append(_review(f"misses: {len(misses)} wrong commits allowed", misses, "why wrong"))
    seconds = report.facts.get("seconds")
    if seconds is not None:
        out.append(Text(f"{report.total.total} trajectories in {seconds:.1f} s", style="dim"))
    return out


def print_tables(report: EvalReport, console: Console) -> None:
    for renderable in tables(report):
        console.print(renderable)
