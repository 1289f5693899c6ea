"""Trace judges: checks over the calls a transaction made and the effects it would leave.

* :class:`FailedWriteJudge` — a write that failed and was never followed by a
  successful call of the same tool (optionally: on the same target, named by
  some of its arguments); it blocks when the commit changes what the write
  named (or nothing, or the rest of the same request) and warns otherwise.
* :class:`DuplicateEffectJudge` — two inserts (or two buffered calls) into the
  same table whose rows are equal apart from their keys and declared fields.
* :class:`NonTerminalStatusJudge` — a record the transaction inserted or
  updated, left in a status the domain declares non-terminal.
* :class:`NoEffectJudge` — a commit with no effects although writes were
  attempted and failed (or, when configured, although the summary claims a change).

Each is configured per domain, reads only ``CommitContext.calls``,
``effects`` and (the failed write, when given) ``conversation``, and needs no
rows from the state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from judges.canonical import canonical_json, canonical_value
from judges.effects import Effect, EffectKind
from judges.state import Query
from judges.verdict import CallRecord, CommitContext, Finding, Role, Severity, Verdict

__all__ = [
    "DEFAULT_CLAIMS",
    "DuplicateEffectJudge",
    "FailedWriteJudge",
    "NoEffectJudge",
    "NonTerminalStatusJudge",
    "StatusSpec",
    "TraceCall",
    "unrecovered_writes",
]


class TraceCall(Protocol):
    """What trace checks read of a call (:class:`~judges.verdict.CallRecord` has it)."""

    @property
    def tool(self) -> str: ...

    @property
    def write(self) -> bool: ...

    @property
    def ok(self) -> bool: ...


_Call = TypeVar("_Call", bound=TraceCall)


def unrecovered_writes(
    calls: Sequence[_Call], target: Callable[[_Call], Hashable] | None = None
) -> list[int]:
    """Indices of failed writes with no later successful call of the same tool (and the same target).

    A failed repeat of a write that already succeeded with the very same
    arguments is not unrecovered either: what it asked for is done (an agent
    that sends a create twice sees "already exists" the second time).
    """
    unrecovered: list[int] = []
    for index, call in enumerate(calls):
        if not call.write or call.ok:
            continue
        aim = target(call) if target is not None else None
        recovered = any(
            later.ok and later.tool == call.tool and (target is None or target(later) == aim)
            for later in calls[index + 1 :]
        )
        arguments = getattr(call, "arguments", None)
        repeated = arguments is not None and any(
            earlier.ok and earlier.tool == call.tool and getattr(earlier, "arguments", None) == arguments
            for earlier in calls[:index]
        )
        if not recovered and not repeated:
            unrecovered.append(index)
    return unrecovered


def _describe(call: CallRecord) -> str:
    detail = call.error_class or "error"
    if call.error_message:
        detail += f": {call.error_message}"
    return detail


@dataclass(frozen=True, slots=True)
class FailedWriteJudge:
    """A failed write with no later successful call of the same tool (and the same ``targets`` arguments).

    Such a write is judged by what the commit would keep. It holds ``severity`` (a block by default)
    when the commit changes a record the failed call names (the values of its ``targets`` arguments,
    or of all its scalar arguments, matched against the changed rows' keys and the buffered calls'
    arguments), when the commit changes nothing at all (the failure is then all the transaction did),
    or, given the conversation, when a write of the same request succeeded (no user turn between the
    two: one request the user made, half done). A failed write elsewhere is ``elsewhere`` (a
    warning): the agent tried something, it failed, and it went on to other work the commit holds.
    """

    name: str = "failed_write"
    severity: Severity = Severity.BLOCK
    targets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    elsewhere: Severity = Severity.WARN

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        unrecovered = unrecovered_writes(context.calls, self._target)
        if not unrecovered:
            return Verdict.allow()
        changed = _changed_names(context.effects)
        requests = _requests(context.calls) if context.conversation is not None else None
        for index in unrecovered:
            call = context.calls[index]
            where = "".join(f" {name}={value!r}" for name, value in self._target(call))
            named = sorted(self._names(call) & changed)
            severity, why = self.severity, ""
            if named:
                why = f"; the commit changes {', '.join(named)}"
            elif not context.effects:
                why = "; the commit changes nothing else"
            elif requests is not None and (done := _same_request(context.calls, requests, index)):
                why = f"; {done} of the same request succeeded"
            else:
                severity, why = self.elsewhere, "; the commit changes none of the records it names"
            findings.append(
                Finding(
                    self.name,
                    severity,
                    f"write {call.tool}{where} failed ({_describe(call)});"
                    f" no later {call.tool} call succeeded{why}",
                    evidence={"tool": call.tool, "call": index, "error_class": call.error_class},
                )
            )
        return Verdict.of(findings)

    def _target(self, call: CallRecord) -> tuple[tuple[str, Any], ...]:
        names = self.targets.get(call.tool, ())
        return tuple((name, _hashable(call.arguments.get(name))) for name in names)

    def _names(self, call: CallRecord) -> frozenset[str]:
        names = self.targets.get(call.tool)
        values = call.arguments.values() if names is None else (call.arguments.get(n) for n in names)
        return frozenset(_scalar_names(values))


def _scalar_names(values: Iterable[Any]) -> Iterator[str]:
    """The values that can name a record (strings and integers, not booleans), as text."""
    for value in values:
        if (isinstance(value, str) and value) or (isinstance(value, int) and not isinstance(value, bool)):
            yield str(value)


def _changed_names(effects: Sequence[Effect]) -> frozenset[str]:
    """What names a record the commit changes: changed rows' key parts, buffered calls' arguments."""
    names: set[str] = set()
    for effect in effects:
        if effect.kind is EffectKind.CALL:
            names.update(_scalar_names((effect.after or {}).values()))
        else:
            names.update(_scalar_names(effect.key))
    return frozenset(names)


def _requests(calls: Sequence[CallRecord]) -> list[int]:
    """The request each call answers: a count of the calls, up to it, that followed a user turn."""
    requests, current = [], 0
    for call in calls:
        if any(turn.role is Role.USER for turn in call.turns):
            current += 1
        requests.append(current)
    return requests


def _same_request(calls: Sequence[CallRecord], requests: Sequence[int], index: int) -> str | None:
    """The tool of a successful write made for the same request as call ``index``, if there is one."""
    for other, call in enumerate(calls):
        if other != index and call.write and call.ok and requests[other] == requests[index]:
            return call.tool
    return None


def _hashable(value: Any) -> Any:
    return canonical_json(canonical_value(value)) if isinstance(value, (dict, list)) else value


@dataclass(frozen=True, slots=True)
class DuplicateEffectJudge:
    """Inserts or buffered calls on one table with equal rows once ``ignore`` fields are set aside.

    ``ignore`` maps a table (or ``*`` for every table) to the fields that do
    not count: its key and whatever else differs between true duplicates
    (timestamps, generated references).
    """

    name: str = "duplicate_effect"
    severity: Severity = Severity.BLOCK
    ignore: Mapping[str, frozenset[str]] = field(default_factory=lambda: {"*": frozenset({"id"})})

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        first: dict[tuple[str, str], Effect] = {}
        for effect in context.effects:
            if effect.kind not in (EffectKind.INSERT, EffectKind.CALL) or effect.after is None:
                continue
            ignored = self.ignore.get("*", frozenset()) | self.ignore.get(effect.table, frozenset())
            row = {name: value for name, value in effect.after.items() if name not in ignored}
            fingerprint = (effect.table, canonical_json(canonical_value(row)))
            original = first.setdefault(fingerprint, effect)
            if original is effect:
                continue
            findings.append(
                Finding(
                    self.name,
                    self.severity,
                    f"{effect.table} {effect.key_text} duplicates {original.table} {original.key_text}"
                    f" (equal apart from {', '.join(sorted(ignored)) or 'nothing'})",
                    evidence={
                        "table": effect.table,
                        "key": effect.key_text,
                        "duplicate_of": original.key_text,
                    },
                )
            )
        return Verdict.of(findings)


@dataclass(frozen=True, slots=True)
class StatusSpec:
    """Where a table keeps its status and which values are terminal.

    Give ``terminal`` (every other value is non-terminal) or ``non_terminal``
    (every other value is terminal).
    """

    field: str = "status"
    terminal: frozenset[str] | None = None
    non_terminal: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if (self.terminal is None) == (self.non_terminal is None):
            raise ValueError("give exactly one of terminal or non_terminal")

    def is_terminal(self, value: Any) -> bool:
        if self.terminal is not None:
            return value in self.terminal
        assert self.non_terminal is not None
        return value not in self.non_terminal


@dataclass(frozen=True, slots=True)
class NonTerminalStatusJudge:
    """Records inserted or updated by the transaction and left in a non-terminal status."""

    tables: Mapping[str, StatusSpec]
    name: str = "non_terminal_status"
    severity: Severity = Severity.BLOCK

    @property
    def tables_named(self) -> frozenset[str]:
        return frozenset(self.tables)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        for effect in context.effects:
            spec = self.tables.get(effect.table)
            if spec is None or effect.after is None or effect.kind is EffectKind.DELETE:
                continue
            if spec.field not in effect.after:
                continue
            value = effect.after[spec.field]
            if spec.is_terminal(value):
                continue
            findings.append(
                Finding(
                    self.name,
                    self.severity,
                    f"{effect.table} {effect.key_text}: {spec.field} '{value}' is not a terminal status",
                    evidence={
                        "table": effect.table,
                        "key": effect.key_text,
                        "field": spec.field,
                        "value": value,
                    },
                )
            )
        return Verdict.of(findings)


@dataclass(frozen=True, slots=True)
class NoEffectJudge:
    """No effects to commit although writes failed, or although the summary claims a change.

    ``claims`` are regular expressions (case-insensitive) matched against the
    summary; empty by default, so only failed writes count.
    """

    name: str = "no_effect"
    severity: Severity = Severity.BLOCK
    claims: tuple[str, ...] = ()
    _patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_patterns", tuple(re.compile(c, re.IGNORECASE) for c in self.claims))

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        if context.effects:
            return Verdict.allow()
        failed = [call for call in context.calls if call.write and not call.ok]
        if failed:
            listed = "; ".join(f"{call.tool}: {_describe(call)}" for call in failed[:3])
            more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
            message = f"no changes to commit; {len(failed)} write call(s) failed ({listed}{more})"
            evidence = {"failed_writes": [call.tool for call in failed]}
            return Verdict.of([Finding(self.name, self.severity, message, evidence=evidence)])
        for pattern in self._patterns:
            match = pattern.search(context.summary)
            if match is not None:
                message = f"no changes to commit, while the summary says {match.group(0)!r}"
                return Verdict.of(
                    [Finding(self.name, self.severity, message, evidence={"claim": match.group(0)})]
                )
        return Verdict.allow()


DEFAULT_CLAIMS: tuple[str, ...] = (
    r"\b(?:i|we)(?:'ve| have)?\s+(?:now\s+)?(?:updated|created|cancell?ed|refunded|processed|changed|"
    r"submitted|scheduled|booked|issued|assigned|escalated|closed|resolved|sent)\b",
)
"""Summary phrases that claim a change, for ``NoEffectJudge(claims=DEFAULT_CLAIMS)``."""
