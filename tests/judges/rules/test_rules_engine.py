"""The CEL seam: compile errors with positions, evaluation errors as one sentence."""

from __future__ import annotations

import pytest

from judges.rules.engine import CelCompileError, CelEvalError, Environment, compile_expression, evaluate_all


@pytest.mark.parametrize(
    ("source", "line", "column"),
    [
        ("a.b ==", 1, 7),
        ("1 +* 2", 1, 4),
        ("a &&\n  b ==", 2, 7),
        ("a &&\n  b ==\n", 2, 7),
        ("   ", 1, 1),
    ],
)
def test_compile_errors_carry_positions(source: str, line: int, column: int) -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_expression(source)
    assert (caught.value.line, caught.value.column) == (line, column)


def test_variables_include_comprehension_names() -> None:
    assert compile_expression("rows.all(r, r.x > limit)").variables == {"rows", "r", "limit"}


def test_evaluate_and_errors() -> None:
    environment = Environment({"row": {"n": 2}})
    assert compile_expression("row.n * 2").evaluate(environment) == 4
    with pytest.raises(CelEvalError, match="no such key: 'm'"):
        compile_expression("row.m").evaluate(environment)
    with pytest.raises(CelEvalError, match="Undefined variable or function: 'nope'"):
        compile_expression("nope(1)").evaluate(environment)


def test_evaluate_all_returns_errors_in_place() -> None:
    environment = Environment({"x": 1})
    results = evaluate_all([compile_expression(s) for s in ("x == 1", "x.y", "x + 1")], environment)
    assert results[0] is True
    assert isinstance(results[1], CelEvalError)
    assert results[2] == 2


def test_data_cel_cannot_hold_is_an_evaluation_error() -> None:
    with pytest.raises(CelEvalError, match="cannot hand the data to CEL"):
        Environment({"x": object()})
