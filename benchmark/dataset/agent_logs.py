"""Agent logs as trajectories: our JSONL file, or a tau-bench results file, told apart by content.

:func:`read_agent_logs` reads either format into :class:`Trajectory` values:

* a file whose first non-blank character is ``[`` is one JSON list in
  tau-bench's results format, each entry ``{"task_id": <int>, "traj":
  [<message>, ...], ...}`` (``reward``, ``info``, ``trial`` and other keys
  are ignored), ``traj`` being OpenAI-style chat messages;
* anything else is our JSONL format (:mod:`benchmark.dataset.trajectories`).

From a tau-bench entry, the calls are the ``tool_calls`` of its assistant
messages in order, each ``function.arguments`` parsed from its JSON text to
an object; the agent's texts (``messages``) are the non-blank contents of its
assistant messages in order, the last of them being the final message. The
conversation is the non-blank user and assistant texts in order (the system
prompt and tool results are not turns): each call's turns are those said since
the previous call (an assistant message's text comes before its own calls; a
second call of one message has none), and the turns after the last call are
the trajectory's final turns, handed over with the commit. Run
``n`` of task ``t`` (``n`` counting that task's entries in file order from 0)
is the trajectory ``tau_airline/<t>#<n>`` of task ``tau_airline/<t>``, so
trial ``n`` of the task plays it. Tool results in the log are not used: the
benchmark replays the calls on its own world.

A file that does not fit raises one :class:`TrajectoryError` naming the file
and the entry (by its index in the list) or the line, and what is wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from benchmark.dataset.tau_airline import task_id as tau_task_id
from benchmark.dataset.trajectories import Trajectory, TrajectoryCall, read_trajectories
from benchmark.errors import TrajectoryError
from judges import Role, Turn

__all__ = ["parse_tau_results", "read_agent_logs"]


class _Function(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)

    @field_validator("arguments", mode="before")
    @classmethod
    def _parsed(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value  # an object already; anything else is refused as not an object
        if not value.strip():
            return {}
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not valid JSON ({exc.msg}, column {exc.colno})") from exc
        if not isinstance(parsed, dict):
            raise ValueError("not a JSON object")
        return parsed


class _ToolCall(BaseModel):
    model_config = ConfigDict(extra="ignore")

    function: _Function


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: str
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[_ToolCall] | None = None

    def text(self) -> str:
        """The message's text: its content, or the text parts of a multi-part content."""
        if isinstance(self.content, list):
            return "".join(str(part.get("text", "")) for part in self.content if part.get("type") == "text")
        return self.content or ""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    task_id: int = Field(ge=0, strict=True)
    traj: list[_Message]


def _problem(error: ValidationError) -> str:
    """The first thing wrong with an entry, as ``where: what``."""
    first = error.errors(include_url=False)[0]
    where = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in first["loc"]).replace(".[", "[")
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT}


def _trajectory(entry: _Entry, run: int) -> Trajectory:
    calls: list[TrajectoryCall] = []
    said: list[Turn] = []
    for message in entry.traj:
        role = _ROLES.get(message.role)
        if role is None:
            continue
        if message.text().strip():
            said.append(Turn(role, message.text()))
        for call in message.tool_calls or () if role is Role.ASSISTANT else ():
            calls.append(TrajectoryCall(call.function.name, dict(call.function.arguments), tuple(said)))
            said = []
    texts = [turn.text for call in calls for turn in call.turns if turn.role is Role.ASSISTANT]
    texts += [turn.text for turn in said if turn.role is Role.ASSISTANT]
    task = tau_task_id(entry.task_id)
    return Trajectory(
        id=f"{task}#{run}",
        task=task,
        calls=tuple(calls),
        final_message=texts[-1] if texts else "",
        messages=tuple(texts),
        final_turns=tuple(said),
    )


def parse_tau_results(raw: Any, *, file: Path | str = "<string>") -> list[Trajectory]:
    """The trajectories of a tau-bench results document (already decoded from JSON)."""
    if not isinstance(raw, list):
        raise TrajectoryError("a tau-bench results file is one JSON list of runs", file=file)
    runs: dict[int, int] = {}
    out: list[Trajectory] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise TrajectoryError(f"entry {index}: not a JSON object", file=file)
        try:
            entry = _Entry.model_validate(item)
        except ValidationError as exc:
            raise TrajectoryError(f"entry {index}: {_problem(exc)}", file=file) from exc
        run = runs.get(entry.task_id, 0)
        runs[entry.task_id] = run + 1
        out.append(_trajectory(entry, run))
    return out


def read_agent_logs(path: Path) -> list[Trajectory]:
    """Every trajectory of a file in either format; nothing is returned unless all of it is valid."""
    if not path.is_file():
        raise TrajectoryError("trajectory file not found", file=path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TrajectoryError(f"cannot read: {exc}", file=path) from exc
    if not text.lstrip().startswith("["):
        return read_trajectories(path)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TrajectoryError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", file=path
        ) from exc
    return parse_tau_results(raw, file=path)
