"""The airline's clauses that need sums, the user's profile before the commit, or the flights' prices.

:class:`BookingJudge` (``tau_airline_bookings``) checks each reservation the
commit books or changes:

* ``booking-payments-add-up`` — a booking's payments add up to its price:
  the flights' prices times the passengers, $30 per passenger with
  insurance, $50 per non-free bag;
* ``booking-bags-charged`` — a booking's non-free bags are its bags beyond
  the free allowance of the booking user's membership and the cabin
  (policy "Checked bag allowance");
* ``payment-method-in-profile`` — every payment a booking or change adds is
  one of the user's payment methods as they were before the commit (a
  certificate is used up by the booking, so the users effect's ``before`` is
  read when the commit changed the user);
* ``cabin-one-across-flights`` — every flight priced by the commit (a
  segment not kept as it was) is priced in one and the same cabin of that
  flight on its date: a segment kept from another cabin beside new ones
  means two cabins in one reservation.

Rows: the booking user (by ``user_id``) and each flight a booked or changed
segment names (by ``flight_number``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from judges import CommitContext, Effect, EffectKind, Finding, Query, Severity, Verdict

__all__ = ["BookingJudge"]

_FREE_BAGS: Mapping[str, Mapping[str, int]] = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}
_CABINS = ("basic_economy", "economy", "business")
_CENT = 0.005

Row = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class _Finding:
    rule: str
    field: str
    value: Any
    message: str
    hint: str


def _reservations(effects: Sequence[Effect]) -> Iterator[Effect]:
    for effect in effects:
        if effect.table == "reservations" and effect.kind in (EffectKind.INSERT, EffectKind.UPDATE):
            yield effect


def _new_segments(effect: Effect) -> list[Row]:
    """The segments the commit priced: all of a booking's, those of a change not kept as they were."""
    after = list(effect.row.get("flights") or ())
    before = list((effect.before or {}).get("flights") or ())
    return [segment for segment in after if segment not in before]


def _new_payments(effect: Effect) -> list[Row]:
    after = list(effect.row.get("payment_history") or ())
    before = list((effect.before or {}).get("payment_history") or ())
    if effect.row.get("status") == "cancelled":
        return []  # refunds go back to the methods paid with
    return [payment for payment in after if payment not in before]


def _money(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


@dataclass(frozen=True, slots=True)
class BookingJudge:
    """Payments, bag allowance, profile methods and one cabin, per booked or changed reservation."""

    name: str = "tau_airline_bookings"
    severity: Severity = Severity.BLOCK
    rule_ids: ClassVar[tuple[str, ...]] = (
        "booking-payments-add-up",
        "booking-bags-charged",
        "payment-method-in-profile",
        "cabin-one-across-flights",
    )
    """The rules its findings name."""

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        wanted: dict[Query, None] = {}
        for effect in _reservations(effects):
            wanted[Query.one("users", user_id=effect.row.get("user_id"))] = None
            for segment in _new_segments(effect):
                wanted[Query.one("flights", flight_number=segment.get("flight_number"))] = None
        return list(wanted)

    def __call__(self, context: CommitContext) -> Verdict:
        users_before = {
            effect.key_text: effect.before
            for effect in context.effects
            if effect.table == "users" and effect.before is not None
        }
        findings: list[Finding] = []
        for effect in _reservations(context.effects):
            user_id = effect.row.get("user_id")
            user = users_before.get(str(user_id)) or context.state.one("users", user_id=user_id)
            flights = {
                str(segment.get("flight_number")): context.state.one(
                    "flights", flight_number=segment.get("flight_number")
                )
                for segment in _new_segments(effect)
            }
            for found in _checks(effect, user, flights):
                evidence = {"table": "reservations", "key": effect.key_text, "field": found.field}
                evidence["value"] = found.value
                findings.append(
                    Finding(self.name, self.severity, found.message, found.hint, found.rule, evidence)
                )
        return Verdict.of(findings)


def _checks(effect: Effect, user: Row | None, flights: Mapping[str, Row | None]) -> Iterator[_Finding]:
    if effect.kind is EffectKind.INSERT:
        yield from _price(effect)
        yield from _bags(effect, user)
    yield from _profile(effect, user)
    yield from _one_cabin(effect, flights)


def _price(effect: Effect) -> Iterator[_Finding]:
    row = effect.row
    riders = len(row.get("passengers") or ())
    fares = sum(_money(segment.get("price")) for segment in row.get("flights") or ()) * riders
    insurance = 30.0 * riders if row.get("insurance") == "yes" else 0.0
    bags = 50.0 * _money(row.get("nonfree_baggages"))
    price = fares + insurance + bags
    paid = sum(_money(payment.get("amount")) for payment in row.get("payment_history") or ())
    if abs(paid - price) > _CENT:
        yield _Finding(
            "booking-payments-add-up",
            "payment_history",
            paid,
            f"reservation {effect.key_text}: payment_history totals {paid:g}, price {price:g} "
            f"(flights {fares:g}, insurance {insurance:g}, bags {bags:g})",
            f"allowed: payments totalling {price:g}",
        )


def _bags(effect: Effect, user: Row | None) -> Iterator[_Finding]:
    row = effect.row
    membership = str((user or {}).get("membership"))
    free_each = _FREE_BAGS.get(membership, _FREE_BAGS["regular"]).get(str(row.get("cabin")), 0)
    riders = len(row.get("passengers") or ())
    total = int(_money(row.get("total_baggages")))
    charged = max(0, total - free_each * riders)
    nonfree = row.get("nonfree_baggages")
    if nonfree != charged:
        yield _Finding(
            "booking-bags-charged",
            "nonfree_baggages",
            nonfree,
            f"reservation {effect.key_text}: nonfree_baggages {nonfree} for total_baggages {total}, "
            f"{riders} passenger(s) in '{row.get('cabin')}', {membership} member",
            f"allowed: {charged} non-free bag(s) ({free_each} free per passenger)",
        )


def _profile(effect: Effect, user: Row | None) -> Iterator[_Finding]:
    methods = (user or {}).get("payment_methods") or {}
    foreign = [str(p.get("payment_id")) for p in _new_payments(effect) if p.get("payment_id") not in methods]
    if foreign:
        yield _Finding(
            "payment-method-in-profile",
            "payment_history",
            foreign,
            f"reservation {effect.key_text}: payment_id {', '.join(foreign)} is not a payment method "
            f"of user {effect.row.get('user_id')}",
            f"allowed: {', '.join(sorted(methods)) or 'no method on file'}",
        )


def _cabins_of(segment: Row, flight: Row | None) -> set[str]:
    """The cabins whose price on the segment's date is the segment's price."""
    on_date = ((flight or {}).get("dates") or {}).get(segment.get("date")) or {}
    prices = on_date.get("prices") or {}
    return {cabin for cabin in _CABINS if cabin in prices and prices[cabin] == segment.get("price")}


def _one_cabin(effect: Effect, flights: Mapping[str, Row | None]) -> Iterator[_Finding]:
    segments = _new_segments(effect)
    priced = [
        (segment, _cabins_of(segment, flights.get(str(segment.get("flight_number"))))) for segment in segments
    ]
    known = [(segment, cabins) for segment, cabins in priced if cabins]
    if len(known) < 2 or set.intersection(*(cabins for _, cabins in known)):
        return
    shown = "; ".join(
        f"{seg.get('flight_number')} {seg.get('date')} at {seg.get('price')} ({'/'.join(sorted(c))})"
        for seg, c in known
    )
    yield _Finding(
        "cabin-one-across-flights",
        "flights",
        [segment.get("flight_number") for segment, _ in known],
        f"reservation {effect.key_text}: flights priced in different cabins: {shown}",
        "allowed: one cabin for every flight of the reservation",
    )
