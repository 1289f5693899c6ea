"""Decisions as values: findings, verdicts and the context a judge reads.

A judge is a pure function from a :class:`CommitContext` to a :class:`Verdict`.
The commit gate combines verdicts; the strongest decision wins
(``block`` > ``escalate`` > ``allow``). Warnings are findings that do not
change the decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from judges.effects import Effect
from judges.errors import CommitTimeUnknown
from judges.state import Query, StateSnapshot

__all__ = [
    "CallRecord",
    "CommitContext",
    "Decision",
    "Finding",
    "FollowUp",
    "Judge",
    "NamesTables",
    "Severity",
    "Verdict",
    "combine",
    "commit_time",
]


class Decision(StrEnum):
    """What the gate does with a commit."""

    ALLOW = "allow"
    ESCALATE = "escalate"
    BLOCK = "block"

    @property
    def rank(self) -> int:
        return _DECISION_RANK[self]


_DECISION_RANK = {Decision.ALLOW: 0, Decision.ESCALATE: 1, Decision.BLOCK: 2}


class Severity(StrEnum):
    """How much weight a single finding carries."""

    WARN = "warn"
    ESCALATE = "escalate"
    BLOCK = "block"

    @property
    def decision(self) -> Decision:
        return {
            Severity.WARN: Decision.ALLOW,
            Severity.ESCALATE: Decision.ESCALATE,
            Severity.BLOCK: Decision.BLOCK,
        }[self]


@dataclass(frozen=True, slots=True)
class Finding:
    """One reason behind a verdict, worded as status text rather than instruction."""

    judge: str
    severity: Severity
    message: str
    hint: str | None = None
    rule: str | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"judge": self.judge, "severity": self.severity.value, "message": self.message}
        if self.rule is not None:
            out["rule"] = self.rule
        if self.hint is not None:
            out["hint"] = self.hint
        if self.evidence:
            out["evidence"] = dict(self.evidence)
        return out


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one judge, or of the whole chain."""

    decision: Decision
    findings: tuple[Finding, ...] = ()

    @classmethod
    def allow(cls, *warnings: Finding) -> Verdict:
        return cls(Decision.ALLOW, tuple(warnings))

    @classmethod
    def of(cls, findings: Sequence[Finding]) -> Verdict:
        """The verdict that a list of findings amounts to."""
        decision = Decision.ALLOW
        for finding in findings:
            if finding.severity.decision.rank > decision.rank:
                decision = finding.severity.decision
        return cls(decision, tuple(findings))

    @property
    def blocking(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is not Severity.WARN)


def combine(verdicts: Sequence[Verdict]) -> Verdict:
    """Fold verdicts in chain order; findings keep their order, the strongest decision wins."""
    findings: list[Finding] = []
    decision = Decision.ALLOW
    for verdict in verdicts:
        findings.extend(verdict.findings)
        if verdict.decision.rank > decision.rank:
            decision = verdict.decision
    return Verdict(decision, tuple(findings))


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One tool call of the transaction, as the trace judges see it."""

    tool: str
    arguments: Mapping[str, Any]
    write: bool
    ok: bool
    error_class: str | None = None
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class CommitContext:
    """Everything a judge may read: the transaction's effects, its trace, the state it asked for, the time.

    ``now`` is the commit time by the guard's clock (timezone-aware; the
    benchmark's frozen scenario clock there), or None when the caller has no
    clock; a judge that needs it and finds None must not guess (rules fail closed).
    """

    transaction_id: str
    effects: tuple[Effect, ...]
    calls: tuple[CallRecord, ...] = ()
    summary: str = ""
    state: StateSnapshot = field(default_factory=StateSnapshot)
    now: datetime | None = None


@runtime_checkable
class Judge(Protocol):
    """A named, pure check over a commit.

    ``queries`` names the rows of the pending state the judge needs; the gate
    fetches them (by index, never by scanning) before calling the judge, so
    the judge itself does no I/O. A judge that needs more rows once it has
    seen these also implements :class:`FollowUp`.
    """

    @property
    def name(self) -> str: ...

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]: ...

    def __call__(self, context: CommitContext) -> Verdict: ...


@runtime_checkable
class FollowUp(Protocol):
    """The optional second half of a judge's reads: more queries, named from the rows fetched so far.

    After each fetch round the gate calls ``follow_up`` with the commit's
    effects and everything fetched until then (its own queries' rows and
    other judges'), and fetches the queries it names that are not fetched
    yet; an empty answer (or only fetched queries) means the judge has all it
    needs. Pure, like ``queries``; see :mod:`judges.rounds` for the limits.
    """

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]: ...


@runtime_checkable
class NamesTables(Protocol):
    """A judge that says which tables it is written for (``when`` tables, lookups, configured tables).

    The guard checks them against the backend's tables at start: a rule over a
    table the backend does not have would never fire, so the policy would
    fail open without a word.
    """

    @property
    def tables_named(self) -> frozenset[str]: ...


def commit_time(context: CommitContext) -> datetime:
    """The commit time a judge measures its windows from; :class:`CommitTimeUnknown` when there is none."""
    if context.now is None:
        raise CommitTimeUnknown("the commit time is not known (the gate was given no clock)")
    return context.now
