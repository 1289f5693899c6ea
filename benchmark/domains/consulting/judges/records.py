"""Actions agree with the records their ticket names.

When the transaction works on one ticket, the records in its custom fields
are the request's records:

* a cost-based approval's amount is the record's amount (§3.10): the
  catalog's annual cost (``catalog_id``), the course's cost
  (``course_id``), the expense amount (``expense_report_id``);
* a clearance initiated is of the level the client requires (``client_id``,
  §5.3);
* access to a client-confidential folder is for the folder's client, on
  an engagement recorded on the ticket (``client_id``, ``engagement_code``;
  the rule pack checks that engagement is active and the requester on it,
  §10.4).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from benchmark.domains.consulting.judges.tickets import became, finding, row, single, text, tickets_of
from judges import CommitContext, Effect, EffectKind, Finding, Query, Row, StateSnapshot, Verdict

__all__ = ["TicketRecordsJudge"]

_AMOUNT_SOURCES = {
    "software_access": ("catalog_id", "software_catalog_software_catalog", "annual_cost", "annual cost of"),
    "training_cost": ("course_id", "degreed_training_courses", "cost", "cost of"),
    "expense_override": ("expense_report_id", "concur_expense_reports", "amount", "amount of"),
}
"""Approval type → the ticket field naming its record, the record's table, its amount column, wording."""

_CLIENTS = "salesforce_crm_clients"
_FOLDERS = "box_folders"


def _by_id(table: str, ident: object) -> Query:
    return Query.one(table, id=ident if isinstance(ident, str) else None)


def _record(state: StateSnapshot, table: str, ident: str | None) -> Row | None:
    return None if ident is None else state.first(_by_id(table, ident))


def _folder_grants(effects: Sequence[Effect]) -> Iterator[Effect]:
    return (e for e in effects if e.table == "box_folder_access_logs" and e.kind is EffectKind.INSERT)


@dataclass(frozen=True, slots=True)
class TicketRecordsJudge:
    """Approval amounts, clearance levels and client-confidential folders agree with the ticket's records."""

    name: str = "consulting_ticket_records"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        tickets = tickets_of(effects)
        if len(tickets) != 1:
            return []
        fields = row(tickets[0])
        wanted: list[Query] = []
        for field, table, _, _ in _AMOUNT_SOURCES.values():
            ident = single(fields.get(field))
            if ident is not None:
                wanted.append(_by_id(table, ident))
        client = single(fields.get("client_id"))
        if client is not None:
            wanted.append(_by_id(_CLIENTS, client))
        wanted.extend(_by_id(_FOLDERS, row(grant).get("folder_id")) for grant in _folder_grants(effects))
        return list(dict.fromkeys(wanted))

    def __call__(self, context: CommitContext) -> Verdict:
        tickets = tickets_of(context.effects)
        if len(tickets) != 1:
            # Several tickets: which records belong together cannot be told; the rule pack still applies.
            return Verdict.allow()
        ticket, state = tickets[0], context.state
        findings: list[Finding] = []
        for effect in context.effects:
            if effect.table == "approval_approval_requests" and effect.kind is EffectKind.INSERT:
                findings.extend(self._amount(ticket, effect, state))
            elif effect.table == "client_access_clearance_record" and became(effect, "status", "in_progress"):
                findings.extend(self._clearance_level(ticket, effect, state))
        for grant in _folder_grants(context.effects):
            findings.extend(self._client_folder(ticket, grant, state))
        return Verdict.of(findings)

    def _amount(self, ticket: Effect, effect: Effect, state: StateSnapshot) -> Iterator[Finding]:
        approval = row(effect)
        source = _AMOUNT_SOURCES.get(str(approval.get("request_type")))
        if source is None or approval.get("amount") is None:
            return
        field, table, column, words = source
        ident = single(row(ticket).get(field))
        record = _record(state, table, ident)
        if record is None or record.get(column) == approval["amount"]:
            return
        yield finding(
            self.name,
            f"approval {effect.key_text}: amount {approval['amount']} while the {words} {ident}"
            f" (ticket {ticket.key_text}) is {record.get(column)}",
            f"allowed: {record.get(column)}",
            "approval-amount-of-record",
            ticket,
            field="amount",
            value=approval["amount"],
            record=effect.key_text,
        )

    def _clearance_level(self, ticket: Effect, effect: Effect, state: StateSnapshot) -> Iterator[Finding]:
        client = _record(state, _CLIENTS, single(row(ticket).get("client_id")))
        level = row(effect).get("clearance_level")
        if client is None or client.get("clearance_level") == level:
            return
        yield finding(
            self.name,
            f"clearance {effect.key_text}: {level} clearance initiated while client {client['id']}"
            f" (ticket {ticket.key_text}) requires {client.get('clearance_level')}",
            f"allowed: {client.get('clearance_level')}",
            "clearance-level-of-client",
            ticket,
            field="clearance_level",
            value=level,
            record=effect.key_text,
        )

    def _client_folder(self, ticket: Effect, grant: Effect, state: StateSnapshot) -> Iterator[Finding]:
        folder = _record(state, _FOLDERS, row(grant).get("folder_id"))
        if folder is None or folder.get("confidentiality_level") != "client_confidential":
            return
        fields = row(ticket)
        if fields.get("client_id") == folder.get("client_id") and fields.get("engagement_code"):
            return
        yield finding(
            self.name,
            f"folder access {grant.key_text}: client-confidential folder {folder['id']} of client"
            f" {folder.get('client_id')} while ticket {ticket.key_text} records client_id"
            f" '{text(fields.get('client_id'))}' and engagement_code '{text(fields.get('engagement_code'))}'",
            f"allowed: access on an active engagement of {folder.get('client_id')} that the ticket records"
            " (client_id, engagement_code)",
            "client-folder-engagement",
            ticket,
            field="client_id",
            value=fields.get("client_id"),
            record=grant.key_text,
        )
