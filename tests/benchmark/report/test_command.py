"""``guard report``: outputs, the same bytes twice, and one error line with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from benchmark.report import report
from tests.benchmark.report.builders import HAND, mixed, trials, write

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()
    app.command()(report)
    return app


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"FORCE_COLOR": None, "COLUMNS": None})


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return write(tmp_path / "results.jsonl", mixed())


def _run(app: typer.Typer, runner: CliRunner, *args: str | Path) -> tuple[int, str, str]:
    outcome = runner.invoke(app, [str(a) for a in args])
    return outcome.exit_code, ANSI.sub("", outcome.stdout), ANSI.sub("", outcome.stderr)


def test_tables_by_default(app: typer.Typer, runner: CliRunner, results: Path) -> None:
    code, out, err = _run(app, runner, results, "--bootstrap", "200")
    assert (code, err) == (0, "")
    assert "pass^5 unbiased" in out
    assert "SIMULATED HARNESS CHECK" in out


def test_json_prints_only_the_document(app: typer.Typer, runner: CliRunner, results: Path) -> None:
    code, out, _ = _run(app, runner, results, "--json", "--bootstrap", "200", "-k", "3")
    assert code == 0
    data = json.loads(out)
    assert data["meta"]["k"] == 3
    assert data["arms"]["baseline"]["pass_hat_k_unbiased"]["low"] is not None
    assert {"low", "high"} <= set(data["lift"]["pass_hat_k_plugin"])


def test_prices_give_cost(app: typer.Typer, runner: CliRunner, results: Path) -> None:
    code, out, _ = _run(
        app,
        runner,
        results,
        "--json",
        "--prompt-price",
        "2.5",
        "--completion-price",
        "10",
        "--bootstrap",
        "0",
    )
    assert code == 0
    cost = json.loads(out)["arms"]["guarded"]["cost"]
    assert cost["total"] == pytest.approx(200 * (1000 * 2.5 + 100 * 10) / 1_000_000)


def test_the_same_results_file_gives_the_same_report_twice(
    app: typer.Typer, runner: CliRunner, results: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "one.html", tmp_path / "two.html"
    code_one, out_one, err_one = _run(app, runner, results, "--html", first)
    code_two, out_two, _ = _run(app, runner, results, "--html", second)
    assert (code_one, code_two) == (0, 0)
    assert out_one == out_two
    assert first.read_bytes() == second.read_bytes()
    assert err_one == f"wrote {first}\n"
    assert _run(app, runner, results, "--json")[1] == _run(app, runner, results, "--json")[1]


def _error(app: typer.Typer, runner: CliRunner, *args: str | Path) -> str:
    code, out, err = _run(app, runner, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("error: ")
    return err


def test_missing_file(app: typer.Typer, runner: CliRunner, tmp_path: Path) -> None:
    assert "results file not found" in _error(app, runner, tmp_path / "nope.jsonl")


def test_bad_record(app: typer.Typer, runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"schema": 1, "task": "A"}\n')
    assert f"{path}:1" in _error(app, runner, path)
    path.write_text("not json\n")
    assert "not JSON" in _error(app, runner, path)


def test_unequal_trials(app: typer.Typer, runner: CliRunner, tmp_path: Path) -> None:
    spec = dict(HAND) | {"E": {"baseline": "111", "guarded": "11111"}}
    err = _error(app, runner, write(tmp_path / "r.jsonl", trials(spec)))
    assert "unequal trial counts" in err
    assert "E (baseline: 3)" in err


def test_one_arm_only_tasks(app: typer.Typer, runner: CliRunner, tmp_path: Path) -> None:
    spec = dict(HAND) | {"E": {"baseline": "11111"}}
    assert "one arm only" in _error(app, runner, write(tmp_path / "r.jsonl", trials(spec)))


def test_bad_options(app: typer.Typer, runner: CliRunner, results: Path) -> None:
    assert "both --prompt-price and --completion-price" in _error(app, runner, results, "--prompt-price", "1")
    assert "k must be between 1 and the 5" in _error(app, runner, results, "-k", "9")
    assert "resamples" in _error(app, runner, results, "--bootstrap", "-5")


def test_unwritable_html(app: typer.Typer, runner: CliRunner, results: Path, tmp_path: Path) -> None:
    err = _error(app, runner, results, "--html", tmp_path / "missing" / "r.html")
    assert "cannot write" in err
