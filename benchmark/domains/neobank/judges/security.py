"""Okta security operations against the account-access procedures: the steps that go together (§5).

The rule pack checks each operation alone (its ticket, the verification
method, the bypass limits); this judge checks the procedures that span
several records of one transaction:

* ``security-lost-mfa-steps`` — a lost or stolen MFA device is removed
  after identity verification, with all sessions invalidated, IT Security
  notified and the ticket escalated to IT Operations (§5.3);
* ``security-compromise-steps`` — a password reset on a security incident
  ticket (suspected compromise) follows identity verification and the
  invalidation of all sessions, with IT Security notified and the ticket
  solved as provisioned (§5.2);
* ``security-bypass-notice`` — a temporary MFA bypass is reported to IT
  Security (§5.3 "with IT Security notification").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.domains.neobank.judges.links import Commit, Links, Work, link_queries, shown
from judges import CommitContext, Effect, Finding, Query, Severity, Verdict

__all__ = ["SecurityOpsJudge"]

_VERIFY = (
    "send_verification_manager",
    "send_verification_assistant",
    "send_verification_sms",
    "send_verification_video_call",
)


@dataclass(frozen=True, slots=True)
class SecurityOpsJudge:
    """Multi-step security procedures (see the module docstring)."""

    name: str = "neobank_security"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        commit = Commit(effects)
        return link_queries(commit) if any(w.kind == "security" for w in commit.work) else []

    def __call__(self, context: CommitContext) -> Verdict:
        commit = Commit(context.effects)
        operations = [w for w in commit.work if w.kind == "security"]
        if not operations:
            return Verdict.allow()
        links = Links(commit, context.state)
        findings: list[Finding] = []
        for work in operations:
            operation = (work.effect.after or {}).get("operation")
            if operation == "remove_mfa_device":
                findings.extend(self._lost_mfa(work, operations, links))
            elif operation == "force_password_reset":
                findings.extend(self._compromise(work, operations, links))
            elif operation == "set_temporary_bypass" and not self._security_notified(links):
                message = (
                    f"security operation {work.effect.key_text}: temporary bypass for {work.employee_id} "
                )
                hint = "allowed: a notification to IT Security in the same transaction"
                findings.append(
                    self._finding(
                        "security-bypass-notice", work, message + "with IT Security not notified", hint
                    )
                )
        return Verdict.of(findings)

    def _finding(self, rule: str, work: Work, message: str, hint: str) -> Finding:
        evidence: dict[str, Any] = {"key": work.effect.key_text, "employee_id": work.employee_id}
        if work.ticket_id is not None:
            evidence["ticket_id"] = work.ticket_id
        return Finding(self.name, Severity.BLOCK, message, hint=hint, rule=rule, evidence=evidence)

    @staticmethod
    def _security_notified(links: Links) -> bool:
        notices = [e.after or {} for e in links.commit.inserted("email_notifications")]
        return any(
            (links.employee(str(n.get("recipient_id"))) or {}).get("department") == "it_security"
            for n in notices
        )

    def _missing_steps(self, work: Work, operations: Sequence[Work], links: Links) -> list[str]:
        mine = [
            (w.effect.after or {}).get("operation") for w in operations if w.employee_id == work.employee_id
        ]
        missing = []
        if not any(op in _VERIFY for op in mine):
            missing.append("identity verification")
        if "invalidate_all_sessions" not in mine:
            missing.append("invalidate_all_sessions")
        if not self._security_notified(links):
            missing.append("a notification to IT Security")
        return missing

    def _lost_mfa(self, work: Work, operations: Sequence[Work], links: Links) -> list[Finding]:
        missing = self._missing_steps(work, operations, links)
        ticket = links.commit.ticket(work.ticket_id) if work.ticket_id else None
        fields = (ticket.after or {}) if ticket else {}
        if ticket is not None and (fields.get("owner") != "it_ops_team" or fields.get("status") != "pending"):
            missing.append(
                f"the escalation of ticket {ticket.key_text} (owner '{shown(fields.get('owner'))}', "
                f"status '{shown(fields.get('status'))}')"
            )
        if not missing:
            return []
        message = (
            f"security operation {work.effect.key_text}: MFA device removed for {work.employee_id} without "
            f"{', '.join(missing)}"
        )
        hint = (
            "allowed: identity verification, invalidate_all_sessions, remove_mfa_device, a notification "
            "to IT Security, then the ticket escalated to IT Operations (owner it_ops_team, status pending)"
        )
        return [self._finding("security-lost-mfa-steps", work, message, hint)]

    def _compromise(self, work: Work, operations: Sequence[Work], links: Links) -> list[Finding]:
        ticket = links.commit.ticket(work.ticket_id) if work.ticket_id else None
        fields = (ticket.after or {}) if ticket else {}
        if ticket is None or fields.get("type") != "incident":
            return []
        missing = self._missing_steps(work, operations, links)
        if fields.get("status") != "solved" or fields.get("resolution_category") != "provisioned":
            missing.append(
                f"ticket {ticket.key_text} solved as provisioned (status '{shown(fields.get('status'))}', "
                f"resolution_category '{shown(fields.get('resolution_category'))}')"
            )
        if not missing:
            return []
        message = (
            f"security operation {work.effect.key_text}: password reset on security incident ticket "
            f"{ticket.key_text} without {', '.join(missing)}"
        )
        hint = (
            "allowed: identity verification, invalidate_all_sessions, force_password_reset, a "
            "notification to IT Security, ticket solved as provisioned"
        )
        return [self._finding("security-compromise-steps", work, message, hint)]
