"""The airline's Python judges, after its rule pack (``rules.yaml``): the clauses CEL cannot say.

* the rule pack ``tau_airline``: CEL over one changed reservation or user —
  payment method counts, passenger counts, basic economy flights, bags only
  added, no insurance added, cancellation eligibility, compensation certificates;
* :class:`~.bookings.BookingJudge` (``tau_airline_bookings``): payments adding
  up to the price, the bag allowance, payment methods from the profile as it
  was before the commit, one cabin across the flights (sums and the flights'
  per-cabin prices).

None reads golden data: they see the commit's effects and the pending state.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchmark.domains.tau_airline.judges.bookings import BookingJudge
from benchmark.domains.tau_airline.judges.conversation import (
    CabinStatedJudge,
    ClaimsJudge,
    ConfirmationJudge,
    RetryJudge,
)
from benchmark.domains.tau_airline.judges.itinerary import BasicEconomyChangeJudge, ItineraryJudge
from judges import Judge

__all__ = [
    "BasicEconomyChangeJudge",
    "BookingJudge",
    "CabinStatedJudge",
    "ClaimsJudge",
    "ConfirmationJudge",
    "ItineraryJudge",
    "RetryJudge",
    "tau_airline_judges",
]


def tau_airline_judges() -> Sequence[Judge]:
    """The judges after the rule pack, in chain order: state, then trace, then conversation."""
    return (
        BookingJudge(),
        ItineraryJudge(),
        BasicEconomyChangeJudge(),
        ConfirmationJudge(),
        RetryJudge(),
        CabinStatedJudge(),
        ClaimsJudge(),
    )
