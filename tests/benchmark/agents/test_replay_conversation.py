"""The replay agent hands a recorded conversation to the guard, as a host would (Requirement G44).

A tau-bench run (GPT-4o's recorded run 0 of airline task 0) is split into the turns said before each call,
and the turns after the last call go with the commit; the guarded arm's judges read them
(``tests.guard.sample_judges:Heard`` says what it read), both arms make the same calls, and
``guard bench --no-conversation`` replays the same calls without the turns.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmark.agents import ReplayAgent, ToolInfo, ToolResult
from benchmark.agents.base import AgentTask
from benchmark.dataset.agent_logs import read_agent_logs
from benchmark.dataset.trajectories import parse_trajectory_line
from benchmark.results import TrialResult, read_results
from benchmark.run import RunOptions
from benchmark.run.runner import run_spec
from benchmark.run.setup import AgentSpec, RunSpec
from judges import Role, Turn
from tests.conftest import ROOT

TAU_DATA = ROOT.parent / "shared" / "tau-bench-airline"
RUNS = TAU_DATA / "runs" / "gpt-4o-tasks-0-24.json"
TASK = "tau_airline/0"
HEARD = "15 turn(s) before calls [5, 0, 2, 2, 2, 0, 0, 2]; the user said first: Hi! I'm looking to book"


@pytest.fixture
def runs() -> Path:
    if not RUNS.is_file():
        pytest.skip(f"no recorded tau-bench runs at {RUNS}")
    return RUNS


def _said(turns: Sequence[Turn]) -> list[tuple[str, str]]:
    return [(turn.role.value, turn.text) for turn in turns]


def test_a_recorded_run_is_split_into_the_turns_said_before_each_call(runs: Path) -> None:
    run = next(t for t in read_agent_logs(runs) if t.id == f"{TASK}#0")
    assert [(c.tool, len(c.turns)) for c in run.calls] == [
        ("get_user_details", 5),
        ("search_direct_flight", 0),
        ("search_onestop_flight", 2),
        ("calculate", 2),
        ("book_reservation", 2),
        ("think", 0),
        ("calculate", 0),
        ("book_reservation", 2),
    ]
    first_booking = run.calls[4]
    (listing, confirmed) = _said(first_booking.turns)
    assert listing[0] == "assistant"
    assert "Please confirm if you would like to proceed with this booking." in listing[1]
    assert confirmed == ("user", "Yes, please proceed with that booking. Thank you!")
    assert _said(run.calls[7].turns)[1] == ("user", "Yes, I confirm. Please go ahead with this payment.")
    assert run.final_turns is not None
    assert [turn.role for turn in run.final_turns] == [Role.ASSISTANT, Role.USER]
    assert run.final_turns[0].text.startswith("Your flight from New York (JFK) to Seattle (SEA) has been")
    # the agent's texts are still its assistant messages, the last one its final message
    assert run.messages[-1] == run.final_turns[0].text == run.final_message


@dataclass
class _Recorder:
    """A channel that keeps what the agent handed it."""

    commit_tool: str | None
    calls: list[tuple[str, dict[str, Any], list[tuple[str, str]] | None]] = field(default_factory=list)

    @property
    def tools(self) -> list[ToolInfo]:
        return []

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, conversation: Sequence[Turn] | None = None
    ) -> ToolResult:
        said = None if conversation is None else _said(conversation)
        self.calls.append((name, dict(arguments), said))
        return ToolResult(text="{}", structured=None, is_error=False)


def _task(arm: str) -> AgentTask:
    return AgentTask(TASK, "tau_airline", "", "", "", arm, 0, 0)


async def test_the_replay_hands_the_turns_with_each_call_and_the_rest_with_the_commit(runs: Path) -> None:
    run = next(t for t in read_agent_logs(runs) if t.id == f"{TASK}#0")
    guarded, baseline, withheld = _Recorder("guard_commit"), _Recorder(None), _Recorder("guard_commit")
    outcome = await ReplayAgent.from_trajectories([run]).run(_task("guarded"), guarded, random.Random(0))
    await ReplayAgent.from_trajectories([run]).run(_task("baseline"), baseline, random.Random(0))
    off = ReplayAgent.from_trajectories([run], conversation=False)
    withheld_outcome = await off.run(_task("guarded"), withheld, random.Random(0))
    assert [call[2] for call in guarded.calls[:-1]] == [_said(call.turns) for call in run.calls]
    assert guarded.calls[-1][0] == "guard_commit"
    assert guarded.calls[-1][2] == _said(run.final_turns or ())
    # the same calls in both arms and without the conversation; only the turns differ
    assert [call[:2] for call in baseline.calls] == [call[:2] for call in guarded.calls[:-1]]
    assert [call[:2] for call in withheld.calls] == [call[:2] for call in guarded.calls]
    assert all(call[2] is None for call in withheld.calls)
    assert outcome.notes == {"conversation": "handed over"}
    assert withheld_outcome.notes == {"conversation": "withheld"}


def test_jsonl_turns_are_placed_before_their_calls() -> None:
    line = {
        "id": "j",
        "task": TASK,
        "calls": [{"tool": "get_user_details"}, {"tool": "cancel_reservation"}],
        "final_message": "Cancelled.",
        "messages": [
            {"role": "user", "text": "Cancel ABC123.", "before_call": 0},
            {"role": "assistant", "text": "Cancel ABC123, no refund. Proceed?", "before_call": 1},
            {"role": "user", "text": "yes", "before_call": 1},
            {"role": "assistant", "text": "Cancelled.", "before_call": 2},
        ],
    }
    parsed = parse_trajectory_line(json.dumps(line))
    assert [_said(c.turns) for c in parsed.calls] == [
        [("user", "Cancel ABC123.")],
        [("assistant", "Cancel ABC123, no refund. Proceed?"), ("user", "yes")],
    ]
    assert parsed.final_turns is not None
    assert _said(parsed.final_turns) == [("assistant", "Cancelled.")]
    assert parsed.messages == ("Cancel ABC123, no refund. Proceed?", "Cancelled.")
    # the agent's texts alone have no place among the calls: nothing to hand over
    texts = parse_trajectory_line(json.dumps({**line, "messages": ["Cancelled."]}))
    assert texts.final_turns is None
    assert all(call.turns == () for call in texts.calls)


def _heard(result: TrialResult) -> list[str]:
    return [f["message"] for v in result.verdicts for f in v.findings if f.get("judge") == "heard"]


def _guard_config(tmp_path: Path) -> Path:
    config = tmp_path / "guard.yaml"
    chain = [{"judge": "python", "target": "tests.guard.sample_judges:Heard"}]
    judges = {"chain": chain, "use_backend_judges": False}
    config.write_text(yaml.safe_dump({"judges": judges, "commit": {"judge_timeout_s": 30.0}}))
    return config


async def test_the_guarded_arms_judges_read_the_recorded_conversation(runs: Path, tmp_path: Path) -> None:
    spec = RunSpec(
        data_dir=TAU_DATA,
        task_ids=(TASK,),
        agent=AgentSpec("replay", runs),
        guard_config=_guard_config(tmp_path),
    )
    out = tmp_path / "out.jsonl"
    await run_spec(spec, RunOptions(trials=1, arms=("baseline", "guarded"), seed=0, concurrency=2, out=out))
    results = {r.arm: r for r in read_results(out)}
    assert results["guarded"].trajectory == f"{TASK}#0"
    assert [message[: len(HEARD)] for message in _heard(results["guarded"])] == [HEARD]
    assert results["baseline"].tool_calls == results["guarded"].tool_calls == 8
    handed = {"conversation": "handed over"}
    assert results["baseline"].agent_notes == results["guarded"].agent_notes == handed


def test_bench_no_conversation_replays_the_same_calls_without_it(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "off.jsonl"
    run = ["--data", str(TAU_DATA), "--trajectories", str(runs), "--limit", "1", "--arms", "guarded"]
    options = ["--workers", "1", "--guard-config", str(_guard_config(tmp_path)), "--out", str(out), "--quiet"]
    done = subprocess.run(
        [sys.executable, "-m", "guard", "bench", *run, "--no-conversation", *options],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (result,) = read_results(out)
    assert result.task == TASK
    assert _heard(result) == ["no conversation was handed over"]
    assert result.tool_calls == 8
    assert result.agent_notes == {"conversation": "withheld"}
