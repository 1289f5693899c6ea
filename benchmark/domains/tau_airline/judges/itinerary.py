"""The airline's clauses about where a reservation goes and when its flights may change.

* ``itinerary-whole`` (state) — "Other reservations can be modified without changing the origin,
  destination, and trip type", and a booking is a trip of its ``flight_type`` between its ``origin``
  and ``destination``: every booked or changed reservation's flights connect (each segment leaves
  from where the one before landed), a one-way trip starts at the origin and ends at the
  destination, a round trip starts at the origin, reaches the destination and comes back. Airports
  are compared by their IATA metropolitan area (:data:`METRO_AREAS`: New York's JFK, LaGuardia and
  Newark are one destination), as a traveller and an airline's fare rules read "destination".
* ``basic-economy-upgraded-first`` (trace) — "Basic economy flights cannot be modified" and "all
  reservations, including basic economy, can change cabin without changing the flights": a
  reservation that was basic economy when the transaction began has its flights changed only by a
  call after one that changed its cabin and kept its flights. The reference never rewrites the
  cabin field on a change, so the order of the calls, not the record, says whether the reservation
  was still basic economy when its flights changed.

Segments carry their own ``origin`` and ``destination`` (the tools store them), so neither check
reads a row beyond the commit's effects; the second reads the transaction's calls.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from judges import CallRecord, CommitContext, Effect, EffectKind, Finding, Query, Severity, Verdict

__all__ = ["METRO_AREAS", "BasicEconomyChangeJudge", "ItineraryJudge", "itinerary_problems"]

METRO_AREAS: Mapping[str, str] = {"JFK": "NYC", "LGA": "NYC", "EWR": "NYC"}
"""IATA metropolitan area codes of the airline's airports that share one (the others are their own)."""

Row = Mapping[str, Any]


def _area(airport: Any) -> str:
    return METRO_AREAS.get(str(airport), str(airport))


def itinerary_problems(reservation: Row) -> list[str]:
    """What is wrong with a reservation's flights as a trip of its type between its endpoints (empty: ok)."""
    segments = [s for s in reservation.get("flights") or () if isinstance(s, Mapping)]
    if not segments:
        return ["no flights"]
    problems = [
        f"{earlier.get('flight_number')} lands at {earlier.get('destination')} but "
        f"{later.get('flight_number')} leaves from {later.get('origin')}"
        for earlier, later in itertools.pairwise(segments)
        if later.get("origin") != earlier.get("destination")
    ]
    origin, destination = reservation.get("origin"), reservation.get("destination")
    if _area(segments[0].get("origin")) != _area(origin):
        problems.append(f"the trip starts at {segments[0].get('origin')}, not at its origin {origin}")
    last = segments[-1].get("destination")
    if reservation.get("flight_type") == "round_trip":
        if _area(last) != _area(origin):
            problems.append(f"the round trip ends at {last}, not back at its origin {origin}")
        if not any(_area(s.get("destination")) == _area(destination) for s in segments):
            problems.append(f"the round trip never reaches its destination {destination}")
    elif _area(last) != _area(destination):
        problems.append(f"the one-way trip ends at {last}, not at its destination {destination}")
    return problems


def _changed_reservations(effects: Sequence[Effect]) -> Iterator[Effect]:
    """Reservations the commit books, or whose flights it changes."""
    for effect in effects:
        if effect.table != "reservations":
            continue
        if effect.kind is EffectKind.INSERT or (
            effect.kind is EffectKind.UPDATE and "flights" in effect.changed_fields
        ):
            yield effect


@dataclass(frozen=True, slots=True)
class ItineraryJudge:
    """``itinerary-whole``: each booked or changed reservation is one trip between its endpoints."""

    name: str = "tau_airline_itinerary"
    severity: Severity = Severity.BLOCK
    rule_ids: ClassVar[tuple[str, ...]] = ("itinerary-whole",)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        findings = []
        for effect in _changed_reservations(context.effects):
            row = effect.row
            problems = itinerary_problems(row)
            if not problems:
                continue
            segments = [s for s in row.get("flights") or () if isinstance(s, Mapping)]
            route = " ".join(f"{s.get('origin')}-{s.get('destination')}" for s in segments)
            findings.append(
                Finding(
                    self.name,
                    self.severity,
                    f"reservation {effect.key_text} ({row.get('flight_type')} {row.get('origin')} to "
                    f"{row.get('destination')}): flights {route}; {'; '.join(problems)}",
                    f"allowed: flights that go from {row.get('origin')} to {row.get('destination')}"
                    + (" and back" if row.get("flight_type") == "round_trip" else ""),
                    rule="itinerary-whole",
                    evidence={"table": "reservations", "key": effect.key_text, "field": "flights"},
                )
            )
        return Verdict.of(findings)


def _legs(flights: Any) -> tuple[tuple[Any, Any], ...]:
    return tuple((f.get("flight_number"), f.get("date")) for f in flights or () if isinstance(f, Mapping))


def _changes_before_upgrade(reservation: Effect, calls: Sequence[CallRecord]) -> Iterator[int]:
    """Indices of successful flight changes of a basic economy ``reservation`` not preceded by a
    successful call that changed its cabin and kept its flights."""
    before = reservation.before or {}
    legs = _legs(before.get("flights"))
    upgraded = False
    for index, call in enumerate(calls):
        if not call.ok or call.tool != "update_reservation_flights":
            continue
        if str(call.arguments.get("reservation_id")) != reservation.key_text:
            continue
        wanted = _legs(call.arguments.get("flights"))
        if wanted == legs:
            upgraded = upgraded or call.arguments.get("cabin") != "basic_economy"
        elif not upgraded:
            yield index
        legs = wanted


@dataclass(frozen=True, slots=True)
class BasicEconomyChangeJudge:
    """``basic-economy-upgraded-first``: basic economy flights change only after an upgrade."""

    name: str = "tau_airline_basic_economy"
    severity: Severity = Severity.BLOCK
    rule_ids: ClassVar[tuple[str, ...]] = ("basic-economy-upgraded-first",)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        findings = []
        for effect in _changed_reservations(context.effects):
            if effect.kind is not EffectKind.UPDATE or (effect.before or {}).get("cabin") != "basic_economy":
                continue
            for index in _changes_before_upgrade(effect, context.calls):
                findings.append(
                    Finding(
                        self.name,
                        self.severity,
                        f"reservation {effect.key_text}: basic economy when the transaction began, and call "
                        f"{index + 1} update_reservation_flights changed its flights with no earlier call "
                        "upgrading its cabin on the same flights",
                        "allowed: change the cabin first, keeping the flights; then change the flights",
                        rule="basic-economy-upgraded-first",
                        evidence={"table": "reservations", "key": effect.key_text, "call": index + 1},
                    )
                )
        return Verdict.of(findings)
