"""The CEL seam: compiling expressions and evaluating them over plain data.

This is the only module that imports ``cel`` (the Rust-backed
``common-expression-language`` package). Its errors are translated into
:class:`CelCompileError` (with the 1-based line and column inside the
expression) and :class:`CelEvalError` (one short sentence).

Cost model, measured on the bundled version: an evaluation over data already
in a context takes about a microsecond; handing data to CEL costs about half a
microsecond per string or map key, and a call back into Python about twenty.
So callers build one :class:`Environment` per effect, from data they have
already trimmed to what the rules read, and evaluate every rule against it.
A field select that yields a map (``effect.after`` in ``effect.after.id``)
copies that map, costing time in its size, while the index ``effect['after']``
does not; so an expression is run as :func:`~judges.rules.lexer.indexed_selects`
rewrites it (same values, same errors) and reported as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cel

from judges.rules.lexer import indexed_selects

__all__ = [
    "CelCompileError",
    "CelEvalError",
    "Environment",
    "Expression",
    "compile_expression",
    "evaluate_all",
]

_POSITION = re.compile(r"<input>:(\d+):(\d+):\s*(.*)")


class CelCompileError(Exception):
    """An expression that does not parse; ``line`` and ``column`` are 1-based, inside the expression."""

    def __init__(self, detail: str, line: int, column: int) -> None:
        self.detail = detail
        self.line = line
        self.column = column
        super().__init__(f"{line}:{column}: {detail}")


class CelEvalError(Exception):
    """An expression that failed while evaluating (missing field, type mismatch, overflow, ...)."""


class Environment:
    """Variables handed to CEL once and shared by every expression evaluated against them."""

    __slots__ = ("_context",)

    def __init__(self, variables: Mapping[str, Any]) -> None:
        try:
            self._context = cel.Context(dict(variables))
        except Exception as exc:
            raise CelEvalError(f"cannot hand the data to CEL: {_sentence(exc)}") from exc


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled CEL expression and the free variables it references."""

    source: str
    variables: frozenset[str]
    _program: Any

    def evaluate(self, environment: Environment) -> Any:
        try:
            return self._program.execute(environment._context)
        except Exception as exc:
            raise CelEvalError(_sentence(exc)) from exc


def evaluate_all(expressions: Sequence[Expression], environment: Environment) -> list[Any]:
    """Each expression's value, or the :class:`CelEvalError` it failed with, in order."""
    context = environment._context
    results: list[Any] = []
    append = results.append
    for expression in expressions:
        try:
            append(expression._program.execute(context))
        except Exception as exc:
            append(CelEvalError(_sentence(exc)))
    return results


def compile_expression(source: str) -> Expression:
    """Compile ``source``; a syntax error raises :class:`CelCompileError` with its position."""
    if not source.strip():
        raise CelCompileError("empty expression", 1, 1)
    try:
        program = cel.compile(source)
    except Exception as exc:
        match = _POSITION.search(str(exc))
        if match is None:
            raise CelCompileError(_sentence(exc), 1, 1) from exc
        line, column = _within(source, int(match.group(1)), int(match.group(2)))
        raise CelCompileError(match.group(3).strip(), line, column) from exc
    return Expression(source, frozenset(program.variables()), _faster(source, program))


def _faster(source: str, program: Any) -> Any:
    """The program of ``source`` with field selects as indexes, or ``program`` if that cannot be had."""
    try:
        rewritten = indexed_selects(source)
    except ValueError:
        return program
    if rewritten == source:
        return program
    try:
        faster = cel.compile(rewritten)
    except Exception:
        return program
    return faster if set(faster.variables()) == set(program.variables()) else program


def _within(source: str, line: int, column: int) -> tuple[int, int]:
    """A position past the end (CEL puts "unexpected end" after a trailing newline) moved to the end."""
    lines = source.rstrip().split("\n")
    if line > len(lines) or (line == len(lines) and column > len(lines[-1]) + 1):
        return len(lines), len(lines[-1]) + 1
    return line, column


def _sentence(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no such key: {exc.args[0]!r}" if exc.args else "no such key"
    text = str(exc).strip() or type(exc).__name__
    first = text.split(". ", 1)[0].rstrip(".")
    return first
