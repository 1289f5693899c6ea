"""The demo's own judge: a ticket is not solved while its order's carrier exception is open."""

from __future__ import annotations

from collections.abc import Sequence

from judges import CommitContext, Effect, EffectKind, Finding, Query, Severity, Verdict

__all__ = ["OpenCarrierException"]

_DONE = frozenset({"solved", "closed"})


class OpenCarrierException:
    """Blocks a ticket moving to solved/closed while a shipment of its order is in carrier exception."""

    name = "open-carrier-exception"

    @staticmethod
    def _closing(effects: Sequence[Effect]) -> list[Effect]:
        return [
            e
            for e in effects
            if e.table == "tickets"
            and e.kind in (EffectKind.INSERT, EffectKind.UPDATE)
            and "status" in e.changed_fields
            and e.row.get("status") in _DONE
        ]

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return [Query.of("shipments", None, order_id=e.row["order_id"]) for e in self._closing(effects)]

    def __call__(self, context: CommitContext) -> Verdict:
        findings = []
        for effect in self._closing(context.effects):
            order_id = effect.row["order_id"]
            stuck = [
                s
                for s in context.state.find("shipments", order_id=order_id)
                if s["carrier_status"] == "exception"
            ]
            if stuck:
                status = effect.row["status"]
                findings.append(
                    Finding(
                        judge=self.name,
                        severity=Severity.BLOCK,
                        message=(
                            f"ticket {effect.key_text}: status '{status}' while carrier exception "
                            f"for {order_id} is open (shipment {', '.join(s['id'] for s in stuck)})"
                        ),
                        hint="allowed: hold, pending, open",
                        evidence={"order_id": order_id, "shipments": [s["id"] for s in stuck]},
                    )
                )
        return Verdict.of(findings)
