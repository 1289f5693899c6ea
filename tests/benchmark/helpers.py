"""Calling tools on a world and asserting on the outcome."""

from __future__ import annotations

from typing import Any

from benchmark.world import World


async def ok(world: World, tool: str, arguments: dict[str, Any]) -> Any:
    outcome = await world.call(tool, arguments)
    assert outcome.error is None, outcome.error.message
    return outcome.value


async def refused(world: World, tool: str, arguments: dict[str, Any]) -> str:
    outcome = await world.call(tool, arguments)
    assert outcome.error is not None, f"{tool} succeeded: {outcome.value}"
    return outcome.error.message


async def rows(world: World, table: str) -> list[dict[str, Any]]:
    state = await world.state()
    return state[world.domain.table(table).benchmark_name]
