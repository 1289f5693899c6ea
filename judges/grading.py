"""The benchmark's grading judge: the final state against the golden state.

A trial's state passes when the canonical hash of its final state equals the
golden hash (unstable fields left out, per :class:`~judges.canonical.TableSpec`).
The diff explains a failure record by record. The guard never calls this: it
never sees golden data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from judges.canonical import DiffEntry, TableSpec, canonical_state, diff_states, state_hash

__all__ = ["StateGrade", "grade_state"]


@dataclass(frozen=True, slots=True)
class StateGrade:
    passed: bool
    result_hash: str
    golden_hash: str
    diff: tuple[DiffEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "state_hash": self.result_hash,
            "golden_hash": self.golden_hash,
            "diff": [entry.to_dict() for entry in self.diff],
        }


def grade_state(
    result: Mapping[str, Iterable[Mapping[str, Any]]],
    golden: Mapping[str, Iterable[Mapping[str, Any]]],
    specs: Mapping[str, TableSpec] | None = None,
) -> StateGrade:
    """Hash both states; diff them only when the hashes differ."""
    final = canonical_state(result, specs)
    expected = canonical_state(golden, specs)
    result_hash = state_hash(final)
    golden_hash = state_hash(expected)
    diff = () if result_hash == golden_hash else tuple(diff_states(final, expected, specs))
    return StateGrade(result_hash == golden_hash, result_hash, golden_hash, diff)
