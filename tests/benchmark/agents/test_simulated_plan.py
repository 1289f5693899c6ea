"""The fault plan, wrong values and the reading of findings: pure functions, no channel."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from benchmark.agents import ToolInfo
from benchmark.agents.simulated import (
    Call,
    FaultClass,
    FaultRates,
    SimulatedAgent,
    alternatives,
    enum_at,
    markers_of,
    points_at,
)
from tests.benchmark.agents import shop

TOOLS = [
    ToolInfo(spec.name, spec.description or "", spec.input_schema, spec.annotations()["readOnlyHint"])
    for spec in shop.tools
]
GOLDEN = (
    ("get_ticket", {"ticket_id": 20}),
    ("get_shipments", {"order_id": "ORD-10000020"}),
    ("update_ticket", {"ticket_id": 20, "status": "hold", "note": "Waiting for UPS to clear the exception."}),
    ("create_ticket", {"order_id": "ORD-10000021", "subject": "Receipt resent", "status": "solved"}),
)
WRITES = (2, 3)


def plan_for(rates: str, seed: int, golden: Any = GOLDEN) -> Any:
    agent = SimulatedAgent({"t": golden}, FaultRates.parse(rates))
    return agent.plan("t", TOOLS, random.Random(seed))


def played(plan: Any) -> list[tuple[str, Mapping[str, Any]]]:
    return [(step.call.tool, step.call.arguments) for step in plan.steps]


def test_zero_rates_plan_the_golden_calls() -> None:
    plan = plan_for("0", 7)
    assert played(plan) == list(GOLDEN)
    assert plan.faults == ()
    assert plan.stop_at is None
    assert not plan.give_up
    assert plan.writes == WRITES


def test_the_plan_takes_a_fixed_number_of_draws() -> None:
    first, second = random.Random(5), random.Random(5)
    agent = SimulatedAgent({"long": GOLDEN, "short": GOLDEN[:1]}, FaultRates.parse("1"))
    agent.plan("long", TOOLS, first)
    agent.plan("short", TOOLS, second)
    assert first.random() == second.random()


def test_the_same_stream_draws_the_same_plan() -> None:
    plans = [plan_for("0.5", seed) for seed in range(40)]
    assert plans == [plan_for("0.5", seed) for seed in range(40)]
    assert len({repr(plan.faults) for plan in plans}) > 5


@pytest.mark.parametrize("seed", range(12))
def test_wrong_value_changes_one_argument_of_one_write(seed: int) -> None:
    plan = plan_for("0,wrong_value=1", seed)
    (fault,) = plan.faults
    assert fault.kind is FaultClass.WRONG_VALUE
    assert fault.call in WRITES
    changed = [(i, step) for i, step in enumerate(plan.steps) if step.call != Call(*GOLDEN[i])]
    ((index, step),) = changed
    assert index == fault.call
    assert step.fault is FaultClass.WRONG_VALUE
    golden_args = GOLDEN[index][1]
    differing = {key for key in golden_args if golden_args[key] != step.call.arguments[key]}
    assert differing == {fault.path[-1]}
    assert step.call.arguments[fault.path[-1]] == fault.wrong != fault.golden
    assert fault.path[-1] not in ("note", "subject"), "free text is never mutated"


@pytest.mark.parametrize("seed", range(6))
def test_extra_effect_plays_one_write_twice_in_a_row(seed: int) -> None:
    plan = plan_for("0,extra_effect=1", seed)
    (fault,) = plan.faults
    expected = list(GOLDEN)
    expected.insert(fault.call + 1, GOLDEN[fault.call])
    assert fault.call in WRITES
    assert played(plan) == expected


@pytest.mark.parametrize("seed", range(6))
def test_missing_effect_leaves_one_write_out(seed: int) -> None:
    plan = plan_for("0,missing_effect=1", seed)
    (fault,) = plan.faults
    assert fault.call in WRITES
    assert played(plan) == [call for i, call in enumerate(GOLDEN) if i != fault.call]


def test_stop_early_cuts_before_the_first_or_the_last_write() -> None:
    cuts = set()
    for seed in range(30):
        plan = plan_for("0,stop_early=1", seed)
        (fault,) = plan.faults
        assert played(plan) == list(GOLDEN)
        assert plan.stop_at == fault.call
        cuts.add(plan.stop_at)
    assert cuts == set(WRITES)


def test_give_up_is_armed_for_the_trial() -> None:
    plan = plan_for("0,give_up=1", 3)
    assert plan.give_up
    assert plan.faults == ()
    assert played(plan) == list(GOLDEN)


def test_faults_with_nothing_to_act_on_are_inapplicable() -> None:
    plan = plan_for("1", 1, golden=GOLDEN[:2])
    assert plan.faults == ()
    assert set(plan.inapplicable) == {kind for kind in FaultClass if kind is not FaultClass.GIVE_UP}
    assert played(plan) == list(GOLDEN[:2])
    assert plan.give_up


def test_an_unlisted_tool_counts_as_a_write() -> None:
    plan = plan_for("0,missing_effect=1", 0, golden=(("mystery", {"x": 1}),))
    assert plan.writes == (0,)
    assert plan.steps == ()


def test_an_unknown_task_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="no golden trajectory for task other"):
        SimulatedAgent({"t": GOLDEN}).plan("other", TOOLS, random.Random(0))


def test_repair_probability_is_checked() -> None:
    with pytest.raises(ValueError, match="repair probability"):
        SimulatedAgent({}, repair=1.5)


@pytest.mark.parametrize(
    ("value", "options", "expected"),
    [
        ("hold", {"enum": ["open", "hold", "solved"]}, ("open", "solved")),
        (True, {}, (False,)),
        (20, {"same_key": [20, 21, 25, 21]}, (21, 25)),
        (20, {}, (21, 19)),
        (0, {}, (1,)),
        (100.0, {}, (110.0, 90.0)),
        ("172.50", {}, ("189.75", "155.25")),
        ("0.00", {}, ("1.00",)),
        ("ORD-10000020", {}, ("ORD-10000021", "ORD-10000019")),
        ("ORD-10000020", {"same_key": ["ORD-10000020", "ORD-10000007"]}, ("ORD-10000007",)),
        ("6", {}, ("7", "5")),
        ("2025-09-19", {}, ("2025-09-20", "2025-09-18")),
        ("2025-10-04T15:00:00Z", {}, ("2025-10-05T15:00:00Z", "2025-10-03T15:00:00Z")),
        ("Package stuck at the depot", {"same_key": ["other text"]}, ()),
        ("dana@example.com", {}, ()),
        ("", {}, ()),
    ],
)
def test_plausible_wrong_values(value: Any, options: dict[str, Any], expected: tuple[Any, ...]) -> None:
    assert alternatives(value, **options) == expected


def test_enum_members_are_found_through_refs_and_unions() -> None:
    schema = {
        "properties": {
            "item": {"anyOf": [{"$ref": "#/$defs/Ticket"}, {"$ref": "#/$defs/User"}, {"type": "null"}]}
        },
        "$defs": {
            "Ticket": {"properties": {"status": {"anyOf": [{"enum": ["new", "open"]}, {"type": "null"}]}}},
            "User": {"properties": {"status": {"enum": ["active", "open"]}}},
        },
    }
    assert enum_at(schema, ("item", "status")) == ("new", "open", "active")
    assert enum_at(schema, ("item", "name")) == ()
    assert enum_at({"properties": {"x": {"$ref": "#/$defs/missing"}}}, ("x",)) == ()


RULE_FINDING = {
    "judge": "support-policy",
    "message": "ticket 20: status 'solved' while carrier exception for ORD-10000020 is open",
    "hint": "allowed: hold, pending, open",
    "evidence": {"table": "tickets", "key": "20", "kind": "update"},
}


def test_a_finding_points_at_a_call_through_its_record_key() -> None:
    update = Call("update_ticket", {"ticket_id": 20, "status": "solved"})
    other = Call("update_ticket", {"ticket_id": 21, "status": "solved"})
    assert points_at(RULE_FINDING, markers_of([update]))
    assert not points_at(RULE_FINDING, markers_of([other]))


def test_a_bare_number_in_a_sentence_names_nothing() -> None:
    finding = {"message": "2 tickets changed in one transaction; the limit is 1"}
    assert not points_at(finding, markers_of([Call("update_ticket", {"ticket_id": 2})]))
    assert points_at({"message": "x", "evidence": {"key": "2"}}, markers_of([Call("t", {"id": 2})]))


def test_a_number_in_evidence_names_a_record_only_under_a_key_like_field() -> None:
    create = markers_of([Call("create_ticket", {"assignee_id": "2", "subject": "x"})])
    failed = {"message": "write update_ticket failed", "evidence": {"tool": "update_ticket", "call": 2}}
    assert not points_at(failed, create)
    assert points_at({"message": "x", "evidence": {"duplicate_of": "2"}}, create)
    assert points_at({"message": "x", "evidence": {"records": [{"order_id": 2}]}}, create)


def test_id_shaped_values_and_result_keys_count_anywhere() -> None:
    create = Call("create_ticket", {"order_id": "ORD-10000020", "subject": "x"})
    assert points_at({"message": "order ORD-10000020 has an open exception"}, markers_of([create]))
    duplicate = {"message": "tickets 23 duplicates tickets 22", "evidence": {"table": "tickets", "key": "23"}}
    assert not points_at(duplicate, markers_of([Call("create_ticket", {"subject": "x"})]))
    assert points_at(duplicate, markers_of([Call("create_ticket", {"subject": "x"})], results=[{"id": 23}]))


def test_tools_and_changed_values_point_too() -> None:
    failed = {"message": "write escalate_ticket failed", "evidence": {"tool": "escalate_ticket"}}
    assert points_at(failed, markers_of([Call("escalate_ticket", {})]))
    wrong = markers_of([Call("update_ticket", {})], field="status", value="solved")
    assert points_at({"message": "status 'solved' is not allowed here"}, wrong)
    assert not points_at({"message": "status 'open' is not allowed here"}, wrong)


def test_a_table_alone_points_at_nothing() -> None:
    finding = {"message": "too many changes", "evidence": {"table": "tickets"}}
    assert not points_at(finding, markers_of([Call("update_ticket", {"table": "tickets", "status": "x"})]))
