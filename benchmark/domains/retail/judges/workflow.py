"""Workflows that span several records: exchanges, replacements, cancellations, reships, reschedules.

Each check reads the effects of the commit and a few rows looked up by key.
Rule ids and the policy section they come from:

* ``exchange-same-sku``, ``exchange-not-drop-ship`` (Returns 4.6) — an
  exchange (an RMA and a replacement order for the same customer) replaces
  the returned SKU, and never for a drop-ship order;
* ``courtesy-replacement-eligible`` (Tracking 3.3) — a replacement without a
  return is a courtesy for VIP or regular customers only;
* ``replacement-sku-ordered`` — a replacement sends what the customer ordered,
  in no larger quantity;
* ``rma-zero-refund-exchange-only`` (4.6) — an RMA without refund is the
  record of an exchange;
* ``return-cancels-installation`` (4.4) — returning an appliance awaiting
  installation cancels the installation;
* ``rma-return-shipping-once`` (4.5) — only the first RMA of a multi-item
  return carries return shipping;
* ``installation-cancellation-refund``, ``refund-with-return`` (6.4, 9.1) —
  cancelling only the installation refunds its cost and charges shipping;
  an RMA refunds by itself;
* ``refunds-within-payments`` — refunds of an order never exceed what was paid;
* ``write-not-repeated`` — one transaction does not make the same refund,
  charge, warranty claim or replacement twice (a double submit);
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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from benchmark.domains.retail.judges.changes import Changes, by_key, money, row_by_key, timestamp
from judges import CommitContext, Effect, Finding, Query, Severity, StateSnapshot, Verdict

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


def _sort_key(line_item_id: Any) -> tuple[int, str]:
    digits = "".join(ch for ch in str(line_item_id) if ch.isdigit())
    return (int(digits) if digits else 0, str(line_item_id))


@dataclass(frozen=True, slots=True)
class WorkflowJudge:
    """Cross-record workflow checks (see the module docstring); ``now`` is the business clock."""

    now: Callable[[], datetime]
    name: str = "retail_workflow"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        changes = Changes(effects)
        wanted: dict[Query, None] = {}
        for rma in changes.inserted("rma_records"):
            wanted[by_key("order_line_items", rma.row.get("line_item_id"))] = None
            wanted[by_key("orders", rma.row.get("order_id"))] = None
            wanted[Query.of("installation_jobs", None, order_id=rma.row.get("order_id"))] = None
        for order in changes.inserted("orders"):
            wanted[by_key("customer_profiles", order.row.get("customer_id"))] = None
            wanted[Query.of("orders", None, customer_id=order.row.get("customer_id"))] = None
        for line in changes.inserted("order_line_items"):
            wanted[Query.of("order_line_items", None, sku=line.row.get("sku"))] = None
        for job in changes.updated("installation_jobs", "scheduled_date"):
            wanted[by_key("customer_profiles", job.row.get("customer_id"))] = None
        for order_id in {refund.row.get("order_id") for refund in changes.inserted("refunds")}:
            wanted[Query.of("refunds", None, order_id=order_id)] = None
            wanted[Query.of("payment_transactions", None, order_id=order_id)] = None
        return list(wanted)

    def __call__(self, context: CommitContext) -> Verdict:
        changes = Changes(context.effects)
        state = context.state
        findings: list[Finding] = []
        findings += self._replacements(changes, state)
        findings += self._returns(changes, state)
        findings += self._installation_cancellations(changes)
        findings += self._refund_totals(changes, state)
        findings += self._modifications(changes)
        findings += self._reships(changes)
        findings += self._reschedules(changes, state)
        findings += self._duplicates(changes)
        return Verdict.of(findings)

    def _finding(self, rule: str, effect: Effect, message: str, hint: str, *records: Any) -> Finding:
        evidence: dict[str, Any] = {"table": effect.table, "key": effect.key_text}
        named = [str(record) for record in records if record is not None]
        if named:
            evidence["records"] = named
        return Finding(self.name, Severity.BLOCK, message, hint=hint, rule=rule, evidence=evidence)

    def _replacements(self, changes: Changes, state: StateSnapshot) -> list[Finding]:
        findings: list[Finding] = []
        for order in changes.inserted("orders"):
            customer_id, new = order.row.get("customer_id"), order.key_text
            lines = [e for e in changes.inserted("order_line_items") if e.row.get("order_id") == new]
            rmas = [e for e in changes.inserted("rma_records") if e.row.get("customer_id") == customer_id]
            if rmas:
                findings += self._exchange(order, lines, rmas, state)
            else:
                findings += self._courtesy(order, state)
            own = {o.get("id") for o in state.find("orders", customer_id=customer_id)} - {order.key_text}
            for line in lines:
                sku = line.row.get("sku")
                items = state.find("order_line_items", sku=sku)
                earlier = [item for item in items if item.get("order_id") in own]
                most = max((int(item.get("quantity") or 0) for item in earlier), default=0)
                if earlier and int(line.row.get("quantity") or 0) <= most:
                    continue
                found = f"quantity {line.row.get('quantity')} of SKU '{sku}'"
                had = f"ordered {most}" if earlier else "never ordered"
                findings.append(
                    self._finding(
                        "replacement-sku-ordered",
                        order,
                        f"replacement order {order.key_text}: {found}, which {customer_id} {had}",
                        "allowed: the SKU and quantity of the customer's original order",
                        line.key_text,
                    )
                )
        return findings

    def _exchange(
        self, order: Effect, lines: list[Effect], rmas: list[Effect], state: StateSnapshot
    ) -> list[Finding]:
        findings: list[Finding] = []
        returned: dict[str, str] = {}
        for rma in rmas:
            item = row_by_key(state, "order_line_items", rma.row.get("line_item_id"))
            if item is not None:
                returned[str(item.get("sku"))] = rma.key_text
            original = row_by_key(state, "orders", rma.row.get("order_id"))
            if original is not None and original.get("fulfillment_type") == "drop_ship":
                findings.append(
                    self._finding(
                        "exchange-not-drop-ship",
                        order,
                        f"replacement order {order.key_text} exchanges {rma.key_text} of drop-ship order "
                        f"{rma.row.get('order_id')}",
                        "allowed: a return only; drop-ship orders have no exchanges",
                        rma.key_text,
                        rma.row.get("order_id"),
                    )
                )
        for line in lines:
            sku = str(line.row.get("sku"))
            if returned and sku not in returned:
                findings.append(
                    self._finding(
                        "exchange-same-sku",
                        order,
                        f"replacement order {order.key_text}: SKU '{sku}' for returned SKU "
                        f"{', '.join(sorted(returned))} ({', '.join(sorted(returned.values()))})",
                        f"allowed: {', '.join(sorted(returned))}; another SKU is a return and a new order",
                        line.key_text,
                        *returned.values(),
                    )
                )
        return findings

    def _courtesy(self, order: Effect, state: StateSnapshot) -> list[Finding]:
        customer_id = order.row.get("customer_id")
        profile = row_by_key(state, "customer_profiles", customer_id)
        if profile is None:
            return []
        score = profile.get("customer_score")
        if profile.get("customer_tier") == "vip" or (isinstance(score, int) and score >= 70):
            return []
        message = (
            f"replacement order {order.key_text}: courtesy replacement for {customer_id}, "
            f"a {profile.get('customer_tier')} customer outside the regular segment"
        )
        hint = "allowed: no replacement; a carrier investigation (ticket on hold) for this customer"
        return [self._finding("courtesy-replacement-eligible", order, message, hint, customer_id)]

    def _returns(self, changes: Changes, state: StateSnapshot) -> list[Finding]:
        findings: list[Finding] = []
        replaced = {e.row.get("customer_id") for e in changes.inserted("orders")}
        by_order: dict[Any, list[Effect]] = {}
        for rma in changes.inserted("rma_records"):
            by_order.setdefault(rma.row.get("order_id"), []).append(rma)
            if rma.row.get("customer_id") in replaced:
                continue
            if money(rma.row.get("refund_amount")) == 0.0:
                findings.append(
                    self._finding(
                        "rma-zero-refund-exchange-only",
                        rma,
                        f"{rma.key_text}: refund_amount 0 with no replacement order for "
                        f"{rma.row.get('customer_id')}",
                        "allowed: the final price less fees; 0 only for an exchange with a replacement order",
                    )
                )
            order = row_by_key(state, "orders", rma.row.get("order_id"))
            if order is None or order.get("status") != "installation_scheduled":
                continue
            if not order.get("installation_service_id"):
                continue
            for job in state.find("installation_jobs", order_id=rma.row.get("order_id")):
                if job.get("status") != "cancelled":
                    findings.append(
                        self._finding(
                            "return-cancels-installation",
                            rma,
                            f"installation job {job.get('id')} of {rma.row.get('order_id')} is "
                            f"'{job.get('status')}' while {rma.key_text} returns the appliance",
                            "allowed: installation job cancelled (reason customer_cancelled_order)",
                            job.get("id"),
                        )
                    )
        for rmas in by_order.values():
            if len(rmas) < 2:
                continue
            first = min(rmas, key=lambda r: _sort_key(r.row.get("line_item_id")))
            for rma in rmas:
                if rma is not first and money(rma.row.get("return_shipping_cost")) > 0.0:
                    findings.append(
                        self._finding(
                            "rma-return-shipping-once",
                            rma,
                            f"{rma.key_text}: return_shipping_cost {rma.row.get('return_shipping_cost')} "
                            f"besides {first.key_text} of the same return",
                            f"allowed: 0; return shipping is on the first line item only ({first.key_text})",
                            first.key_text,
                        )
                    )
        return findings

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
                    self._finding(
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
                    self._finding(
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
                    self._finding(
                        "refunds-within-payments",
                        refund,
                        f"order {order_id}: refunds total {refunded:.2f} against {paid:.2f} paid",
                        f"allowed: refunds up to {paid:.2f} in all",
                        order_id,
                    )
                )
        return findings

    def _modifications(self, changes: Changes) -> list[Finding]:
        findings: list[Finding] = []
        reshipped = {e.row.get("order_id") for e in changes.inserted("shipments")}
        for order in changes.updated("orders", *_ADDRESS, "shipping_speed"):
            fields = set(order.changed_fields)
            if order.key_text in reshipped and "shipping_speed" not in fields:
                continue
            before = order.before or {}
            placed = timestamp(before.get("order_date"))
            recent = placed is not None and placed >= self.now() - timedelta(hours=2)
            if before.get("status") == "processing" and recent:
                continue
            what = "shipping speed" if "shipping_speed" in fields else "shipping address"
            findings.append(
                self._finding(
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
                    self._finding(
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
                self._finding(
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
            ("refunds", lambda r: (r.get("order_id"), r.get("refund_reason"), r.get("amount"))),
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
                    self._finding(
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

    def _reschedules(self, changes: Changes, state: StateSnapshot) -> list[Finding]:
        findings: list[Finding] = []
        now = self.now()
        for job in changes.updated("installation_jobs", "status", "scheduled_date"):
            before = job.before or {}
            if before.get("status") == "completed" and job.row.get("status") == "scheduled":
                ends = timestamp(before.get("workmanship_warranty_end"))
                if ends is None or ends < now:
                    findings.append(
                        self._finding(
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
                    self._finding(
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
        profile = row_by_key(state, "customer_profiles", job.row.get("customer_id"))
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
                self._finding(
                    "installation-delay-compensation",
                    refund,
                    f"refund {refund.key_text}: late_delivery_compensation of {amount} for installation "
                    f"{job.key_text} moved by {days} days",
                    f"allowed: {allowed}",
                    job.key_text,
                )
            )
        return findings
