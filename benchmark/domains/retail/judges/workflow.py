"""Money, order changes and installation work that span several records.

Each check reads the commit's effects and a few rows looked up by key. Rule
ids and the policy section they come from:

* ``installation-cancellation-refund``, ``refund-with-return`` (6.4, 9.1) —
  cancelling only the installation refunds its cost and charges shipping;
  an RMA refunds by itself;
* ``refunds-within-payments`` — refunds of an order never exceed what was paid;
* ``write-not-repeated`` — one transaction does not make the same charge,
  warranty claim or replacement twice (a double submit; two equal refunds
  can be right, for two items of one price, and over-refunding is caught by
  ``refunds-within-payments``);
* ``order-modification-window`` (8.2) — address and speed changes only for
  processing orders placed within 2 hours (a reship corrects the address);
* ``reship-fee`` (3.3) — a reship to a corrected address is charged, a reship
  to the address on record is not;
* ``workmanship-warranty-window``, ``installation-reschedule-future`` (6.2,
  6.3) — corrective service within the workmanship warranty; new dates ahead;
* ``installation-delay-compensation`` (6.2) — compensation for installations
  delayed over 7 days: 10% (regular) or 5% (opportunist) of the service cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from benchmark.domains.retail.judges.changes import Changes, finding, money, timestamp
from judges import CommitContext, Effect, Finding, Query, StateSnapshot, Verdict, commit_time

__all__ = ["WorkflowJudge"]

_ADDRESS = (
    "shipping_address_line1",
    "shipping_address_city",
    "shipping_address_state",
    "shipping_address_zip",
)
_CENT = 0.0101


def _close(left: float, right: float) -> bool:
    return abs(left - right) <= _CENT


@dataclass(frozen=True, slots=True)
class WorkflowJudge:
    """Refunds, charges, order changes, reships and installation work (see the module docstring).

    The time windows run from the commit time (:func:`judges.commit_time`).
    """

    name: str = "retail_workflow"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        changes = Changes(effects)
        wanted: dict[Query, None] = {}
        for job in changes.updated("installation_jobs", "scheduled_date"):
            wanted[Query.one("customer_profiles", id=job.row.get("customer_id"))] = None
        for order_id in {refund.row.get("order_id") for refund in changes.inserted("refunds")}:
            wanted[Query.of("refunds", None, order_id=order_id)] = None
            wanted[Query.of("payment_transactions", None, order_id=order_id)] = None
        return list(wanted)

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        changes = Changes(context.effects)
        state = context.state
        findings: list[Finding] = []
        findings += self._installation_cancellations(changes)
        findings += self._refund_totals(changes, state)
        findings += self._modifications(changes, now)
        findings += self._reships(changes)
        findings += self._reschedules(changes, state, now)
        findings += self._duplicates(changes)
        return Verdict.of(findings)

    def _found(self, rule: str, effect: Effect, message: str, hint: str, *records: Any) -> Finding:
        return finding(self.name, rule, effect, message, hint, *records)

    def _installation_cancellations(self, changes: Changes) -> list[Finding]:
        findings: list[Finding] = []
        cancelled = {
            e.key_text for e in changes.updated("orders", "status") if e.row.get("status") == "cancelled"
        }
        returned = {e.row.get("order_id"): e.key_text for e in changes.inserted("rma_records")}
        refunds = changes.inserted("refunds")
        charges = changes.inserted("payment_transactions")
        for refund in refunds:
            order_id = refund.row.get("order_id")
            if order_id in returned:
                findings.append(
                    self._found(
                        "refund-with-return",
                        refund,
                        f"refund {refund.key_text}: {refund.row.get('refund_reason')} of "
                        f"{refund.row.get('amount')} on {order_id}, which {returned[order_id]} returns",
                        "allowed: no manual refund; the RMA refunds when the item is received",
                        returned[order_id],
                    )
                )
        for job in changes.updated("installation_jobs", "status"):
            order_id = job.row.get("order_id")
            if job.row.get("status") != "cancelled" or order_id in cancelled or order_id in returned:
                continue
            cost = money(job.row.get("service_cost"))
            refunded = any(
                r.row.get("order_id") == order_id
                and r.row.get("refund_reason") == "order_cancelled"
                and _close(money(r.row.get("amount")), cost)
                for r in refunds
            )
            charged = any(
                c.row.get("order_id") == order_id
                and c.row.get("charge_reason") == "installation_cancelled_shipping"
                for c in charges
            )
            missing = [
                text
                for text, done in (
                    (f"the order_cancelled refund of its service cost {cost:.2f}", refunded),
                    ("the installation_cancelled_shipping charge", charged),
                )
                if not done
            ]
            if missing:
                findings.append(
                    self._found(
                        "installation-cancellation-refund",
                        job,
                        f"installation job {job.key_text} of {order_id} cancelled without "
                        + " and ".join(missing),
                        f"allowed: refund order_cancelled {cost:.2f} and charge "
                        "installation_cancelled_shipping 55.00 (order kept, shipped without installation)",
                        order_id,
                    )
                )
        return findings

    def _refund_totals(self, changes: Changes, state: StateSnapshot) -> list[Finding]:
        findings: list[Finding] = []
        for order_id in dict.fromkeys(r.row.get("order_id") for r in changes.inserted("refunds")):
            refunded = sum(money(r.get("amount")) for r in state.find("refunds", order_id=order_id))
            paid = sum(
                money(t.get("amount"))
                for t in state.find("payment_transactions", order_id=order_id)
                if t.get("status") == "authorized"
            )
            if refunded > paid + _CENT:
                refund = next(r for r in changes.inserted("refunds") if r.row.get("order_id") == order_id)
                findings.append(
                    self._found(
                        "refunds-within-payments",
                        refund,
                        f"order {order_id}: refunds total {refunded:.2f} against {paid:.2f} paid",
                        f"allowed: refunds up to {paid:.2f} in all",
                        order_id,
                    )
                )
        return findings

    def _modifications(self, changes: Changes, now: datetime) -> list[Finding]:
        findings: list[Finding] = []
        reshipped = {e.row.get("order_id") for e in changes.inserted("shipments")}
        for order in changes.updated("orders", *_ADDRESS, "shipping_speed"):
            fields = set(order.changed_fields)
            if order.key_text in reshipped and "shipping_speed" not in fields:
                continue
            before = order.before or {}
            placed = timestamp(before.get("order_date"))
            recent = placed is not None and placed >= now - timedelta(hours=2)
            if before.get("status") == "processing" and recent:
                continue
            what = "shipping speed" if "shipping_speed" in fields else "shipping address"
            findings.append(
                self._found(
                    "order-modification-window",
                    order,
                    f"order {order.key_text}: {what} changed while '{before.get('status')}', "
                    f"placed {before.get('order_date')}",
                    "allowed: changes to processing orders placed within the last 2 hours; otherwise "
                    "cancellation if not shipped",
                )
            )
        return findings

    def _reships(self, changes: Changes) -> list[Finding]:
        findings: list[Finding] = []
        shipments = {e.row.get("order_id"): e for e in changes.inserted("shipments")}
        moved = {e.key_text for e in changes.updated("orders", *_ADDRESS)}
        fees = {
            e.row.get("order_id"): e
            for e in changes.inserted("payment_transactions")
            if e.row.get("charge_reason") == "reship_fee"
        }
        for order_id, shipment in shipments.items():
            if order_id in moved and order_id not in fees:
                findings.append(
                    self._found(
                        "reship-fee",
                        shipment,
                        f"order {order_id}: reshipped to a corrected address ({shipment.key_text}) "
                        "without a reship_fee charge",
                        "allowed: charge reship_fee 15.00 when the checkout address was wrong",
                        order_id,
                    )
                )
        for order_id, fee in fees.items():
            if order_id in shipments and order_id in moved:
                continue
            how = "to the address on record" if order_id in shipments else "without a reship"
            findings.append(
                self._found(
                    "reship-fee",
                    fee,
                    f"charge {fee.key_text}: reship_fee on order {order_id}, reshipped {how}"
                    if order_id in shipments
                    else f"charge {fee.key_text}: reship_fee on order {order_id} {how}",
                    "allowed: no reship_fee unless the order is reshipped to a corrected address",
                    order_id,
                )
            )
        return findings

    def _duplicates(self, changes: Changes) -> list[Finding]:
        findings: list[Finding] = []
        skus = {
            line.row.get("order_id"): line.row.get("sku") for line in changes.inserted("order_line_items")
        }
        keyed = (
            ("payment_transactions", lambda r: (r.get("order_id"), r.get("charge_reason"), r.get("amount"))),
            ("warranty_claims", lambda r: (r.get("contract_id"), r.get("issue_description"))),
            ("orders", lambda r: (r.get("customer_id"), skus.get(r.get("id")))),
        )
        for table, key in keyed:
            seen: dict[Any, Effect] = {}
            for effect in changes.inserted(table):
                first = seen.setdefault(key(effect.row), effect)
                if first is effect:
                    continue
                findings.append(
                    self._found(
                        "write-not-repeated",
                        effect,
                        f"{effect.key_text} repeats {first.key_text} in {table} ("
                        + ", ".join(str(part) for part in key(effect.row))
                        + ")",
                        f"allowed: one {table} record for this; {first.key_text} already has it",
                        first.key_text,
                    )
                )
        return findings

    def _reschedules(self, changes: Changes, state: StateSnapshot, now: datetime) -> list[Finding]:
        findings: list[Finding] = []
        for job in changes.updated("installation_jobs", "status", "scheduled_date"):
            before = job.before or {}
            if before.get("status") == "completed" and job.row.get("status") == "scheduled":
                ends = timestamp(before.get("workmanship_warranty_end"))
                if ends is None or ends < now:
                    findings.append(
                        self._found(
                            "workmanship-warranty-window",
                            job,
                            f"installation job {job.key_text}: corrective service with workmanship warranty "
                            f"ending {before.get('workmanship_warranty_end')}",
                            "allowed: corrective service within the workmanship warranty; product defects "
                            "go to warranty or return",
                        )
                    )
            if "scheduled_date" not in job.changed_fields:
                continue
            new, old = timestamp(job.row.get("scheduled_date")), timestamp(before.get("scheduled_date"))
            if new is not None and new <= now:
                findings.append(
                    self._found(
                        "installation-reschedule-future",
                        job,
                        f"installation job {job.key_text}: rescheduled to {job.row.get('scheduled_date')}",
                        f"allowed: a date after {now.isoformat()}",
                    )
                )
            findings += self._delay_compensation(changes, state, job, new, old)
        return findings

    def _delay_compensation(
        self, changes: Changes, state: StateSnapshot, job: Effect, new: datetime | None, old: datetime | None
    ) -> list[Finding]:
        findings: list[Finding] = []
        order_id = job.row.get("order_id")
        profile = state.one("customer_profiles", id=job.row.get("customer_id"))
        score = None if profile is None else profile.get("customer_score")
        delayed = new is not None and old is not None and new - old > timedelta(days=7)
        if isinstance(score, int) and delayed:
            share = 0.10 if score >= 70 else 0.05 if score >= 40 else 0.0
        else:
            share = 0.0
        expected = round(share * money(job.row.get("service_cost")), 2)
        for refund in changes.inserted("refunds"):
            if refund.row.get("order_id") != order_id:
                continue
            if refund.row.get("refund_reason") != "late_delivery_compensation":
                continue
            amount = money(refund.row.get("amount"))
            if expected > 0.0 and _close(amount, expected):
                continue
            days = "?" if new is None or old is None else f"{(new - old).days}"
            allowed = f"{expected:.2f}" if expected > 0.0 else "no compensation"
            findings.append(
                self._found(
                    "installation-delay-compensation",
                    refund,
                    f"refund {refund.key_text}: late_delivery_compensation of {amount} for installation "
                    f"{job.key_text} moved by {days} days",
                    f"allowed: {allowed}",
                    job.key_text,
                )
            )
        return findings
