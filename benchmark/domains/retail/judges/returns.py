"""Returns, exchanges and replacement orders: the records that send goods back and forth.

Each check reads the commit's effects and a few rows looked up by key. Rule
ids and the policy section they come from:

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
  return carries return shipping.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.domains.retail.judges.changes import Changes, finding, money
from judges import CommitContext, Effect, Finding, Query, StateSnapshot, Verdict

__all__ = ["ReturnsJudge"]


def _sort_key(line_item_id: Any) -> tuple[int, str]:
    digits = "".join(ch for ch in str(line_item_id) if ch.isdigit())
    return (int(digits) if digits else 0, str(line_item_id))


@dataclass(frozen=True, slots=True)
class ReturnsJudge:
    """RMAs, exchanges and replacement orders checked together (see the module docstring)."""

    name: str = "retail_returns"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        changes = Changes(effects)
        wanted: dict[Query, None] = {}
        for rma in changes.inserted("rma_records"):
            wanted[Query.one("order_line_items", id=rma.row.get("line_item_id"))] = None
            wanted[Query.one("orders", id=rma.row.get("order_id"))] = None
            wanted[Query.of("installation_jobs", None, order_id=rma.row.get("order_id"))] = None
        for order in changes.inserted("orders"):
            wanted[Query.one("customer_profiles", id=order.row.get("customer_id"))] = None
            wanted[Query.of("orders", None, customer_id=order.row.get("customer_id"))] = None
        for line in changes.inserted("order_line_items"):
            wanted[Query.of("order_line_items", None, sku=line.row.get("sku"))] = None
        return list(wanted)

    def __call__(self, context: CommitContext) -> Verdict:
        changes = Changes(context.effects)
        return Verdict.of(self._replacements(changes, context.state) + self._returns(changes, context.state))

    def _found(self, rule: str, effect: Effect, message: str, hint: str, *records: Any) -> Finding:
        return finding(self.name, rule, effect, message, hint, *records)

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
                    self._found(
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
            item = state.one("order_line_items", id=rma.row.get("line_item_id"))
            if item is not None:
                returned[str(item.get("sku"))] = rma.key_text
            original = state.one("orders", id=rma.row.get("order_id"))
            if original is not None and original.get("fulfillment_type") == "drop_ship":
                findings.append(
                    self._found(
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
                    self._found(
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
        profile = state.one("customer_profiles", id=customer_id)
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
        return [self._found("courtesy-replacement-eligible", order, message, hint, customer_id)]

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
                    self._found(
                        "rma-zero-refund-exchange-only",
                        rma,
                        f"{rma.key_text}: refund_amount 0 with no replacement order for "
                        f"{rma.row.get('customer_id')}",
                        "allowed: the final price less fees; 0 only for an exchange with a replacement order",
                    )
                )
            order = state.one("orders", id=rma.row.get("order_id"))
            if order is None or order.get("status") != "installation_scheduled":
                continue
            if not order.get("installation_service_id"):
                continue
            for job in state.find("installation_jobs", order_id=rma.row.get("order_id")):
                if job.get("status") != "cancelled":
                    findings.append(
                        self._found(
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
                        self._found(
                            "rma-return-shipping-once",
                            rma,
                            f"{rma.key_text}: return_shipping_cost {rma.row.get('return_shipping_cost')} "
                            f"besides {first.key_text} of the same return",
                            f"allowed: 0; return shipping is on the first line item only ({first.key_text})",
                            first.key_text,
                        )
                    )
        return findings
