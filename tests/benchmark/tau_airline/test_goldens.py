"""The fifty airline tasks through ``guard bench``'s runner: goldens pass in both arms, SQLite and PostgreSQL.

Grading is tau-bench's: the final database equals the one the golden
actions reach on fresh data, and every required output is said by the
agent (lower-cased, commas removed). ``--data`` points at tau-bench's
airline folder; a domain asked for with the other data set is one clear error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.dataset import Task
from benchmark.errors import BenchmarkError
from benchmark.results import TrialResult, read_results
from benchmark.run import RunOptions, run
from benchmark.run.setup import AgentSpec, RunSpec, load_task_set, open_context
from benchmark.world import golden, outputs_said

ARMS = ("baseline", "guarded")
Results = dict[tuple[str, str], TrialResult]


async def _run(spec: RunSpec, out: Path) -> Results:
    tasks = load_task_set(spec)
    async with open_context(spec, tasks) as context:
        summary = await run(tasks, context, RunOptions(1, ARMS, 0, 4, out))
    assert summary.system_errors == 0
    return {(result.task, result.arm): result for result in read_results(out)}


def _all_pass(results: Results, tasks: tuple[Task, ...]) -> None:
    assert sorted(results) == sorted((task.id, arm) for task in tasks for arm in ARMS)
    for (task, arm), result in results.items():
        assert result.passed, (task, arm, result.diff, result.rubrics)
        assert result.tool_errors == 0, (task, arm)
        assert result.state_hash == result.golden_hash
        if arm == "guarded":
            assert [v.status for v in result.verdicts] == ["committed"], (task, result.verdicts)


@pytest.fixture(scope="module")
def sqlite_hashes() -> dict[tuple[str, str], str]:
    """The SQLite run's final-state hashes, for the PostgreSQL run to compare with."""
    return {}


async def test_all_goldens_pass_in_both_arms_on_sqlite(
    tau_data: Path, tau_tasks: tuple[Task, ...], tmp_path: Path, sqlite_hashes: dict[tuple[str, str], str]
) -> None:
    results = await _run(RunSpec(data_dir=tau_data, domain="tau_airline"), tmp_path / "sqlite.jsonl")
    _all_pass(results, tau_tasks)
    sqlite_hashes.update({key: str(result.state_hash) for key, result in results.items()})
    # a second computation, from scratch, reaches the same states
    for task in tau_tasks[::7]:
        again = await golden(task, data_dir=tau_data, cache=False)
        assert again.hash == results[(task.id, "baseline")].golden_hash, task.id


@pytest.mark.postgres
async def test_all_goldens_pass_in_both_arms_on_postgres(
    tau_data: Path,
    tau_tasks: tuple[Task, ...],
    postgres_url: str,
    tmp_path: Path,
    sqlite_hashes: dict[tuple[str, str], str],
) -> None:
    spec = RunSpec(data_dir=tau_data, domain="tau_airline", db=postgres_url)
    results = await _run(spec, tmp_path / "postgres.jsonl")
    _all_pass(results, tau_tasks)
    if sqlite_hashes:  # when the SQLite run came first in this session
        assert {key: str(result.state_hash) for key, result in results.items()} == sqlite_hashes


async def test_a_required_output_not_said_fails_the_trial(
    tau_data: Path, tau_tasks: tuple[Task, ...], tmp_path: Path
) -> None:
    task = next(t for t in tau_tasks if t.outputs)
    given = tmp_path / "silent.jsonl"
    calls = [{"tool": call.tool, "arguments": dict(call.arguments)} for call in task.golden]
    line = {"id": "silent", "task": task.id, "calls": calls, "final_message": "All done, thank you."}
    given.write_text(json.dumps(line) + "\n", encoding="utf-8")
    spec = RunSpec(data_dir=tau_data, task_ids=(task.id,), agent=AgentSpec(trajectories=given))
    results = await _run(spec, tmp_path / "silent-results.jsonl")
    for arm in ARMS:
        result = results[(task.id, arm)]
        assert result.state_passed
        assert not result.passed
        assert [r.passed for r in result.rubrics] == [False] * len(task.outputs)


def test_outputs_are_matched_as_tau_bench_matches_them() -> None:
    said = outputs_said(["1286", "Certificate"], ["The total is 1,286 dollars.", "no"])
    assert said == [("1286", True), ("Certificate", False)]
    assert outputs_said(["certificate"], ["A CERTIFICATE was sent"]) == [("certificate", True)]


def test_a_domain_needs_its_own_data_set(tau_data: Path, tmp_path: Path) -> None:
    with pytest.raises(BenchmarkError, match="needs the thinkingbox data set"):
        load_task_set(RunSpec(data_dir=tau_data, domain="sandbox_external_retail"))
    with pytest.raises(BenchmarkError, match="needs the tau-bench-airline data set"):
        load_task_set(RunSpec(data_dir=tmp_path, domain="tau_airline"))


def test_the_folder_selects_the_airline_tasks(tau_data: Path) -> None:
    tasks = load_task_set(RunSpec(data_dir=tau_data))
    assert [task.id for task in tasks] == [f"tau_airline/{i}" for i in range(50)]
    assert str(tasks.provenance).startswith("tau-bench@59a200c")
    picked = load_task_set(RunSpec(data_dir=tau_data, task_ids=("tau_airline/7",), limit=1))
    assert [task.id for task in picked] == ["tau_airline/7"]
