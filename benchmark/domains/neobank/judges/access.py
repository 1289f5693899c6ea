"""Okta grants and dashboard groups against the access policy: who may hold what, with which approvals.

For every Okta grant the transaction creates (§3, §10):

* ``access-listed-tool`` — the tool and level are listed in §3.1 (anything
  else goes to IT Operations);
* ``access-employee-status`` — no Group 2–5 access while on leave or
  departing (§3.3);
* ``access-contractor`` — no Group 4–5 access for contractors; Group 2–3
  access is temporary and ends by the contract's end (§3.3, §3.6);
* incident response (§10.2, §10.3): Group 5 access (Splunk excepted) for a
  non-contractor whose ticket records a SEV1/SEV2 incident, with such an
  incident active, is ``access-incident-window`` — temporary, for at most 24
  hours — and ``access-incident-notice`` — the manager and IT Security are
  notified in the same transaction (and, for breaking glass, a breaking-glass
  alert is sent);
* otherwise §3.4: ``access-forbidden`` and ``access-incident-only`` (Product
  & Engineering's production access) block, and a "may obtain" grant needs
  its approved access requests (``access-approval``, §3.5);
* ``access-ticket`` — the ticket that documents the grant carries its
  expiry, the production_access tag for Group 5 and the business
  justification for Groups 4–5 unless the department has it by default
  (§2.3, §2.8, §3.1).

``access-revocation`` — access is revoked only to change its level, the
new grant in the same transaction (removing access is offboarding work,
not support's, §2.5).

For every dashboard group add (§4): ``dashboard-group`` — it is one of the
dashboard access groups; ``dashboard-approval`` — another department's
dashboards need the approval §4.2 names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmark.domains.neobank.judges.links import Commit, Links, Work, link_queries, shown
from benchmark.domains.neobank.judges.policy import (
    BI_GROUPS,
    INCIDENT_SEVERITIES,
    Tool,
    approvals_needed,
    dashboard_approval_needed,
    provision,
    tool_of,
)
from judges import CommitContext, Effect, Finding, Query, Severity, StateSnapshot, Verdict, commit_time

__all__ = ["AccessPolicyJudge", "parse_instant"]

Row = Mapping[str, Any]

_INCIDENT_WINDOW = timedelta(hours=24)
_SLACK = timedelta(minutes=1)
_INACTIVE = ("on_leave", "departing", "terminated")


# Not shared: this one strips blanks, which booking's parse_moment and retail's timestamp refuse (None).
def parse_instant(text: Any) -> datetime | None:
    """An ISO 8601 date or datetime as an aware datetime (UTC when no zone is given); None if unreadable."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _approved_access(state: StateSnapshot, employee_id: str) -> list[Row]:
    requests = state.find("approval_requests", requester_id=employee_id)
    return [
        r for r in requests if r.get("request_type") == "access_request" and r.get("status") == "approved"
    ]


@dataclass(frozen=True, slots=True)
class AccessPolicyJudge:
    """Okta grants and dashboard groups against §3, §4 and §10 (see the module docstring)."""

    name: str = "neobank_access"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        commit = Commit(effects)
        granted = {w.employee_id for w in commit.work if w.kind in ("access", "dashboard")}
        if not granted:
            return []
        queries = link_queries(commit)
        queries += [Query.of("approval_requests", None, requester_id=e) for e in sorted(granted)]
        queries.append(Query.of("security_incidents", None, is_active=True))
        return queries

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        commit = Commit(context.effects)
        findings = self._revocations(commit)
        if not any(w.kind in ("access", "dashboard") for w in commit.work):
            return Verdict.of(findings)
        links = Links(commit, context.state)
        for work in commit.work:
            employee = links.employee(work.employee_id)
            if employee is None:
                continue
            if work.kind == "access":
                findings.extend(self._grant(work, employee, links, context.state, now))
            elif work.kind == "dashboard":
                findings.extend(self._dashboard(work, employee, context.state))
        return Verdict.of(findings)

    def _revocations(self, commit: Commit) -> list[Finding]:
        granted = {
            ((e.after or {}).get("employee_id"), (e.after or {}).get("app_name"))
            for e in commit.inserted("okta_app_access")
        }
        findings = []
        for effect in commit.updated("okta_app_access"):
            before, after = effect.before or {}, effect.after or {}
            if not before.get("is_active") or after.get("is_active"):
                continue
            if (after.get("employee_id"), after.get("app_name")) in granted:
                continue
            message = (
                f"okta access {effect.key_text}: {after.get('app_name')} ({after.get('access_level')}) of "
                f"{after.get('employee_id')} revoked with no new grant of it"
            )
            hint = (
                "allowed: a revocation only to change the access level, the new grant in the same transaction"
            )
            evidence = {"key": effect.key_text, "employee_id": str(after.get("employee_id"))}
            findings.append(
                Finding(
                    self.name, Severity.BLOCK, message, hint=hint, rule="access-revocation", evidence=evidence
                )
            )
        return findings

    def _finding(self, rule: str, work: Work, message: str, hint: str, **extra: str) -> Finding:
        evidence = {"key": work.effect.key_text, "employee_id": work.employee_id, **extra}
        return Finding(self.name, Severity.BLOCK, message, hint=hint, rule=rule, evidence=evidence)

    def _grant(
        self, work: Work, employee: Row, links: Links, state: StateSnapshot, now: datetime
    ) -> list[Finding]:
        row = work.effect.after or {}
        app, level = row.get("app_name"), row.get("access_level")
        head = f"okta access {work.effect.key_text}: {app} ({level}) for {work.employee_id}"
        tool = tool_of(str(app), str(level))
        if tool is None:
            message = f"{head}, not a tool and level of the policy"
            hint = "allowed: the policy's tools and levels; anything else is escalated to IT Operations"
            return [self._finding("access-listed-tool", work, message, hint)]
        status = employee.get("employment_status")
        if tool.group >= 2 and status in _INACTIVE:
            hint = "allowed: deny (Group 2–5 access is not granted while on leave or departing)"
            message = f"{head} (Group {tool.group}) while employment_status '{status}'"
            return [self._finding("access-employee-status", work, message, hint)]
        findings = self._contractor(work, employee, tool, head)
        if findings:
            return findings
        tickets = links.tickets_of(work.employee_id)
        incident = [t for t in tickets if (t.after or {}).get("incident_severity") in INCIDENT_SEVERITIES]
        active = any(
            i.get("severity") in ("SEV1", "SEV2") for i in state.find("security_incidents", is_active=True)
        )
        if (
            tool.group == 5
            and tool.name != "Splunk SIEM"
            and incident
            and active
            and not employee.get("is_contractor")
        ):
            findings = self._incident_window(work, head, now)
            findings += self._incident_notice(work, employee, incident, links)
        else:
            findings = self._matrix(work, employee, tool, head, state)
        justify = tool.group >= 4 and provision(tool, employee) != "default"
        return findings + self._ticket(work, tool, tickets, head, justify)

    def _contractor(self, work: Work, employee: Row, tool: Tool, head: str) -> list[Finding]:
        if not employee.get("is_contractor") or tool.group <= 1:
            return []
        if tool.group >= 4:
            hint = "allowed: deny (contractors get no Group 4–5 access)"
            return [
                self._finding("access-contractor", work, f"{head}: Group {tool.group} for a contractor", hint)
            ]
        row = work.effect.after or {}
        expires, end = parse_instant(row.get("expires_at")), parse_instant(employee.get("contract_end_date"))
        if row.get("is_temporary") and expires is not None and (end is None or expires <= end):
            return []
        end_text = shown(employee.get("contract_end_date"))
        message = (
            f"{head}: expires_at '{shown(row.get('expires_at'))}' for a contractor (contract ends {end_text})"
        )
        hint = f"allowed: temporary access ending by {end_text} (or the earlier date requested)"
        return [self._finding("access-contractor", work, message, hint)]

    def _incident_window(self, work: Work, head: str, now: datetime) -> list[Finding]:
        row = work.effect.after or {}
        expires = parse_instant(row.get("expires_at"))
        if (
            row.get("is_temporary")
            and expires is not None
            and now < expires <= now + _INCIDENT_WINDOW + _SLACK
        ):
            return []
        latest = (now + _INCIDENT_WINDOW).strftime("%Y-%m-%dT%H:%M:%SZ")
        message = (
            f"{head}: incident access with is_temporary {shown(row.get('is_temporary'))}, "
            f"expires_at '{shown(row.get('expires_at'))}'"
        )
        hint = f"allowed: temporary, expiring by {latest} (24 hours)"
        return [self._finding("access-incident-window", work, message, hint)]

    def _incident_notice(
        self, work: Work, employee: Row, tickets: Sequence[Effect], links: Links
    ) -> list[Finding]:
        notices = [(e.after or {}) for e in links.commit.inserted("email_notifications")]
        manager = employee.get("manager_id")
        missing: list[str] = []
        if manager and not any(n.get("recipient_id") == manager for n in notices):
            missing.append(f"the manager {manager}")
        security = [
            n
            for n in notices
            if (links.employee(str(n.get("recipient_id"))) or {}).get("department") == "it_security"
        ]
        if not security:
            missing.append("IT Security")
        glass = any((t.after or {}).get("approval_status") == "escalated" for t in tickets)
        if glass and not any(n.get("notification_type") == "breaking_glass_alert" for n in notices):
            missing.append("a breaking_glass_alert")
        if not missing:
            return []
        message = (
            f"okta access {work.effect.key_text}: incident access for {work.employee_id} with no notice to "
            f"{', '.join(missing)}"
        )
        hint = (
            "allowed: post-facto notifications after the grant: post_facto_manager_alert to the manager, "
            "a notice to IT Security (for breaking glass also the skip-level manager, breaking_glass_alert)"
        )
        return [self._finding("access-incident-notice", work, message, hint)]

    def _matrix(
        self, work: Work, employee: Row, tool: Tool, head: str, state: StateSnapshot
    ) -> list[Finding]:
        kind = provision(tool, employee)
        who = f"{employee.get('department')}, {employee.get('role')}, level {employee.get('level')}"
        if kind == "forbidden":
            message = f"{head}: forbidden for {who}"
            return [
                self._finding("access-forbidden", work, message, "allowed: deny (resolution_category denied)")
            ]
        if kind == "temp_incident":
            message = f"{head} ({who}) with no SEV1/SEV2 incident on the employee's ticket"
            hint = (
                "allowed: temporary access during an active SEV1/SEV2 incident (incident_severity on the "
                "ticket); deny otherwise"
            )
            return [self._finding("access-incident-only", work, message, hint)]
        if kind == "default":
            return []
        needed = approvals_needed(tool, int(employee.get("level") or 0))
        approved = _approved_access(state, work.employee_id)
        if len(approved) >= len(needed):
            return []
        message = (
            f"{head} (Group {tool.group}, may obtain; {who}) with {len(approved)} of {len(needed)} access "
            "requests approved"
        )
        hint = f"allowed: approval requests to {' and '.join(needed)} first, ticket pending until all approve"
        return [self._finding("access-approval", work, message, hint)]

    def _ticket(
        self, work: Work, tool: Tool, tickets: Sequence[Effect], head: str, justify: bool
    ) -> list[Finding]:
        documenting = [t for t in tickets if (t.after or {}).get("resolution_category") == "provisioned"]
        row = work.effect.after or {}
        expires = parse_instant(row.get("expires_at"))
        reports = [
            (ticket, self._ticket_problems(ticket.after or {}, tool, expires, justify))
            for ticket in documenting
        ]
        if not reports or any(not problems for _, problems in reports):
            return []
        ticket, problems = reports[0]
        message = (
            f"ticket {ticket.key_text}: {', '.join(problems)} for {head}, "
            f"expires_at '{shown(row.get('expires_at'))}'"
        )
        hint = (
            "allowed: access_expiry_date equal to the grant's expiry (null for permanent access), tag "
            "production_access for Group 5, a business_justification for Groups 4–5"
        )
        return [self._finding("access-ticket", work, message, hint, ticket_id=ticket.key_text)]

    @staticmethod
    def _ticket_problems(fields: Row, tool: Tool, expires: datetime | None, justify: bool) -> list[str]:
        problems = []
        if parse_instant(fields.get("access_expiry_date")) != expires:
            problems.append(f"access_expiry_date '{shown(fields.get('access_expiry_date'))}'")
        if tool.group == 5 and "production_access" not in (fields.get("tags") or []):
            problems.append(f"tags {fields.get('tags') or []}")
        if justify and not fields.get("business_justification"):
            problems.append("no business_justification")
        return problems

    def _dashboard(self, work: Work, employee: Row, state: StateSnapshot) -> list[Finding]:
        group = str((work.effect.after or {}).get("group_name"))
        head = f"okta group membership {work.effect.key_text}: {group} for {work.employee_id}"
        dashboard = BI_GROUPS.get(group)
        if dashboard is None:
            hint = f"allowed: the dashboard access groups {', '.join(BI_GROUPS)}"
            return [self._finding("dashboard-group", work, f"{head}, not a dashboard access group", hint)]
        approver = dashboard_approval_needed(dashboard, employee)
        if approver is None or _approved_access(state, work.employee_id):
            return []
        message = (
            f"{head} ({dashboard.sensitivity} dashboards of {dashboard.department}) for an employee of "
            f"{employee.get('department')} with no approved access request"
        )
        hint = f"allowed: a {approver} approval request first, ticket pending until approved"
        return [self._finding("dashboard-approval", work, message, hint)]
