"""judges: the pure checks shared by the commit gate and the benchmark grader.

Effects, canonical state hashing and diff, verdicts and the judge protocol,
rule packs, trace judges, the error classifier, failure signatures and the
rubric judge. Nothing here imports ``guard`` or ``benchmark``; the only I/O is
the model seam of the rubric judge.
"""

from judges.canonical import (
    CanonicalState,
    DiffEntry,
    TableSpec,
    canonical_json,
    canonical_state,
    canonical_value,
    diff_states,
    state_hash,
)
from judges.effects import Effect, EffectKind, RowChange, call_effect, diff_fields, effects_between, fold_changes
from judges.state import MemoryState, Query, Row, StateReader, StateSnapshot
from judges.verdict import CallRecord, CommitContext, Decision, Finding, Judge, Severity, Verdict, combine

__all__ = [
    "CallRecord",
    "CanonicalState",
    "CommitContext",
    "Decision",
    "DiffEntry",
    "Effect",
    "EffectKind",
    "Finding",
    "Judge",
    "MemoryState",
    "Query",
    "Row",
    "RowChange",
    "Severity",
    "StateReader",
    "StateSnapshot",
    "TableSpec",
    "Verdict",
    "call_effect",
    "canonical_json",
    "canonical_state",
    "canonical_value",
    "combine",
    "diff_fields",
    "diff_states",
    "effects_between",
    "fold_changes",
    "state_hash",
]
