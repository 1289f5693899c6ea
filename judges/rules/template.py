"""Message templates: text with ``{{ expression }}`` placeholders.

Each placeholder is a CEL expression over the same variables as the rule's
``require`` (``effect`` and the rule's lookups), compiled when the pack loads
and evaluated only when the rule fires. Values are written as status text:
strings as they are, ``null``, ``true``/``false``, whole numbers without a
decimal point, lists and maps as compact JSON. A placeholder that fails to
evaluate is written ``?`` (the finding's evidence keeps the error). To write a
literal ``{{``, use ``{{ '{{' }}``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from judges.rules.engine import CelCompileError, CelEvalError, Environment, Expression, compile_expression

__all__ = ["Template", "TemplateError", "compile_template", "format_value"]

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)


class TemplateError(Exception):
    """A placeholder that does not compile; ``line``/``column`` are 1-based inside the template text."""

    def __init__(self, detail: str, line: int, column: int) -> None:
        self.detail = detail
        self.line = line
        self.column = column
        super().__init__(f"{line}:{column}: {detail}")


@dataclass(frozen=True, slots=True)
class Template:
    text: str
    parts: tuple[str | Expression, ...]

    @property
    def variables(self) -> frozenset[str]:
        names: set[str] = set()
        for part in self.parts:
            if isinstance(part, Expression):
                names |= part.variables
        return frozenset(names)

    @property
    def expressions(self) -> tuple[Expression, ...]:
        return tuple(part for part in self.parts if isinstance(part, Expression))

    def render(self, environment: Environment | None, errors: list[str] | None = None) -> str:
        """The text with every placeholder evaluated; failures become ``?`` and are appended to ``errors``."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            if environment is None:
                out.append("?")
                continue
            try:
                out.append(format_value(part.evaluate(environment)))
            except CelEvalError as exc:
                out.append("?")
                if errors is not None:
                    errors.append(f"{{{{{part.source.strip()}}}}}: {exc}")
        return "".join(out)


def compile_template(text: str) -> Template:
    parts: list[str | Expression] = []
    position = 0
    for match in _PLACEHOLDER.finditer(text):
        if match.start() > position:
            parts.append(text[position : match.start()])
        source = match.group(1)
        try:
            parts.append(compile_expression(source))
        except CelCompileError as exc:
            line, column = _offset_position(text, match.start(1), exc.line, exc.column)
            raise TemplateError(f"placeholder {match.group(0)!r}: {exc.detail}", line, column) from exc
        position = match.end()
    if position < len(text):
        parts.append(text[position:])
    return Template(text, tuple(parts))


def _offset_position(text: str, start: int, line: int, column: int) -> tuple[int, int]:
    """Where ``line:column`` of a placeholder's source falls in the whole template."""
    before = text[:start]
    base_line = before.count("\n") + 1
    base_column = start - (before.rfind("\n") + 1)
    if line == 1:
        return (base_line, base_column + column)
    return (base_line + line - 1, column)


def format_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return str(value)
