"""Reading tau-bench's airline folder: its fifty tasks and its scenario.

The folder (``--data``) holds the initial database (``users.json``,
``reservations.json``, ``flights.json``: the airline domain's seeds),
``tasks.json`` (tau-bench's test tasks in order: ``id``, ``user_id``,
``instruction``, ``actions``, ``outputs``), ``policy.md`` (the agent's policy)
and ``tool_interfaces.json`` (the tools' names and parameters).

Task ``i`` is ``tau_airline/<i>``: its golden trajectory is its actions in
order (``transfer_to_human_agents`` included: it changes nothing, so the
golden state is the one tau-bench replays without it), its required outputs
are ``outputs``, and the simulated customer's instruction is both its query
and its private context. Every problem is one :class:`DatasetError` naming
the file and, where there is one, the task.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmark.dataset.model import GoldenCall, Provenance, Scenario, Task
from benchmark.errors import DatasetError

__all__ = ["DOMAIN", "FILES", "is_tau_airline", "load_tau_tasks", "task_id", "tau_provenance", "tau_scenario"]

DOMAIN = "tau_airline"
FILES = ("users.json", "reservations.json", "flights.json", "tasks.json", "policy.md", "tool_interfaces.json")
"""What a tau-bench airline folder holds."""

_TASK_ID = re.compile(rf"^{DOMAIN}/(?P<index>0|[1-9][0-9]*)$")
_COMMIT = re.compile(r"last commit \(([0-9a-f]{7,40})\)")


def is_tau_airline(data_dir: Path) -> bool:
    """Whether ``data_dir`` is a tau-bench airline folder (its tasks and its three seed files)."""
    return all((data_dir / name).is_file() for name in ("tasks.json", "flights.json", "users.json"))


def task_id(index: int) -> str:
    return f"{DOMAIN}/{index}"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DatasetError("not found in the tau-bench airline folder", file=path) from exc
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"not valid JSON: {exc}", file=path) from exc


def _golden(raw: Any, *, file: Path, task: str) -> tuple[GoldenCall, ...]:
    if not isinstance(raw, list):
        raise DatasetError("'actions' is not a list", file=file, task=task)
    calls = []
    for index, action in enumerate(raw):
        if not (
            isinstance(action, Mapping)
            and isinstance(action.get("name"), str)
            and isinstance(action.get("kwargs"), Mapping)
        ):
            raise DatasetError(f"action {index} is not {{name, kwargs}}", file=file, task=task)
        calls.append(GoldenCall(action["name"], dict(action["kwargs"])))
    return tuple(calls)


def _task(raw: Any, position: int, file: Path) -> Task:
    if not isinstance(raw, Mapping) or raw.get("id") != position:
        raise DatasetError(f"entry {position} is not a task with id {position}", file=file)
    name = task_id(position)
    instruction = raw.get("instruction")
    outputs = raw.get("outputs", [])
    if not isinstance(instruction, str):
        raise DatasetError("'instruction' is missing or not text", file=file, task=name)
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise DatasetError("'outputs' is not a list of text", file=file, task=name)
    return Task(
        id=name,
        domain=DOMAIN,
        file=file.name,
        test=f"task_{position}",
        query=instruction,
        user_context=instruction,
        data_patch={},
        golden=_golden(raw.get("actions"), file=file, task=name),
        outputs=tuple(outputs),
    )


@lru_cache(maxsize=4)
def _all_tasks(path: Path, mtime_ns: int) -> tuple[Task, ...]:
    del mtime_ns  # part of the cache key only
    raw = _read_json(path)
    if not isinstance(raw, list):
        raise DatasetError("tasks.json is a JSON list of tasks", file=path)
    return tuple(_task(entry, position, path) for position, entry in enumerate(raw))


def load_tau_tasks(
    data_dir: Path, *, task_ids: Sequence[str] | None = None, limit: int | None = None
) -> tuple[Task, ...]:
    """The selected tasks (``tau_airline/<i>``), all of them in order when none are named."""
    path = data_dir / "tasks.json"
    if not path.is_file():
        raise DatasetError("not a tau-bench airline folder (no tasks.json)", file=data_dir)
    tasks = _all_tasks(path.resolve(), path.stat().st_mtime_ns)
    if task_ids is None:
        selected = list(tasks)
    else:
        selected = []
        for name in task_ids:
            match = _TASK_ID.match(name)
            if match is None or int(match["index"]) >= len(tasks):
                raise DatasetError(f"no such task {name!r} (tau_airline/0 … tau_airline/{len(tasks) - 1})")
            selected.append(tasks[int(match["index"])])
    return tuple(selected[:limit] if limit is not None else selected)


def tau_provenance(data_dir: Path) -> Provenance:
    """The tau-bench commit the folder's README names."""
    readme = data_dir / "README.md"
    text = readme.read_text(encoding="utf-8", errors="replace") if readme.is_file() else ""
    found = _COMMIT.search(text)
    if found is None:
        return Provenance("unknown", "no tau-bench commit in the folder's README")
    return Provenance(f"tau-bench@{found[1]}", "data README")


def tau_scenario(data_dir: Path) -> Scenario:
    """The airline's scenario: the tools of ``tool_interfaces.json``, the policy as its instructions."""
    interfaces = _read_json(data_dir / "tool_interfaces.json")
    path = data_dir / "tool_interfaces.json"
    if not isinstance(interfaces, list):
        raise DatasetError("a JSON list of tools", file=path)
    names = [tool.get("name") if isinstance(tool, Mapping) else None for tool in interfaces]
    if not all(isinstance(name, str) for name in names):
        raise DatasetError("a tool without a name", file=path)
    policy = data_dir / "policy.md"
    try:
        instructions = policy.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read the policy: {exc}", file=policy) from exc
    return Scenario(
        domain=DOMAIN, tools=tuple(str(n) for n in names), bot_instructions=instructions, sources=()
    )
