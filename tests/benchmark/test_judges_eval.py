"""``guard judges eval``: the gate's verdict on each graded trajectory, and the confusion against the grade.

The pure part (:func:`benchmark.judges_eval.judge`, :func:`~benchmark.judges_eval.evaluate`) is
tested on hand-made trial records; the backtest end to end on booking goldens and wrong trajectories
(:mod:`tests.benchmark.wrong_cases`) replayed through the benchmark's arms, once per module.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from benchmark.dataset import Task, load_tasks
from benchmark.domains.coverage import Coverage
from benchmark.errors import BenchmarkError
from benchmark.judges_eval import (
    Confusion,
    EvalReport,
    EvalSpec,
    Outcome,
    RuleCounts,
    backtest,
    evaluate,
    judge,
    to_document,
)
from benchmark.judges_eval.app import judges_app
from benchmark.judges_eval.render import print_tables
from benchmark.report.eval_page import render_eval_html
from benchmark.results import CommitVerdict, RubricResult, TrialResult
from tests.benchmark.booking_rules.cases import WRONG_DOMAIN as BOOKING
from tests.benchmark.wrong_cases import WrongCase

# -- the pure part ------------------------------------------------------------------------------


def _trial(
    arm: str, *, passed: bool = True, task: str = "t.py:test_a", trial: int = 0, **fields: Any
) -> TrialResult:
    return TrialResult.model_validate(
        {
            "task": task,
            "domain": fields.pop("domain", "d"),
            "arm": arm,
            "trial": trial,
            "seed": 1,
            "agent": "replay",
            "trajectory": f"{task}#{trial}",
            "passed": passed,
            "state_passed": passed,
            **fields,
        }
    )


def _verdict(decision: str = "allow", effects: int = 2, *findings: dict[str, Any]) -> CommitVerdict:
    status = "committed" if decision == "allow" else "rolled_back"
    return CommitVerdict(
        via="tool", status=status, decision=decision, findings=list(findings), effects=effects
    )


BLOCK = {"judge": "rules", "severity": "block", "message": "refund over the limit", "rule": "refund-limit"}
WARN = {"judge": "rules", "severity": "warn", "message": "late", "rule": "late-note"}


@pytest.mark.parametrize(
    ("right", "verdicts", "outcome", "rules"),
    [
        pytest.param(
            False, [_verdict("block", 2, BLOCK)], Outcome.TRUE_STOP, ("refund-limit",), id="true stop"
        ),
        pytest.param(
            True, [_verdict("block", 2, BLOCK)], Outcome.FALSE_BLOCK, ("refund-limit",), id="false block"
        ),
        pytest.param(
            False, [_verdict("allow", 2, WARN)], Outcome.MISS, (), id="miss: a warning stops nothing"
        ),
        pytest.param(True, [_verdict("allow", 1)], Outcome.RIGHT_ALLOWED, (), id="right allowed"),
        pytest.param(False, [_verdict("allow", 0)], Outcome.NO_CHANGE, (), id="no change"),
        pytest.param(False, [], Outcome.NO_CHANGE, (), id="no commit at all"),
        pytest.param(
            True,
            [_verdict("allow", 2, {**BLOCK, "shadow": True})],
            Outcome.FALSE_BLOCK,
            ("refund-limit",),
            id="a shadowed block counts as enforced",
        ),
        pytest.param(
            False,
            [_verdict("escalate", 3, {"judge": "amount_cap", "severity": "escalate", "message": "big"})],
            Outcome.TRUE_STOP,
            ("amount_cap",),
            id="escalation stops; a finding without a rule is named by its judge",
        ),
    ],
)
def test_each_trajectory_lands_in_one_outcome(
    right: bool, verdicts: list[CommitVerdict], outcome: Outcome, rules: tuple[str, ...]
) -> None:
    judged = judge(_trial("baseline", passed=right), _trial("guarded", verdicts=verdicts))
    assert (judged.outcome, judged.rules, judged.right) == (outcome, rules, right)


def test_only_the_first_commit_attempt_is_the_gates_verdict() -> None:
    """A blocked commit that the trial then commits for through the admin path is still a stop."""
    verdicts = [_verdict("block", 2, BLOCK), _verdict("allow", 2)]
    assert judge(_trial("baseline", passed=False), _trial("guarded", verdicts=verdicts)).stopped


def test_why_wrong_names_the_first_difference_or_the_unsaid_output() -> None:
    diff = [{"path": "orders/7/status", "kind": "changed", "result": "x", "expected": "y"}]
    allowed = [_verdict("allow", 1)]
    by_state = judge(_trial("baseline", passed=False, diff=diff), _trial("guarded", verdicts=allowed))
    assert by_state.why_wrong == "1 difference(s) from the golden state, first orders/7/status (changed)"
    unsaid = [RubricResult(question="the agent says '23553'", answer="no", passed=False)]
    by_output = judge(_trial("baseline", passed=False, rubrics=unsaid), _trial("guarded", verdicts=allowed))
    assert by_output.why_wrong == "failed: the agent says '23553'"


def test_counts_per_domain_in_total_and_per_rule() -> None:
    other = {**BLOCK, "rule": "ticket-open"}
    rows = [
        ("a", "d1", False, [_verdict("block", 2, BLOCK, other)]),
        ("b", "d1", True, [_verdict("block", 2, BLOCK)]),
        ("c", "d2", False, [_verdict("allow", 2)]),
        ("d", "d2", True, [_verdict("allow", 2)]),
        ("e", "d2", True, [_verdict("allow", 0)]),
    ]
    grades = {}
    guarded = []
    for name, domain, right, verdicts in rows:
        grade = _trial("baseline", passed=right, task=f"{name}.py:test_x", domain=domain)
        grades[grade.key] = grade
        guarded.append(_trial("guarded", task=f"{name}.py:test_x", domain=domain, verdicts=verdicts))
    report = evaluate(grades, guarded)
    assert report.total == Confusion(true_stops=1, false_blocks=1, misses=1, right_allowed=1, no_change=1)
    assert report.domains == {
        "d1": Confusion(true_stops=1, false_blocks=1),
        "d2": Confusion(misses=1, right_allowed=1, no_change=1),
    }
    assert report.rules == (RuleCounts("refund-limit", 1, 1), RuleCounts("ticket-open", 1, 0))
    assert report.total.stop_rate_wrong == 0.5
    assert report.total.false_block_rate == 0.5
    with pytest.raises(KeyError, match=r"z\.py:test_x trial 0"):
        evaluate(grades, [_trial("guarded", task="z.py:test_x")])


def test_counts_per_policy_clause_and_input_class_from_the_coverage_table() -> None:
    """Every clause of a domain's table is listed, judged or not; a commit counts once per clause and per
    class its stopping rules judge; a rule the table does not name is of class other."""
    coverage = Coverage.model_validate(
        {
            "clauses": [
                {"id": "limit", "section": "Refunds", "text": "t", "rules": {"refund-limit": ["state"]}},
                {
                    "id": "asked",
                    "section": "Refunds",
                    "text": "t",
                    "rules": {"asked-first": ["conversation"]},
                },
                {"id": "tone", "section": "General", "text": "t", "none": "an intent"},
            ]
        }
    )
    asked = {**BLOCK, "rule": "asked-first"}
    bench = {**BLOCK, "rule": "failed_write"}
    rows = [
        ("a", False, [_verdict("block", 2, BLOCK, asked)]),
        ("b", True, [_verdict("block", 2, BLOCK)]),
        ("c", False, [_verdict("block", 2, bench)]),
    ]
    grades, guarded = {}, []
    for name, right, verdicts in rows:
        grade = _trial("baseline", passed=right, task=f"{name}.py:test_x", domain="d1")
        grades[grade.key] = grade
        guarded.append(_trial("guarded", task=f"{name}.py:test_x", domain="d1", verdicts=verdicts))
    report = evaluate(grades, guarded, coverage={"d1": coverage, "elsewhere": coverage})
    assert [(c.clause, c.true_stops, c.false_blocks) for c in report.clauses] == [
        ("limit", 1, 1),
        ("asked", 1, 0),
        ("tone", 0, 0),
    ], "the table of a domain that did not run is left out"
    assert report.clauses[2].none == "an intent"
    assert {c.input_class: (c.true_stops, c.false_blocks) for c in report.classes} == {
        "state": (1, 1),
        "trace": (0, 0),
        "conversation": (1, 0),
        "other": (1, 0),
    }
    document = to_document(report)
    assert document["clauses"][0] == {
        "domain": "d1",
        "clause": "limit",
        "section": "Refunds",
        "rules": ["refund-limit"],
        "none": None,
        "true_stops": 1,
        "false_blocks": 1,
    }
    assert "none: an intent" in render_eval_html(report)
    assert evaluate(grades, guarded).clauses == (), "no table, no clause counts"


def test_the_page_and_the_tables_show_agent_text_as_text() -> None:
    """Requirement G28: text from agents and findings is data, escaped in HTML and never markup in the CLI."""
    hostile = {**BLOCK, "message": "<script>alert(1)</script> [red]boom[/red]"}
    grade = _trial("baseline", passed=True, task="<b>.py:test_x")
    guarded = _trial("guarded", task="<b>.py:test_x", verdicts=[_verdict("block", 1, hostile)])
    report = evaluate({grade.key: grade}, [guarded])
    html = render_eval_html(report)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;.py:test_x#0" in html
    console = Console(width=200, record=True)
    print_tables(report, console)
    assert "[red]boom[/red]" in console.export_text()


# -- the backtest on booking goldens and wrong trajectories -------------------------------------

WRONG = {
    "blocked: ticket left open": BOOKING.cases["ticket left open"],
    "blocked: ticket closed by the agent": BOOKING.cases["ticket closed by the agent"],
    "missed: receipt request at normal priority": BOOKING.cases["receipt request at normal priority"],
}
GOLDEN_TASKS = ("crf_007", "bmd_010")


def _calls(task: Task) -> list[tuple[str, dict[str, Any]]]:
    return [(call.tool, json.loads(json.dumps(call.arguments))) for call in task.golden]


def _line(name: str, task: Task, calls: list[tuple[str, dict[str, Any]]]) -> str:
    return json.dumps(
        {
            "id": name,
            "task": task.id,
            "calls": [{"tool": t, "arguments": a} for t, a in calls],
            "final_message": "done",
        }
    )


def _trajectories(data_dir: Path, path: Path) -> dict[str, str]:
    """The file of trajectories, and the task of each by its id."""
    by_test = {task.test: task for task in load_tasks(data_dir, domain=BOOKING.domain)}

    def task_of(case: WrongCase | str) -> Task:
        return by_test[BOOKING.prefix + (case if isinstance(case, str) else case.task)]

    lines = [_line(f"golden:{name}", task_of(name), _calls(task_of(name))) for name in GOLDEN_TASKS]
    lines += [_line(name, task_of(case), case.edit(_calls(task_of(case)))) for name, case in WRONG.items()]
    crf = task_of("crf_007")
    # right in the end, but a write on a record the commit changes failed and nothing retried it: the
    # bench chain's failed_write stops it (the same failure naming no changed record would only warn)
    modify = next(call for call in crf.golden if call.tool == "booking_api_modify_booking")
    failing = (modify.tool, {**modify.arguments, "booking_status": "no-such-status"})
    lines.append(_line("right, with a failed write", crf, [*_calls(crf), failing]))
    elsewhere = ("zendesk_update_item", {"table": "tickets", "id": "999999", "item": {"status": "solved"}})
    lines.append(_line("right, with a failed write elsewhere", crf, [*_calls(crf), elsewhere]))
    lines.append(_line("nothing done", crf, []))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {json.loads(line)["id"]: json.loads(line)["task"] for line in lines}


class Backtest:
    def __init__(self, report: EvalReport, trajectories: Path, out: Path, data_dir: Path) -> None:
        self.report, self.trajectories, self.out, self.data_dir = report, trajectories, out, data_dir


@pytest.fixture(scope="module")
def booking(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Backtest:
    folder = tmp_path_factory.mktemp("judges-eval")
    trajectories = folder / "booking.jsonl"
    _trajectories(data_dir, trajectories)
    out = folder / "trials.jsonl"
    spec = EvalSpec(data_dir=data_dir, domain=BOOKING.domain, trajectories=trajectories, out=out)
    return Backtest(asyncio.run(backtest(spec)), trajectories, out, data_dir)


def test_goldens_and_wrong_trajectories_land_where_the_gate_and_the_grade_put_them(booking: Backtest) -> None:
    outcomes = {t.trajectory: t.outcome for t in booking.report.trajectories}
    assert outcomes == {
        "golden:crf_007": Outcome.RIGHT_ALLOWED,
        "golden:bmd_010": Outcome.RIGHT_ALLOWED,
        "blocked: ticket left open": Outcome.TRUE_STOP,
        "blocked: ticket closed by the agent": Outcome.TRUE_STOP,
        "missed: receipt request at normal priority": Outcome.MISS,
        "right, with a failed write": Outcome.FALSE_BLOCK,
        "right, with a failed write elsewhere": Outcome.RIGHT_ALLOWED,
        "nothing done": Outcome.NO_CHANGE,
    }
    assert booking.report.total == Confusion(
        true_stops=2, false_blocks=1, misses=1, right_allowed=3, no_change=1
    )
    assert booking.report.domains == {BOOKING.domain: booking.report.total}
    # each trajectory is played once per arm, though its task has one, two or three of them
    assert booking.report.facts["trials_run"] == 2 * 8


def test_rules_and_the_lists_to_review(booking: Backtest) -> None:
    rules = {rule.rule: (rule.true_stops, rule.false_blocks) for rule in booking.report.rules}
    assert rules["ticket-status-at-resolution"] == (2, 0)
    assert rules["failed_write"] == (0, 1)
    (false_block,) = booking.report.of(Outcome.FALSE_BLOCK)
    assert false_block.trajectory == "right, with a failed write"
    assert "failed" in false_block.findings[0]["message"]
    (miss,) = booking.report.of(Outcome.MISS)
    assert miss.trajectory == "missed: receipt request at normal priority"
    assert (
        miss.why_wrong
        == "1 difference(s) from the golden state, first zendesk_tickets[13].priority (changed)"
    )


def test_the_cli_prints_the_same_backtest_as_json_and_writes_the_page(
    booking: Backtest, tmp_path: Path
) -> None:
    """Run again with the kept trials file, the command resumes: nothing is replayed twice."""
    page = tmp_path / "eval.html"
    args = ["eval", "--data", str(booking.data_dir), "--domain", BOOKING.domain, "--quiet"]
    args += [
        "--trajectories",
        str(booking.trajectories),
        "--out",
        str(booking.out),
        "--json",
        "--html",
        str(page),
    ]
    result = CliRunner().invoke(judges_app, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    expected = to_document(booking.report)
    assert {
        k: document[k] for k in ("total", "domains", "rules", "false_blocks", "misses", "trajectories")
    } == {k: expected[k] for k in ("total", "domains", "rules", "false_blocks", "misses", "trajectories")}
    assert document["total"]["true_stops"] == 2
    assert document["facts"]["trajectories"] == str(booking.trajectories)
    html = page.read_text(encoding="utf-8")
    review = html[html.index("<h2>False blocks to review</h2>") : html.index("<h2>Misses to review</h2>")]
    assert "right, with a failed write" in review
    assert "failed_write" in review


def test_a_guard_config_without_the_bench_chain_lets_the_failed_write_through(
    booking: Backtest, tmp_path: Path
) -> None:
    """With ``-c``, the gate is the config's; the grades come from the earlier run's results file."""
    config = tmp_path / "guard.yaml"
    config.write_text("judges:\n  chain: []\n", encoding="utf-8")
    spec = EvalSpec(
        data_dir=booking.data_dir,
        domain=BOOKING.domain,
        trajectories=booking.trajectories,
        grades=booking.out,
        guard_config=config,
    )
    report = asyncio.run(backtest(spec))
    outcomes = {t.trajectory: t.outcome for t in report.trajectories}
    assert outcomes["right, with a failed write"] is Outcome.RIGHT_ALLOWED
    assert report.total == Confusion(true_stops=2, false_blocks=0, misses=1, right_allowed=4, no_change=1)
    assert report.facts["grades"] == str(booking.out)


def test_grades_of_other_trajectories_are_refused(booking: Backtest, tmp_path: Path) -> None:
    first = booking.trajectories.read_text(encoding="utf-8").splitlines()[0]
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text(first.replace('"golden:crf_007"', '"golden:other"') + "\n", encoding="utf-8")
    spec = EvalSpec(
        data_dir=booking.data_dir, domain=BOOKING.domain, trajectories=renamed, grades=booking.out
    )
    with pytest.raises(
        BenchmarkError, match=r"graded trajectory golden:crf_007 as \S+ trial 0, .* plays golden:other"
    ):
        asyncio.run(backtest(spec))


def test_bad_inputs_are_one_line_and_exit_2(booking: Backtest, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "task": "nope", "calls": []}\n', encoding="utf-8")
    data = ["--data", str(booking.data_dir)]
    missing = tmp_path / "none.jsonl"
    cases = [
        ([*data, "--trajectories", str(bad)], f"{bad}:1: task: String should match"),
        ([*data, "--domain", "nowhere"], "unknown domain 'nowhere'"),
        ([], "--data DIR is required"),
        (
            [*data, "--trajectories", str(booking.trajectories), "--grades", str(missing)],
            "results file not found",
        ),
    ]
    for args, message in cases:
        result = CliRunner().invoke(judges_app, ["eval", *args, "--quiet"])
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.split()), (args, result.output)
        assert result.output.count("error:") == 1
