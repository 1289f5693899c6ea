"""A short run of ``perf/capacity.py``: the guard and the plain MCP SDK server as processes, driven by the
light generator of ``perf/raw_load.py`` (raw JSON-RPC); what the script reports, and that it holds up.

The figures themselves are the script's to print (these machines are noisy): here, that every arm
answered every call, that the generator stayed a small share of the machine, and that the last line
holds what the script promises.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

KEYS = {
    "guard_calls_per_s",
    "plain_calls_per_s",
    "guard_cpu_ms_per_call",
    "plain_cpu_ms_per_call",
    "generator_cpu_share",
    "errors",
}


def test_a_short_capacity_run_answers_every_call_and_reports_its_figures() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "perf" / "capacity.py"),
            *("--step-s", "0.6", "--max-connections", "2", "--repeats", "1", "--per-transaction", "3"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT / "perf",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures.keys() >= KEYS
    assert figures["errors"] == 0, done.stdout[-3000:]
    assert figures["guard_calls_per_s"] > 0
    assert figures["plain_calls_per_s"] > 0
    assert figures["guard_cpu_ms_per_call"] > 0
    assert 0 < figures["generator_cpu_share"] < 0.5
    assert "ramp (" in done.stdout
    assert "guard" in done.stdout
