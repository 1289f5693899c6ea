"""The arms' MCP channels: the tools are listed over MCP once per process, and nothing else changes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from benchmark.dataset import load_tasks
from benchmark.domains import get_domain
from benchmark.run.arms import Arm, open_arm
from benchmark.run.faults import FaultPlan, faulty_registry
from benchmark.run.setup import guard_settings
from benchmark.world import open_world
from guard.clock import FixedClock
from guard.gate import CommitGate
from guard.runtime import configured_judges
from guard.tools import ToolRegistry
from tests.benchmark.conftest import RETAIL


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every tools/list an arm's client sends, with its result."""
    sent: list[Any] = []
    original = Client.list_tools

    async def counting(self: Client, *args: Any, **kwargs: Any) -> Any:
        result = await original(self, *args, **kwargs)
        sent.append(result)
        return result

    monkeypatch.setattr(Client, "list_tools", counting)
    monkeypatch.setattr("benchmark.run.arms._LISTINGS", {})
    return sent


async def _tools(data_dir: Path, arm: Arm, registry: ToolRegistry) -> list[Any]:
    domain = get_domain(RETAIL)
    task = load_tasks(data_dir, domain=RETAIL).tasks[0]
    settings = guard_settings(None)
    gate = CommitGate(configured_judges(settings, domain.judges), judge_timeout_s=10.0)
    try:
        async with (
            open_world(domain, task, data_dir=data_dir) as world,
            open_arm(
                arm,
                engine=world.engine,
                registry=registry,
                metadata=domain.metadata,
                clock=FixedClock(domain.scenario_now),
                settings=settings,
                gate=gate,
                transaction="arms-test",
                plan=None,
            ) as session,
        ):
            tools = list(session.channel.tools)
            first = next(tool for tool in tools if tool.read_only)
            result = await session.channel.call(first.name, {})
            assert result.text  # the channel still calls the tools over MCP
            return tools
    finally:
        gate.close()


@pytest.mark.parametrize("arm", ["baseline", "guarded"])
async def test_a_process_lists_an_arms_tools_once_and_every_trial_sees_that_listing(
    data_dir: Path, arm: Arm, listings: list[Any]
) -> None:
    registry = get_domain(RETAIL).registry
    first = await _tools(data_dir, arm, registry)
    second = await _tools(data_dir, arm, registry)
    assert len(listings) == 1
    assert second == first
    assert [tool.name for tool in first] == [tool.name for tool in listings[0].tools]
    # the bench lists no output schemas, the guard's commit tool included: a client compiles none
    assert all(tool.output_schema is None for tool in listings[0].tools)
    if arm == "guarded":
        assert "guard_commit" in {tool.name for tool in first}


async def test_other_tools_under_the_same_name_are_listed_again(data_dir: Path, listings: list[Any]) -> None:
    registry = get_domain(RETAIL).registry
    await _tools(data_dir, "baseline", registry)
    # a copy whose tools fail on purpose keeps the schemas: the listing is the same, not listed again
    await _tools(data_dir, "baseline", faulty_registry(registry, FaultPlan(0.5, 1)))
    assert len(listings) == 1
    other = ToolRegistry(registry.name)
    for spec in registry:
        other.add(replace(spec, input_schema=dict(spec.input_schema)))
    await _tools(data_dir, "baseline", other)
    assert len(listings) == 2
