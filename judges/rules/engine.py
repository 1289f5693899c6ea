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

Most conditions need none of that: :mod:`judges.rules.fast` runs the common
subset (field reads, literals, comparisons, ``&&``/``||``/``!``) in Python over
the same plain data and defers to CEL wherever it cannot be sure of CEL's
answer. An environment of plain data therefore hands it to CEL only when an
expression first needs CEL; data CEL cannot take still fails at once.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cel

from judges.rules.fast import Defer, FastCondition, compile_fast, plain
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


def normpath(path: Any) -> str:
    """A path as a file system resolves it: ``.`` and ``..`` folded, repeated slashes one (POSIX).

    ``normpath(effect.after.path).startsWith('/srv/data/')`` holds for ``/srv/data/a`` and not for
    ``/srv/data/../../etc/passwd``, which the raw string's ``startsWith`` would let through.
    """
    if not isinstance(path, str):
        raise TypeError(f"normpath takes a string, not {type(path).__name__}")
    folded = posixpath.normpath(path)
    return "/" + folded.lstrip("/") if folded.startswith("//") else folded


FUNCTIONS = {"normpath": normpath}
"""The functions rules may call beside CEL's own (each call costs a trip into Python, ~20 µs)."""


class CelCompileError(Exception):
    """An expression that does not parse; ``line`` and ``column`` are 1-based, inside the expression."""

    def __init__(self, detail: str, line: int, column: int) -> None:
        self.detail = detail
        self.line = line
        self.column = column
        super().__init__(f"{line}:{column}: {detail}")


class CelEvalError(Exception):
    """An expression that failed while evaluating (missing field, type mismatch, overflow, ...)."""


def _by_cel(variables: Mapping[str, Any]) -> Any:
    """The Python form of an expression outside the fast subset: always CEL's."""
    raise Defer


class Environment:
    """Variables shared by every expression evaluated against them, handed to CEL once if at all."""

    __slots__ = ("_context", "_variables")

    def __init__(self, variables: Mapping[str, Any]) -> None:
        self._variables = dict(variables)
        self._context: Any = None
        try:
            lazy = plain(self._variables)
        except RecursionError:
            lazy = False
        if not lazy:
            self._context = self._handed()

    def context(self) -> Any:
        """The CEL context of the variables, built on first use."""
        if self._context is None:
            self._context = self._handed()
        return self._context

    def _handed(self) -> Any:
        try:
            context = cel.Context(self._variables)
        except Exception as exc:
            raise CelEvalError(f"cannot hand the data to CEL: {_sentence(exc)}") from exc
        for name, function in FUNCTIONS.items():
            context.add_function(name, function)
        return context


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled CEL expression, the free variables it references, and its Python form (or a deferral)."""

    source: str
    variables: frozenset[str]
    _program: Any
    _fast: FastCondition = _by_cel

    def evaluate(self, environment: Environment) -> Any:
        try:
            return self._fast(environment._variables)
        except Defer:
            pass
        try:
            return self._program.execute(environment.context())
        except CelEvalError:
            raise
        except Exception as exc:
            raise CelEvalError(_sentence(exc)) from exc


def evaluate_all(expressions: Sequence[Expression], environment: Environment) -> list[Any]:
    """Each expression's value, or the :class:`CelEvalError` it failed with, in order."""
    variables = environment._variables
    results: list[Any] = []
    append = results.append
    for expression in expressions:
        try:
            append(expression._fast(variables))
        except Defer:
            try:
                append(expression._program.execute(environment.context()))
            except CelEvalError as exc:
                append(exc)
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
    return Expression(
        source, frozenset(program.variables()), _faster(source, program), compile_fast(source) or _by_cel
    )


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
