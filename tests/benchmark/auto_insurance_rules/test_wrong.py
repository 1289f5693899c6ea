"""Wrong trajectories replayed through the guarded arm: each mistake the policy forbids blocks the commit.

A blocked commit names the record, the field, the value found and what is
allowed, as status text with a hint; the missed mistakes commit, each for
the reason :data:`~.cases.MISSED` gives.
"""

from __future__ import annotations

import pytest

from benchmark.results import TrialResult
from tests.benchmark.auto_insurance_rules.cases import MISSED, WRONG
from tests.benchmark.auto_insurance_rules.conftest import Guarded

_IMPERATIVE = ("please", "you must", "you should", "do not", "don't", "ignore")


def _text(finding: dict[str, object]) -> str:
    return f"{finding['message']} | {finding.get('hint')}"


@pytest.mark.parametrize("case", list(WRONG))
async def test_a_wrong_trajectory_is_blocked_with_a_finding_that_names_it(
    case: str, guarded: Guarded
) -> None:
    wrong = WRONG[case]
    result: TrialResult = await guarded(wrong.task, wrong.edit)
    assert result.system_error is None
    assert result.verdicts, "the guarded arm made no commit attempt"
    first = result.verdicts[0]
    assert (first.via, first.status, first.decision) == ("tool", "blocked", "block")
    findings = [f for f in first.findings if f.get("rule") == wrong.rule]
    assert findings, [_text(f) for f in first.findings]
    assert any(all(word in _text(f) for word in wrong.words) for f in findings), [_text(f) for f in findings]
    assert not result.passed


@pytest.mark.parametrize("case", list(MISSED))
async def test_a_missed_mistake_commits(case: str, guarded: Guarded) -> None:
    wrong = MISSED[case]
    result = await guarded(wrong.task, wrong.edit)
    assert [v.status for v in result.verdicts] == ["committed"]
    assert not result.passed, "the edit does not change the graded state; it is no mistake"


async def test_every_finding_is_status_text_with_a_hint(guarded: Guarded) -> None:
    for case in (
        "ticket left open",
        "missing police report, ticket solved",
        "vehicle backdated in California",
    ):
        wrong = WRONG[case]
        result = await guarded(wrong.task, wrong.edit)
        for finding in result.verdicts[0].findings:
            text = _text(finding).lower()
            assert str(finding.get("hint", "")).startswith("allowed"), finding
            assert not any(word in text for word in _IMPERATIVE), finding


def test_the_count_of_caught_and_missed_mistakes() -> None:
    assert len(WRONG) >= 70
    assert len(MISSED) == 5
    assert len({wrong.rule for wrong in WRONG.values()}) >= 50
