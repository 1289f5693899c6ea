"""Wrong booking trajectories through the guarded arm: the gate blocks each with a finding that says why.

A blocked commit names the record, the field, the value found and what the
policy allows (:mod:`.cases`); nothing of a blocked trajectory is committed.
Other correct ways of doing a task commit; warned mistakes commit with a
warning; missed ones commit without a finding
(their reasons are in :data:`.cases.MISSED`).
"""

from __future__ import annotations

import pytest

from benchmark.results import TrialResult
from tests.benchmark.booking_rules.cases import ALLOWED, MISSED, WARNED, WRONG, Wrong
from tests.benchmark.booking_rules.conftest import Guarded


def _findings(result: TrialResult, rule: str) -> list[dict[str, object]]:
    first = result.verdicts[0]
    return [f for f in first.findings if f.get("rule") == rule]


def _text(findings: list[dict[str, object]]) -> str:
    return " ".join(f"{f.get('message')} {f.get('hint')}" for f in findings)


@pytest.mark.parametrize("name", sorted(WRONG))
async def test_a_wrong_trajectory_is_blocked_with_a_finding_that_says_why(
    guarded: Guarded, name: str
) -> None:
    case: Wrong = WRONG[name]
    result = await guarded(case.task, case.edit)
    assert result.system_error is None
    assert result.tool_errors == 0, "the edit itself must be a valid trajectory"
    assert result.verdicts, "the trajectory reached the commit"
    assert result.verdicts[0].status == "blocked"
    assert "committed" not in [v.status for v in result.verdicts]
    hits = _findings(result, case.rule)
    assert hits, [(f.get("rule"), f.get("message")) for f in result.verdicts[0].findings]
    assert all(f["severity"] == "block" for f in hits)
    text = _text(hits)
    for word in case.words:
        assert word in text, (word, text)
    assert not result.passed


@pytest.mark.parametrize("name", sorted(ALLOWED))
async def test_another_correct_way_commits_without_a_blocking_finding(guarded: Guarded, name: str) -> None:
    case = ALLOWED[name]
    result = await guarded(case.task, case.edit)
    assert result.tool_errors == 0
    blocking = [f for v in result.verdicts for f in v.findings if f["severity"] != "warn"]
    assert blocking == []
    assert [v.status for v in result.verdicts] == ["committed"]


@pytest.mark.parametrize("name", sorted(WARNED))
async def test_a_warned_mistake_commits_with_its_warning(guarded: Guarded, name: str) -> None:
    case = WARNED[name]
    result = await guarded(case.task, case.edit)
    assert [v.status for v in result.verdicts] == ["committed"]
    hits = _findings(result, case.rule)
    assert [f["severity"] for f in hits] == ["warn"]
    for word in case.words:
        assert word in _text(hits)


@pytest.mark.parametrize("name", sorted(MISSED))
async def test_a_missed_mistake_commits_unseen(guarded: Guarded, name: str) -> None:
    case = MISSED[name]
    assert case.why
    result = await guarded(case.task, case.edit)
    assert [v.status for v in result.verdicts] == ["committed"]
    assert not [f for v in result.verdicts for f in v.findings if f["severity"] == "block"]
    assert not result.passed


def test_the_catalogue_covers_every_rule_family() -> None:
    rules = {case.rule for case in WRONG.values()}
    families = {rule.split("-")[0] for rule in rules}
    assert {"ticket", "booking", "modification", "refund", "complaint", "profile", "group"} <= families
    assert len(WRONG) >= 60
