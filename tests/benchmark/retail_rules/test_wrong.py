"""Wrong retail trajectories replayed through the guarded arm: the gate blocks them and says why.

A blocked commit names the record, the field, the value found and (in the
hint) what the policy allows, as status text; nothing of the mistake reaches
the world. The mistakes the gate cannot see (``MISSED``) commit, each for
the reason recorded with it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.benchmark.retail_rules.cases import MISSED, WRONG, Wrong
from tests.benchmark.retail_rules.conftest import Guarded

_RETAIL_JUDGES = {
    "retail",
    "retail_tickets",
    "retail_ticket_claims",
    "retail_carrier",
    "retail_returns",
    "retail_workflow",
}
_IMPERATIVE = re.compile(r"^(please|set|change|update|create|use|make|do|don't|you must|you should)\b", re.I)


def _text(finding: Any) -> str:
    return f"{finding['message']} | {finding.get('hint') or ''}"


@pytest.mark.parametrize("case", list(WRONG))
async def test_the_gate_blocks_the_mistake_and_names_it(case: str, guarded: Guarded) -> None:
    wrong: Wrong = WRONG[case]
    result = await guarded(wrong.task, wrong.edit)
    assert result.system_error is None
    assert result.tool_errors == 0, "the edit itself must be a valid call sequence"
    first = result.verdicts[0]
    assert (first.via, first.status, first.decision) == ("tool", "blocked", "block")
    fired = [f for f in first.findings if f.get("rule") == wrong.rule]
    assert fired, [f.get("rule") for f in first.findings]
    assert any(all(word in _text(f) for word in wrong.words) for f in fired), [_text(f) for f in fired]
    assert result.verdicts[-1].status != "committed"
    assert not result.state_passed


@pytest.mark.parametrize("case", list(WRONG))
async def test_findings_are_status_text_with_what_is_allowed(case: str, guarded: Guarded) -> None:
    wrong = WRONG[case]
    result = await guarded(wrong.task, wrong.edit)
    for finding in result.verdicts[0].findings:
        if finding["judge"] not in _RETAIL_JUDGES:
            continue
        assert not _IMPERATIVE.match(finding["message"]), finding["message"]
        assert (finding.get("hint") or "").startswith("allowed:"), finding
        assert finding["evidence"]["table"], finding


@pytest.mark.parametrize("case", list(MISSED))
async def test_what_the_gate_cannot_see_commits(case: str, guarded: Guarded) -> None:
    missed = MISSED[case]
    result = await guarded(missed.task, missed.edit)
    assert result.tool_errors == 0
    assert [v.status for v in result.verdicts] == ["committed"], missed.why
    assert not result.state_passed, "a missed case is a real mistake: the graded state differs"
