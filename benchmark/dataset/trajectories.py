"""The trajectory file of ``guard bench --agent replay --trajectories FILE``.

One JSON object a line::

    {"id": "...", "task": "<file>.py:<test>",
     "calls": [{"tool": "...", "arguments": {...}}], "final_message": "...",
     "messages": ["...", ...]}

``task`` is a ThinkingBox task (``<file>.py:<test>``) or an indexed one
(``tau_airline/<i>``). ``messages`` (optional) are the agent's texts to the
user in order, kept for graders that check what the agent said.

Blank lines are skipped. Every other line must fit exactly (unknown keys are
refused, so a typo cannot silently drop data); an error names the file and
the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from benchmark.errors import TrajectoryError

__all__ = ["Trajectory", "TrajectoryCall", "iter_trajectories", "parse_trajectory_line", "read_trajectories"]


class _CallModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class _LineModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1)
    task: str = Field(pattern=r"^(?:[A-Za-z0-9_.-]+\.py:[A-Za-z_][A-Za-z0-9_]*|[a-z_]+/(?:0|[1-9][0-9]*))$")
    calls: list[_CallModel]
    final_message: str = ""
    messages: list[str] = Field(default_factory=list)

    @field_validator("final_message", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


@dataclass(frozen=True, slots=True)
class TrajectoryCall:
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A given trajectory for one task: the calls to replay, the reply and the agent's texts to grade."""

    id: str
    task: str
    calls: tuple[TrajectoryCall, ...]
    final_message: str
    messages: tuple[str, ...] = ()


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        loc = ".".join(str(p) for p in item["loc"]) or "line"
        parts.append(f"{loc}: {item['msg']}")
    return "; ".join(parts)


def parse_trajectory_line(text: str, *, file: Path | str = "<string>", line: int | None = None) -> Trajectory:
    """One line of a trajectory file, validated."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TrajectoryError(
            f"not valid JSON: {exc.msg} (column {exc.colno})", file=file, line=line
        ) from exc
    if not isinstance(raw, dict):
        raise TrajectoryError("a line must be one JSON object", file=file, line=line)
    try:
        parsed = _LineModel.model_validate(raw)
    except ValidationError as exc:
        raise TrajectoryError(_describe(exc), file=file, line=line) from exc
    return Trajectory(
        id=parsed.id,
        task=parsed.task,
        calls=tuple(TrajectoryCall(c.tool, dict(c.arguments)) for c in parsed.calls),
        final_message=parsed.final_message,
        messages=tuple(parsed.messages),
    )


def iter_trajectories(path: Path) -> Iterator[Trajectory]:
    """The trajectories of a file, in order; duplicate ids are refused."""
    if not path.is_file():
        raise TrajectoryError("trajectory file not found", file=path)
    seen: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            trajectory = parse_trajectory_line(text, file=path, line=number)
            if trajectory.id in seen:
                raise TrajectoryError(f"duplicate trajectory id {trajectory.id!r}", file=path, line=number)
            seen.add(trajectory.id)
            yield trajectory


def read_trajectories(path: Path) -> list[Trajectory]:
    """All trajectories of a file; nothing is returned unless every line is valid."""
    return list(iter_trajectories(path))
