"""One MCP client per domain and arm for a process's trials: each trial still reaches only its own world."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents.channel import McpChannel
from benchmark.dataset import Task, load_scenario, load_tasks
from benchmark.domains import get_domain
from benchmark.run.arms import Arm, ArmSession, open_arm
from benchmark.run.hub import ToolHub
from benchmark.run.setup import guard_settings
from benchmark.world import State, golden, open_world
from guard.clock import FixedClock
from guard.gate.commit import CommitGate
from judges import Role, Turn
from tests.benchmark.conftest import RETAIL


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The tools/list round trips made, each named by the channel's commit tool (None: baseline)."""
    made: list[str | None] = []
    real = McpChannel.open

    async def counted(self: McpChannel) -> McpChannel:
        made.append(self.commit_tool)
        return await real(self)

    monkeypatch.setattr(McpChannel, "open", counted)
    return made


@asynccontextmanager
async def trial(
    hub: ToolHub, arm: Arm, task: Task, data_dir: Path, gate: CommitGate, number: int
) -> AsyncIterator[tuple[ArmSession, Any]]:
    domain = get_domain(RETAIL)
    async with AsyncExitStack() as stack:
        world = await stack.enter_async_context(
            open_world(domain, task, data_dir=data_dir, scenario=load_scenario(data_dir, RETAIL))
        )
        session = await stack.enter_async_context(
            open_arm(
                arm,
                engine=world.engine,
                registry=domain.registry,
                metadata=domain.metadata,
                clock=FixedClock(domain.scenario_now),
                settings=guard_settings(None),
                gate=gate,
                transaction=f"hub-{arm}-{number}",
                plan=None,
                hub=hub,
            )
        )
        yield session, world


def writing_task(data_dir: Path) -> Task:
    """A retail task whose golden trajectory changes the state (its first write is replayed)."""
    for task in load_tasks(data_dir, domain=RETAIL).tasks:
        if any(not call.tool.startswith(("get", "list", "search")) for call in task.golden):
            return task
    raise AssertionError("no retail task writes")


async def replay(session: ArmSession, task: Task) -> None:
    for call in task.golden:
        result = await session.channel.call(call.tool, call.arguments)
        assert not result.is_error, result.text


async def test_baseline_trials_share_one_listing_and_keep_their_own_worlds(
    data_dir: Path, gate: CommitGate, listings: list[str | None]
) -> None:
    task = writing_task(data_dir)
    expected = await golden(task, data_dir=data_dir)
    async with ToolHub() as hub:
        async with (
            trial(hub, "baseline", task, data_dir, gate, 0) as (played, played_world),
            trial(hub, "baseline", task, data_dir, gate, 1) as (idle, idle_world),
        ):
            initial: State = await idle_world.state()
            await replay(played, task)
            assert await played_world.state() == expected.state
            assert await idle_world.state() == initial != expected.state
            assert played.channel.tools == idle.channel.tools
        assert listings == [None]
        # a channel whose trial has ended reaches no world: the server says so
        ended = await played.channel.call(task.golden[0].tool, task.golden[0].arguments)
        assert ended.is_error
        assert "the trial has ended" in ended.text


async def test_guarded_trials_on_one_server_hold_separate_transactions(
    data_dir: Path, gate: CommitGate, listings: list[str | None]
) -> None:
    task = writing_task(data_dir)
    expected = await golden(task, data_dir=data_dir)
    async with ToolHub() as hub:
        async with (
            trial(hub, "guarded", task, data_dir, gate, 0) as (first, first_world),
            trial(hub, "guarded", task, data_dir, gate, 1) as (second, second_world),
        ):
            await replay(first, task)
            await replay(second, task)
            assert first.manager is not None
            assert second.manager is not None
            assert first.keys is not None
            assert second.keys is not None
            # each trial's writes are held in its own transaction, on its own manager
            assert first.manager.live("hub-guarded-0-0") is not None
            assert second.manager.live("hub-guarded-1-0") is not None
            assert first.manager.live("hub-guarded-1-0") is None
            committed = await first.channel.call(first.channel.commit_tool or "", {"summary": "done"})
            assert not committed.is_error, committed.text
            # the commit ended the first trial's transaction only; its next key is its own
            assert (first.keys.number, second.keys.number) == (1, 0)
            assert await first_world.state() == expected.state
            assert second.manager.live("hub-guarded-1-0") is not None
            verdicts = await second.finish("done")
            assert [v.status for v in verdicts] == ["committed"]
            assert await second_world.state() == expected.state
        assert listings == [first.channel.commit_tool]


async def test_a_guarded_trial_hands_its_turns_to_its_own_transaction(
    data_dir: Path, gate: CommitGate
) -> None:
    """Requirement G44: through the shared server a trial's conversation reaches its own transaction: each
    call's turns with it, and the turns after its last call with the commit the harness makes for an agent
    that never committed."""
    task = writing_task(data_dir)
    asked, told = (Turn(Role.USER, "Please do it."),), (Turn(Role.ASSISTANT, "Done."),)
    async with ToolHub() as hub, trial(hub, "guarded", task, data_dir, gate, 0) as (session, _):
        first, *rest = task.golden
        await session.channel.call(first.tool, first.arguments, conversation=asked)
        for call in rest:
            await session.channel.call(call.tool, call.arguments, conversation=())
        verdicts = await session.finish("done", told)
    assert [(v.via, v.status) for v in verdicts] == [("admin", "committed")]
    assert session.audit is not None
    assert [c.turns for c in session.audit.calls] == [[asked[0].to_dict()]] + [[]] * len(rest)
    (attempt,) = session.audit.commits.values()
    assert attempt.turns == [told[0].to_dict()]
