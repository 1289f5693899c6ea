"""`guard bench` on the command line: a run, a resumed run, and bad options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def guard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", *args], capture_output=True, text=True, timeout=600, check=False
    )


def test_bench_runs_resumes_and_reports(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    common = ["bench", "--data", str(data_dir), "--domain", "sandbox_external_retail", "--limit", "3"]
    first = guard(*common, "--trials", "1", "--out", str(out))
    assert first.returncode == 0, first.stderr
    assert "6 trials in" in first.stdout
    assert "trials/s" in first.stdout
    second = guard(*common, "--trials", "2", "--out", str(out))
    assert second.returncode == 0, second.stderr
    assert "resuming" in second.stderr
    assert "6 already done" in second.stdout
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 12
    assert all(r["passed"] for r in records)
    report = guard("report", str(out), "--json")
    assert report.returncode == 0, report.stderr
    metrics = json.loads(report.stdout)
    assert set(metrics["arms"]) == {"baseline", "guarded"}


def test_bad_options_are_one_clear_line(data_dir: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "r.jsonl")
    cases = [
        (["bench", "--data", str(data_dir), "--out", out, "--arms", "baseline,sideways"], "--arms must name"),
        (["bench", "--data", str(data_dir)], "--out results.jsonl is required"),
        (["bench", "--out", out], "--data DIR is required"),
        (
            ["bench", "--data", str(data_dir), "--out", out, "--agent", "psychic", "--limit", "1"],
            "unknown agent",
        ),
        (["bench", "--data", str(tmp_path), "--out", out], "error: "),
        (["bench", "--data", str(data_dir), "--out", out, "--domain", "nope"], "unknown domain 'nope'"),
    ]
    for args, message in cases:
        done = guard(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_bench_grades_a_given_trajectory_file(data_dir: Path, tmp_path: Path) -> None:
    """A hand-made trajectory (the blog case, `solved` for `hold`) is replayed and fails in both arms."""
    from benchmark.dataset import load_task

    task = load_task(data_dir, "sandbox_external_retail_group1.py:test_case_ST003_006")
    calls = [{"tool": c.tool, "arguments": dict(c.arguments)} for c in task.golden]
    calls[-1]["arguments"] = {
        **calls[-1]["arguments"],
        "item": {**calls[-1]["arguments"]["item"], "status": "solved"},
    }
    trajectories = tmp_path / "t.jsonl"
    trajectories.write_text(
        json.dumps({"id": "solved-not-hold", "task": task.id, "calls": calls, "final_message": "All sorted!"})
        + "\n"
    )
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(f"- {task.id}\n")
    out = tmp_path / "r.jsonl"
    done = guard(
        "bench",
        "--data",
        str(data_dir),
        "--tasks",
        str(tasks),
        "--trajectories",
        str(trajectories),
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    records = {r["arm"]: r for r in map(json.loads, out.read_text().splitlines())}
    baseline = records["baseline"]
    assert baseline["trajectory"] == "solved-not-hold"
    assert baseline["passed"] is False
    assert [(d["path"], d["result"], d["expected"]) for d in baseline["diff"]] == [
        ("zendesk_tickets[20].status", "solved", "hold")
    ]
    # the ticket was already `solved` before the task: the final status is not a change the agent made
    assert baseline["signature"] == "incomplete_resolution"
    assert records["guarded"]["passed"] is False


def test_a_run_whose_trials_end_in_system_errors_exits_1(data_dir: Path, tmp_path: Path) -> None:
    """The results of a run that lost trials to system errors are incomplete: a script must see it."""
    import socket

    with socket.socket() as closed:  # a port nothing listens on: every model call fails
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    out = tmp_path / "r.jsonl"
    done = guard(
        "bench",
        "--data",
        str(data_dir),
        "--domain",
        "sandbox_external_retail",
        "--limit",
        "1",
        "--agent",
        "openai",
        "--model",
        "m",
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        "--out",
        str(out),
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "2 of 2 trial(s) ended in a system error" in done.stderr
    assert "the results are incomplete; rerun the same command to retry them" in done.stderr
    assert "Traceback" not in done.stderr
