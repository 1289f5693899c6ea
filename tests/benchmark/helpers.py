"""Calling tools on a world and asserting on the outcome.

:func:`ok` and :func:`refused` call a tool that must succeed or fail;
:func:`assert_invalid` and :func:`assert_refused` check a failure against the
reference's message and that the world did not change; :func:`error_reply`
is what the agent reads of a failure; :func:`violation` is the row the
hidden ticket-status audit adds.
"""

from __future__ import annotations

from typing import Any

from benchmark.world import World

__all__ = [
    "assert_invalid",
    "assert_refused",
    "error_reply",
    "ok",
    "refused",
    "rows",
    "violation",
]


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


async def assert_invalid(world: World, tool: str, arguments: dict[str, Any], message: str) -> None:
    """The call fails validation with ``message`` in its text, and changes nothing."""
    before = await world.state()
    text = await refused(world, tool, arguments)
    assert text.startswith("Input validation failed: ")
    assert message in text
    assert await world.state() == before


async def assert_refused(world: World, tool: str, arguments: dict[str, Any], message: str) -> None:
    """The call is refused with exactly ``message``, and changes nothing."""
    before = await world.state()
    assert await refused(world, tool, arguments) == message
    assert await world.state() == before


async def error_reply(world: World, tool: str, arguments: dict[str, Any]) -> tuple[str, str | None]:
    """What the agent reads when the call fails (the domain's error text), and the error's class."""
    outcome = await world.call(tool, arguments)
    return outcome.text(tool, world.domain.registry.error_text), outcome.error_class


def violation(number: int, ticket_id: str, status: str) -> dict[str, str]:
    """The audit row ``VIOLATION-<number>``: ticket ``ticket_id`` was created with ``status``, not open."""
    return {
        "id": f"VIOLATION-{number}",
        "ticket_id": ticket_id,
        "created_status": status,
        "created_at": "2025-10-01T13:00:05Z",
    }
