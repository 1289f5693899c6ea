"""The grading judge: final state against golden, hash and diff."""

from __future__ import annotations

from judges import DiffEntry, TableSpec, grade_state

SPECS = {"tickets": TableSpec("tickets", unstable=frozenset({"subject"}))}


def test_equal_states_pass_with_equal_hashes() -> None:
    result = {"tickets": [{"id": "2", "status": "open", "subject": "x"}, {"id": "1", "status": "solved"}]}
    golden = {"tickets": [{"status": "solved", "id": "1"}, {"id": "2", "status": "open", "subject": "y"}]}
    grade = grade_state(result, golden, SPECS)
    assert grade.passed
    assert grade.result_hash == grade.golden_hash
    assert grade.diff == ()


def test_a_failing_state_has_a_diff() -> None:
    grade = grade_state(
        {"tickets": [{"id": "1", "status": "open"}]}, {"tickets": [{"id": "1", "status": "solved"}]}
    )
    assert not grade.passed
    assert grade.result_hash != grade.golden_hash
    assert grade.diff == (DiffEntry("tickets[1].status", "changed", "open", "solved"),)
    assert grade.to_dict()["diff"] == [
        {"path": "tickets[1].status", "kind": "changed", "result": "open", "expected": "solved"}
    ]
    assert set(grade.to_dict()) == {"passed", "state_hash", "golden_hash", "diff"}
