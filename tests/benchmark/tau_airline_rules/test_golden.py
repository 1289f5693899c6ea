"""Every airline golden commits through the guarded arm with no blocking finding (Requirement G1)."""

from __future__ import annotations

from pathlib import Path

from benchmark.dataset import Task
from benchmark.results import read_results
from benchmark.run import RunOptions, run
from benchmark.run.setup import RunSpec, load_task_set, open_context


async def test_every_golden_commits_with_no_blocking_finding(
    tau_data: Path, tau_tasks: tuple[Task, ...], tmp_path: Path
) -> None:
    spec = RunSpec(data_dir=tau_data, domain="tau_airline")
    tasks = load_task_set(spec)
    async with open_context(spec, tasks) as context:
        summary = await run(tasks, context, RunOptions(1, ("guarded",), 0, 4, tmp_path / "out.jsonl"))
    assert summary.system_errors == 0
    results = list(read_results(tmp_path / "out.jsonl"))
    assert len(results) == len(tau_tasks) == 50
    for result in results:
        assert result.passed, (result.task, result.diff)
        assert [v.status for v in result.verdicts] in ([], ["committed"]), (result.task, result.verdicts)
        blocking = [f for v in result.verdicts for f in v.findings if f["severity"] != "warn"]
        assert blocking == [], (result.task, blocking)
