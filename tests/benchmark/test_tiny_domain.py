"""A sixth domain, added as ``benchmark/domains/README.md`` says, runs end to end through both arms.

Tiny Shop (:mod:`tests.benchmark.tiny_shop`) is declared like the five
benchmark domains: tables named by a ``TableNaming`` with their seed files,
systems each holding its own tools, a rule pack, a Python judge that reads
the commit time, and a clock. The test registers it in ``DOMAIN_MODULES``
(for its own duration), writes its scenario where a data checkout keeps
scenarios, and hands the runner its tasks in memory: the runner, the worlds,
the golden states and the guard are the benchmark's own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark.dataset import Provenance, TaskSet, task_set_hash
from benchmark.domains import DOMAIN_MODULES, get_domain
from benchmark.results import TrialResult, read_results
from benchmark.run import RunOptions, run
from benchmark.run.setup import AgentSpec, RunSpec, open_context
from tests.benchmark.tiny_shop import DOMAIN
from tests.benchmark.tiny_shop.tasks import TASKS, WRONG

TINY = "tiny_shop"


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder holding Tiny Shop's scenario, with the domain registered as the README says."""
    monkeypatch.setitem(DOMAIN_MODULES, TINY, "tests.benchmark.tiny_shop")
    scenarios = tmp_path / "data" / "dataset" / "scenario"
    scenarios.mkdir(parents=True)
    shutil.copy(Path(__file__).with_name("tiny_shop") / "scenario.yaml", scenarios / f"{TINY}.yaml")
    return tmp_path / "data"


async def _run(data: Path, out: Path, agent: AgentSpec) -> dict[tuple[str, str], TrialResult]:
    """Every task in both arms, once, through the runner; the results by (task, arm)."""
    tasks = TaskSet(TASKS, Provenance("tiny_shop", "in memory"), task_set_hash(TASKS))
    spec = RunSpec(data_dir=data, agent=agent)
    async with open_context(spec, tasks) as context:
        summary = await run(tasks, context, RunOptions(1, ("baseline", "guarded"), 0, 2, out))
    assert summary.system_errors == 0
    return {(result.task, result.arm): result for result in read_results(out)}


def test_the_domain_is_found_by_its_name(checkout: Path) -> None:
    assert get_domain(TINY) is DOMAIN
    assert DOMAIN.registry.names == [
        "get_customer",
        "get_order",
        "cancel_order",
        "refund_order",
        "search_policy",
    ]
    assert [judge.name for judge in DOMAIN.judges] == ["tiny_shop", "tiny_shop_cancellations"]


async def test_the_golden_trajectories_pass_in_both_arms(checkout: Path, tmp_path: Path) -> None:
    results = await _run(checkout, tmp_path / "golden.jsonl", AgentSpec())
    assert sorted(results) == sorted((task.id, arm) for task in TASKS for arm in ("baseline", "guarded"))
    for (task, arm), result in results.items():
        assert result.passed, (task, arm, result.diff)
        assert result.tool_errors == 0
        if arm == "guarded":
            assert [v.status for v in result.verdicts] == ["committed"], result.verdicts
            assert [f for v in result.verdicts for f in v.findings] == []


async def test_a_wrong_trajectory_is_blocked_in_the_guarded_arm(checkout: Path, tmp_path: Path) -> None:
    given = tmp_path / "wrong.jsonl"
    lines = [
        {
            "id": trajectory.id,
            "task": trajectory.task,
            "calls": [{"tool": call.tool, "arguments": call.arguments} for call in trajectory.calls],
            "final_message": trajectory.final_message,
        }
        for trajectory, _ in WRONG.values()
    ]
    given.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    results = await _run(checkout, tmp_path / "wrong-results.jsonl", AgentSpec(trajectories=given))
    for trajectory, rule in WRONG.values():
        baseline, guarded = results[(trajectory.task, "baseline")], results[(trajectory.task, "guarded")]
        assert not baseline.passed
        assert baseline.diff, "the mistake reached the records without the guard"
        assert guarded.verdicts[0].status == "blocked"
        assert "committed" not in [v.status for v in guarded.verdicts]
        blocking = [f for f in guarded.verdicts[0].findings if f["severity"] == "block"]
        assert [f["rule"] for f in blocking] == [rule], blocking
        assert str(blocking[0]["hint"]).startswith("allowed:")
        assert not guarded.passed
        assert guarded.tool_errors == 0
