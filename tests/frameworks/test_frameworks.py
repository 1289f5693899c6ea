"""Agent frameworks as clients of ``guard serve`` over streamable HTTP, each in its own environment.

Each framework's script (``agents/``) runs with its environment's python (built once per session by
:mod:`tests.frameworks.build`) against a ``guard serve`` subprocess on the demo backend, and prints what
its model saw. The task: a write (ticket 20 to ``solved``), a commit the rules block, a repair
(``pending`` with a note), an allowed commit. Asserted: the blocked commit reached the model as a tool
result it could act on (flagged as an error where the framework has a flag) and the run went on; the
guard's audit log holds the write in that transaction and both attempts; the system of record holds the
repaired ticket (Requirement G1, G2). Each script hands the guard the conversation in a small helper of
its framework's own (``HandOver``): the audit log holds the user's question with the first call, and a
judge that reads the conversation (``tests.guard.sample_judges:Heard``) saw it; a client that hands none
over leaves the judges None (Requirement G44). An environment that cannot be built (no package registry)
skips with pip's words, unless ``GUARD_REQUIRE_FRAMEWORKS=1`` (``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml

from tests.frameworks.build import FRAMEWORKS, BuildFailed, Framework, build_all
from tests.guard.conftest import free_port, wait_until_ready

BLOCKED = "blocked, nothing was committed: ticket 20: status 'solved' while carrier exception"
TASK = ["get_ticket", "update_ticket", "guard_commit", "update_ticket", "guard_commit"]
QUESTION = "Ticket 20: the customer asks about their package."
HEARD = "heard"
JUDGES = {"chain": [{"judge": "python", "target": "tests.guard.sample_judges:Heard"}]}
# Whether the framework shows the model an ``isError`` result as failed (pydantic-ai: a retried tool
# return; LangChain: ``ToolMessage(status="error")``); the Agents SDK hands the model the text alone.
FLAGS_ERRORS = {"pydantic_ai": True, "openai_agents": False, "langchain": True}
_RUN_TIMEOUT_S = 180


@dataclass(frozen=True)
class Served:
    url: str
    admin: str
    shop: Path


@pytest.fixture(scope="session")
def framework_pythons() -> dict[str, Path | BuildFailed]:
    return build_all()


def _python(pythons: dict[str, Path | BuildFailed], framework: Framework) -> Path:
    python = pythons[framework.name]
    if isinstance(python, Path):
        return python
    if os.environ.get("GUARD_REQUIRE_FRAMEWORKS") == "1":
        pytest.fail(f"the {framework.name} environment is required (GUARD_REQUIRE_FRAMEWORKS=1): {python}")
    pytest.skip(f"the {framework.name} environment could not be built: {python}")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One ``guard serve`` on the demo backend for the module, stopped by SIGTERM at its end.

    Shared to spare each test a start (seconds): every test uses its own transaction key, and every
    task ends with ticket 20 committed as ``pending``, which the next task again sets to ``solved``.
    """
    tmp_path = tmp_path_factory.mktemp("guard")
    port = free_port()
    shop = tmp_path / "shop.db"
    config = tmp_path / "guard.yaml"
    backend = {"module": "guard.demo.backend", "url": f"sqlite:///{shop}", "prepare": True}
    audit = {"url": f"sqlite:///{tmp_path / 'audit.db'}"}
    settings = {"server": {"port": port}, "backend": backend, "audit": audit, "judges": JUDGES}
    config.write_text(yaml.safe_dump(settings))
    guard = [sys.executable, "-m", "guard"]
    upgraded = subprocess.run(
        [*guard, "db", "upgrade", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert upgraded.returncode == 0, upgraded.stderr
    with subprocess.Popen(
        [*guard, "serve", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            wait_until_ready(process, port, lambda: process.communicate()[1])
            yield Served(f"http://127.0.0.1:{port}/mcp", f"http://127.0.0.1:{port}", shop)
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=60)
            assert process.returncode == 0, stderr
        finally:
            if process.poll() is None:
                process.kill()


def _run(python: Path, framework: Framework, served: Served, *args: str) -> dict[str, Any]:
    """The framework script's summary (its last stdout line); its exit code must be 0."""
    done = subprocess.run(
        [str(python), str(framework.script_path), served.url, *args],
        capture_output=True,
        text=True,
        timeout=_RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return summary


def _transaction(served: Served, key: str) -> dict[str, Any]:
    response = httpx2.get(f"{served.admin}/transactions/{key}", timeout=10)
    assert response.status_code == 200, response.text
    record: dict[str, Any] = response.json()
    return record


def _ticket(shop: Path, ticket_id: int) -> tuple[str, str | None]:
    with sqlite3.connect(shop) as conn:
        status, note = conn.execute("select status, note from tickets where id = ?", (ticket_id,)).fetchone()
    return status, note


def _assert_task(summary: dict[str, Any], flags_errors: bool) -> None:
    """What the model saw: the task's five results, the first commit blocked and the run going on."""
    seen = summary["seen"]
    assert [s["tool"] for s in seen] == TASK, seen
    write, blocked, repair, allowed = seen[1], seen[2], seen[3], seen[4]
    assert not write["is_error"]
    assert '"solved"' in write["text"]
    assert BLOCKED in blocked["text"]
    assert blocked["is_error"] is flags_errors
    assert not repair["is_error"]
    assert '"pending"' in repair["text"]
    assert not allowed["is_error"]
    assert '"committed"' in allowed["text"]
    assert summary["final"].startswith("done: ")


def _assert_heard(record: dict[str, Any], conversation: bool) -> None:
    """The conversation in the log (the question with the first call, nothing said after it) and what the
    judge read of it at each attempt; or, when none was handed over, nothing in the log and a judge that
    did not decide."""
    calls, attempts = record["call_log"], record["commit_log"]
    heard = [[f["message"] for f in a["findings"] if f["judge"] == HEARD] for a in attempts]
    if not conversation:
        assert [c["turns"] for c in calls] == [None, None, None]
        assert [a["turns"] for a in attempts] == [None, None]
        assert heard == [["no conversation was handed over"]] * 2
        return
    (first,) = calls[0]["turns"]
    assert first["role"] == "user"
    assert first["text"].startswith(QUESTION)
    assert [c["turns"] for c in calls[1:]] == [[], []]
    assert [a["turns"] for a in attempts] == [[], []]
    said = f"the user said first: {first['text']}"
    assert heard == [
        [f"1 turn(s) before calls [1, 0]; {said}"],
        [f"1 turn(s) before calls [1, 0, 0]; {said}"],
    ]


def _assert_audited(served: Served, key: str, *, conversation: bool = True) -> None:
    """The guard's own record: the write in this transaction, one blocked attempt, then the commit."""
    record = _transaction(served, key)
    _assert_heard(record, conversation)
    assert record["status"] == "committed"
    calls = [(c["tool"], c["arguments"].get("status"), c["write"], c["outcome"]) for c in record["call_log"]]
    assert calls == [
        ("get_ticket", None, False, "ok"),
        ("update_ticket", "solved", True, "ok"),
        ("update_ticket", "pending", True, "ok"),
    ]
    assert [(a["decision"], a["status"]) for a in record["commit_log"]] == [
        ("block", "blocked"),
        ("allow", "committed"),
    ]
    status, note = _ticket(served.shop, 20)
    assert status == "pending"
    assert note is not None
    assert "carrier" in note


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda f: f.name)
def test_framework_runs_the_task_through_the_guard(
    framework: Framework, framework_pythons: dict[str, Path | BuildFailed], served: Served
) -> None:
    """Requirement G1 and G2, with a framework's own MCP client and model loop: the blocked commit is a
    tool result the model acts on, the repair and the second commit go through, the repaired ticket stays;
    Requirement G44: the framework's host hands the guard the conversation, audited and read by a judge."""
    python = _python(framework_pythons, framework)
    key = f"{framework.name.replace('_', '-')}-1"
    summary = _run(python, framework, served, key)
    assert summary["transaction"] == key
    _assert_task(summary, FLAGS_ERRORS[framework.name])
    if framework.name == "openai_agents":
        # The SDK received the flag and kept it from the model; only the guard's words tell it.
        assert summary["sdk_errors"] == [False, False, True, False, False]
    if framework.name == "langchain":
        # The 1.x client: the handshake with a dated protocol version, a new session per tool call.
        assert summary["protocol_versions"] == ["2025-11-25"]
        assert summary["sessions"] == 1 + len(TASK)
        assert summary["sessions_ended"] == summary["sessions"]
    _assert_audited(served, key)


@pytest.mark.parametrize("protocol", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_a_legacy_session_names_its_transaction(
    protocol: str, framework_pythons: dict[str, Path | BuildFailed], served: Served
) -> None:
    """Requirement G1 and G2 for a handshake-era client that sends no key at all: LangChain's adapters on
    one MCP 1.x session (``MultiServerMCPClient.session``), offering the protocol versions such clients
    offer; the guard keys the transaction ``session-<Mcp-Session-Id>``. It hands no conversation over: the
    judge that reads one does not decide (Requirement G44)."""
    (framework,) = [f for f in FRAMEWORKS if f.name == "langchain"]
    python = _python(framework_pythons, framework)
    summary = _run(python, framework, served, "-", "--session", "--protocol", protocol)
    assert summary["protocol_versions"] == [protocol]
    assert summary["sessions"] == summary["sessions_ended"] == 1
    key = summary["transaction"]
    assert key.startswith("session-")
    _assert_task(summary, flags_errors=True)
    _assert_audited(served, key, conversation=False)
