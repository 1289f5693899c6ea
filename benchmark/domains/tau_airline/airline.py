"""The airline's fourteen tools, in tau-bench's order, with its names, arguments, answers and refusals.

Answers are the reference's text: ``json.dumps`` of the record (key order
kept), or its plain sentences. A refusal raises a
:class:`~guard.errors.ToolError` whose message is the reference's text after
``Error: `` (the registry renders it back, :func:`.common.error_text`); every
check comes before the first write, so a refused call changes nothing, as in
the reference.

As the reference does, a booking is priced from the flights' per-date
prices but seats are never taken, a flight change keeps the reservation's
cabin field, and cancelling only appends refunds (balances stay as they are).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, WithJsonSchema
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.domains import store
from benchmark.domains.tau_airline import records
from benchmark.domains.tau_airline.calculator import CalculationError, evaluate
from benchmark.domains.tau_airline.common import BOOKED_AT, RESERVATION_IDS, certificate_id, reservation_id
from benchmark.domains.tau_airline.schema import sql
from guard.errors import InvalidArguments, NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
"""A number kept as given (an integer stays an integer), as the reference stores it."""
Cabin = Literal["basic_economy", "economy", "business"]


class _Given(BaseModel):
    # the reference stores what it is given, extra keys included
    model_config = ConfigDict(extra="allow")


class FlightRef(_Given):
    flight_number: str
    date: str


class Passenger(_Given):
    first_name: str
    last_name: str
    dob: str


class Payment(_Given):
    payment_id: str
    amount: Number


_AIRPORTS = {
    "SFO": "San Francisco",
    "JFK": "New York",
    "LAX": "Los Angeles",
    "ORD": "Chicago",
    "DFW": "Dallas",
    "DEN": "Denver",
    "SEA": "Seattle",
    "ATL": "Atlanta",
    "MIA": "Miami",
    "BOS": "Boston",
    "PHX": "Phoenix",
    "IAH": "Houston",
    "LAS": "Las Vegas",
    "MCO": "Orlando",
    "EWR": "Newark",
    "CLT": "Charlotte",
    "MSP": "Minneapolis",
    "DTW": "Detroit",
    "PHL": "Philadelphia",
    "LGA": "LaGuardia",
}


def _dumps(table: str, row: Mapping[str, Any]) -> str:
    return json.dumps(records.record(table, row))


async def _user(conn: AsyncConnection, user_id: str) -> dict[str, Any]:
    user = await store.first_row(conn, sql["users"], user_id=user_id)
    if user is None:
        raise NotFound("user not found")
    return user


async def _reservation(conn: AsyncConnection, reservation_id: str, missing: str) -> dict[str, Any]:
    found = await store.first_row(conn, sql["reservations"], reservation_id=reservation_id)
    if found is None:
        raise NotFound(missing)
    return found


async def _priced(conn: AsyncConnection, flight: dict[str, Any], cabin: str, seats: int) -> dict[str, Any]:
    """``flight`` with the price, origin and destination of its flight on its date in ``cabin``."""
    number = flight["flight_number"]
    data = await store.first_row(conn, sql["flights"], flight_number=number)
    if data is None:
        raise NotFound(f"flight {number} not found")
    on_date = data["dates"].get(flight["date"])
    if on_date is None:
        raise NotFound(f"flight {number} not found on date {flight['date']}")
    if on_date["status"] != "available":
        raise PreconditionFailed(f"flight {number} not available on date {flight['date']}")
    if on_date["available_seats"][cabin] < seats:
        raise PreconditionFailed(f"not enough seats on flight {number}")
    flight["price"] = on_date["prices"][cabin]
    flight["origin"] = data["origin"]
    flight["destination"] = data["destination"]
    return flight


def _check_balances(methods: Mapping[str, Any], payments: Sequence[dict[str, Any]]) -> None:
    for payment in payments:
        payment_id = payment["payment_id"]
        if payment_id not in methods:
            raise NotFound(f"payment method {payment_id} not found")
        method = methods[payment_id]
        if method["source"] in ("gift_card", "certificate") and method["amount"] < payment["amount"]:
            raise PreconditionFailed(f"not enough balance in payment method {payment_id}")


def _charge(methods: dict[str, Any], payments: Sequence[dict[str, Any]]) -> None:
    """Take the payments from the user's methods: gift cards lose the amount, certificates are used up."""
    for payment in payments:
        payment_id = payment["payment_id"]
        source = methods[payment_id]["source"]
        if source == "gift_card":
            methods[payment_id]["amount"] -= payment["amount"]
        elif source == "certificate":
            del methods[payment_id]


@tools.tool(write=True, idempotent=False)
async def book_reservation(
    ctx: ToolContext,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: Literal["one_way", "round_trip"],
    cabin: Cabin,
    flights: list[FlightRef],
    passengers: list[Passenger],
    payment_methods: list[Payment],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: Literal["yes", "no"],
) -> str:
    """Book a reservation."""
    user = await _user(ctx.conn, user_id)
    taken = [
        rid
        for rid in RESERVATION_IDS
        if await store.first_row(ctx.conn, sql["reservations"], reservation_id=rid)
    ]
    new_id = reservation_id(taken)
    riders = [p.model_dump() for p in passengers]
    segments = [await _priced(ctx.conn, f.model_dump(), cabin, len(riders)) for f in flights]
    total = sum(segment["price"] * len(riders) for segment in segments)
    if insurance == "yes":
        total += 30 * len(riders)
    total += 50 * nonfree_baggages
    paid = [p.model_dump() for p in payment_methods]
    methods = user["payment_methods"]
    _check_balances(methods, paid)
    given = sum(payment["amount"] for payment in paid)
    if given != total:
        raise InvalidArguments(f"payment amount does not add up, total price is {total}, but paid {given}")
    _charge(methods, paid)
    reservation = {
        "reservation_id": new_id,
        "user_id": user_id,
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": segments,
        "passengers": riders,
        "payment_history": paid,
        "created_at": BOOKED_AT,
        "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages,
        "insurance": insurance,
    }
    await store.upsert_row(ctx.conn, sql["reservations"], reservation)
    changes = {"payment_methods": methods, "reservations": [*user["reservations"], new_id]}
    await store.update_row(ctx.conn, sql["users"], {"user_id": user_id}, changes)
    return json.dumps(reservation)


@tools.tool(write=False)
async def calculate(ctx: ToolContext, expression: str) -> str:
    """Calculate the result of a mathematical expression."""
    try:
        return evaluate(expression)
    except CalculationError as exc:
        raise InvalidArguments(str(exc)) from exc


@tools.tool(write=True, idempotent=False)
async def cancel_reservation(ctx: ToolContext, reservation_id: str) -> str:
    """Cancel the whole reservation."""
    reservation = await _reservation(ctx.conn, reservation_id, "reservation not found")
    history = reservation["payment_history"]
    refunds = [{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in history]
    changes = {"payment_history": [*history, *refunds], "status": "cancelled"}
    await store.update_row(ctx.conn, sql["reservations"], {"reservation_id": reservation_id}, changes)
    return _dumps("reservations", {**reservation, **changes})


@tools.tool(write=False)
async def get_reservation_details(ctx: ToolContext, reservation_id: str) -> str:
    """Get the details of a reservation."""
    # the reference says "user not found" here
    return _dumps("reservations", await _reservation(ctx.conn, reservation_id, "user not found"))


@tools.tool(write=False)
async def get_user_details(ctx: ToolContext, user_id: str) -> str:
    """Get the details of a user, including their reservations."""
    return _dumps("users", await _user(ctx.conn, user_id))


@tools.tool(write=False)
async def list_all_airports(ctx: ToolContext) -> str:
    """List all airports and their cities."""
    return json.dumps(_AIRPORTS)


def _on_date(flight: Mapping[str, Any], day: str) -> dict[str, Any]:
    """A flight as a search lists it: its fields but ``dates``, then that date's status, seats, prices."""
    return {**{k: v for k, v in flight.items() if k != "dates"}, **flight["dates"][day]}


def _available(flight: Mapping[str, Any], day: str) -> bool:
    return day in flight["dates"] and flight["dates"][day]["status"] == "available"


@tools.tool(write=False)
async def search_direct_flight(ctx: ToolContext, origin: str, destination: str, date: str) -> str:
    """Search direct flights between two cities on a specific date."""
    found = await store.all_rows(ctx.conn, sql["flights"], origin=origin, destination=destination)
    return json.dumps([_on_date(flight, date) for flight in found if _available(flight, date)])


def _next_day(date: str) -> str:
    # the reference's arithmetic: May only, the day not zero-padded
    try:
        return f"2024-05-{int(date[-2:]) + 1}"
    except ValueError as exc:
        raise InvalidArguments(str(exc)) from exc


def _connections(
    first: Sequence[dict[str, Any]], second: Sequence[dict[str, Any]], date: str
) -> list[list[dict[str, Any]]]:
    results = []
    for leg1 in first:
        for leg2 in second:
            if leg1["destination"] != leg2["origin"]:
                continue
            date2 = _next_day(date) if "+1" in leg1["scheduled_arrival_time_est"] else date
            if leg1["scheduled_arrival_time_est"] > leg2["scheduled_departure_time_est"]:
                continue
            if not (_available(leg1, date) and _available(leg2, date2)):
                continue
            if date not in leg2["dates"]:
                # the reference lists the second leg with its first day's data
                raise NotFound(str(KeyError(date)))
            results.append([{**_on_date(leg1, date), "date": date}, {**_on_date(leg2, date), "date": date2}])
    return results


@tools.tool(write=False)
async def search_onestop_flight(ctx: ToolContext, origin: str, destination: str, date: str) -> str:
    """Search one-stop flights between two cities on a specific date."""
    first = await store.all_rows(ctx.conn, sql["flights"], origin=origin)
    second = await store.all_rows(ctx.conn, sql["flights"], destination=destination)
    return json.dumps(_connections(first, second, date))


@tools.tool(write=True, idempotent=False)
async def send_certificate(ctx: ToolContext, user_id: str, amount: Number) -> str | None:
    """Send a certificate to a user."""
    user = await _user(ctx.conn, user_id)
    methods = user["payment_methods"]
    new_id = certificate_id(methods)
    if new_id is None:
        return None
    methods[new_id] = {"source": "certificate", "amount": amount, "id": new_id}
    await store.update_row(ctx.conn, sql["users"], {"user_id": user_id}, {"payment_methods": methods})
    return f"Certificate {new_id} added to user {user_id} with amount {amount}."


@tools.tool(write=False)
async def think(ctx: ToolContext, thought: str) -> str:
    """Think about something; nothing changes and nothing new is learned."""
    return ""


@tools.tool(write=False)
async def transfer_to_human_agents(ctx: ToolContext, summary: str) -> str:
    """Transfer the user to a human agent, with a summary of the issue."""
    return "Transfer successful"


async def _payment_method(conn: AsyncConnection, user_id: str, payment_id: str, price: Any) -> dict[str, Any]:
    """The user's payment methods, once ``payment_id`` is found fit to pay ``price`` for a change."""
    methods: dict[str, Any] = (await _user(conn, user_id))["payment_methods"]
    if payment_id not in methods:
        raise NotFound("payment method not found")
    method: dict[str, Any] = methods[payment_id]
    if method["source"] == "certificate":
        raise PreconditionFailed("certificate cannot be used to update reservation")
    if method["source"] == "gift_card" and method["amount"] < price:
        raise PreconditionFailed("gift card balance is not enough")
    return methods


async def _pay_change(
    conn: AsyncConnection, reservation: dict[str, Any], payment_id: str, price: Any, methods: dict[str, Any]
) -> list[dict[str, Any]]:
    """Charge ``price`` to a gift card; the payment history with the charge when it is not zero."""
    if methods[payment_id]["source"] == "gift_card":
        methods[payment_id]["amount"] -= price
        key = {"user_id": reservation["user_id"]}
        await store.update_row(conn, sql["users"], key, {"payment_methods": methods})
    history: list[dict[str, Any]] = reservation["payment_history"]
    return [*history, {"payment_id": payment_id, "amount": price}] if price != 0 else history


@tools.tool(write=True, idempotent=False)
async def update_reservation_baggages(
    ctx: ToolContext, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
) -> str:
    """Update the baggage information of a reservation."""
    reservation = await _reservation(ctx.conn, reservation_id, "reservation not found")
    price = 50 * max(0, nonfree_baggages - reservation["nonfree_baggages"])
    methods = await _payment_method(ctx.conn, reservation["user_id"], payment_id, price)
    changes: dict[str, Any] = {"total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages}
    changes["payment_history"] = await _pay_change(ctx.conn, reservation, payment_id, price, methods)
    await store.update_row(ctx.conn, sql["reservations"], {"reservation_id": reservation_id}, changes)
    return _dumps("reservations", {**reservation, **changes})


async def _new_segments(
    conn: AsyncConnection, reservation: dict[str, Any], cabin: str, flights: list[FlightRef]
) -> list[dict[str, Any]]:
    """The new flights priced: a flight kept in the same cabin keeps its price, others are priced anew."""
    seats = len(reservation["passengers"])
    segments = []
    for given in flights:
        flight = given.model_dump()
        kept = [
            old
            for old in reservation["flights"]
            if old["flight_number"] == flight["flight_number"]
            and old["date"] == flight["date"]
            and cabin == reservation["cabin"]
        ]
        if kept:
            flight.update(
                price=kept[0]["price"], origin=kept[0]["origin"], destination=kept[0]["destination"]
            )
            segments.append(flight)
        else:
            segments.append(await _priced(conn, flight, cabin, seats))
    return segments


@tools.tool(write=True, idempotent=False)
async def update_reservation_flights(
    ctx: ToolContext, reservation_id: str, cabin: Cabin, flights: list[FlightRef], payment_id: str
) -> str:
    """Update the flight information of a reservation."""
    reservation = await _reservation(ctx.conn, reservation_id, "reservation not found")
    segments = await _new_segments(ctx.conn, reservation, cabin, flights)
    seats = len(reservation["passengers"])
    price = (
        sum(s["price"] * seats for s in segments) - sum(f["price"] for f in reservation["flights"]) * seats
    )
    methods = await _payment_method(ctx.conn, reservation["user_id"], payment_id, price)
    changes: dict[str, Any] = {"flights": segments}
    changes["payment_history"] = await _pay_change(ctx.conn, reservation, payment_id, price, methods)
    await store.update_row(ctx.conn, sql["reservations"], {"reservation_id": reservation_id}, changes)
    return _dumps("reservations", {**reservation, **changes})


@tools.tool(write=True, idempotent=True)
async def update_reservation_passengers(
    ctx: ToolContext, reservation_id: str, passengers: list[Passenger]
) -> str:
    """Update the passenger information of a reservation."""
    reservation = await _reservation(ctx.conn, reservation_id, "reservation not found")
    if len(passengers) != len(reservation["passengers"]):
        raise InvalidArguments("number of passengers does not match")
    changes = {"passengers": [p.model_dump() for p in passengers]}
    await store.update_row(ctx.conn, sql["reservations"], {"reservation_id": reservation_id}, changes)
    return _dumps("reservations", {**reservation, **changes})
