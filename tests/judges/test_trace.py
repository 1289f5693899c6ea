"""Trace judges: failed writes, duplicates, non-terminal statuses, commits with nothing in them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from judges import (
    DEFAULT_CLAIMS,
    CallRecord,
    CommitContext,
    Decision,
    DuplicateEffectJudge,
    Effect,
    EffectKind,
    FailedWriteJudge,
    NoEffectJudge,
    NonTerminalStatusJudge,
    Role,
    Severity,
    StatusSpec,
    Turn,
    Verdict,
    call_effect,
    unrecovered_writes,
)


def call(tool: str, ok: bool, write: bool = True, **arguments: Any) -> CallRecord:
    if ok:
        return CallRecord(tool, arguments, write, True)
    return CallRecord(tool, arguments, write, False, "not_found", f"{tool} failed")


def insert(table: str, key: str, **row: Any) -> Effect:
    after = {"id": key, **row}
    return Effect(table, (key,), EffectKind.INSERT, None, after, tuple(sorted(after)))


def context(
    effects: tuple[Effect, ...] = (), calls: tuple[CallRecord, ...] = (), summary: str = ""
) -> CommitContext:
    return CommitContext("t1", effects, calls, summary)


def update(table: str, key: str, **row: Any) -> Effect:
    after = {"id": key, **row}
    return Effect(table, (key,), EffectKind.UPDATE, {"id": key}, after, tuple(sorted(row)))


def said(record: CallRecord, *turns: Turn) -> CallRecord:
    return replace(record, turns=turns)


USER = Turn(Role.USER, "Yes, go ahead.")
AGENT = Turn(Role.ASSISTANT, "That did not work.")


class TestFailedWrite:
    """Requirement G42: a failed write blocks by what the commit keeps, and warns elsewhere."""

    def test_a_failed_write_never_retried_blocks_a_commit_of_nothing(self) -> None:
        calls = (call("update_ticket", False, id=6), call("get_ticket", True, write=False, id=6))
        verdict = FailedWriteJudge()(context(calls=calls))
        assert verdict.decision is Decision.BLOCK
        (finding,) = verdict.findings
        assert finding.message == (
            "write update_ticket failed (not_found: update_ticket failed);"
            " no later update_ticket call succeeded; the commit changes nothing else"
        )
        assert finding.evidence == {"tool": "update_ticket", "call": 0, "error_class": "not_found"}

    def test_it_blocks_when_the_commit_changes_the_record_the_failed_write_names(self) -> None:
        calls = (call("update_ticket", False, id=6, status="solved"), call("add_note", True, ticket=6))
        verdict = FailedWriteJudge()(context(effects=(update("tickets", "6", note="n"),), calls=calls))
        assert verdict.decision is Decision.BLOCK
        assert verdict.findings[0].message.endswith("; the commit changes 6")

    def test_a_failed_write_elsewhere_is_a_warning(self) -> None:
        calls = (call("update_ticket", False, id=6), call("close_order", True, order="A1"))
        verdict = FailedWriteJudge()(context(effects=(update("orders", "A1", status="closed"),), calls=calls))
        assert verdict.decision is Decision.ALLOW
        (finding,) = verdict.findings
        assert finding.severity is Severity.WARN
        assert finding.message.endswith("; the commit changes none of the records it names")
        strict = FailedWriteJudge(elsewhere=Severity.BLOCK)
        assert strict(context(effects=(update("orders", "A1"),), calls=calls)).decision is Decision.BLOCK

    def test_targets_name_the_records_a_call_concerns(self) -> None:
        judge = FailedWriteJudge(targets={"update_ticket": ("id",)})
        calls = (call("update_ticket", False, id=6, status="A1"), call("close_order", True, order="A1"))
        effects = (update("orders", "A1", status="closed"),)
        assert judge(context(effects=effects, calls=calls)).decision is Decision.ALLOW
        assert FailedWriteJudge()(context(effects=effects, calls=calls)).decision is Decision.BLOCK

    def test_a_buffered_call_names_its_records_by_its_arguments(self) -> None:
        calls = (call("update_ticket", False, id=6), call("notify", True, ticket=6))
        buffered = call_effect("notify", "k1", {"ticket": 6, "urgent": True})
        assert FailedWriteJudge()(context(effects=(buffered,), calls=calls)).decision is Decision.BLOCK

    def test_booleans_and_empty_text_name_nothing(self) -> None:
        calls = (call("set_flag", False, on=True, label=""), call("touch", True))
        effects = (update("flags", "1", on=True), update("labels", "", x=1))
        assert FailedWriteJudge()(context(effects=effects, calls=calls)).decision is Decision.ALLOW

    def test_given_the_conversation_half_of_one_request_done_blocks(self) -> None:
        calls = (
            said(call("cancel", True, booking="B1"), USER),
            call("book", False, user="u1"),
            said(call("get_user", True, write=False, user="u1"), AGENT),
        )
        effects = (update("bookings", "B1", status="cancelled"),)
        verdict = FailedWriteJudge()(CommitContext("t1", effects, calls, conversation=(USER, AGENT)))
        assert verdict.decision is Decision.BLOCK
        assert verdict.findings[0].message.endswith("; cancel of the same request succeeded")
        # without the conversation, the requests are unknown: the failed write is elsewhere
        assert FailedWriteJudge()(CommitContext("t1", effects, calls)).decision is Decision.ALLOW
        # a user turn between the two makes them two requests
        apart = (calls[0], said(calls[1], USER), calls[2])
        verdict = FailedWriteJudge()(CommitContext("t1", effects, apart, conversation=(USER, USER, AGENT)))
        assert verdict.decision is Decision.ALLOW

    def test_a_later_success_of_the_same_tool_recovers(self) -> None:
        calls = (call("update_ticket", False, id=6), call("update_ticket", True, id=6))
        assert FailedWriteJudge()(context(calls=calls)) == Verdict.allow()

    def test_failed_reads_and_earlier_successes_do_not_count(self) -> None:
        calls = (
            call("update_ticket", True, id=5),
            call("get_ticket", False, write=False),
            call("update_ticket", False, id=6),
        )
        assert [f.evidence["call"] for f in FailedWriteJudge()(context(calls=calls)).findings] == [2]

    def test_a_failed_repeat_of_a_write_that_succeeded_is_not_unrecovered(self) -> None:
        calls = (
            call("add_driver", True, policy="P1", name="Ann"),
            call("add_driver", False, policy="P1", name="Ann"),
        )
        assert FailedWriteJudge()(context(calls=calls)) == Verdict.allow()
        other = (
            call("add_driver", True, policy="P1", name="Ann"),
            call("add_driver", False, policy="P1", name="Bo"),
        )
        assert len(FailedWriteJudge()(context(calls=other)).findings) == 1

    def test_targets_require_the_same_record(self) -> None:
        judge = FailedWriteJudge(targets={"update_ticket": ("id",)}, severity=Severity.WARN)
        calls = (
            call("update_ticket", False, id=6, status="x"),
            call("update_ticket", True, id=7, status="x"),
        )
        verdict = judge(context(calls=calls))
        assert verdict.decision is Decision.ALLOW
        assert verdict.findings[0].message.startswith("write update_ticket id=6 failed")
        recovered = (*calls, call("update_ticket", True, id=6, status="y"))
        assert judge(context(calls=recovered)) == Verdict.allow()

    def test_unrecovered_writes(self) -> None:
        calls = [call("a", False), call("b", False), call("a", True), call("c", False, write=False)]
        assert unrecovered_writes(calls) == [1]


class TestDuplicateEffect:
    def test_equal_inserts_apart_from_the_key(self) -> None:
        effects = (
            insert("tickets", "6", subject="refund", status="open", tags=["a", "b"]),
            insert("tickets", "7", subject="refund", status="open", tags=["b", "a"]),
            insert("tickets", "8", subject="other", status="open"),
            insert("comments", "9", subject="refund", status="open", tags=["a", "b"]),
        )
        verdict = DuplicateEffectJudge()(context(effects))
        assert [f.message for f in verdict.findings] == [
            "tickets 7 duplicates tickets 6 (equal apart from id)"
        ]
        assert verdict.findings[0].evidence == {"table": "tickets", "key": "7", "duplicate_of": "6"}

    def test_ignored_fields_per_table(self) -> None:
        effects = (insert("tickets", "6", created_at="a", n=1), insert("tickets", "7", created_at="b", n=1.0))
        assert DuplicateEffectJudge()(context(effects)) == Verdict.allow()
        judge = DuplicateEffectJudge(ignore={"*": frozenset({"id"}), "tickets": frozenset({"created_at"})})
        assert judge(context(effects)).decision is Decision.BLOCK

    def test_buffered_calls_with_the_same_arguments(self) -> None:
        effects = (
            call_effect("refund", "k1", {"order": "O1", "amount": 5}),
            call_effect("refund", "k2", {"amount": 5, "order": "O1"}),
        )
        (finding,) = DuplicateEffectJudge()(context(effects)).findings
        assert finding.message == "call:refund k2 duplicates call:refund k1 (equal apart from id)"

    def test_updates_are_never_duplicates(self) -> None:
        same = {"id": 1, "status": "solved"}
        effects = (
            Effect("tickets", (1,), EffectKind.UPDATE, {"id": 1}, same, ("status",)),
            Effect("tickets", (2,), EffectKind.UPDATE, {"id": 2}, {**same, "id": 2}, ("status",)),
        )
        assert DuplicateEffectJudge()(context(effects)) == Verdict.allow()


class TestNonTerminalStatus:
    judge = NonTerminalStatusJudge(
        {
            "tickets": StatusSpec("status", non_terminal=frozenset({"new", "open", "pending"})),
            "claims": StatusSpec("state", terminal=frozenset({"approved", "denied"})),
        }
    )

    def test_records_left_in_a_non_terminal_status(self) -> None:
        effects = (
            insert("tickets", "6", status="open"),
            insert("tickets", "7", status="solved"),
            insert("claims", "C1", state="review"),
            insert("claims", "C2", state="approved"),
            insert("orders", "O1", status="open"),
            insert("tickets", "8", priority="high"),
            Effect("tickets", ("9",), EffectKind.DELETE, {"id": "9", "status": "open"}, None, ("id",)),
        )
        verdict = self.judge(context(effects))
        assert [f.message for f in verdict.findings] == [
            "tickets 6: status 'open' is not a terminal status",
            "claims C1: state 'review' is not a terminal status",
        ]
        assert verdict.decision is Decision.BLOCK

    def test_a_status_spec_gives_exactly_one_list(self) -> None:
        with pytest.raises(ValueError, match="exactly one"):
            StatusSpec("status")
        with pytest.raises(ValueError, match="exactly one"):
            StatusSpec("status", terminal=frozenset({"a"}), non_terminal=frozenset({"b"}))


class TestNoEffect:
    def test_no_effects_after_failed_writes_blocks(self) -> None:
        calls = (*(call(f"w{i}", False) for i in range(4)), call("r", True, write=False))
        (finding,) = NoEffectJudge()(context(calls=calls)).findings
        assert finding.message == (
            "no changes to commit; 4 write call(s) failed (w0: not_found: w0 failed;"
            " w1: not_found: w1 failed; w2: not_found: w2 failed and 1 more)"
        )
        assert finding.evidence == {"failed_writes": ["w0", "w1", "w2", "w3"]}

    def test_effects_or_no_failed_writes_allow(self) -> None:
        judge = NoEffectJudge()
        assert judge(context((insert("t", "1"),), (call("w", False),))) == Verdict.allow()
        assert judge(context(calls=(call("r", False, write=False),))) == Verdict.allow()

    def test_a_summary_that_claims_a_change(self) -> None:
        judge = NoEffectJudge(claims=DEFAULT_CLAIMS)
        (finding,) = judge(context(summary="Done! I have cancelled your order.")).findings
        assert finding.message == "no changes to commit, while the summary says 'I have cancelled'"
        assert judge(context(summary="I checked your order; it is on its way.")) == Verdict.allow()
        assert NoEffectJudge()(context(summary="I have cancelled it.")) == Verdict.allow()
