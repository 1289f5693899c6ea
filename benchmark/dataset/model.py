"""What a benchmark task and its scenario are, once read from the data checkout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["GoldenCall", "PolicySource", "Provenance", "Rubric", "Scenario", "Task", "TaskSet"]


@dataclass(frozen=True, slots=True)
class GoldenCall:
    """One call of a task's golden trajectory."""

    tool: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Rubric:
    """A yes/no question an LLM judge asks about the final reply."""

    question: str


@dataclass(frozen=True, slots=True)
class Task:
    """One benchmark task: ``<file>.py:<test>`` with its private data.

    ``data_patch`` maps the benchmark's table names to the rows upserted over
    the domain's seed rows. ``golden`` is the trajectory that defines the
    expected end state. ``outputs`` are texts the agent must say (tau-bench's
    grading: each appears in one of its messages, compared lower-cased with
    commas removed).
    """

    id: str
    domain: str
    file: str
    test: str
    query: str
    user_context: str
    data_patch: Mapping[str, list[dict[str, Any]]]
    golden: tuple[GoldenCall, ...]
    rubrics: tuple[Rubric, ...] = ()
    outputs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PolicySource:
    """One knowledge-base document of a scenario (a policy manual section)."""

    name: str
    snippets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Scenario:
    """A domain's scenario: the tools shown to the agent, its instructions and policy sources."""

    domain: str
    tools: tuple[str, ...]
    bot_instructions: str
    sources: tuple[PolicySource, ...]


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where the data came from: a git tag or commit when known, and how we know it."""

    ref: str
    how: str

    def __str__(self) -> str:
        return f"{self.ref} ({self.how})"


@dataclass(frozen=True, slots=True)
class TaskSet:
    """A selection of tasks, with the data's provenance and a content hash of the selection."""

    tasks: tuple[Task, ...]
    provenance: Provenance
    content_hash: str

    def __iter__(self) -> Any:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)

    def by_id(self) -> dict[str, Task]:
        return {task.id: task for task in self.tasks}
