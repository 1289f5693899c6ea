"""Requirements G4 and G20: what one agent and one transaction may use, as pure checks.

:func:`measure_arguments` sizes a call's arguments as compact UTF-8 JSON and
names what makes them no JSON data the guard takes (``NaN``/``Infinity``, an
unpaired surrogate, nesting past ``limits.max_argument_depth``);
:func:`open_refusal` and :func:`call_refusal` refuse at their limits, never
one below, and name the setting to change.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard.settings import LimitSettings
from guard.transaction.limits import (
    ArgumentsMeasured,
    CallRate,
    call_refusal,
    measure_arguments,
    open_refusal,
    quota_for,
    rate_refusal,
)

LIMITS = LimitSettings(
    max_open_per_agent=3, max_calls_per_transaction=5, max_argument_bytes_per_transaction=2048
)
QUOTA = quota_for("agent-a", {}, LIMITS)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=25,
)
arguments = st.dictionaries(st.text(), json_values, max_size=5)


def _nested(depth: int) -> dict[str, Any]:
    """An arguments object nesting exactly ``depth`` levels (the object itself is level 1)."""
    value: Any = []
    for _ in range(depth - 2):
        value = [value]
    return {"a": value} if depth >= 2 else {}


@given(arguments)
def test_json_arguments_measure_as_their_compact_utf8_text_with_no_problem(args: dict[str, Any]) -> None:
    """Requirement G20: any JSON data's size is its compact JSON text's UTF-8 length, and it is taken."""
    expected = len(json.dumps(args, separators=(",", ":"), ensure_ascii=False).encode())
    assert measure_arguments(args, max_depth=100) == ArgumentsMeasured(expected, None)


def _depth(value: Any) -> int:
    """How many levels of objects and arrays ``value`` nests (a scalar 0)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@given(arguments, st.integers(min_value=2, max_value=6))
def test_json_arguments_are_refused_exactly_when_they_nest_past_the_limit(
    args: dict[str, Any], max_depth: int
) -> None:
    """Requirement G4: whatever their shape, arguments are refused for depth if and only if they nest
    deeper than ``max_depth`` levels."""
    assert (measure_arguments(args, max_depth).problem is not None) is (_depth(args) > max_depth)


def test_size_counts_bytes_not_characters() -> None:
    """Requirement G20: a multi-byte character counts its UTF-8 bytes (é 2, € 3, 𝄞 4), unescaped."""
    assert measure_arguments({"t": "é€𝄞"}, max_depth=64).size == len('{"t":""}') + 2 + 3 + 4


@pytest.mark.parametrize("max_depth", [2, 3, 64, 100])
def test_nesting_exactly_at_the_limit_passes_and_one_more_level_fails(max_depth: int) -> None:
    """Requirement G4: arguments ``max_depth`` levels deep are taken; one level deeper is refused,
    naming the limit and its setting."""
    assert measure_arguments(_nested(max_depth), max_depth).problem is None
    deeper = measure_arguments(_nested(max_depth + 1), max_depth)
    assert deeper.problem == (
        f"the arguments nest deeper than {max_depth} levels (limits.max_argument_depth)"
    )


def test_brackets_inside_strings_are_not_nesting() -> None:
    """Requirement G4: text full of brackets is text, however many there are."""
    assert measure_arguments({"s": "[[[[{{{{" * 10}, max_depth=2).problem is None


def test_nesting_past_the_interpreter_recursion_is_refused_as_too_deep() -> None:
    """Requirement G4: arguments nested deeper than ``json`` can follow are refused as too deep, not
    raised."""
    value: Any = []
    for _ in range(100_000):
        value = [value]
    measured = measure_arguments({"a": value}, max_depth=64)
    assert measured.problem is not None
    assert "deeper than 64 levels (limits.max_argument_depth)" in measured.problem


def test_a_deep_value_beside_shallow_ones_is_found() -> None:
    """Requirement G4: the deepest member decides, wherever it sits among the arguments."""
    args = {"a": 1, "b": [1, 2, [3]], "c": {"d": [[[[]]]]}}
    assert measure_arguments(args, max_depth=6).problem is None
    assert measure_arguments(args, max_depth=5).problem is not None


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_a_number_json_cannot_carry_is_a_problem(number: float) -> None:
    """Requirement G4: ``NaN`` and ``Infinity`` are no JSON numbers: the arguments are refused, and
    still measured (they spend the transaction's bytes)."""
    measured = measure_arguments({"x": [1, {"y": number}]}, max_depth=64)
    assert measured.problem == "the arguments hold a number JSON cannot carry (NaN or Infinity)"
    assert measured.size > len('{"x":[1,{"y":}]}')


@pytest.mark.parametrize("args", [{"t": "a\ud800b"}, {"t": ["\udfff"]}, {"\ud83d": 1}])
def test_an_unpaired_surrogate_is_a_problem(args: dict[str, Any]) -> None:
    """Requirement G4: text with an unpaired surrogate, in a value or a key, is no Unicode text."""
    measured = measure_arguments(args, max_depth=64)
    assert measured.problem == "the arguments hold text that is not valid Unicode (an unpaired surrogate)"
    assert measured.size > 0


def test_a_surrogate_pair_is_text() -> None:
    """Requirement G4: a paired surrogate is one character (4 bytes), not a problem."""
    assert measure_arguments({"t": "\U0001f600"}, max_depth=64) == ArgumentsMeasured(len('{"t":""}') + 4)


def test_opening_one_below_both_limits_is_allowed() -> None:
    """Requirement G20: one short of the guard's and the agent's limit still opens."""
    assert open_refusal("agent-a", 9, LIMITS.max_open_per_agent - 1, QUOTA, max_open=10) is None


def test_opening_at_the_guard_limit_is_refused_naming_the_setting() -> None:
    """Requirement G20: at ``backend.max_open_transactions`` open, a new transaction is refused."""
    refusal = open_refusal("agent-a", 10, 0, QUOTA, max_open=10)
    assert refusal is not None
    assert "10 transactions are open, the limit is 10 (backend.max_open_transactions)" in refusal
    assert "commit or roll back one first" in refusal


def test_opening_at_the_agent_limit_is_refused_naming_the_agent_and_setting() -> None:
    """Requirement G20: an agent holding ``limits.max_open_per_agent`` transactions may open no more."""
    refusal = open_refusal("agent-a", 3, 3, QUOTA, max_open=10)
    assert refusal is not None
    assert "agent 'agent-a' has 3 open transactions, the limit is 3 (limits.max_open_per_agent)" in refusal


def test_a_call_one_below_both_limits_is_allowed() -> None:
    """Requirement G20: the last call allowed, and arguments that fill the byte budget exactly, pass."""
    assert call_refusal("t-1", 4, 2000, 48, QUOTA) is None


def test_a_call_at_the_call_limit_is_refused_naming_the_setting() -> None:
    """Requirement G20: a transaction that made ``limits.max_calls_per_transaction`` calls gets no more."""
    refusal = call_refusal("t-1", 5, 0, 0, QUOTA)
    assert refusal is not None
    assert "transaction t-1 has made 5 calls, the limit is 5 (limits.max_calls_per_transaction)" in refusal
    assert "nothing was changed" in refusal


def test_a_call_one_byte_over_the_budget_is_refused_naming_the_setting() -> None:
    """Requirement G20: arguments that would take the transaction one byte past its budget are refused,
    saying how many bytes it would hold."""
    refusal = call_refusal("t-1", 0, 2000, 49, QUOTA)
    assert refusal is not None
    assert (
        "transaction t-1 would hold 2049 bytes of call arguments, the limit is 2048 "
        "(limits.max_argument_bytes_per_transaction)"
    ) in refusal


PER_PRINCIPAL = LimitSettings.model_validate(
    {
        "calls_per_minute_per_agent": 100,
        "principals": [
            {"match": {"principal": "batch-1"}, "max_open_per_agent": 1},
            {"match": {"claim": "roles", "value": "trial"}, "calls_per_minute_per_agent": 2},
            {"match": {"claim": "scope", "value": "bulk"}, "max_argument_bytes_per_transaction": 4096},
            {"match": {"claim": "roles", "value": "trial"}, "max_open_per_agent": 7},
        ],
    }
)


def test_a_principal_entry_overrides_only_what_it_sets_and_names_itself() -> None:
    """Requirement G61: the first entry that matches an agent by name sets its limits; the rest come from
    ``limits``; a refusal names the entry."""
    quota = quota_for("batch-1", {}, PER_PRINCIPAL)
    assert quota.max_open_per_agent == 1
    assert quota.calls_per_minute_per_agent == 100
    refusal = open_refusal("batch-1", 1, 1, quota, max_open=10)
    assert refusal is not None
    assert "(limits.principals[0].max_open_per_agent)" in refusal
    assert quota_for("batch-2", {}, PER_PRINCIPAL).max_open_per_agent == 10


def test_a_claim_entry_matches_a_list_item_or_a_scope_word_and_the_first_match_wins() -> None:
    """Requirement G61: a claim matches when it equals the value, holds it in a list, or (scope, scp) holds
    it as a word; the first matching entry is the only one that applies."""
    trial = quota_for("x", {"roles": ["staff", "trial"]}, PER_PRINCIPAL)
    assert (trial.calls_per_minute_per_agent, trial.max_open_per_agent) == (2, 10)
    assert quota_for("x", {"roles": "trial"}, PER_PRINCIPAL).calls_per_minute_per_agent == 2
    assert quota_for("x", {"scope": "read bulk"}, PER_PRINCIPAL).max_argument_bytes_per_transaction == 4096
    assert quota_for("x", {"roles": "bulk"}, PER_PRINCIPAL).max_argument_bytes_per_transaction == 8_388_608
    assert quota_for("x", {"roles": "trial-plus"}, PER_PRINCIPAL).calls_per_minute_per_agent == 100


def test_the_call_rate_refuses_past_the_limit_until_the_oldest_call_leaves_the_minute() -> None:
    """Requirement G61: ``limit`` calls in any 60 s pass, the next is refused with the wait until the oldest
    leaves the window, refused calls are not counted, and another agent is not affected."""
    rate = CallRate()
    assert [rate.admit("a", 3, t) for t in (0.0, 10.0, 20.0)] == [None, None, None]
    wait = rate.admit("a", 3, 30.0)
    assert wait == pytest.approx(30.0)
    assert rate.admit("b", 3, 30.0) is None
    assert rate.admit("a", 3, 59.9) is not None
    assert rate.admit("a", 3, 60.0) is None
    assert rate.admit("a", 0, 60.0) is None  # no limit


@given(st.lists(st.floats(min_value=0, max_value=600), max_size=60), st.integers(1, 5))
def test_no_sixty_seconds_ever_hold_more_admitted_calls_than_the_limit(
    times: list[float], limit: int
) -> None:
    """Requirement G61: whatever the arrival times, the admitted calls of an agent in any window of 60 s
    number at most its limit."""
    rate = CallRate()
    admitted = [t for t in sorted(times) if rate.admit("a", limit, t) is None]
    for start in admitted:
        assert sum(start <= t < start + 60 for t in admitted) <= limit


def test_the_rate_refusal_names_the_agent_the_setting_and_the_wait() -> None:
    """Requirement G61: the refusal says who, which setting, that nothing ran, and when to try again."""
    quota = quota_for("x", {"roles": ["trial"]}, PER_PRINCIPAL)
    text = rate_refusal("x", 12.2, quota)
    assert "agent 'x' has made 2 calls in the last minute" in text
    assert "(limits.principals[1].calls_per_minute_per_agent)" in text
    assert "nothing was run or changed" in text
    assert "Try again in 13 s" in text
