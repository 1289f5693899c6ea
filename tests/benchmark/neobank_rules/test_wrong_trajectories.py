"""Wrong trajectories replayed through the guarded arm: the commit is blocked and the finding names the fault.

Every case of :mod:`.cases` starts from a golden trajectory and makes one
mistake the policy forbids. Replayed through the guard with the neobank's
judges, its first commit must be blocked by the expected rules, each
finding worded as status text with a hint of what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from benchmark.dataset import Task
from tests.benchmark.neobank_rules.cases import CASES, Case
from tests.benchmark.neobank_rules.conftest import Replay, golden_calls

_IMPERATIVE = ("you must", "please", "you should", "do not", "don't", "make sure")


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_the_wrong_trajectory_is_blocked_by_its_rule(
    case: Case, tasks_by_test: Mapping[str, Task], replay_guarded: Replay
) -> None:
    task = tasks_by_test[case.test]
    [result] = await replay_guarded([(task, case.apply(golden_calls(task)))])
    assert result.system_error is None, result.system_error
    first = result.verdicts[0]
    assert first.status == "blocked", f"committed: {first.findings}"
    blocking = [f for f in first.findings if f["severity"] == "block"]
    fired = {f.get("rule") for f in blocking}
    assert case.rules <= fired, (
        f"expected {sorted(case.rules)}, got {[(f.get('rule'), f['message']) for f in blocking]}"
    )
    for finding in blocking:
        if finding.get("rule") in case.rules:
            assert finding.get("hint", "").startswith("allowed"), finding
            assert not any(word in finding["message"].lower() for word in _IMPERATIVE), finding
            assert "could not be evaluated" not in finding["message"], finding
    assert not result.passed
