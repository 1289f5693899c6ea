"""Failure signatures: one label for each failed benchmark trial.

A trial is labelled from three facts: its trace (the tool calls, each a write
or not, each ok or not), the diff of its final state against the golden state
(``diff``), and the diff of its final state against its initial state
(``touched``: what the agent changed). A diff entry is *touched* when its path,
an ancestor or a descendant of it appears in ``touched``: the agent changed
that part of the state, and it still differs from golden.

The rule, first match wins:

1. ``tool_usage`` — the trace holds a failed write never followed by a
   successful call of the same tool: the agent could not get a write through
   and gave up on it.
2. ``no_state_change`` — the final state equals the initial state, and the
   golden state differs from it: the agent changed nothing it had to change.
3. ``wrong_state_update`` — some difference from golden is touched: the agent
   changed a record, or created or deleted one, and got it wrong.
4. ``incomplete_resolution`` — otherwise: every difference is a change the
   agent left out, or the state is right and a rubric said no.

Calling it for a trial that did not fail (no difference, every rubric yes) is
a ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from judges.canonical import CanonicalState, DiffEntry, TableSpec, canonical_state, diff_states
from judges.trace import TraceCall, unrecovered_writes

__all__ = [
    "Signature",
    "SignatureResult",
    "failure_signature",
    "signature_of_canonical",
    "signature_of_states",
]


class Signature(StrEnum):
    TOOL_USAGE = "tool_usage"
    WRONG_STATE_UPDATE = "wrong_state_update"
    INCOMPLETE_RESOLUTION = "incomplete_resolution"
    NO_STATE_CHANGE = "no_state_change"


@dataclass(frozen=True, slots=True)
class SignatureResult:
    """The signature, the rule that chose it, and the tools or diff paths behind it."""

    signature: Signature
    reason: str
    evidence: tuple[str, ...] = ()


def failure_signature(
    calls: Sequence[TraceCall],
    diff: Sequence[DiffEntry],
    touched: Sequence[DiffEntry],
    *,
    rubric_passed: bool = True,
) -> SignatureResult:
    """The signature of a failed trial (see the module docstring for the rule)."""
    if not diff and rubric_passed:
        raise ValueError("the trial did not fail: its state equals golden and every rubric passed")
    unrecovered = [calls[index].tool for index in unrecovered_writes(calls)]
    if unrecovered:
        return SignatureResult(
            Signature.TOOL_USAGE,
            f"{len(unrecovered)} failed write(s) never followed by a successful call of the same tool",
            tuple(unrecovered),
        )
    if not touched and diff:
        return SignatureResult(
            Signature.NO_STATE_CHANGE,
            "the final state equals the initial state; golden differs",
            tuple(entry.path for entry in diff),
        )
    changed = _Touched(entry.path for entry in touched)
    wrong = [entry.path for entry in diff if changed.covers(entry.path)]
    if wrong:
        return SignatureResult(
            Signature.WRONG_STATE_UPDATE,
            f"{len(wrong)} difference(s) from golden in state the agent changed",
            tuple(wrong),
        )
    if diff:
        return SignatureResult(
            Signature.INCOMPLETE_RESOLUTION,
            f"{len(diff)} change(s) golden makes are missing; nothing the agent changed is wrong",
            tuple(entry.path for entry in diff),
        )
    return SignatureResult(Signature.INCOMPLETE_RESOLUTION, "the state equals golden; a rubric said no")


def signature_of_states(
    calls: Sequence[TraceCall],
    *,
    result: Mapping[str, Iterable[Mapping[str, Any]]],
    golden: Mapping[str, Iterable[Mapping[str, Any]]],
    initial: Mapping[str, Iterable[Mapping[str, Any]]],
    specs: Mapping[str, TableSpec] | None = None,
    rubric_passed: bool = True,
) -> SignatureResult:
    """:func:`failure_signature` from the three states (raw rows; canonicalised here with ``specs``)."""
    final = canonical_state(result, specs)
    diff = diff_states(final, canonical_state(golden, specs), specs)
    return signature_of_canonical(
        calls, final, diff, canonical_state(initial, specs), specs, rubric_passed=rubric_passed
    )


def signature_of_canonical(
    calls: Sequence[TraceCall],
    final: CanonicalState,
    diff: Sequence[DiffEntry],
    initial: CanonicalState,
    specs: Mapping[str, TableSpec] | None = None,
    *,
    rubric_passed: bool = True,
) -> SignatureResult:
    """:func:`failure_signature` from canonical states: the final one, its ``diff`` against golden (as
    grading found it), and the initial one (a caller that already holds them canonicalises nothing)."""
    touched = diff_states(final, initial, specs)
    return failure_signature(calls, diff, touched, rubric_passed=rubric_passed)


def _ancestors(path: str) -> list[str]:
    """``t[1].a[0].b`` → ``t``, ``t[1]``, ``t[1].a``, ``t[1].a[0]`` (brackets may hold dots)."""
    out: list[str] = []
    depth = 0
    for index, char in enumerate(path):
        if char == "[":
            if depth == 0 and index > 0:
                out.append(path[:index])
            depth += 1
        elif char == "]":
            depth = max(depth - 1, 0)
        elif char == "." and depth == 0:
            out.append(path[:index])
    return out


class _Touched:
    """Paths the agent changed, answering "is this path, an ancestor or a descendant of it, among them?"."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.exact: set[str] = set()
        self.with_ancestors: set[str] = set()
        for path in paths:
            self.exact.add(path)
            self.with_ancestors.add(path)
            self.with_ancestors.update(_ancestors(path))

    def covers(self, path: str) -> bool:
        if path in self.with_ancestors:
            return True
        return any(ancestor in self.exact for ancestor in _ancestors(path))
