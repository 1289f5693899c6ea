"""The trajectory file of ``guard bench --agent replay --trajectories FILE``.

One JSON object a line::

    {"id": "...", "task": "<file>.py:<test>",
     "calls": [{"tool": "...", "arguments": {...}}], "final_message": "...",
     "messages": ["...", ...]}

``task`` is a ThinkingBox task (``<file>.py:<test>``) or an indexed one
(``tau_airline/<i>``). ``messages`` (optional) is either the agent's texts to
the user in order, kept for graders that check what the agent said, or the
conversation in order, each message ``{"role": "user" | "assistant", "text":
"...", "before_call": n}``: said before call ``n`` (0-based; ``n`` = the number
of calls for what was said after the last one). The agent's texts are then its
``assistant`` messages, and the replay agent hands the guard each call's turns
with it and the rest with the commit (:attr:`TrajectoryCall.turns`,
:attr:`Trajectory.final_turns`). The two forms are not mixed: a text has no
place among the calls.

Blank lines are skipped. Every other line must fit exactly (unknown keys are
refused, so a typo cannot silently drop data); an error names the file and
the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from benchmark.errors import TrajectoryError
from judges import Role, Turn

__all__ = ["Trajectory", "TrajectoryCall", "iter_trajectories", "parse_trajectory_line", "read_trajectories"]


class _CallModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class _TurnModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    role: Literal["user", "assistant"]
    text: str
    before_call: int = Field(ge=0)


def _kind(value: Any) -> str:
    return "turn" if isinstance(value, dict) else "text"


_TAGS = ("text", "turn")
_Message = Annotated[Annotated[str, Tag("text")] | Annotated[_TurnModel, Tag("turn")], Discriminator(_kind)]


class _LineModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1)
    task: str = Field(pattern=r"^(?:[A-Za-z0-9_.-]+\.py:[A-Za-z_][A-Za-z0-9_]*|[a-z_]+/(?:0|[1-9][0-9]*))$")
    calls: list[_CallModel]
    final_message: str = ""
    messages: list[_Message] = Field(default_factory=list)

    @field_validator("final_message", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value

    @model_validator(mode="after")
    def _turns_in_order(self) -> _LineModel:
        if len({type(message) for message in self.messages}) > 1:
            raise ValueError("messages: either the agent's texts or the conversation's turns, not both")
        last = 0
        for index, message in enumerate(self.messages):
            if not isinstance(message, _TurnModel):
                continue
            if not last <= message.before_call <= len(self.calls):
                raise ValueError(
                    f"messages[{index}].before_call {message.before_call}: the turns are in order, each "
                    f"before one of the {len(self.calls)} calls or after the last ({len(self.calls)})"
                )
            last = message.before_call
        return self


@dataclass(frozen=True, slots=True)
class TrajectoryCall:
    """One call to replay, with the turns said since the previous one (empty when none or not known)."""

    tool: str
    arguments: dict[str, Any]
    turns: tuple[Turn, ...] = ()


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A given trajectory for one task: the calls to replay, the reply and the agent's texts to grade.

    ``final_turns`` are the turns said after the last call; None when the trajectory holds no
    conversation (then its calls' turns are empty and nothing is handed over).
    """

    id: str
    task: str
    calls: tuple[TrajectoryCall, ...]
    final_message: str
    messages: tuple[str, ...] = ()
    final_turns: tuple[Turn, ...] | None = None


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        path = item["loc"]
        # a message's kind (text or turn) is not a place in the line
        kept = [p for i, p in enumerate(path) if not (p in _TAGS and i and isinstance(path[i - 1], int))]
        loc = ".".join(str(p) for p in kept) or "line"
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
    texts = [m for m in parsed.messages if isinstance(m, str)]
    turns = [m for m in parsed.messages if isinstance(m, _TurnModel)]
    said: list[list[Turn]] = [[] for _ in range(len(parsed.calls) + 1)]
    for turn in turns:
        said[turn.before_call].append(Turn(Role(turn.role), turn.text))
    return Trajectory(
        id=parsed.id,
        task=parsed.task,
        calls=tuple(
            TrajectoryCall(c.tool, dict(c.arguments), tuple(said[i])) for i, c in enumerate(parsed.calls)
        ),
        final_message=parsed.final_message,
        messages=tuple(texts) or tuple(t.text for t in turns if t.role == "assistant"),
        final_turns=tuple(said[-1]) if turns else None,
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
