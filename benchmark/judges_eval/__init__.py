"""``guard judges eval``: the backtest an operator runs before enforcing a rule pack.

What the gate would have done to each graded trajectory (:mod:`.outcomes`,
pure), how the trajectories are replayed and graded (:mod:`.backtest`), and
how the result reads (:mod:`.render`; the HTML page is
:mod:`benchmark.report.eval_page`). The command is :data:`.app.judges_app`.
"""

from benchmark.judges_eval.backtest import EvalSpec, backtest, grades_from
from benchmark.judges_eval.outcomes import (
    Confusion,
    EvalReport,
    Outcome,
    RuleCounts,
    TrajectoryEval,
    evaluate,
    judge,
)
from benchmark.judges_eval.render import EVAL_SCHEMA, render_json, to_document

__all__ = [
    "EVAL_SCHEMA",
    "Confusion",
    "EvalReport",
    "EvalSpec",
    "Outcome",
    "RuleCounts",
    "TrajectoryEval",
    "backtest",
    "evaluate",
    "grades_from",
    "judge",
    "render_json",
    "to_document",
]
