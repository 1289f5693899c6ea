"""Rule conditions run in Python: the same value as CEL, or CEL is asked.

Requirement G5 (a rule that cannot be evaluated blocks the commit) and the
bench's identical results both rest on one property: wherever the fast path
answers, its answer is CEL's, value and type; where CEL fails, the fast path
defers. The property is checked against the bundled CEL over generated
expressions and data, with the edges where Python and CEL part (a bool is not
an int, big ints, NaN, ``size`` in bytes, null reads, absorbed errors).
"""

from __future__ import annotations

import math
from typing import Any

import cel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.rules.engine import CelEvalError, Environment, compile_expression, evaluate_all
from judges.rules.fast import Defer, compile_fast, plain

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([2**53, 2**53 + 1, -(2**53) - 1, 2**63 - 1, 2**63, -(2**63), 2**64]),
    st.sampled_from([0.0, -0.0, 1.0, 1.5, -2.5, 2.0**53, 2.0**60, math.nan, math.inf, -math.inf]),
    st.sampled_from(["a", "b", "", "é", "ab", "B"]),
)
_ROW = st.dictionaries(st.sampled_from(["a", "b", "c"]), _SCALARS, max_size=3)
_DATA = st.fixed_dictionaries(
    {
        "v": _ROW,
        "l": st.lists(_SCALARS, max_size=4),
        "rows": st.lists(_ROW, max_size=3),
        "m": st.one_of(st.none(), _ROW, st.integers(0, 2)),
        "n": st.none(),
    }
)

_LITERALS = st.sampled_from(
    [
        "null", "true", "false", "0", "1", "-1", "3", "9007199254740993", "9223372036854775807",
        "-9223372036854775808", "0.0", "1.5", "-2.5", "1e3", ".5", "'a'", "'b'", "''", '"é"', "'ab'",
        "1u", "0x10", "b'a'", "'a\\'b'", "r'a'",
    ]
)  # fmt: skip
_READS = st.sampled_from(
    ["v.a", "v.b", "v.c", "v['a']", "v['b']", "l", "l[0]", "l[1]", "m", "m.a", "n", "n.a", "rows", "v", "zz"]
)
_ATOMS = st.one_of(_LITERALS, _READS)


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    relation = st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in"])
    return st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", inner, relation, inner),
        st.builds(lambda a, b: f"{a} && {b}", inner, inner),
        st.builds(lambda a, b: f"{a} || {b}", inner, inner),
        st.builds(lambda a: f"!{a}", inner),
        st.builds(lambda a: f"({a})", inner),
        st.builds(lambda a, b, c: f"{a} ? {b} : {c}", inner, inner, inner),
        st.builds(lambda a: f"size({a})", inner),
        st.builds(lambda a: f"{a}.size()", _READS),
        st.builds(lambda f: f"has(v.{f})", st.sampled_from(["a", "b", "c"])),
        st.builds(lambda f: f"has(m.{f})", st.sampled_from(["a", "b"])),
        st.builds(lambda xs: "[" + ", ".join(xs) + "]", st.lists(inner, max_size=3)),
        st.builds(
            lambda macro, f, op, b: f"rows.{macro}(r, r.{f} {op} {b})",
            st.sampled_from(["all", "exists"]),
            st.sampled_from(["a", "b"]),
            relation,
            inner,
        ),
        st.builds(
            lambda macro, op, b: f"l.{macro}(x, x {op} {b})",
            st.sampled_from(["all", "exists"]),
            relation,
            inner,
        ),
        st.builds(lambda a, b: f"{a} + {b}", inner, inner),
    )


_EXPRESSIONS = st.recursive(_ATOMS, _extend, max_leaves=8)


def _cel(source: str, data: dict[str, Any]) -> tuple[bool, Any]:
    try:
        return True, cel.compile(source).execute(cel.Context(data))
    except Exception as exc:
        return False, exc


def _same(fast: Any, slow: Any) -> bool:
    if type(fast) is not type(slow):
        return False
    if isinstance(fast, float) and math.isnan(fast):
        return math.isnan(slow)
    return bool(fast == slow)


def _check(source: str, data: dict[str, Any]) -> str:
    try:
        cel.compile(source)
    except Exception:
        return "not cel"
    condition = compile_fast(source)
    if condition is None:
        return "outside"
    try:
        fast = condition(data)
    except Defer:
        return "deferred"
    ok, slow = _cel(source, data)
    assert ok, f"{source!r} over {data!r}: fast gave {fast!r}, CEL failed: {slow!r}"
    assert _same(fast, slow), f"{source!r} over {data!r}: fast gave {fast!r}, CEL {slow!r}"
    return "answered"


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=_EXPRESSIONS, data=_DATA)
def test_an_answer_is_cels_answer(source: str, data: dict[str, Any]) -> None:
    _check(source, data)


@pytest.mark.parametrize(
    ("source", "data", "outcome"),
    [
        # a bool is not an int, in equality and in membership
        ("v.a == 1", {"v": {"a": True}}, "answered"),
        ("1 in l", {"l": [True]}, "answered"),
        # an int and a double compare as numbers while the int is exact as a double
        ("v.a == 1.0", {"v": {"a": 1}}, "answered"),
        ("v.a < 9007199254740993.0", {"v": {"a": 2**53 + 1}}, "deferred"),
        # 64 bits: what CEL takes as uint or double is for CEL
        ("v.a == v.a", {"v": {"a": 2**64}}, "deferred"),
        ("v.a", {"v": {"a": 2**63}}, "deferred"),
        # CEL's size of a string counts bytes
        ("size(v.a) == 1", {"v": {"a": "é"}}, "deferred"),
        ("size(v.a) == 1", {"v": {"a": "e"}}, "answered"),
        # NaN orders nowhere in CEL: an error, not false
        ("v.a < 1.0", {"v": {"a": math.nan}}, "deferred"),
        # a missing key, a null read, an unknown variable are CEL's errors
        ("v.b == 1", {"v": {"a": 1}}, "deferred"),
        ("n.a == 1", {"n": None}, "deferred"),
        ("zz == 1", {}, "deferred"),
        # a deciding left operand ends && and || as in CEL; an error on the left is CEL's to absorb
        ("n == null || n.a", {"n": None}, "answered"),
        ("v.b == 1 || true", {"v": {}}, "deferred"),
        ("l.all(x, x > 5)", {"l": [1, "a"]}, "answered"),
        ("l.all(x, x > 5)", {"l": ["a", 1]}, "deferred"),
        ("l.exists(x, x == 'a')", {"l": ["a", 1.5]}, "answered"),
        # a text field against a list of texts, inline; anything else through CEL's membership rules
        ("v.a in ['x', 'y']", {"v": {"a": "y"}}, "answered"),
        ("v.a in ['x', 'y']", {"v": {"a": 1}}, "answered"),
        ("v.a in ['x', 'y']", {"v": {"a": None}}, "answered"),
        ("v.a in ['x', 'y']", {"v": {"a": [1]}}, "deferred"),
        # two fields: texts inline, null against a row, a number against a text
        ("v.a == v.b", {"v": {"a": "x", "b": "x"}}, "answered"),
        ("v.a != v.b", {"v": {"a": None, "b": {"c": 1}}}, "answered"),
        ("v.a == v.b", {"v": {"a": 1, "b": "1"}}, "answered"),
        ("v.a == v.b", {"v": {"a": [1], "b": [1]}}, "deferred"),
        # containers are CEL's results
        ("v", {"v": {"a": 1}}, "deferred"),
        ("[1, 2]", {}, "deferred"),
        # outside the subset
        ("v.a + 1 > 2", {"v": {"a": 1}}, "outside"),
        ("v.a.startsWith('x')", {"v": {"a": "xy"}}, "outside"),
        ("{'a': 1}.a == 1", {}, "outside"),
        ("1u == v.a", {"v": {"a": 1}}, "outside"),
        ("'a\\'b' == v.a", {"v": {"a": "a'b"}}, "outside"),
        ("1 < 2 < 3", {}, "outside"),
    ],
)
def test_the_edges(source: str, data: dict[str, Any], outcome: str) -> None:
    assert _check(source, data) == outcome


def test_the_bench_pack_answers_without_cel() -> None:
    """Every condition of perf/judges_bench.py's pack is in the subset and answers over its data."""
    sources = [
        "effect.after.priority != 'p0'",
        "effect.after.amount <= 1001.0",
        "!(effect.after.status == 'solved' && effect.after.assignee == 'nobody2')",
        "effect.after.channel in ['email', 'phone', 'chat', 'web3']",
        "order == null || order.total >= 0.0 || order.state == 'x2'",
        "effect.after.status != 'solved' || shipments.all(s, s.carrier_status != 'exception3')",
        "customer == null || customer.tier != 'banned9'",
        "order == null || order.customer_id == effect.after.customer_id || '4' == ''",
    ]
    after = {"priority": "normal", "amount": 3.0, "status": "solved", "assignee": "agent", "channel": "email"}
    data = {
        "effect": {"after": after | {"customer_id": "C1"}},
        "order": {"total": 9.5, "state": "placed", "customer_id": "C1"},
        "shipments": [{"carrier_status": "in_transit"}, {"carrier_status": "delivered"}],
        "customer": {"tier": "gold"},
    }
    assert [_check(source, data) for source in sources] == ["answered"] * len(sources)


def test_data_cel_cannot_take_is_not_plain() -> None:
    assert plain({"a": [1, 2.5, None, True, "é", {"b": "x"}]})
    assert not plain({"a": "\ud800"})
    assert not plain({1: "a"})
    assert not plain({"a": b"x"})
    with pytest.raises(CelEvalError, match="cannot hand the data to CEL"):
        Environment({"v": {"a": "\ud800"}})


def test_plain_data_reaches_cel_only_when_a_condition_needs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    real = cel.Context

    def counted(*args: Any) -> Any:
        built.append(args)
        return real(*args)

    monkeypatch.setattr(cel, "Context", counted)
    variables = {"v": {"a": 2, "b": "x"}}
    answered = [compile_expression(source) for source in ("v.a > 1", "v.b in ['x', 'y']", "!has(v.c)")]
    assert evaluate_all(answered, Environment(variables)) == [True, True, True]
    assert built == []
    assert evaluate_all([*answered, compile_expression("v.a + 1 == 3")], Environment(variables))[-1] is True
    assert len(built) == 1


def test_the_engine_answers_as_cel_would_in_either_path() -> None:
    """evaluate_all gives the same list whether a condition ran in Python or in CEL."""
    sources = ["v.a > 1", "v.b == 'x'", "v.a + 1 > 2", "v.missing == 1", "n.a", "v.a"]
    expressions = [compile_expression(source) for source in sources]
    fast = evaluate_all(expressions, Environment({"v": {"a": 2, "b": "x"}, "n": None}))
    assert fast[:3] == [True, True, True]
    assert fast[5] == 2
    assert [str(error) for error in fast[3:5]] == ["no such key: 'missing'", str(fast[4])]
    assert all(isinstance(error, CelEvalError) for error in fast[3:5])


def test_a_condition_deeper_than_python_parses_runs_in_cel() -> None:
    source = " && ".join(["v.a == 1"] * 300)
    assert compile_fast(source) is None
    assert compile_expression(source).evaluate(Environment({"v": {"a": 1}})) is True
