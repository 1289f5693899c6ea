"""StayBridge's policy arithmetic: fees, refunds, compensation, priorities and escalation triggers.

Pure functions of the policy manual's tables (``external_booking_v1.yaml``),
with no effects and no clock of their own: callers pass the hours until
check-in (or since check-out) measured from their business clock. Time
bounds follow the manual's convention, inclusive lower and exclusive upper
(``≥ 24 h and < 48 h``); the post-stay windows are written ``≤ 48 hours`` and
``≤ 7 days`` and are inclusive. Amounts are in dollars, compared to the cent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

__all__ = [
    "CENT",
    "Account",
    "Fee",
    "cancellation_refund",
    "check_in_priority",
    "check_in_tag",
    "compensation_rates",
    "group_fee",
    "group_needs_hotel",
    "higher",
    "hours_between",
    "modification_fee",
    "money",
    "parse_moment",
    "round_cents",
    "same_day_needs_hotel",
    "special_request_fees",
]

CENT = 0.005
"""Half a cent: two amounts closer than this are the same amount."""

SERVICE_FEE = 15.0
_MULTIPLIER = {"premium": 0.5, "standard": 1.0, "budget": 1.5}
_CANCELLATION_WINDOWS = {
    # hotel tier -> (hours before check-in, refund share), first match from the top
    "premium": ((24.0, 1.0),),
    "standard": ((48.0, 1.0), (24.0, 0.5)),
    "budget": ((168.0, 1.0), (48.0, 0.75), (24.0, 0.5)),
}
_PRIORITY_ORDER = ("low", "normal", "high", "urgent")


@dataclass(frozen=True, slots=True)
class Account:
    """A booking's corporate account as the policy reads it: its tier, when the account is active."""

    tier: str | None

    @classmethod
    def of(cls, row: Any) -> Account:
        """Benefits apply only to an active account; otherwise B2C policies (tier None)."""
        if not row or row.get("account_status") != "active":
            return cls(None)
        return cls(str(row.get("account_tier")))


@dataclass(frozen=True, slots=True)
class Fee:
    """A modification fee and how it was reached (for the finding's hint)."""

    amount: float
    why: str


def money(value: Any) -> float:
    """A stored amount (text, decimal or number) as dollars; None and garbage are 0."""
    try:
        return float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


def round_cents(value: float) -> float:
    """Round to the cent, half up ("If exactly $X.XX5, round up")."""
    return float(Decimal(repr(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


# Not shared: neobank's parse_instant strips blanks, retail's timestamp takes datetimes and non-text too.
def parse_moment(value: Any) -> datetime | None:
    """An ISO date or datetime (``Z`` read as UTC; a naive one taken as UTC), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def hours_between(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds() / 3600.0


def _base_fee(hours: float) -> float:
    if hours >= 168:
        return 0.0
    if hours >= 48:
        return 25.0
    if hours >= 24:
        return 50.0
    return 60.0


def _surcharge(previous: int) -> float:
    return 0.0 if previous <= 0 else 15.0 if previous == 1 else 30.0


def modification_fee(
    hours: float, hotel_tier: str, previous: int, vip_tier: str, account: Account, value_before: float
) -> Fee:
    """The fee of modifying one (non-group) booking: the most favourable of the tiers that apply.

    ``(base × hotel multiplier) + surcharge for earlier modifications``; waived
    for platinum customers ≥ 24 h before check-in, for enterprise accounts, and
    for a mid-market booking worth ≥ $1,000 (which needs manager approval).
    """
    multiplier = _MULTIPLIER.get(hotel_tier, 1.0)
    base = _base_fee(hours)
    surcharge = _surcharge(previous)
    amount = round_cents(base * multiplier + surcharge)
    why = f"base {base:g} x {hotel_tier} {multiplier:g} + surcharge {surcharge:g} ({previous} earlier)"
    if vip_tier == "platinum" and hours >= 24:
        return Fee(0.0, "waived for a platinum customer 24 h or more before check-in")
    if account.tier == "enterprise":
        return Fee(0.0, "waived for an enterprise account")
    if account.tier == "mid_market" and value_before >= 1000:
        return Fee(0.0, "waived for an approved mid-market booking of $1,000 or more")
    return Fee(amount, why)


def group_fee(hours: float, rooms_modified: int, group_size: int, hotel_tier: str) -> Fee:
    """``per-room base × rooms modified × hotel multiplier``; premium large groups ≥ 7 days out are free."""
    multiplier = _MULTIPLIER.get(hotel_tier, 1.0)
    base = _base_fee(hours)
    if group_size >= 16 and hotel_tier == "premium" and hours >= 168:
        base = 0.0
    amount = round_cents(base * rooms_modified * multiplier)
    return Fee(amount, f"per-room {base:g} x {rooms_modified} room(s) x {hotel_tier} {multiplier:g}")


def cancellation_refund(
    value: float, hours: float, hotel_tier: str, vip_tier: str, account: Account
) -> tuple[float, float]:
    """The refund of cancelling one booking and its share of the value (1.0 for a 100% refund).

    The hotel tier's window, less the $15 service fee when anything is
    refunded; platinum ≥ 24 h: the whole value; an active enterprise account
    ≥ 48 h: the whole value less the service fee. The most favourable applies.
    """
    share = next((s for limit, s in _CANCELLATION_WINDOWS.get(hotel_tier, ()) if hours >= limit), 0.0)
    options = [(round_cents(value * share - SERVICE_FEE) if share > 0 else 0.0, share)]
    if vip_tier == "platinum" and hours >= 24:
        options.append((round_cents(value), 1.0))
    if account.tier == "enterprise" and hours >= 48:
        options.append((round_cents(value - SERVICE_FEE), 1.0))
    return max(options)


def compensation_rates(vip_tier: str, hours_since_checkout: float) -> tuple[float, ...]:
    """The post-stay compensation shares of the value a complaint can earn (empty: out of window)."""
    if hours_since_checkout < 0:
        return ()
    if vip_tier == "platinum":
        if hours_since_checkout <= 48:
            return (0.5, 1.0)
        return (0.5,) if hours_since_checkout <= 14 * 24 else ()
    if hours_since_checkout <= 48:
        return (0.25, 0.5, 0.75)
    return (0.25,) if hours_since_checkout <= 7 * 24 else ()


def special_request_fees(
    requests: Iterable[str], hours: float, vip_tier: str, value: float, nights: int
) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """The totals the special-accommodation fee table allows for newly added requests, and the items.

    Early check-in: $25 asked ≥ 24 h ahead ($0 platinum), $50 the same day;
    late checkout until 2 PM: $30 ($0 platinum), later: half a night's rate.
    Room preferences, connecting rooms, accessibility and pets cost nothing here.
    """
    totals = {0.0}
    items: list[str] = []
    half_day = round_cents(0.5 * value / nights) if nights > 0 else 0.0
    platinum = vip_tier == "platinum"
    for request in requests:
        text = request.lower()
        options: set[float] = set()
        if "early" in text and ("check" in text or "arriv" in text):
            options.add(50.0 if hours < 24 else 0.0 if platinum else 25.0)
            items.append(f"early check-in {'/'.join(f'{o:g}' for o in sorted(options))}")
        elif "late" in text and ("check" in text or "depart" in text):
            options |= {0.0 if platinum else 30.0, half_day}
            items.append(f"late checkout {'/'.join(f'{o:g}' for o in sorted(options))}")
        if options:
            totals = {round_cents(t + o) for t in totals for o in options}
    return tuple(sorted(totals)), tuple(items)


def check_in_priority(check_in: datetime, now: datetime) -> str:
    """Priority by check-in proximity: today urgent, under 48 h high, later normal."""
    if check_in.date() == now.date():
        return "urgent"
    hours = hours_between(now, check_in)
    return "high" if hours < 48 else "normal"


def higher(first: str, second: str) -> str:
    """The higher of two priorities."""
    return max(first, second, key=_PRIORITY_ORDER.index)


def check_in_tag(check_in: datetime, now: datetime) -> str:
    """The check-in timing tag of an upcoming stay."""
    if check_in.date() == now.date():
        return "check-in-today"
    return "check-in-24h" if hours_between(now, check_in) < 24 else "check-in-upcoming"


def same_day_needs_hotel(hours: float, hotel_tier: str, vip_tier: str) -> bool:
    """A modification under 24 h at a standard or premium hotel for a standard-tier customer."""
    return hours < 24 and hotel_tier in ("standard", "premium") and vip_tier == "standard"


def group_needs_hotel(hours: float, group_size: int, hotel_tier: str) -> bool:
    """Whether a group modification needs the hotel's approval first (4.7.2 and 4.9.1)."""
    if group_size >= 16:
        return not (hotel_tier == "premium" and hours >= 168)
    if group_size >= 6:
        return hours < 48 or (hotel_tier == "budget" and hours < 168)
    return hours < 48
