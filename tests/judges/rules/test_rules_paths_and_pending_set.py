"""Requirement G50: rules that normalise paths (``normpath``) and judge the pending set as a whole
(``effects``), over upstream calls as the ``mcp`` backend records them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judges import CommitContext, Decision, call_effect, parse_rule_pack
from judges.rules.engine import normpath

UNDER_DATA = """\
rules:
  - id: writes-stay-under-data
    when: {table: "call:write_file"}
    require: "normpath(effect.after.path).startsWith('/srv/data/')"
    decision: block
    message: "{{effect.after.path}} is outside /srv/data (as {{normpath(effect.after.path)}})"
"""

AT_MOST_TWO = """\
rules:
  - id: at-most-two-refunds
    when: {table: "call:refund"}
    require: "size(effects.filter(e, e.table == 'call:refund')) <= 2"
    decision: block
    message: "{{size(effects.filter(e, e.table == 'call:refund'))}} refunds in one commit; at most 2"
  - id: refunds-add-up
    when: {table: "call:refund"}
    require: >-
      effects.filter(e, e.table == 'call:refund').map(e, e.after.amount)
        .all(a, a <= 100)
    decision: block
    message: "a refund is above 100"
"""


def _judge(text: str, *calls: tuple[str, dict[str, Any]]) -> Any:
    pack = parse_rule_pack(text, "pack.yaml")
    effects = tuple(call_effect(tool, f"k{i}", arguments) for i, (tool, arguments) in enumerate(calls))
    return pack(CommitContext("t1", effects))


@pytest.mark.parametrize(
    ("path", "decision"),
    [
        ("/srv/data/a.txt", Decision.ALLOW),
        ("/srv/data//nested/./b.txt", Decision.ALLOW),
        ("/srv/data/../../etc/passwd", Decision.BLOCK),
        ("//srv/data/../secrets", Decision.BLOCK),
        ("/srv/database", Decision.BLOCK),
    ],
)
def test_a_path_rule_judges_the_path_the_file_system_would_open(path: str, decision: Decision) -> None:
    verdict = _judge(UNDER_DATA, ("write_file", {"path": path, "content": "x"}))
    assert verdict.decision is decision, verdict
    if decision is Decision.BLOCK:
        assert path in verdict.findings[0].message


def test_normpath_of_a_non_string_fails_the_rule_closed() -> None:
    verdict = _judge(UNDER_DATA, ("write_file", {"path": 7, "content": "x"}))
    assert verdict.decision is Decision.BLOCK


@given(st.lists(st.sampled_from(["a", "b", "..", ".", "", "srv", "data"]), max_size=8))
def test_normpath_is_what_a_posix_file_system_resolves(parts: list[str]) -> None:
    path = "/" + "/".join(parts)
    folded = normpath(path)
    assert folded.startswith("/")
    assert "//" not in folded
    assert "/../" not in folded + "/"
    assert "/./" not in folded + "/"
    assert normpath(folded) == folded


def test_a_rule_judges_the_pending_set_as_a_whole() -> None:
    two = [("refund", {"order_id": "A", "amount": 10}), ("refund", {"order_id": "B", "amount": 20})]
    assert _judge(AT_MOST_TWO, *two, ("send_email", {"to": "x"})).decision is Decision.ALLOW
    three = _judge(AT_MOST_TWO, *two, ("refund", {"order_id": "C", "amount": 30}))
    assert three.decision is Decision.BLOCK
    assert {f.message for f in three.findings} == {"3 refunds in one commit; at most 2"}
    large = _judge(AT_MOST_TWO, ("refund", {"order_id": "A", "amount": 500}))
    assert [f.rule for f in large.findings] == ["refunds-add-up"]
