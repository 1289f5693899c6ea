"""The airline's fourteen tools answer and refuse as tau-bench's airline tools do.

Each expected text is what the reference's tool returns for the same call on
its initial database (``Error: …`` for a refusal; ``json.dumps`` of the
record for an answer, key order included), and a refusal changes nothing.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from benchmark.domains import store
from benchmark.domains.tau_airline import DOMAIN, records
from benchmark.domains.tau_airline.schema import sql
from benchmark.world import World
from guard.tools import result_text

USER = "mia_li_3668"  # two certificates (100, 250), two credit cards; three reservations
GIFT_USER = "mei_hernandez_8984"  # a 98 gift card and two 250 certificates
BOOKING = {
    "user_id": USER,
    "origin": "JFK",
    "destination": "SEA",
    "flight_type": "one_way",
    "cabin": "economy",
    "flights": [
        {"flight_number": "HAT136", "date": "2024-05-20"},
        {"flight_number": "HAT039", "date": "2024-05-20"},
    ],
    "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
    "payment_methods": [
        {"payment_id": "certificate_7504069", "amount": 250},
        {"payment_id": "credit_card_4421486", "amount": 5},
    ],
    "total_baggages": 3,
    "nonfree_baggages": 0,
    "insurance": "no",
}


@cache
def _initial(data: Path) -> dict[str, Any]:
    return {
        name: json.loads((data / f"{name}.json").read_text()) for name in ("users", "reservations", "flights")
    }


@pytest.fixture
def initial(tau_data: Path) -> dict[str, Any]:
    """The reference's initial database (read-only)."""
    return _initial(tau_data)


async def say(world: World, tool: str, **arguments: Any) -> str:
    """The tool's reply text, as the agent reads it."""
    outcome = await world.call(tool, arguments)
    if outcome.error is not None:
        return DOMAIN.registry.error_text(tool, outcome.error)
    return result_text(outcome.value)


async def database(world: World) -> dict[str, Any]:
    """The world's database as the reference holds it, flights (seeded, never graded) included."""
    db = records.database(await world.state())
    async with world.engine.connect() as conn:
        db["flights"] = {f["flight_number"]: f for f in await store.all_rows(conn, sql["flights"])}
    return db


def test_the_tool_list_is_the_reference_one(tau_data: Path) -> None:
    interfaces = json.loads((tau_data / "tool_interfaces.json").read_text())
    assert DOMAIN.registry.names == [tool["name"] for tool in interfaces]
    for tool in interfaces:
        schema = DOMAIN.registry[tool["name"]].input_schema
        assert sorted(schema.get("properties", {})) == sorted(tool["parameters"]["properties"]), tool["name"]
        assert sorted(schema.get("required", [])) == sorted(tool["parameters"].get("required", [])), tool[
            "name"
        ]


async def test_reads_answer_the_records_as_stored(world: World, initial: dict[str, Any]) -> None:
    assert await say(world, "get_user_details", user_id=USER) == json.dumps(initial["users"][USER])
    assert await say(world, "get_user_details", user_id="nobody_0") == "Error: user not found"
    assert await say(world, "get_reservation_details", reservation_id="4WQ150") == json.dumps(
        initial["reservations"]["4WQ150"]
    )
    # the reference's text for a missing reservation
    assert await say(world, "get_reservation_details", reservation_id="ZZZ999") == "Error: user not found"
    airports = json.loads(await say(world, "list_all_airports"))
    assert len(airports) == 20
    assert (airports["SFO"], airports["LGA"]) == ("San Francisco", "LaGuardia")


async def test_direct_search_lists_available_flights_on_the_date(
    world: World, initial: dict[str, Any]
) -> None:
    found = json.loads(
        await say(world, "search_direct_flight", origin="JFK", destination="SEA", date="2024-05-20")
    )
    expected = [
        {**{k: v for k, v in f.items() if k != "dates"}, **f["dates"]["2024-05-20"]}
        for f in initial["flights"].values()
        if f["origin"] == "JFK"
        and f["destination"] == "SEA"
        and f["dates"].get("2024-05-20", {}).get("status") == "available"
    ]
    assert found
    assert found == expected
    assert (
        await say(world, "search_direct_flight", origin="JFK", destination="SEA", date="2024-07-01") == "[]"
    )


async def test_one_stop_search_pairs_connecting_flights(world: World) -> None:
    pairs = json.loads(
        await say(world, "search_onestop_flight", origin="JFK", destination="SEA", date="2024-05-20")
    )
    numbers = [(a["flight_number"], b["flight_number"]) for a, b in pairs]
    assert ("HAT136", "HAT039") in numbers
    for first, second in pairs:
        assert (first["origin"], second["destination"], first["destination"]) == (
            "JFK",
            "SEA",
            second["origin"],
        )
        assert first["date"] == "2024-05-20"
        assert first["status"] == second["status"] == "available"
        assert first["scheduled_arrival_time_est"] <= second["scheduled_departure_time_est"]


async def test_booking_prices_the_flights_and_takes_the_payment(
    world: World, initial: dict[str, Any]
) -> None:
    reply = json.loads(await say(world, "book_reservation", **BOOKING))
    prices = [initial["flights"][n]["dates"]["2024-05-20"]["prices"]["economy"] for n in ("HAT136", "HAT039")]
    assert sum(prices) == 255
    assert reply["reservation_id"] == "HATHAT"
    assert reply["created_at"] == "2024-05-15T15:00:00"
    assert [f["price"] for f in reply["flights"]] == prices
    assert list(reply["flights"][0]) == ["flight_number", "date", "price", "origin", "destination"]
    after = await database(world)
    assert after["reservations"]["HATHAT"] == reply
    user = after["users"][USER]
    assert "certificate_7504069" not in user["payment_methods"]  # a certificate is used up
    assert user["reservations"][-1] == "HATHAT"
    assert after["flights"] == initial["flights"]  # no seat is taken
    # ids are not random: the next bookings take HATHAU, then HATHAV
    cheap = {**BOOKING, "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 255}]}
    assert json.loads(await say(world, "book_reservation", **cheap))["reservation_id"] == "HATHAU"
    assert json.loads(await say(world, "book_reservation", **cheap))["reservation_id"] == "HATHAV"


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"user_id": "nobody_0"}, "Error: user not found"),
        ({"flights": [{"flight_number": "HAT999", "date": "2024-05-20"}]}, "Error: flight HAT999 not found"),
        (
            {"flights": [{"flight_number": "HAT136", "date": "2024-06-20"}]},
            "Error: flight HAT136 not found on date 2024-06-20",
        ),
        (
            {"flights": [{"flight_number": "HAT136", "date": "2024-05-07"}]},
            "Error: flight HAT136 not available on date 2024-05-07",
        ),
        (
            {"cabin": "business", "passengers": [BOOKING["passengers"][0]] * 3},
            "Error: not enough seats on flight HAT136",
        ),
        (
            {"payment_methods": [{"payment_id": "gift_card_0000000", "amount": 255}]},
            "Error: payment method gift_card_0000000 not found",
        ),
        (
            {"payment_methods": [{"payment_id": "certificate_4856383", "amount": 255}]},
            "Error: not enough balance in payment method certificate_4856383",
        ),
        (
            {"insurance": "yes"},
            "Error: payment amount does not add up, total price is 285, but paid 255",
        ),
        (
            {
                "nonfree_baggages": 1,
                "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 300.5}],
            },
            "Error: payment amount does not add up, total price is 305, but paid 300.5",
        ),
    ],
)
async def test_booking_refusals(world: World, change: dict[str, Any], error: str) -> None:
    before = await database(world)
    assert await say(world, "book_reservation", **{**BOOKING, **change}) == error
    assert await database(world) == before


async def test_cancelling_appends_refunds_and_marks_the_reservation(
    world: World, initial: dict[str, Any]
) -> None:
    reply = json.loads(await say(world, "cancel_reservation", reservation_id="NO6JO3"))
    assert reply["status"] == "cancelled"
    assert reply["payment_history"] == [
        {"payment_id": "credit_card_1955700", "amount": 2504},
        {"payment_id": "credit_card_1955700", "amount": -2504},
    ]
    assert (await database(world))["users"][USER] == initial["users"][USER]  # balances stay
    assert await say(world, "cancel_reservation", reservation_id="ZZZ999") == "Error: reservation not found"


async def test_baggage_changes_charge_the_new_bags(world: World, initial: dict[str, Any]) -> None:
    reservation = initial["users"][GIFT_USER]["reservations"][0]
    bags = initial["reservations"][reservation]["nonfree_baggages"]
    reply = json.loads(
        await say(
            world,
            "update_reservation_baggages",
            reservation_id=reservation,
            total_baggages=5,
            nonfree_baggages=bags + 1,
            payment_id="gift_card_5309492",
        )
    )
    assert reply["payment_history"][-1] == {"payment_id": "gift_card_5309492", "amount": 50}
    assert (await database(world))["users"][GIFT_USER]["payment_methods"]["gift_card_5309492"]["amount"] == 48
    refusals = {
        "ZZZ999": ("gift_card_5309492", bags + 1, "Error: reservation not found"),
        reservation: ("credit_card_0", bags + 1, "Error: payment method not found"),
    }
    for rid, (payment, nonfree, error) in refusals.items():
        assert (
            await say(
                world,
                "update_reservation_baggages",
                reservation_id=rid,
                total_baggages=5,
                nonfree_baggages=nonfree,
                payment_id=payment,
            )
            == error
        )
    assert (
        await say(
            world,
            "update_reservation_baggages",
            reservation_id=reservation,
            total_baggages=5,
            nonfree_baggages=bags + 1,
            payment_id="certificate_7502997",
        )
        == "Error: certificate cannot be used to update reservation"
    )
    assert (
        await say(
            world,
            "update_reservation_baggages",
            reservation_id=reservation,
            total_baggages=9,
            nonfree_baggages=bags + 3,
            payment_id="gift_card_5309492",
        )
        == "Error: gift card balance is not enough"
    )


async def test_flight_changes_charge_the_difference_and_keep_the_cabin(
    world: World, initial: dict[str, Any]
) -> None:
    old = initial["reservations"]["AIXC49"]  # basic economy LAX-SFO-BOS on 2024-05-20, one passenger
    flights = [{"flight_number": f["flight_number"], "date": f["date"]} for f in old["flights"]]
    full = await say(
        world,
        "update_reservation_flights",
        reservation_id="AIXC49",
        cabin="economy",
        flights=flights,
        payment_id="credit_card_4421486",
    )
    assert full == "Error: not enough seats on flight HAT094"  # no economy seat left on it
    reply = json.loads(
        await say(
            world,
            "update_reservation_flights",
            reservation_id="AIXC49",
            cabin="business",
            flights=flights,
            payment_id="credit_card_4421486",
        )
    )
    new_prices = [
        initial["flights"][f["flight_number"]]["dates"][f["date"]]["prices"]["business"] for f in flights
    ]
    assert [f["price"] for f in reply["flights"]] == new_prices
    assert reply["cabin"] == "basic_economy"  # as in the reference: the cabin field is not changed
    assert reply["payment_history"][-1] == {
        "payment_id": "credit_card_4421486",
        "amount": sum(new_prices) - sum(f["price"] for f in old["flights"]),
    }
    same = await say(
        world,
        "update_reservation_flights",
        reservation_id="AIXC49",
        cabin="basic_economy",
        flights=reply["flights"][:1],
        payment_id="credit_card_4421486",
    )
    assert json.loads(same)["flights"][0]["price"] == new_prices[0]
    for rid, flight, payment, error in [
        ("ZZZ999", flights, "credit_card_4421486", "Error: reservation not found"),
        (
            "AIXC49",
            [{"flight_number": "HAT999", "date": "2024-05-20"}],
            "credit_card_4421486",
            "Error: flight HAT999 not found",
        ),
        ("AIXC49", flights, "credit_card_0", "Error: payment method not found"),
        ("AIXC49", flights, "certificate_4856383", "Error: certificate cannot be used to update reservation"),
    ]:
        assert (
            await say(
                world,
                "update_reservation_flights",
                reservation_id=rid,
                cabin="business",
                flights=flight,
                payment_id=payment,
            )
            == error
        )


async def test_gift_cards_pay_flight_changes_up_to_their_balance(
    world: World, initial: dict[str, Any]
) -> None:
    reservation = initial["users"][GIFT_USER]["reservations"][0]
    flights = [
        {"flight_number": f["flight_number"], "date": f["date"]}
        for f in initial["reservations"][reservation]["flights"]
    ]
    reply = await say(
        world,
        "update_reservation_flights",
        reservation_id=reservation,
        cabin="business",
        flights=flights,
        payment_id="gift_card_5309492",
    )
    assert reply == "Error: gift card balance is not enough"


async def test_passenger_changes_keep_the_count(world: World) -> None:
    riders = [{"first_name": "Ann", "last_name": "Lee", "dob": "1980-01-01"}]
    reply = json.loads(
        await say(world, "update_reservation_passengers", reservation_id="NO6JO3", passengers=riders)
    )
    assert reply["passengers"] == riders
    assert (
        await say(world, "update_reservation_passengers", reservation_id="NO6JO3", passengers=riders * 2)
        == "Error: number of passengers does not match"
    )
    assert (
        await say(world, "update_reservation_passengers", reservation_id="ZZZ999", passengers=riders)
        == "Error: reservation not found"
    )


async def test_certificates_take_fixed_ids(world: World) -> None:
    texts = [await say(world, "send_certificate", user_id=USER, amount=amount) for amount in (100, 150.0)]
    assert texts == [
        f"Certificate certificate_3221322 added to user {USER} with amount 100.",
        f"Certificate certificate_3221323 added to user {USER} with amount 150.0.",
    ]
    methods = (await database(world))["users"][USER]["payment_methods"]
    assert methods["certificate_3221322"] == {
        "source": "certificate",
        "amount": 100,
        "id": "certificate_3221322",
    }
    assert await say(world, "send_certificate", user_id="nobody_0", amount=50) == "Error: user not found"


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("(1 + 2) * 3.555", "10.67"),
        ("10 - 2.5 * 4", "0.0"),
        ("100 // 7", "14.0"),
        ("1 / 0", "Error: division by zero"),
        ("2 * x", "Error: invalid characters in expression"),
        ("0 ** -1", "Error: 0.0 cannot be raised to a negative power"),
    ],
)
async def test_calculate(world: World, expression: str, answer: str) -> None:
    assert await say(world, "calculate", expression=expression) == answer


async def test_calculate_reports_syntax_errors_as_python_does(world: World) -> None:
    with pytest.raises(SyntaxError) as raised:
        compile("2 **", "<string>", "eval")
    assert await say(world, "calculate", expression="2 **") == f"Error: {raised.value}"


async def test_think_and_transfer(world: World) -> None:
    before = await database(world)
    assert await say(world, "think", thought="which flight?") == ""
    assert await say(world, "transfer_to_human_agents", summary="wants a refund") == "Transfer successful"
    assert await database(world) == before
