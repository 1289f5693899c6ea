"""The date rules: what the policy says about dates relative to today, the commit's day.

The rules that need "today" live here, in Python. Today is the date of the
commit time the gate gives the judges (:func:`judges.commit_time`): the
guard's clock, the scenario's frozen clock (2025-10-01T13:00Z) in the
benchmark, whose world runs at that time.

* ``extension-due-date`` — an extension moves the due date to today + 10 days (§9.1, §9.2);
* ``vehicle-effective-date`` — no backdating in CA and NY; in TX and FL back to the
  policy's automatic extension window at most (§3.2, §7.1.5);
* ``change-effective-today`` — vehicle removals and driver additions, removals and
  status changes take effect today (§7.2.5, §8.1.7, §8.2.5, §5.6.3);
* ``cancellation-notice`` — at least tomorrow in CA and NY, today or later in TX and FL
  (§10.1.3, KB "Policy Cancellation Notice Requirements");
* ``reinstatement-window`` — within 15 / 30 / 45 days of the cancellation for Standard /
  Preferred / Premium customers (§10.2.2, KB "Policy Reinstatement Windows");
* ``reinstatement-lapse`` — after the cancellation date, the lapse from the cancellation date
  to today is recorded; before it, none (§10.2.4);
* ``claim-date-of-loss`` — no loss dated in the future (§6.2);
* ``claim-siu-triggers`` — three or more earlier claims in 24 months, or a theft of a vehicle
  15+ years old or added in the last 30 days, flag the claim for SIU (§6.8);
* ``document-link-expiry`` — a document link expires 24 hours from now (§11.1), within an hour.

Rows come from three lookups by equality: the policy of a vehicle, the
customer of a reinstated policy, the claims and vehicles of a claim's policy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from benchmark.domains.auto_insurance.judges.actions import Action, actions_of, as_date
from judges import CommitContext, Effect, Finding, Query, Severity, StateSnapshot, Verdict, commit_time

__all__ = ["DateRulesJudge"]

_NO_BACKDATING = frozenset({"CA", "NY"})
_REINSTATEMENT_DAYS: Mapping[str, int] = {"Standard": 15, "Preferred": 30, "Premium": 45}
_EXTENSION_DAYS = 10
_THEFT = "Comprehensive – Theft"


@dataclass(frozen=True, slots=True)
class _Check:
    rule: str
    message: str
    hint: str
    field: str


def _policy_query(row: Mapping[str, Any]) -> Query:
    return Query("policies", (("id", row.get("policy_id")),), 1)


def _customer_query(row: Mapping[str, Any]) -> Query:
    return Query("customers", (("id", row.get("customer_id")),), 1)


def _claims_query(row: Mapping[str, Any]) -> Query:
    return Query("claims", (("policy_id", row.get("policy_id")),))


def _vehicles_query(row: Mapping[str, Any]) -> Query:
    return Query("vehicles", (("policy_id", row.get("policy_id")),))


_QUERIES: Mapping[str, tuple[Callable[[Mapping[str, Any]], Query], ...]] = {
    "vehicle added": (_policy_query,),
    "reinstatement": (_customer_query,),
    "claim filed": (_claims_query, _vehicles_query),
}


@dataclass(frozen=True, slots=True)
class DateRulesJudge:
    """The policy's rules relative to today (see the module docstring)."""

    name: str = "auto_insurance_dates"
    severity: Severity = Severity.BLOCK

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        wanted: dict[Query, None] = {}
        for action in actions_of(effects):
            for make in _QUERIES.get(action.kind, ()):
                wanted[make(action.row)] = None
        return list(wanted)

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        findings: list[Finding] = []
        for action in actions_of(context.effects):
            rows = _Rows(context.state, action.row)
            for check in _checks(action, now, rows):
                evidence = {
                    "table": action.effect.table,
                    "key": action.effect.key_text,
                    "field": check.field,
                    "value": action.row.get(check.field),
                    "today": now.date().isoformat(),
                }
                findings.append(
                    Finding(
                        self.name,
                        self.severity,
                        check.message,
                        hint=check.hint,
                        rule=check.rule,
                        evidence=evidence,
                    )
                )
        return Verdict.of(findings)


class _Rows:
    """The looked-up rows of one action (fetched by the gate from :meth:`DateRulesJudge.queries`)."""

    def __init__(self, state: StateSnapshot, row: Mapping[str, Any]) -> None:
        self._state = state
        self._row = row

    def _get(self, make: Callable[[Mapping[str, Any]], Query]) -> tuple[Mapping[str, Any], ...]:
        return self._state.rows(make(self._row))

    def policy(self) -> Mapping[str, Any] | None:
        rows = self._get(_policy_query)
        return rows[0] if rows else None

    def customer(self) -> Mapping[str, Any] | None:
        rows = self._get(_customer_query)
        return rows[0] if rows else None

    def claims(self) -> tuple[Mapping[str, Any], ...]:
        return self._get(_claims_query)

    def vehicles(self) -> tuple[Mapping[str, Any], ...]:
        return self._get(_vehicles_query)


def _checks(action: Action, now: datetime, rows: _Rows) -> Iterator[_Check]:
    today = now.date()
    check = _CHECKS.get(action.kind)
    if check is not None:
        yield from check(action, today, rows)
    if action.kind == "document link":
        yield from _document_expiry(action, now)


def _extension(action: Action, today: date, rows: _Rows) -> Iterator[_Check]:
    due = today + timedelta(days=_EXTENSION_DAYS)
    value = action.row.get("new_due_date")
    if as_date(value) != due:
        yield _Check(
            "extension-due-date",
            f"{action.record}: extension granted on {today} with new_due_date {_text(value)}",
            f"allowed: new_due_date {due} ({_EXTENSION_DAYS} days after today)",
            "new_due_date",
        )


def _vehicle_added(action: Action, today: date, rows: _Rows) -> Iterator[_Check]:
    policy = rows.policy()
    value = action.row.get("effective_date")
    given = as_date(value)
    if policy is None:
        return
    state = str(policy.get("state"))
    window = int(policy.get("automatic_extension_days") or 0)
    earliest = today if state in _NO_BACKDATING else today - timedelta(days=window)
    if given is None or given < earliest:
        rule = "no backdating" if state in _NO_BACKDATING else f"{window}-day automatic extension window"
        yield _Check(
            "vehicle-effective-date",
            f"{action.record}: effective_date {_text(value)} on {state} policy {action.row.get('policy_id')}"
            f" ({rule}; today {today})",
            f"allowed: effective_date {earliest} or later",
            "effective_date",
        )


def _effective_today(action: Action, today: date, rows: _Rows) -> Iterator[_Check]:
    fields = ["removal_date"] if action.kind == "vehicle removed" else ["effective_date"]
    if action.kind == "driver removed":
        fields.append("removal_date")
    for field in fields:
        value = action.row.get(field)
        if as_date(value) != today:
            yield _Check(
                "change-effective-today",
                f"{action.record}: {action.kind} with {field} {_text(value)}",
                f"allowed: {field} {today} (today)",
                field,
            )


def _cancellation(action: Action, today: date, rows: _Rows) -> Iterator[_Check]:
    state = str(action.row.get("state"))
    earliest = today + timedelta(days=1) if state in _NO_BACKDATING else today
    value = action.row.get("cancellation_date")
    given = as_date(value)
    if given is None or given < earliest:
        notice = "at least 1 day of notice" if state in _NO_BACKDATING else "same-day allowed"
        yield _Check(
            "cancellation-notice",
            f"{action.record}: cancellation_date {_text(value)} on a {state} policy"
            f" ({notice}; today {today})",
            f"allowed: cancellation_date {earliest} or later",
            "cancellation_date",
        )


def _reinstatement(action: Action, today: date, rows: _Rows) -> Iterator[_Check]:
    before = action.effect.before or {}
    cancelled = as_date(before.get("cancellation_date"))
    if cancelled is None:
        return
    customer = rows.customer()
    tier = str(customer.get("tier")) if customer is not None else "Standard"
    window = _REINSTATEMENT_DAYS.get(tier, _REINSTATEMENT_DAYS["Standard"])
    days = (today - cancelled).days
    if days > window:
        yield _Check(
            "reinstatement-window",
            f"{action.record}: reinstated {days} days after its cancellation on {cancelled} for"
            f" {tier} customer {action.row.get('customer_id')}",
            f"allowed: reinstatement within {window} days of the cancellation ({tier})",
            "status",
        )
    yield from _lapse(action, today, cancelled)


def _lapse(action: Action, today: date, cancelled: date) -> Iterator[_Check]:
    row = action.row
    found = (
        f"lapse_flag {_text(row.get('lapse_flag'))}, lapse_start {_text(row.get('lapse_start'))},"
        f" lapse_end {_text(row.get('lapse_end'))}"
    )
    wanted: tuple[bool, date | None, date | None]
    if today > cancelled:
        wanted = (True, cancelled, today)
        allowed = f"allowed: lapse_flag true, lapse_start {cancelled}, lapse_end {today}"
    elif today < cancelled:
        wanted = (False, None, None)
        allowed = "allowed: lapse_flag false (reinstated before the cancellation date)"
    else:
        return
    got = (row.get("lapse_flag"), as_date(row.get("lapse_start")), as_date(row.get("lapse_end")))
    if (wanted[0] is False and got[0] is False) or got == wanted:
        return
    yield _Check(
        "reinstatement-lapse",
        f"{action.record}: reinstated on {today} after a cancellation on {cancelled} with {found}",
        allowed,
        "lapse_flag",
    )


def _claim(action: Action, today: date, rows: _Rows) -> Iterator[_Check]:
    row = action.row
    loss = as_date(row.get("date_of_loss"))
    if loss is None or loss > today:
        yield _Check(
            "claim-date-of-loss",
            f"{action.record}: date_of_loss {_text(row.get('date_of_loss'))} (today {today})",
            f"allowed: a date_of_loss on or before {today}",
            "date_of_loss",
        )
    if row.get("siu_flag") not in (None, "None"):
        return
    triggers = list(_siu_triggers(action, today, rows))
    if triggers:
        yield _Check(
            "claim-siu-triggers",
            f"{action.record}: siu_flag {_text(row.get('siu_flag'))} while {'; '.join(triggers)}",
            "allowed: siu_flag Suspicious Activity Flagged or Confirmed SIU Referral",
            "siu_flag",
        )


def _siu_triggers(action: Action, today: date, rows: _Rows) -> Iterator[str]:
    row = action.row
    since = _years_before(today, 2)
    earlier = [
        claim["id"]
        for claim in rows.claims()
        if claim.get("id") != row.get("id") and (as_date(claim.get("created_date")) or date.min) >= since
    ]
    if len(earlier) >= 3:
        yield f"policy {row.get('policy_id')} has {len(earlier)} other claims since {since} {earlier}"
    if row.get("claim_type") != _THEFT:
        return
    vehicle = next(
        (
            v
            for v in rows.vehicles()
            if (row.get("vehicle_id") is not None and v.get("id") == row.get("vehicle_id"))
            or (row.get("vehicle_id") is None and v.get("vin") == row.get("vehicle_vin"))
        ),
        None,
    )
    if vehicle is None:
        return
    year = vehicle.get("year")
    if isinstance(year, int) and today.year - year >= 15:
        yield f"the stolen vehicle {vehicle.get('id')} is a {year} model ({today.year - year} years old)"
    added = as_date(vehicle.get("date_added_to_policy"))
    if added is not None and added >= today - timedelta(days=30):
        yield f"the stolen vehicle {vehicle.get('id')} was added to the policy on {added}"


def _document_expiry(action: Action, now: datetime) -> Iterator[_Check]:
    value = action.row.get("expires_at")
    wanted = now + timedelta(hours=24)
    try:
        expires = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        off = abs((expires - wanted).total_seconds()) if expires.tzinfo is not None else None
    except ValueError:
        off = None
    if off is None or off > 3600:
        yield _Check(
            "document-link-expiry",
            f"{action.record}: expires_at {_text(value)} (now {now.isoformat()})",
            f"allowed: expires_at 24 hours from now, {wanted.isoformat().replace('+00:00', 'Z')}",
            "expires_at",
        )


def _years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def _text(value: Any) -> str:
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


_CHECKS: Mapping[str, Callable[[Action, date, _Rows], Iterator[_Check]]] = {
    "extension": _extension,
    "vehicle added": _vehicle_added,
    "vehicle removed": _effective_today,
    "driver added": _effective_today,
    "driver removed": _effective_today,
    "driver change": _effective_today,
    "cancellation": _cancellation,
    "reinstatement": _reinstatement,
    "claim filed": _claim,
}
