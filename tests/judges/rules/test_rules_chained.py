"""Chained lookups (keyed by another lookup's row, read in rounds), null keys, and ``now`` in rules."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from judges import (
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    JudgeChain,
    MemoryState,
    Query,
    RuleLoadError,
    RulePack,
    StateSnapshot,
    Verdict,
    gather_memory,
    parse_rule_pack,
)

MANAGER = """\
lookups:
  requester: {table: users, where: {id: "effect.after.requester_id"}, one: true}
  employee: {table: employees, where: {email: "requester.email"}, one: true}
  manager: {table: employees, where: {id: "employee.manager_id"}, one: true}
rules:
  - id: manager-present
    when: {table: tickets}
    require: "manager == null || manager.status != 'on_leave'"
    decision: block
    message: "ticket {{effect.key}}: {{employee.id}}'s manager {{manager.id}} is on leave"
"""

OFFICE: dict[str, list[dict[str, Any]]] = {
    "users": [
        {"id": 1, "email": "ann@x.com"},
        {"id": 2, "email": None},
        {"id": 3, "email": "cat@x.com"},
    ],
    "employees": [
        {"id": "E1", "email": "ann@x.com", "manager_id": "E2", "status": "active"},
        {"id": "E2", "email": "bob@x.com", "manager_id": None, "status": "on_leave"},
        {"id": "E3", "email": "cat@x.com", "manager_id": "E9", "status": "active"},
    ],
}
NOW = datetime(2025, 10, 1, 13, tzinfo=UTC)


def ticket(key: int, requester: int | None, **extra: Any) -> Effect:
    row = {"id": key, "requester_id": requester, **extra}
    return Effect("tickets", (key,), EffectKind.INSERT, None, row, tuple(row))


def run(
    pack: RulePack,
    effects: Sequence[Effect],
    state: dict[str, list[dict[str, Any]]] = OFFICE,
    now: datetime | None = NOW,
) -> Verdict:
    effects = tuple(effects)
    gathered = gather_memory([pack], effects, MemoryState(state))
    assert gathered.failures == {}
    return pack(CommitContext("t", effects, state=gathered.snapshot, now=now))


class RecordingReader:
    def __init__(self, state: MemoryState) -> None:
        self.state = state
        self.fetches: list[list[Query]] = []

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        self.fetches.append(list(queries))
        return await self.state.fetch(queries)


async def test_a_chain_of_lookups_is_read_one_link_per_round() -> None:
    pack = parse_rule_pack(MANAGER, "office.yaml")
    reader = RecordingReader(MemoryState(OFFICE))
    verdict = await JudgeChain([pack]).run(reader, [ticket(7, 1)], transaction_id="t")
    assert reader.fetches == [
        [Query.of("users", 1, id=1)],
        [Query.of("employees", 1, email="ann@x.com")],
        [Query.of("employees", 1, id="E2")],
    ]
    assert [f.message for f in verdict.findings] == ["ticket 7: E1's manager E2 is on leave"]


def test_lookups_are_ordered_so_that_each_comes_after_the_ones_keying_it() -> None:
    text = MANAGER.replace("  requester: {", "  first: {").replace('"requester.email"', '"first.email"')
    lines = text.splitlines(keepends=True)
    pack = parse_rule_pack("".join([lines[0], lines[3], lines[2], lines[1], *lines[4:]]), "reordered.yaml")
    assert list(pack.lookups) == ["first", "employee", "manager"]
    assert pack.lookups["manager"].after == ("employee",)
    assert run(pack, [ticket(7, 1)]).decision is Decision.BLOCK


def test_a_link_that_finds_nothing_ends_the_chain_without_reading_null_keys() -> None:
    pack = parse_rule_pack(MANAGER, "office.yaml")
    effects = (ticket(8, 2), ticket(9, 3), ticket(10, 99), ticket(11, None))
    gathered = gather_memory([pack], effects, MemoryState(OFFICE))
    # User 2 has no email, user 99 does not exist, ticket 11 has no requester, E3's manager E9 is gone:
    # the null keys users.id, employees.email and employees.id are answered without a read.
    assert gathered.skipped == 3
    assert gathered.rounds == 3
    verdict = pack(CommitContext("t", effects, state=gathered.snapshot))
    assert verdict.decision is Decision.ALLOW


def test_a_chain_read_in_one_round_only_blocks_its_rules() -> None:
    """Fail closed: a caller that fetches only the first round leaves the chained rules undecided."""
    pack = parse_rule_pack(MANAGER, "office.yaml")
    effects = (ticket(7, 1),)
    snapshot = MemoryState(OFFICE).snapshot(pack.queries(effects))
    verdict = pack(CommitContext("t", effects, state=snapshot))
    assert verdict.decision is Decision.BLOCK
    assert "lookup 'employee': its rows were not fetched before the judges ran" in verdict.findings[0].message


def test_a_key_missing_from_the_row_blocks_the_rules_downstream() -> None:
    pack = parse_rule_pack(MANAGER.replace('"employee.manager_id"', '"employee.boss_id"'), "office.yaml")
    verdict = run(pack, [ticket(7, 1)])
    assert verdict.decision is Decision.BLOCK
    assert verdict.findings[0].message == (
        "rule manager-present could not be evaluated for tickets 7: lookup 'manager': no such key: 'boss_id'"
    )


def test_a_key_may_be_an_expression_over_the_row_and_the_effect() -> None:
    text = MANAGER.replace(
        '"employee.manager_id"', '"employee.manager_id == null ? effect.after.fallback : employee.manager_id"'
    )
    pack = parse_rule_pack(text, "office.yaml")
    assert run(pack, [ticket(7, 2, fallback="E2")]).decision is Decision.ALLOW
    assert run(pack, [ticket(7, 1, fallback="E1")]).decision is Decision.BLOCK
    bob = {**OFFICE, "users": [{"id": 4, "email": "bob@x.com"}]}
    assert run(pack, [ticket(7, 4, fallback="E2")], bob).decision is Decision.BLOCK


def test_a_let_that_only_keys_another_lookup_is_used() -> None:
    text = (
        "rules:\n  - id: r\n    when: {table: tickets}\n    let:\n"
        '      who: {table: users, where: {id: "effect.after.requester_id"}, one: true}\n'
        '      staff: {table: employees, where: {email: "who.email"}}\n'
        "    require: \"staff.all(s, s.status == 'active')\"\n    decision: block\n    message: m\n"
    )
    pack = parse_rule_pack(text, "let.yaml")
    assert pack.rules[0].lookups == ("staff",)
    assert run(pack, [ticket(7, 1)]).decision is Decision.ALLOW


def load_error(text: str) -> RuleLoadError:
    with pytest.raises(RuleLoadError) as caught:
        parse_rule_pack(text, "bad.yaml")
    return caught.value


def position_of(text: str, needle: str) -> tuple[int, int]:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def test_a_key_from_a_list_lookup_is_refused_where_it_is_named() -> None:
    text = MANAGER.replace(
        '{id: "effect.after.requester_id"}, one: true}', '{id: "effect.after.requester_id"}}'
    )
    error = load_error(text)
    assert error.detail == "where email: lookup 'requester' is a list; a key comes from a one: true lookup"
    assert (error.line, error.column) == position_of(text, "requester.email")
    assert error.rule is None


def test_lookups_keyed_by_each_other_are_refused() -> None:
    text = MANAGER.replace('"effect.after.requester_id"', '"manager.user_id"')
    error = load_error(text)
    assert error.detail == (
        "lookups requester -> manager -> employee -> requester take their keys from each other in a cycle"
    )
    assert (error.line, error.column) == position_of(text, "requester.email")
    itself = load_error(MANAGER.replace('"requester.email"', '"employee.email"'))
    assert "lookups employee -> employee take their keys" in itself.detail


def test_a_chain_longer_than_the_rounds_is_refused() -> None:
    text = MANAGER.replace(
        "rules:\n",
        '  grand: {table: employees, where: {id: "manager.manager_id"}, one: true}\n'
        '  great: {table: employees, where: {id: "grand.manager_id"}, one: true}\nrules:\n',
    )
    error = load_error(text)
    assert error.detail == "lookup 'great' is keyed through 4 other lookups; at most 3 (one read round each)"
    assert (error.line, error.column) == position_of(text, "grand.manager_id")


@pytest.mark.parametrize(
    ("where", "detail"),
    [
        ("{id: null}", "where id: null matches no row (as in SQL); leave the column out or key it"),
        ('{id: "string(now)"}', "where id: now cannot key a lookup (rows are read before rules run)"),
        ('{id: "boss.id"}', "id: unknown name 'boss' (known: effect, employee, manager, requester)"),
    ],
)
def test_where_values_that_cannot_key_a_lookup(where: str, detail: str) -> None:
    text = MANAGER.replace('{email: "requester.email"}', where)
    assert load_error(text).detail == detail


def test_now_cannot_name_a_lookup() -> None:
    error = load_error(MANAGER.replace("  manager:", "  now:").replace("manager", "now"))
    assert "'now' cannot name a lookup" in error.detail


DUE = """\
rules:
  - id: due-in-ten-days
    when: {table: tasks}
    require: "timestamp(effect.after.due_at) - now >= duration('240h')"
    decision: block
    message: "task {{effect.key}}: due {{effect.after.due_at}}, less than ten days after {{now}}"
  - id: has-title
    when: {table: tasks}
    require: "effect.after.title != ''"
    decision: block
    message: "task {{effect.key}}: no title"
"""


def task(key: int, due: str, title: str = "t") -> Effect:
    row = {"id": key, "due_at": due, "title": title}
    return Effect("tasks", (key,), EffectKind.INSERT, None, row, tuple(row))


def test_now_is_the_commit_time_as_a_cel_timestamp() -> None:
    pack = parse_rule_pack(DUE, "tasks.yaml")
    assert [rule.now for rule in pack.rules] == [True, False]
    ok, soon = task(1, "2025-10-11T13:00:00Z"), task(2, "2025-10-05T00:00:00+00:00")
    verdict = run(pack, [ok, soon], {})
    assert [f.message for f in verdict.findings] == [
        "task 2: due 2025-10-05T00:00:00+00:00, less than ten days after 2025-10-01T13:00:00+00:00"
    ]


def test_a_rule_reading_now_without_a_commit_time_blocks_and_the_others_run() -> None:
    pack = parse_rule_pack(DUE, "tasks.yaml")
    verdict = run(pack, [task(1, "2025-10-11T13:00:00Z", title="")], {}, now=None)
    assert verdict.decision is Decision.BLOCK
    assert [(f.rule, f.message) for f in verdict.findings] == [
        (
            "due-in-ten-days",
            "rule due-in-ten-days could not be evaluated for tasks 1: now: the commit time is not known"
            " (the gate was given no clock)",
        ),
        ("has-title", "task 1: no title"),
    ]


def test_an_unknown_name_lists_now_among_the_known() -> None:
    error = load_error(DUE.replace("- now >=", "- nw >="))
    known = "effect, calls, claims, conversation, effects, now, principal, summary"
    assert f"unknown name 'nw' (known: {known})" in error.detail
