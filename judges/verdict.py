"""Decisions as values: findings, verdicts and the context a judge reads.

A judge is a pure function from a :class:`CommitContext` to a :class:`Verdict`.
The commit gate combines verdicts; the strongest decision wins
(``block`` > ``escalate`` > ``allow``). Warnings are findings that do not
change the decision.

A verdict's decision is what its enforced findings say: never below the
strongest of them (a verdict that understates them is raised where a
judge's answer enters the chain, :meth:`Verdict.explained`, so
``Verdict(ALLOW, [block finding])`` blocks), and a decision above them is
explained by a finding of its own.

Shadow mode: a finding whose :class:`Mode` is ``shadow`` is kept in its
verdict but never counts toward the decision; :attr:`Verdict.would_decide`
is the decision had it been enforced. A finding's mode is the one its rule
declares, else its judge's (``judges.chain[i].mode``), else the guard's
(``commit.mode``); :func:`in_modes` settles the last two. A finding whose
mode is not settled (None) is enforced.

Failing closed in every mode: a judge that cannot answer stands for every
finding it could have given. A judge says which modes its findings may
declare (:class:`DeclaresModes`; a rule pack, its rules' modes), and its
failure finding takes :func:`failure_mode`: enforced whatever the guard's
mode when one of them says enforce, the guard's when one follows it, and
shadowed only when every one would be shadowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
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
    "DeclaresModes",
    "Finding",
    "FollowUp",
    "Judge",
    "Mode",
    "NamesTables",
    "Role",
    "Severity",
    "Turn",
    "Verdict",
    "combine",
    "commit_time",
    "failure_mode",
    "finding_modes",
    "in_modes",
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
        return _SEVERITY_DECISION[self]


# built once: the gate reads a finding's decision for every finding of every verdict
_SEVERITY_DECISION = {
    Severity.WARN: Decision.ALLOW,
    Severity.ESCALATE: Decision.ESCALATE,
    Severity.BLOCK: Decision.BLOCK,
}


class Mode(StrEnum):
    """Whether a finding acts (``enforce``) or is only recorded (``shadow``)."""

    ENFORCE = "enforce"
    SHADOW = "shadow"


@dataclass(frozen=True, slots=True)
class Finding:
    """One reason behind a verdict, worded as status text rather than instruction.

    ``mode`` is the mode its rule or judge declared, None when it follows the
    guard's; serialised as ``"shadow": true`` when shadowed, and not otherwise.
    """

    judge: str
    severity: Severity
    message: str
    hint: str | None = None
    rule: str | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)
    mode: Mode | None = None

    @property
    def shadow(self) -> bool:
        """Recorded, not acted on: it does not count toward its verdict's decision."""
        return self.mode is Mode.SHADOW

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"judge": self.judge, "severity": self.severity.value, "message": self.message}
        if self.rule is not None:
            out["rule"] = self.rule
        if self.hint is not None:
            out["hint"] = self.hint
        if self.evidence:
            out["evidence"] = dict(self.evidence)
        if self.shadow:
            out["shadow"] = True
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
        """The verdict that a list of findings amounts to (shadowed findings do not count)."""
        return cls(_strongest(f for f in findings if not f.shadow), tuple(findings))

    @property
    def blocking(self) -> tuple[Finding, ...]:
        """The findings that stop a commit when enforced (shadowed ones included): not warnings."""
        return tuple(f for f in self.findings if f.severity is not Severity.WARN)

    @property
    def would_decide(self) -> Decision:
        """The decision had the shadowed findings been enforced."""
        shadowed = _strongest(f for f in self.findings if f.shadow)
        return shadowed if shadowed.rank > self.decision.rank else self.decision

    def explained(self, judge: str, mode: Mode | None = None) -> Verdict:
        """This verdict, as judge ``judge`` answered it, with the decision its findings say.

        Never below the strongest finding not shadowed (``Verdict(ALLOW, [block])``
        blocks); a decision above them gets a finding of ``judge`` that says so,
        in ``mode`` (the judge's :func:`failure_mode`), so that a judge whose
        findings would all be shadowed does not decide by its bare decision.
        Returns ``self`` when the decision already is what the findings say.
        """
        said = _strongest(f for f in self.findings if not f.shadow)
        if said is self.decision:
            return self
        if said.rank > self.decision.rank:
            return Verdict(said, self.findings)
        message = f"judge {judge} decided {self.decision.value} without a finding that says why"
        return Verdict.of([*self.findings, Finding(judge, _SEVERITY[self.decision], message, mode=mode)])


def _strongest(findings: Iterable[Finding], floor: Decision = Decision.ALLOW) -> Decision:
    decision = floor
    for finding in findings:
        if finding.severity.decision.rank > decision.rank:
            decision = finding.severity.decision
    return decision


_SEVERITY = {Decision.ESCALATE: Severity.ESCALATE, Decision.BLOCK: Severity.BLOCK}


@runtime_checkable
class DeclaresModes(Protocol):
    """A judge that says which modes its findings may declare (None: a finding that declares none).

    The chain reads it to settle the judge's failures (:func:`failure_mode`).
    A judge that does not say is taken to give only findings that declare no
    mode (they follow its chain entry's mode, else the guard's), as the
    built-in trace judges do; a judge whose findings declare a mode must say
    so, or its failures would follow the guard's mode where its findings would not.
    """

    @property
    def finding_modes(self) -> frozenset[Mode | None]: ...


_FOLLOWS: frozenset[Mode | None] = frozenset({None})


def finding_modes(judge: object) -> frozenset[Mode | None]:
    """The modes ``judge``'s findings may declare: its :class:`DeclaresModes` answer, else ``{None}``."""
    # duck-typed: isinstance against a runtime-checkable protocol costs tens of µs a judge
    modes = getattr(judge, "finding_modes", None)
    return modes if isinstance(modes, frozenset) else _FOLLOWS


def failure_mode(judges: Iterable[object]) -> Mode | None:
    """The mode of a finding that stands for what ``judges`` could not say, because they failed.

    ``enforce`` when a finding of theirs may say enforce (it would have acted
    whatever the guard's mode); None, the guard's mode, when one may follow
    it; else ``shadow``: every finding they could give would be shadowed
    (also when they give none), so their failure is recorded and decides nothing.
    """
    modes: set[Mode | None] = set()
    for judge in judges:
        modes |= finding_modes(judge)
    if Mode.ENFORCE in modes:
        return Mode.ENFORCE
    return None if None in modes else Mode.SHADOW


def in_modes(verdict: Verdict, judges: Mapping[str, Mode], default: Mode) -> Verdict:
    """``verdict`` with each unsettled finding's mode settled and the decision taken again.

    A finding keeps the mode its rule declared; else it takes its judge's
    (``judges``, by judge name), else ``default`` (the guard's). Only a
    shadow is written down: an unsettled finding is enforced. The decision
    is the strongest enforced finding's, and never below what the verdict
    decided beyond its findings (a judge that blocked without a finding;
    the chain explains those first, :meth:`Verdict.explained`). A failure
    finding comes already settled by :func:`failure_mode` where it can be.
    """
    if default is Mode.ENFORCE and Mode.SHADOW not in judges.values():
        return verdict
    findings = tuple(
        replace(f, mode=Mode.SHADOW) if f.mode is None and judges.get(f.judge, default) is Mode.SHADOW else f
        for f in verdict.findings
    )
    unexplained = verdict.decision if verdict.decision.rank > _strongest(verdict.findings).rank else None
    decision = _strongest((f for f in findings if not f.shadow), unexplained or Decision.ALLOW)
    return Verdict(decision, findings)


def combine(verdicts: Sequence[Verdict]) -> Verdict:
    """Fold verdicts in chain order; findings keep their order, the strongest decision wins.

    Shadowed findings are kept and count for nothing: each verdict's decision
    already leaves them out (:meth:`Verdict.of`, :func:`in_modes`).
    """
    findings: list[Finding] = []
    decision = Decision.ALLOW
    for verdict in verdicts:
        findings.extend(verdict.findings)
        if verdict.decision.rank > decision.rank:
            decision = verdict.decision
    return Verdict(decision, tuple(findings))


class Role(StrEnum):
    """Who said a turn of the conversation."""

    USER = "user"
    ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of the conversation the agent's host handed the guard: who said it, and the text."""

    role: Role
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role.value, "text": self.text}


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One tool call of the transaction, as the trace judges see it.

    ``turns`` are the turns of the conversation said since the previous call (the agent's listing of
    what it is about to do, the user's answer), when the host hands them over; empty otherwise.
    """

    tool: str
    arguments: Mapping[str, Any]
    write: bool
    ok: bool
    error_class: str | None = None
    error_message: str | None = None
    turns: tuple[Turn, ...] = ()


@dataclass(frozen=True, slots=True)
class CommitContext:
    """Everything a judge may read: the transaction's effects, its trace, the state it asked for, the time.

    ``now`` is the commit time by the guard's clock (timezone-aware; the
    benchmark's frozen scenario clock there), or None when the caller has no
    clock; a judge that needs it and finds None must not guess (rules fail closed).
    ``principal`` is the agent whose transaction it is (the guard's agent name),
    empty when the caller has none; ``claims`` are the claims of its token the
    guard keeps (a verified JWT's), empty for a static token. ``conversation`` is every turn the host handed
    over for the transaction, in order (those of each call, then those sent with the
    commit), or None when the host hands none: a judge that needs it and finds None
    must say so and not decide on its absence.
    """

    transaction_id: str
    effects: tuple[Effect, ...]
    calls: tuple[CallRecord, ...] = ()
    summary: str = ""
    state: StateSnapshot = field(default_factory=StateSnapshot)
    now: datetime | None = None
    principal: str = ""
    conversation: tuple[Turn, ...] | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)


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
