"""One conversation, one requester: the tickets a transaction touches, taken together (§1.4, §2.1, §2.10).

* ``ticket-one-requester`` — the requester is identified when the
  conversation starts (§1.4), and an existing ticket is reused only for the
  same requester (§2.1): every ticket the transaction creates or updates has
  the same requester_id;
* ``ticket-questions-combined`` — informational requests are handled in a
  single ticket (§2.10), so one requester gets at most one new question
  ticket per conversation.

Both read the ticket effects alone and ask for no rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmark.domains.neobank.judges.links import Commit
from judges import CommitContext, Effect, EffectKind, Finding, Query, Severity, Verdict

__all__ = ["ConversationJudge"]


@dataclass(frozen=True, slots=True)
class ConversationJudge:
    """The touched tickets of one transaction, together (see the module docstring)."""

    name: str = "neobank_conversation"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        tickets = Commit(context.effects).tickets
        findings: list[Finding] = []
        requesters = {str((t.after or {}).get("requester_id")) for t in tickets}
        if len(requesters) > 1:
            listed = ", ".join(
                f"{t.key_text} (requester {(t.after or {}).get('requester_id')})" for t in tickets
            )
            findings.append(
                Finding(
                    self.name,
                    Severity.BLOCK,
                    f"tickets {listed} changed in one conversation",
                    hint="allowed: the tickets of the employee who made the request (one requester_id)",
                    rule="ticket-one-requester",
                    evidence={"keys": [t.key_text for t in tickets]},
                )
            )
        questions: dict[str, list[str]] = {}
        for ticket in tickets:
            row = ticket.after or {}
            if ticket.kind is EffectKind.INSERT and row.get("type") == "question":
                questions.setdefault(str(row.get("requester_id")), []).append(ticket.key_text)
        for requester, keys in questions.items():
            if len(keys) > 1:
                findings.append(
                    Finding(
                        self.name,
                        Severity.BLOCK,
                        f"tickets {', '.join(keys)}: {len(keys)} question tickets created for requester "
                        f"{requester}",
                        hint="allowed: one ticket for all of a requester's informational questions",
                        rule="ticket-questions-combined",
                        evidence={"keys": keys},
                    )
                )
        return Verdict.of(findings)
