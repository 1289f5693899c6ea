"""Trial results written as strings of passes: ``{"t1": {"baseline": "11000", "guarded": "11111"}}``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from benchmark.results import TokenUsage, TrialResult, write_result

DOMAIN = "sandbox_external_retail"
Spec = Mapping[str, Mapping[str, str]]


def trial(task: str, arm: str, index: int, passed: bool, **fields: Any) -> TrialResult:
    values: dict[str, Any] = {
        "domain": DOMAIN,
        "seed": index,
        "agent": "simulated",
        "state_passed": passed,
        "signature": None if passed else "wrong_state_update",
        "data_ref": "thinkingbox-bench-v1.0@fcaba4c",
        "task_set_hash": "sha256:5e7",
        "tokens": TokenUsage(prompt=1000, completion=100),
    }
    values.update(fields)
    return TrialResult(task=task, arm=arm, trial=index, passed=passed, **values)


def trials(spec: Spec, **fields: Any) -> list[TrialResult]:
    """One trial per character (``1`` passed, ``0`` failed, ``!`` system error) per task and arm."""
    out = []
    for task, arms in spec.items():
        for arm, pattern in arms.items():
            for index, mark in enumerate(pattern):
                extra = dict(fields)
                if mark == "!":
                    extra["system_error"] = "model endpoint unreachable"
                out.append(trial(task, arm, index, mark == "1", **extra))
    return out


def write(path: Path, results: Iterable[TrialResult]) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for result in results:
            write_result(handle, result)
    return path


HAND: Spec = {
    "A": {"baseline": "11111", "guarded": "11111"},
    "B": {"baseline": "11100", "guarded": "11111"},
    "C": {"baseline": "00000", "guarded": "10000"},
    "D": {"baseline": "10100", "guarded": "11100"},
}
"""Four tasks, five trials: baseline c = 5, 3, 0, 2 and guarded c = 5, 5, 1, 3 (see test_metrics)."""


def mixed(tasks: int = 40, *, domains: int = 2, seed: int = 7) -> list[TrialResult]:
    """A deterministic, varied run over several domains (for the report tests)."""
    import random

    rng = random.Random(seed)
    out = []
    signatures = ["tool_usage", "wrong_state_update", "incomplete_resolution", "no_state_change"]
    for number in range(tasks):
        task = f"domain{number % domains}_group1.py:test_case_{number:03d}"
        base = rng.random()
        for arm, p in (("baseline", base), ("guarded", min(1.0, base + 0.25))):
            for index in range(5):
                passed = rng.random() < p
                out.append(
                    trial(
                        task,
                        arm,
                        index,
                        passed,
                        domain=f"domain{number % domains}",
                        signature=None if passed else rng.choice(signatures),
                        tool_calls=4,
                    )
                )
    return out
