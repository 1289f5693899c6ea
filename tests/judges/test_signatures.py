"""Failure signatures: exactly one per failed trial, by the documented rule."""

from __future__ import annotations

from typing import Any

import pytest

from judges import (
    CallRecord,
    DiffEntry,
    Signature,
    SignatureResult,
    TableSpec,
    failure_signature,
    signature_of_states,
)

INITIAL: dict[str, list[dict[str, Any]]] = {
    "tickets": [{"id": "1", "status": "open", "subject": "a"}],
    "orders": [{"id": "O1", "status": "placed"}],
}
GOLDEN = {
    "tickets": [
        {"id": "1", "status": "solved", "subject": "a"},
        {"id": "2", "status": "open", "subject": "b"},
    ],
    "orders": [{"id": "O1", "status": "cancelled"}],
}
SPECS = {"tickets": TableSpec("tickets", unstable=frozenset({"subject"}))}


def ok(tool: str, write: bool = True) -> CallRecord:
    return CallRecord(tool, {}, write, True)


def failed(tool: str, write: bool = True) -> CallRecord:
    return CallRecord(tool, {}, write, False, "invalid_arguments", "bad")


def sign(
    result: dict[str, list[dict[str, Any]]], calls: tuple[CallRecord, ...] = (), **kw: Any
) -> SignatureResult:
    return signature_of_states(calls, result=result, golden=GOLDEN, initial=INITIAL, specs=SPECS, **kw)


def test_tool_usage_comes_first() -> None:
    calls = (ok("get_order", write=False), failed("cancel_order"), ok("update_ticket"))
    found = sign(INITIAL, calls)
    assert found.signature is Signature.TOOL_USAGE
    assert found.evidence == ("cancel_order",)


def test_a_recovered_failure_is_not_tool_usage() -> None:
    calls = (failed("cancel_order"), ok("cancel_order"), failed("get_order", write=False))
    assert sign(INITIAL, calls).signature is Signature.NO_STATE_CHANGE


def test_no_state_change() -> None:
    found = sign(INITIAL, (ok("get_order", write=False),))
    assert found.signature is Signature.NO_STATE_CHANGE
    assert found.evidence == ("orders[O1].status", "tickets[1].status", "tickets[2]")


def test_unstable_changes_are_no_change() -> None:
    result = {**INITIAL, "tickets": [{"id": "1", "status": "open", "subject": "edited"}]}
    assert sign(result).signature is Signature.NO_STATE_CHANGE


def test_wrong_state_update_a_field_set_wrong() -> None:
    result = {
        "tickets": [{"id": "1", "status": "pending"}, {"id": "2", "status": "open"}],
        "orders": [{"id": "O1", "status": "cancelled"}],
    }
    found = sign(result)
    assert found.signature is Signature.WRONG_STATE_UPDATE
    assert found.evidence == ("tickets[1].status",)


def test_wrong_state_update_an_extra_row() -> None:
    result = {
        "tickets": [
            {"id": "1", "status": "solved"},
            {"id": "2", "status": "open"},
            {"id": "3", "status": "open"},
        ],
        "orders": [{"id": "O1", "status": "cancelled"}],
    }
    assert sign(result).evidence == ("tickets[3]",)
    assert sign(result).signature is Signature.WRONG_STATE_UPDATE


def test_wrong_state_update_inside_a_created_row() -> None:
    result = {
        "tickets": [{"id": "1", "status": "solved"}, {"id": "2", "status": "pending"}],
        "orders": [{"id": "O1", "status": "cancelled"}],
    }
    found = sign(result)
    assert found.signature is Signature.WRONG_STATE_UPDATE
    assert found.evidence == ("tickets[2].status",)


def test_wrong_state_update_a_deleted_row() -> None:
    result = {"tickets": [{"id": "1", "status": "solved"}, {"id": "2", "status": "open"}], "orders": []}
    assert sign(result).signature is Signature.WRONG_STATE_UPDATE


def test_incomplete_resolution_when_only_changes_are_missing() -> None:
    result = {"tickets": [{"id": "1", "status": "solved"}], "orders": [{"id": "O1", "status": "placed"}]}
    found = sign(result)
    assert found.signature is Signature.INCOMPLETE_RESOLUTION
    assert found.evidence == ("orders[O1].status", "tickets[2]")


def test_incomplete_resolution_when_only_a_rubric_failed() -> None:
    found = sign(GOLDEN, rubric_passed=False)
    assert found.signature is Signature.INCOMPLETE_RESOLUTION
    assert found.reason == "the state equals golden; a rubric said no"


def test_a_passed_trial_has_no_signature() -> None:
    with pytest.raises(ValueError, match="did not fail"):
        sign(GOLDEN)


def test_paths_with_dots_inside_keys() -> None:
    diff = [DiffEntry("t[a.b].x", "changed", 1, 2)]
    touched = [DiffEntry("t[a.b]", "unexpected", {"x": 1}, None)]
    assert failure_signature((), diff, touched).signature is Signature.WRONG_STATE_UPDATE
    elsewhere = [DiffEntry("t[a.c]", "unexpected", {"x": 1}, None)]
    assert failure_signature((), diff, elsewhere).signature is Signature.INCOMPLETE_RESOLUTION


def test_a_touched_descendant_makes_the_row_wrong() -> None:
    diff = [DiffEntry("t[1]", "missing", None, {"x": 1})]
    touched = [DiffEntry("t[1].y", "changed", 3, 2)]
    assert failure_signature((), diff, touched).signature is Signature.WRONG_STATE_UPDATE
