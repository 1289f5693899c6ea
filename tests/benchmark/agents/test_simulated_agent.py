"""The simulated agent through real channels: the plain tool server and the guard, on the test shop."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents import AgentOutcome, AgentTask
from benchmark.agents.simulated import DONE_MESSAGE, FaultClass, FaultRates, SimulatedAgent, TrialPlan
from tests.benchmark.agents import shop
from tests.benchmark.agents.conftest import REVIEW, TRACE_JUDGES, Arm, baseline, guarded
from tests.benchmark.agents.test_simulated_plan import GOLDEN, TOOLS

FLAKY = (
    ("get_ticket", {"ticket_id": 20}),
    ("escalate_ticket", {"ticket_id": 20}),
    ("create_ticket", {"order_id": "ORD-10000021", "subject": "Receipt resent", "status": "solved"}),
)
TWO_STEP = (
    ("get_ticket", {"ticket_id": 21}),
    ("update_ticket", {"ticket_id": 21, "status": "pending"}),
    ("update_ticket", {"ticket_id": 21, "status": "solved"}),
)
NON_TERMINAL = {
    "judge": "non_terminal_status",
    "tables": {"tickets": {"field": "status", "non_terminal": ["new", "open", "pending"]}},
}


def task(arm: str, trial: int = 0, task_id: str = "t") -> AgentTask:
    return AgentTask(task_id, "shop", "query", "context", "instructions", arm, trial, seed=0)


def agent(rates: str, repair: float = 1.0, golden: Any = GOLDEN) -> SimulatedAgent:
    return SimulatedAgent({"t": golden}, FaultRates.parse(rates), repair)


def seed_where(simulated: SimulatedAgent, wanted: Callable[[TrialPlan], bool]) -> int:
    """The first seed whose plan has the property (plans are pure, so this is deterministic)."""
    return next(seed for seed in range(500) if wanted(simulated.plan("t", TOOLS, random.Random(seed))))


async def run(simulated: SimulatedAgent, arm: Arm, seed: int, name: str) -> AgentOutcome:
    return await simulated.run(task(name), arm.channel, random.Random(seed))


@pytest.mark.parametrize("arm_name", ["baseline", "guarded"])
async def test_zero_rates_play_the_golden_trajectory_exactly(tmp_path: Path, arm_name: str) -> None:
    opened = baseline(tmp_path) if arm_name == "baseline" else guarded(tmp_path)
    async with opened as arm:
        outcome = await run(agent("0"), arm, 1, arm_name)
        assert arm.channel.tool_calls() == [(tool, args) for tool, args in GOLDEN]
    assert outcome.final_message == DONE_MESSAGE
    assert outcome.trajectory == "simulated:t"
    assert outcome.notes["simulated"] is True
    assert outcome.notes["faults"] == []
    assert (arm.status(20), arm.status(22)) == ("hold", "solved")
    if arm_name == "guarded":
        assert outcome.notes["commits"] == [{"status": "committed", "findings": 0, "attempts_left": 0}]
        assert outcome.notes["committed"] is True
    else:
        assert outcome.notes["commit_calls"] == 0
        assert outcome.notes["commit_status"] is None


async def test_wrong_value_reaches_the_database(tmp_path: Path) -> None:
    simulated = agent("0,wrong_value=1")
    seed = seed_where(simulated, lambda p: p.faults[0].path == ("status",) and p.faults[0].call == 3)
    async with baseline(tmp_path) as arm:
        outcome = await run(simulated, arm, seed, "baseline")
    (fault,) = outcome.notes["faults"]
    assert fault["class"] == "wrong_value"
    assert fault["golden"] == "solved"
    assert arm.status(22) == fault["wrong"] != "solved"


async def test_extra_effect_repeats_a_write(tmp_path: Path) -> None:
    simulated = agent("0,extra_effect=1")
    seed = seed_where(simulated, lambda p: p.faults[0].call == 3)
    async with baseline(tmp_path) as arm:
        await run(simulated, arm, seed, "baseline")
        calls = arm.channel.tool_calls()
    assert calls == [*list(GOLDEN), GOLDEN[3]]
    assert [row["id"] for row in arm.rows("tickets")] == [20, 21, 22, 23]


async def test_missing_effect_leaves_a_write_out(tmp_path: Path) -> None:
    simulated = agent("0,missing_effect=1")
    seed = seed_where(simulated, lambda p: p.faults[0].call == 2)
    async with baseline(tmp_path) as arm:
        await run(simulated, arm, seed, "baseline")
    assert (arm.status(20), arm.status(22)) == ("open", "solved")


async def test_stop_early_stops_without_the_state_change_and_says_done(tmp_path: Path) -> None:
    simulated = agent("0,stop_early=1")
    seed = seed_where(simulated, lambda p: p.stop_at == 2)
    async with baseline(tmp_path) as arm:
        outcome = await run(simulated, arm, seed, "baseline")
        assert arm.channel.tool_calls() == list(GOLDEN[:2])
    assert outcome.final_message == DONE_MESSAGE
    assert outcome.notes["halts"] == [{"class": "stop_early", "call": 2, "tool": "update_ticket"}]
    assert (arm.status(20), arm.status(22)) == ("open", None)


@pytest.mark.parametrize(("give_up", "played"), [(1.0, 2), (0.0, 3)])
async def test_giving_up_after_a_tool_error(tmp_path: Path, give_up: float, played: int) -> None:
    shop.REFUSE_ONCE.add(20)
    async with baseline(tmp_path) as arm:
        outcome = await run(agent(f"0,give_up={give_up}", golden=FLAKY), arm, 0, "baseline")
        assert arm.channel.tool_calls() == list(FLAKY[:played])
    assert arm.status(22) == ("solved" if played == 3 else None)
    if give_up:
        assert outcome.final_message == "I could not complete your request: escalate_ticket failed."
        (halt,) = outcome.notes["halts"]
        assert halt["class"] == "give_up"
        assert "edited by a colleague" in halt["error"]
    else:
        assert outcome.final_message == DONE_MESSAGE
        assert outcome.notes["halts"] == []


async def test_both_arms_of_a_trial_get_the_same_faults(tmp_path: Path) -> None:
    simulated = agent("0.5", repair=0.0)
    for seed in range(5):
        async with baseline(tmp_path / f"b{seed}") as plain:
            first = await run(simulated, plain, seed, "baseline")
        async with guarded(tmp_path / f"g{seed}") as guard:
            second = await run(simulated, guard, seed, "guarded")
        for key in ("faults", "inapplicable", "give_up_armed", "halts"):
            assert first.notes[key] == second.notes[key], (seed, key)
        assert plain.channel.tool_calls() == guard.channel.tool_calls()


async def test_the_same_seed_gives_the_same_trial(tmp_path: Path) -> None:
    simulated = agent("0.6", repair=0.5)
    outcomes, states = [], []
    for attempt in range(2):
        async with guarded(tmp_path / str(attempt)) as arm:
            outcomes.append(await run(simulated, arm, 11, "guarded"))
        states.append((arm.rows("tickets"), arm.channel.calls))
    assert outcomes[0] == outcomes[1]
    assert states[0] == states[1]


def _solved_ticket_20(plan: TrialPlan) -> bool:
    return plan.faults[0].call == 2 and plan.faults[0].wrong == "solved"


@pytest.mark.parametrize("repair", [1.0, 0.0])
async def test_a_fault_the_findings_point_at_is_repaired_with_the_repair_probability(
    tmp_path: Path, repair: float
) -> None:
    simulated = agent("0,wrong_value=1", repair=repair)
    seed = seed_where(simulated, _solved_ticket_20)
    async with guarded(tmp_path) as arm:
        outcome = await run(simulated, arm, seed, "guarded")
        calls = arm.channel.tool_calls()
    notes = outcome.notes
    assert notes["commits"][0]["status"] == "blocked"
    if repair:
        assert notes["repairs"] == {"wrong_value": "repaired"}
        assert [c["status"] for c in notes["commits"]] == ["blocked", "committed"]
        assert calls[-1] == GOLDEN[2]
        assert (arm.status(20), arm.status(22)) == ("hold", "solved")
    else:
        assert notes["repairs"] == {"wrong_value": "declined"}
        assert len(notes["commits"]) == 1
        assert notes["committed"] is False
        assert (arm.status(20), arm.status(22)) == ("open", None)


async def test_a_fault_no_finding_points_at_is_left_alone(tmp_path: Path) -> None:
    simulated = agent("0,wrong_value=1", repair=1.0)
    seed = seed_where(simulated, lambda p: p.faults[0].call == 2 and p.faults[0].wrong == "pending")
    async with guarded(tmp_path, chain=[*TRACE_JUDGES, REVIEW]) as arm:
        outcome = await run(simulated, arm, seed, "guarded")
    assert outcome.notes["repairs"] == {}
    assert outcome.notes["commits"] == [
        {"status": "blocked", "findings": 1, "attempts_left": 2, "repaired": []}
    ]


async def test_giving_up_is_repaired_when_the_guard_names_the_failed_write(tmp_path: Path) -> None:
    shop.REFUSE_ONCE.add(20)
    async with guarded(tmp_path) as arm:
        outcome = await run(agent("0,give_up=1", golden=FLAKY), arm, 0, "guarded")
        calls = arm.channel.tool_calls()
    assert outcome.notes["repairs"] == {"give_up:1": "repaired"}
    assert [c["status"] for c in outcome.notes["commits"]] == ["blocked", "committed"]
    assert calls == [FLAKY[0], FLAKY[1], FLAKY[1], FLAKY[2]]
    assert outcome.final_message == DONE_MESSAGE
    assert (arm.status(20), arm.status(22)) == ("pending", "solved")


async def test_an_extra_write_is_unrepairable(tmp_path: Path) -> None:
    simulated = agent("0,extra_effect=1")
    seed = seed_where(simulated, lambda p: p.faults[0].call == 3)
    async with guarded(tmp_path) as arm:
        outcome = await run(simulated, arm, seed, "guarded")
    assert outcome.notes["repairs"] == {"extra_effect": "unrepairable"}
    assert [c["status"] for c in outcome.notes["commits"]] == ["blocked"]
    assert (arm.status(20), arm.status(22), arm.status(23)) == ("open", None, None)


@pytest.mark.parametrize(
    ("rates", "wanted", "repair"),
    [
        ("0,stop_early=1", lambda p: p.stop_at == 2, "stop_early:2"),
        ("0,missing_effect=1", lambda p: p.faults[0].call == 2, "missing_effect"),
    ],
)
async def test_unfinished_work_is_finished_when_the_guard_names_its_record(
    tmp_path: Path, rates: str, wanted: Callable[[TrialPlan], bool], repair: str
) -> None:
    simulated = agent(rates, golden=TWO_STEP)
    seed = seed_where(simulated, wanted)
    async with guarded(tmp_path, chain=[*TRACE_JUDGES, NON_TERMINAL]) as arm:
        outcome = await run(simulated, arm, seed, "guarded")
    assert outcome.notes["repairs"] == {repair: "repaired"}
    assert [c["status"] for c in outcome.notes["commits"]] == ["blocked", "committed"]
    assert arm.status(21) == "solved"


def test_the_fault_classes_are_the_documented_five() -> None:
    assert [kind.value for kind in FaultClass] == [
        "wrong_value",
        "extra_effect",
        "missing_effect",
        "stop_early",
        "give_up",
    ]
