"""Every golden trajectory commits through the neobank's judges: the rules never block a correct trajectory.

The check ``guard bench --agent replay --arms guarded`` makes, through the
runner API: all 104 goldens pass in the guarded arm, each committed on its
first attempt with no blocking finding. The one warning is the golden that
records a denial at intake by creating its ticket already solved.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.agents import ReplayAgent
from benchmark.dataset import load_scenario, load_tasks
from benchmark.results import read_results
from benchmark.run import RunOptions, TrialContext, run
from benchmark.run.setup import guard_settings
from guard.gate.commit import CommitGate
from tests.benchmark.neobank_rules.conftest import NEOBANK

EXPECTED_WARNINGS = {"test_dc_003": {"ticket-denied-at-creation"}}


async def test_every_golden_commits_with_no_blocking_finding(
    data_dir: Path, neobank_gate: CommitGate, tmp_path: Path
) -> None:
    tasks = load_tasks(data_dir, domain=NEOBANK)
    context = TrialContext(
        data_dir=data_dir,
        agent=ReplayAgent.golden(tasks.tasks),
        settings=guard_settings(None),
        gates={NEOBANK: neobank_gate},
        scenarios={NEOBANK: load_scenario(data_dir, NEOBANK)},
        data_ref=str(tasks.provenance),
        task_set_hash=tasks.content_hash,
    )
    out = tmp_path / "goldens.jsonl"
    summary = await run(tasks, context, RunOptions(1, ("guarded",), 0, 8, out))
    assert summary.system_errors == 0
    assert summary.passed == {"guarded": len(tasks.tasks)} == {"guarded": 104}
    warnings: dict[str, set[str]] = {}
    for result in read_results(out):
        assert [v.status for v in result.verdicts] in ([], ["committed"]), (result.task, result.verdicts)
        for verdict in result.verdicts:
            assert all(f["severity"] == "warn" for f in verdict.findings), (result.task, verdict.findings)
            for finding in verdict.findings:
                warnings.setdefault(result.task.split(":")[1], set()).add(finding["rule"])
    assert warnings == EXPECTED_WARNINGS
