"""Judges for the tests of the ``python`` judge kind."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges import CommitContext, Decision, Effect, Finding, Query, Role, Severity, Verdict, load_rule_pack


@dataclass(frozen=True)
class TicketLimit:
    """Blocks a commit that changes more than ``limit`` tickets."""

    limit: int = 1
    name: str = "ticket-limit"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        touched = [e for e in context.effects if e.table == "tickets"]
        if len(touched) <= self.limit:
            return Verdict.allow()
        message = f"{len(touched)} tickets changed in one transaction; the limit is {self.limit}"
        return Verdict.of([Finding(self.name, Severity.BLOCK, message)])


@dataclass(frozen=True)
class CommitTime:
    """Blocks every commit, saying the commit time the gate gave it."""

    name: str = "commit-time"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        at = "unknown" if context.now is None else context.now.isoformat()
        return Verdict.of([Finding(self.name, Severity.BLOCK, f"committed at {at}")])


class HangingPack:
    """A rule pack that answers only once :attr:`release` is set (for the commits ``hangs_on`` picks:
    those touching the tickets it names, else every one); everything else is the pack's own."""

    def __init__(self, path: str, hangs_on: Sequence[int] = ()) -> None:
        self.pack = load_rule_pack(Path(path))
        self.name = self.pack.name
        self.release = threading.Event()
        self.calls = 0
        self._hangs_on = frozenset(hangs_on)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return self.pack.queries(effects)

    def __call__(self, context: CommitContext) -> Verdict:
        self.calls += 1
        if not self._hangs_on or any(
            e.table == "tickets" and e.key[0] in self._hangs_on for e in context.effects
        ):
            self.release.wait(30)
        return self.pack(context)

    def __getattr__(self, attribute: str) -> Any:
        # follow_up, tables_named, ...: the pack's own
        if attribute == "pack":
            raise AttributeError(attribute)
        return getattr(self.pack, attribute)


@dataclass(frozen=True)
class Understated:
    """Allows every commit while its own finding says block: a verdict that understates its findings."""

    name: str = "understated"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict(Decision.ALLOW, (Finding(self.name, Severity.BLOCK, "this commit must not go ahead"),))


@dataclass(frozen=True)
class Heard:
    """Says what it read of the conversation, as a warning: how many turns, what the user said first, and
    how many turns came before each call; without a conversation it says so and decides nothing."""

    name: str = "heard"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        if context.conversation is None:
            return Verdict.allow(Finding(self.name, Severity.WARN, "no conversation was handed over"))
        first = next((t.text for t in context.conversation if t.role is Role.USER), "")
        before = [len(call.turns) for call in context.calls]
        message = f"{len(context.conversation)} turn(s) before calls {before}; the user said first: {first}"
        return Verdict.allow(Finding(self.name, Severity.WARN, message))


@dataclass(frozen=True)
class Confirmed:
    """Blocks a write the user did not confirm: the turns said before it (since the previous write) must
    hold a user turn saying ``word``. It needs the conversation: without one it decides nothing (warns)."""

    word: str = "yes"
    name: str = "confirmed"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        if context.conversation is None:
            return Verdict.allow(
                Finding(self.name, Severity.WARN, "no conversation: confirmation not judged")
            )
        findings, said = [], False
        for call in context.calls:
            said = said or any(t.role is Role.USER and self.word in t.text.lower() for t in call.turns)
            if call.write and call.ok:
                if not said:
                    findings.append(
                        Finding(self.name, Severity.BLOCK, f"{call.tool}: the user did not confirm it")
                    )
                said = False
        return Verdict.of(findings)


@dataclass(frozen=True)
class Echo:
    """Warns with what it read, as JSON: the conversation (null: none handed over) as [role, text] pairs,
    then each call's tool and the turns said before it."""

    name: str = "echo"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        said = (
            None if context.conversation is None else [[t.role.value, t.text] for t in context.conversation]
        )
        calls = [[call.tool, [[t.role.value, t.text] for t in call.turns]] for call in context.calls]
        message = json.dumps({"conversation": said, "calls": calls})
        return Verdict.allow(Finding(self.name, Severity.WARN, message))
