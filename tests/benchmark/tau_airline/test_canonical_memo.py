"""The row-by-row canonical form gives exactly the canonical state and hash of ``judges.canonical``.

It remembers rows already seen (the airline's 2,500 seed records), so a
changed row, an added one, a removed one, or a table without distinct keys
must still come out as the plain computation says.
"""

from __future__ import annotations

import json
from typing import Any

from benchmark.domains.tau_airline import DOMAIN
from benchmark.world import World
from benchmark.world.canon_memo import canonical_with_hash
from judges.canonical import TableSpec, canonical_state, state_hash


def _same(scope: str, state: dict[str, Any], specs: dict[str, TableSpec]) -> None:
    canonical, digest = canonical_with_hash(scope, state, specs)
    plain = canonical_state(state, specs)
    assert canonical == plain
    assert digest == state_hash(plain)


async def test_airline_states_hash_as_the_plain_canonical_form(world: World) -> None:
    initial = await world.state()
    _same(DOMAIN.name, initial, DOMAIN.specs)
    _same(DOMAIN.name, initial, DOMAIN.specs)  # now from memory
    await world.call("cancel_reservation", {"reservation_id": "4WQ150"})
    await world.call("send_certificate", {"user_id": "mia_li_3668", "amount": 100.0})
    changed = await world.state()
    _same(DOMAIN.name, changed, DOMAIN.specs)
    fewer = {**changed, "reservations": changed["reservations"][1:]}
    _same(DOMAIN.name, fewer, DOMAIN.specs)
    _same(DOMAIN.name, initial, DOMAIN.specs)


def test_tables_without_distinct_keys_and_edited_rows() -> None:
    specs = {"t": TableSpec("t", ("id",), frozenset({"note"})), "pairs": TableSpec("pairs", ("a", "b"))}
    rows = [{"id": "b", "v": 1.0, "note": "x", "tags": ["z", "a"]}, {"id": "a", "v": [2, 1.5]}]
    state = {"t": rows, "pairs": [{"a": 1, "b": 2}, {"a": 0, "b": 3}]}
    _same("test-memo", state, specs)
    edited = json.loads(json.dumps(state))
    edited["t"][0]["v"] = 2
    _same("test-memo", edited, specs)
    twice = {"t": [*rows, {"id": "a", "v": 3}], "pairs": []}
    _same("test-memo", twice, specs)
