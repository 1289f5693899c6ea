"""A short run of ``perf/crash_campaign.py``: SIGKILLed guards, restarted, their record checked."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.slow
@pytest.mark.parametrize("db", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_sigkill_at_random_moments_leaves_a_record_that_does_not_lie(
    db: str, request: pytest.FixtureRequest
) -> None:
    """Requirements G3, G16, G17: no lost commit, no unjudged row, no misaudited commit, no missing call."""
    command = [sys.executable, str(ROOT / "perf" / "crash_campaign.py"), "--kills", "2", "--db", db]
    if db == "postgres":
        command += ["--postgres-url", request.getfixturevalue("postgres_url")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stdout + done.stderr
    runs = [json.loads(line) for line in lines[:-1]]
    summary = json.loads(lines[-1])
    assert summary["runs"] == [f"{db}/sql", f"{db}/mcp"]
    assert {
        k: summary[k] for k in ("lost", "unjudged", "misaudited", "missing_calls", "duplicates")
    } == dict.fromkeys(("lost", "unjudged", "misaudited", "missing_calls", "duplicates"), 0), runs
    assert all(run["answered_calls"] > 0 for run in runs), runs
    assert summary["partial_unfinishable"] == 0, runs  # Requirement G46: every stuck commit finishable
    assert done.returncode == 0, done.stderr
