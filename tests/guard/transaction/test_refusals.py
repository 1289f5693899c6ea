"""Requirements G25, G37: the pure parts of the guard's refusals, read without a database.

Which statement text would end the transaction, what SQLite's authorizer
refuses, and when PostgreSQL's tally refuses a commit.
"""

from __future__ import annotations

import sqlite3

import pytest

from guard.store.capture_postgres import Tally, unjudged
from guard.store.capture_sqlite import refusal_of
from guard.store.refusals import (
    OWN_CHANGES_CHECK,
    REFUSAL_SQLSTATE,
    REFUSED,
    Gate,
    StatementRefused,
    ending_refusal,
    refusal,
)
from judges import ErrorClass, classify


@pytest.mark.parametrize(
    ("sql", "keyword"),
    [
        ("COMMIT", "COMMIT"),
        ("commit and chain", "COMMIT"),
        ("  END;", "END"),
        ("ABORT", "ABORT"),
        ("ROLLBACK", "ROLLBACK"),
        ("ROLLBACK PREPARED 'x'", "ROLLBACK"),
        ("begin", "BEGIN"),
        ("START TRANSACTION", "START"),
        ("PREPARE   TRANSACTION 'later'", "PREPARE TRANSACTION"),
        ("-- a note\nCOMMIT", "COMMIT"),
        ("/* a */ /* b /* nested */ still b */ COMMIT", "COMMIT"),
        (";;COMMIT", "COMMIT"),
    ],
)
def test_statements_that_end_the_transaction_are_named(sql: str, keyword: str) -> None:
    """Requirement G37: a statement that would end the transaction is recognised past whitespace, empty
    statements and comments (nested ones as PostgreSQL reads them)."""
    reason = ending_refusal(sql)
    assert reason is not None
    assert reason.startswith(f"{keyword} {REFUSED}")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "ROLLBACK TO SAVEPOINT mine",
        "rollback work to mine",
        "ROLLBACK TRANSACTION TO SAVEPOINT mine",
        "SAVEPOINT mine",
        "RELEASE SAVEPOINT mine",
        "PREPARE q AS SELECT 1",
        "UPDATE items SET ended = true",
        "/* COMMIT */ SELECT 1",
        "-- COMMIT\nSELECT 1",
        "COMMITTED_ITEMS",
        "INSERT INTO t (x) VALUES ('COMMIT')",
    ],
)
def test_other_statements_are_let_through(sql: str) -> None:
    """Requirement G37: savepoints of the tool's own, and statements that only mention the words, run."""
    assert ending_refusal(sql) is None


def test_a_refusal_is_read_as_permission_denied() -> None:
    """Requirement G25: a refusal raised before a statement is sent reads as the database's own refusal:
    its SQLSTATE, its text, the error class ``permission_denied``."""
    error = StatementRefused(f"COMMIT {REFUSED}: only the guard ends the transaction")
    assert error.sqlstate == REFUSAL_SQLSTATE
    assert refusal(error) == str(error)
    assert classify(error).error_class is ErrorClass.PERMISSION_DENIED
    assert refusal(RuntimeError(str(error))) is None


def test_a_forged_change_is_read_as_a_refusal() -> None:
    """Requirement G25: the check that keeps forged rows out of PostgreSQL's change table reads as a
    refusal of writing it."""

    class CheckViolation(Exception):
        sqlstate = "23514"

    error = CheckViolation(
        f'new row for relation "guard_changes" violates check constraint "{OWN_CHANGES_CHECK}"'
    )
    reason = refusal(error)
    assert reason is not None
    assert "guard_changes" in reason
    assert REFUSED in reason


CAPTURED = Gate(tables=frozenset({"items"}))


@pytest.mark.parametrize(
    ("action", "arg1", "arg2", "db", "trigger", "says"),
    [
        (sqlite3.SQLITE_INSERT, "items", None, "main", None, None),
        (sqlite3.SQLITE_UPDATE, "items", "name", "main", None, None),
        (sqlite3.SQLITE_DELETE, "guard_commit_marks", None, "main", None, None),
        (sqlite3.SQLITE_UPDATE, "sqlite_master", "sql", "main", None, None),
        (sqlite3.SQLITE_INSERT, "guard_changes", None, "temp", "guard_update_items", None),
        (sqlite3.SQLITE_INSERT, "sqlite_sequence", None, "temp", "guard_update_items", None),
        (sqlite3.SQLITE_PRAGMA, "recursive_triggers", None, None, None, None),
        (sqlite3.SQLITE_PRAGMA, "table_info", "items", None, None, None),
        (sqlite3.SQLITE_TRANSACTION, "COMMIT", None, None, None, None),
        (sqlite3.SQLITE_INSERT, "notes", None, "main", None, "main.notes"),
        (sqlite3.SQLITE_DELETE, "pets", None, "main", None, "main.pets"),
        (sqlite3.SQLITE_INSERT, "guard_changes", None, "temp", None, "guard_changes"),
        (sqlite3.SQLITE_DELETE, "guard_changes", None, "temp", "app_trigger", "guard_changes"),
        (sqlite3.SQLITE_INSERT, "t", None, "side", None, "side.t"),
        (sqlite3.SQLITE_PRAGMA, "recursive_triggers", "OFF", None, None, "recursive_triggers"),
        (sqlite3.SQLITE_PRAGMA, "journal_mode", "OFF", "main", None, "journal_mode"),
        (sqlite3.SQLITE_DROP_TABLE, "items", None, "main", None, "DROP TABLE items"),
        (sqlite3.SQLITE_ALTER_TABLE, "main", "items", None, None, "ALTER TABLE items"),
        (sqlite3.SQLITE_DROP_TEMP_TRIGGER, "guard_delete_items", "items", "temp", None, "DROP TRIGGER"),
        (sqlite3.SQLITE_ATTACH, ":memory:", None, None, None, "ATTACH"),
    ],
)
def test_sqlite_authorizer_decisions(
    action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None, says: str | None
) -> None:
    """Requirement G25: SQLite's authorizer lets the captured tables, the guard's own tables and its
    triggers' writes through, and refuses schema changes, ATTACH, the capture's pragmas, writes to any
    other table and writes to the change table that are not its triggers'."""
    reason = refusal_of(CAPTURED, action, arg1, arg2, db, trigger)
    if says is None:
        assert reason is None
    else:
        assert reason is not None
        assert says in reason
        assert REFUSED in reason


def test_sqlite_authorizer_refuses_ending_the_transaction_only_while_a_tool_runs() -> None:
    """Requirement G37: BEGIN, COMMIT and ROLLBACK are the guard's own outside a call, and refused inside."""
    calling = Gate(tables=frozenset({"items"}), calling=True)
    for verb in ("BEGIN", "COMMIT", "ROLLBACK"):
        assert refusal_of(CAPTURED, sqlite3.SQLITE_TRANSACTION, verb, None, None, None) is None
        reason = refusal_of(calling, sqlite3.SQLITE_TRANSACTION, verb, None, None, None)
        assert reason is not None
        assert reason.startswith(f"{verb} {REFUSED}")


@pytest.mark.parametrize(
    ("start", "end", "says"),
    [
        (Tally(40), Tally(40), None),
        (Tally(40), Tally(39), None),
        (Tally(40), Tally(43), "changed the schema (3 catalog rows)"),
        (Tally(0), Tally(0, ("notes",)), "wrote notes, which the guard does not capture"),
        (Tally(1), Tally(2, ("notes", "pets")), "changed the schema (1 catalog rows); it wrote notes, pets"),
    ],
)
def test_postgres_tally_refuses_what_the_capture_did_not_see(
    start: Tally, end: Tally, says: str | None
) -> None:
    """Requirement G25: a transaction whose catalog rows changed since it began, or that holds writes to
    tables no capture trigger watches, must not commit; only the difference of two tallies counts (the
    statistics of earlier transactions on the connection are still pending in them)."""
    reason = unjudged(start, end)
    if says is None:
        assert reason is None
    else:
        assert reason is not None
        assert says in reason
