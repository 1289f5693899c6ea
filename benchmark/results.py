"""The results file: one JSON object per trial (``"schema": 1``), and its errors file.

Each line is a :class:`TrialResult`. A trial that failed for reasons of the
harness (the model endpoint was down, the harness raised) has
``system_error`` set; it is counted apart, written to the errors file as
well, and is rerun when the same ``--out`` is run again. Failures caused by
the guard are not system errors: they count against the guarded arm
(``guard_error`` set, ``passed`` false).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark.errors import BenchmarkError

__all__ = [
    "SCHEMA",
    "CommitVerdict",
    "FaultCounts",
    "RubricResult",
    "TokenUsage",
    "TrialKey",
    "TrialResult",
    "read_results",
    "write_result",
]

SCHEMA = 1

Arm = Literal["baseline", "guarded"]
Signature = Literal["tool_usage", "wrong_state_update", "incomplete_resolution", "no_state_change"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RubricResult(_Record):
    question: str
    answer: Literal["yes", "no"] | None = None
    passed: bool | None = None
    error: str | None = Field(
        None, description="Why the rubric could not be judged (no judge model, bad answer)."
    )


class CommitVerdict(_Record):
    """One commit attempt in the guarded arm."""

    via: Literal["tool", "admin"]
    status: str
    decision: str
    findings: list[dict[str, Any]] = Field(default_factory=list)
    effects: int = 0


class TokenUsage(_Record):
    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion


class FaultCounts(_Record):
    """Faults injected into the tool layer during the trial (identical in both arms by seed)."""

    injected: int = 0
    before: int = 0
    after: int = 0
    surfaced: int = Field(0, description="Injected faults the agent saw as a tool error (not recovered).")


TrialKey = tuple[str, str, int]
"""(task, arm, trial): what makes a trial unique within a results file."""


class TrialResult(_Record):
    schema_: int = Field(SCHEMA, alias="schema")
    task: str
    domain: str
    arm: Arm
    trial: int = Field(ge=0)
    seed: int = Field(description="The trial's own seed, derived from run_seed, task and trial.")
    run_seed: int = Field(0, description="The run's --seed.")
    agent: str
    trajectory: str | None = None
    passed: bool
    state_passed: bool = Field(description="The final state's hash equals the golden hash.")
    state_hash: str | None = None
    golden_hash: str | None = None
    diff: list[dict[str, Any]] = Field(default_factory=list)
    rubrics: list[RubricResult] = Field(default_factory=list)
    verdicts: list[CommitVerdict] = Field(default_factory=list)
    signature: Signature | None = None
    tool_calls: int = 0
    tool_errors: int = 0
    retries: int = 0
    commit_attempts: int = 0
    faults: FaultCounts = Field(default_factory=FaultCounts)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    seconds: float = 0.0
    final_message: str = ""
    agent_notes: dict[str, Any] = Field(
        default_factory=dict, description="What the agent reported of itself."
    )
    guard_error: str | None = None
    system_error: str | None = None
    data_ref: str = ""
    task_set_hash: str = ""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @property
    def key(self) -> TrialKey:
        return (self.task, self.arm, self.trial)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), ensure_ascii=False, sort_keys=True)


def write_result(handle: Any, result: TrialResult) -> None:
    handle.write(result.to_json() + "\n")
    handle.flush()


def read_results(path: Path) -> list[TrialResult]:
    """Every trial in a results file, validated; the last record of a trial wins."""
    return list(_latest(_iter(path)).values())


def _iter(path: Path) -> Iterator[TrialResult]:
    if not path.is_file():
        raise BenchmarkError(f"results file not found: {path}")
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BenchmarkError(f"{path}:{number}: not JSON ({exc.msg})") from exc
            if not isinstance(data, dict) or data.get("schema") != SCHEMA:
                raise BenchmarkError(f"{path}:{number}: not a schema {SCHEMA} trial record")
            try:
                yield TrialResult.model_validate(data)
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                where = ".".join(str(p) for p in first["loc"])
                raise BenchmarkError(f"{path}:{number}: {where}: {first['msg']}") from exc


def _latest(results: Iterable[TrialResult]) -> dict[TrialKey, TrialResult]:
    latest: dict[TrialKey, TrialResult] = {}
    for result in results:
        latest[result.key] = result
    return latest
