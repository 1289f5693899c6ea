"""The backtest of a gate as one self-contained HTML page (``guard judges eval --html``).

The same sections as the terminal tables (:mod:`benchmark.judges_eval.render`):
the confusion per domain and in total, the rules that stopped commits, the
input classes and the policy clauses of domains with a coverage table (every
clause, with its rules or why none judges it), the false blocks and the misses
to review, and what was run; styled like
``guard report``'s page (:data:`benchmark.report.html.CSS`), with nothing
fetched and nothing from a clock but the measured seconds. Every text from
an agent, a task or a finding is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from benchmark.judges_eval.outcomes import EvalReport, Outcome, TrajectoryEval
from benchmark.judges_eval.render import COLUMNS, EVAL_SCHEMA, RATES, confusion_cells, first_finding, rate
from benchmark.report.html import CSS

__all__ = ["render_eval_html"]

_LEGEND = (
    "True stop: a wrong commit stopped. False block: a right commit stopped. Miss: a wrong commit allowed. "
    "No change: the commit changed nothing, so there was nothing to stop. "
    "Shadowed findings count as enforced."
)


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    header = "".join(f"<th>{escape(cell)}</th>" for cell in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table></div>'


def _cards(report: EvalReport) -> str:
    total = report.total
    cards = [
        (
            "wrong commits stopped",
            rate(total.stop_rate_wrong),
            f"{total.true_stops} of {total.true_stops + total.misses}",
        ),
        (
            "right commits stopped",
            rate(total.false_block_rate),
            f"{total.false_blocks} of {total.false_blocks + total.right_allowed}",
        ),
        ("changed nothing", str(total.no_change), f"of {total.total} trajectories"),
    ]
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card"><span class="label">{escape(label)}</span>'
            f'<span class="big">{escape(big)}</span>'
            f'<span class="iv">{escape(sub)}</span></div>'
            for label, big, sub in cards
        )
        + "</div>"
    )


def _review(items: list[TrajectoryEval], what: str) -> str:
    if not items:
        return "<p>None.</p>"
    return _table(
        ["trajectory", "rules", what],
        ([t.trajectory, ", ".join(t.rules) or "-", first_finding(t)] for t in items),
    )


def _coverage_sections(report: EvalReport) -> list[str]:
    if not report.clauses:
        return []
    return [
        "<h2>Per input class</h2>",
        _table(
            ["reads", "true stops", "false blocks"],
            ([c.input_class, str(c.true_stops), str(c.false_blocks)] for c in report.classes),
        ),
        '<p class="caption">A rule reads the state (the commit\'s effects and rows), the trace (the calls in '
        "order) or the conversation (what the user and the agent said); other: a rule no coverage table "
        "names.</p>",
        "<h2>Per policy clause</h2>",
        _table(
            ["domain", "clause", "section", "rules (or why none)", "true stops", "false blocks"],
            (
                [
                    c.domain,
                    c.clause,
                    c.section,
                    ", ".join(c.rules) if c.rules else f"none: {c.none}",
                    str(c.true_stops),
                    str(c.false_blocks),
                ]
                for c in report.clauses
            ),
        ),
    ]


def render_eval_html(report: EvalReport) -> str:
    """The whole page."""
    facts = "".join(f"<dt>{escape(str(k))}</dt><dd>{escape(str(v))}</dd>" for k, v in report.facts.items())
    domains = [[name, *confusion_cells(counts)] for name, counts in report.domains.items()]
    head = ["domain", *COLUMNS, *RATES]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>guard judges eval</title>",
        f"<style>{CSS}</style></head><body><main>",
        "<h1>guard judges eval — the gate against the grade</h1>",
        f'<p class="sub">{report.total.total} trajectories · what the gate would have done to each commit, '
        "against whether the run was right</p>",
        _cards(report),
        "<h2>Confusion</h2>",
        _table(head, [*domains, ["all", *confusion_cells(report.total)]]),
        f'<p class="caption">{_LEGEND}</p>',
        "<h2>Per rule</h2>",
        _table(
            ["rule", "true stops", "false blocks"],
            ([r.rule, str(r.true_stops), str(r.false_blocks)] for r in report.rules),
        )
        if report.rules
        else "<p>No rule stopped a commit.</p>",
        *_coverage_sections(report),
        "<h2>False blocks to review</h2>",
        _review(report.of(Outcome.FALSE_BLOCK), "finding"),
        "<h2>Misses to review</h2>",
        _review(report.of(Outcome.MISS), "why wrong"),
        "<h2>Run</h2>",
        f'<dl class="facts">{facts}</dl>',
        f"<footer>guard judges eval · schema {EVAL_SCHEMA}</footer>",
        "</main></body></html>",
    ]
    return "\n".join(parts) + "\n"
