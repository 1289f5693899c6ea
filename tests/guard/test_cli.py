"""The command line: what reading it imports, plugin commands, the demo, migrations, the audit log readers,
where a config file's databases are, and how ``guard serve`` starts and fails to start."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from mcp import Client

from guard.audit.log import CallEntry, CommitEntry, TxnRecord
from guard.store.engine import create_engine
from guard.store.migrate import head_revision, upgrade
from guard.store.sql_audit import SqlAudit
from guard.transaction.state import CommitStatus, Status
from judges import Decision
from tests.guard.conftest import free_port, wait_until_ready

# what no command needs to read its command line: the benchmark plugin, the MCP SDK, the databases, the web
HEAVY = frozenset({"benchmark", "mcp", "alembic", "sqlalchemy", "fastapi", "cel", "judges.rules"})

# What an agent can put in any text the audit log keeps: rich markup (a closing tag with nothing open,
# a style), an ANSI colour sequence, a one-character CSI (C1) and a right-to-left override.
HOSTILE = "a [/] b [bold red]x[/] c \x1b[31mred\x9b2J d \u202eevil"
# ...and how the operator CLI shows it: the markup as it is, each control character as an escape
SHOWN = "a [/] b [bold red]x[/] c \\x1b[31mred\\x9b2J d \\u202eevil"
SHOWN_IN_ARGUMENTS = "a [/] b [bold red]x[/] c \\u001b[31mred\\x9b2J d \\u202eevil"


def guard(
    *args: str, cwd: Path | None = None, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def write_config(tmp_path: Path, **sections: Any) -> Path:
    config = tmp_path / "guard.yaml"
    settings = {"audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"}, **sections}
    config.write_text(yaml.safe_dump(settings))
    return config


def demo_backend(tmp_path: Path) -> dict[str, Any]:
    return {"module": "guard.demo.backend", "url": f"sqlite:///{tmp_path / 'shop.db'}", "prepare": True}


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a failed command printed; fails unless that is all it printed."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), done.stderr
    return lines[0]


def only_printable(output: str) -> bool:
    return all(ch.isprintable() or ch == "\n" for ch in output)


def imports(
    *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``python -X importtime -m guard ARGS``: what it did, and the top-level packages it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "guard", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )
    names = {
        line.rpartition("|")[2].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    return done, {name.partition(".")[0] for name in names}


def test_help_imports_no_plugin_and_no_server_library() -> None:
    """``guard --help`` and ``guard transactions --help`` read no more than their command line: neither the
    benchmark (its commands are listed from entry-point metadata) nor mcp, alembic, SQLAlchemy, FastAPI
    or the rule engine (``judges`` loads its names as they are used); the benchmark's commands load, with
    all their options, when they run."""
    done, imported = imports("--help")
    assert done.returncode == 0, done.stderr
    assert imported & HEAVY == set()
    listed = [line.split()[0] for line in done.stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert listed[:5] == ["demo", "serve", "tools", "db", "transactions"]
    assert {"bench", "report"} <= set(listed[4:]), "the benchmark's commands, listed from their entry points"
    assert "From benchmark: guard bench --help shows its options." in done.stdout

    done, imported = imports("transactions", "--help")
    assert done.returncode == 0, done.stderr
    assert imported & HEAVY == set()
    assert all(status.value in done.stdout for status in Status)

    for command, options in (
        ("bench", ("--data", "--trials", "--arms", "serve")),
        ("report", ("--html", "--json")),
    ):
        done, imported = imports(command, "--help")
        assert done.returncode == 0, done.stderr
        assert all(option in done.stdout for option in options), done.stdout
        assert "benchmark" in imported


def test_judges_names_load_when_used_and_mean_what_they_did() -> None:
    """``judges`` exports lazily; a name that is also a submodule's is still the function after anything
    imported that submodule (``guard.errors`` imports ``judges.classify``)."""
    code = (
        "import sys, guard.errors, judges.classify\n"
        "from judges import classify, RulePack, Effect\n"
        "assert callable(classify) and classify.__module__ == 'judges.classify', classify\n"
        "assert RulePack.__module__ == 'judges.rules.pack' and Effect.__module__ == 'judges.effects'\n"
        "import judges\n"
        "assert set(judges.__all__) <= set(dir(judges))\n"
        "assert not hasattr(judges, 'nothing_of_the_kind')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def plugins(tmp_path: Path) -> dict[str, str]:
    """The environment of an installed package that adds two commands: ``hello`` (a command function) and
    ``broken`` (whose module is missing)."""
    site = tmp_path / "site"
    info = site / "guard_test_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: guard-test-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[guard.cli]\nhello = guard_test_plugin:hello\nbroken = guard_test_plugin_gone:command\n"
    )
    (site / "guard_test_plugin.py").write_text(
        "import typer\n\n\n"
        "def hello(name: str = typer.Option('world', help='Whom to greet.')) -> None:\n"
        "    typer.echo(f'hello {name}')\n"
    )
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


def test_plugin_commands_are_named_by_their_entry_points_and_load_when_run(plugins: dict[str, str]) -> None:
    """Requirement G27: a failure is one line and a documented exit code (a plugin command that cannot
    load fails only when it runs; the others are unaffected)."""
    done, imported = imports("--help", env=plugins)
    assert done.returncode == 0, done.stderr
    assert "hello         From guard_test_plugin: guard hello --help shows its options." in done.stdout
    assert "broken" in done.stdout
    assert "guard_test_plugin" not in imported

    hello = guard("hello", "--name", "plugin", env=plugins)
    assert (hello.returncode, hello.stdout, hello.stderr) == (0, "hello plugin\n", "")
    assert "--name <str>  Whom to greet." in guard("hello", "--help", env=plugins).stdout

    broken = guard("broken", env=plugins)
    assert broken.returncode == 1
    assert one_error_line(broken) == (
        "error: the 'broken' command could not load: "
        "ModuleNotFoundError: No module named 'guard_test_plugin_gone'"
    )


def test_sqlite_files_named_in_a_config_file_are_beside_it(tmp_path: Path) -> None:
    """A relative SQLite path in a config file resolves against the file's directory, wherever the command
    runs and however the file is named; one from the environment against the working directory."""
    conf, elsewhere = tmp_path / "conf", tmp_path / "elsewhere"
    conf.mkdir()
    elsewhere.mkdir()
    config = conf / "guard.yaml"
    config.write_text(
        yaml.safe_dump({"audit": {"url": "sqlite:///audit.db"}, "backend": {"url": "sqlite:///data/shop.db"}})
    )
    wide = {"COLUMNS": "400"}
    done = guard("db", "upgrade", "--config", str(config), cwd=elsewhere, env=wide)
    assert done.returncode == 0, done.stderr
    assert f"audit store sqlite:///{conf / 'audit.db'} is at revision" in done.stdout
    assert (conf / "audit.db").is_file()
    assert list(elsewhere.iterdir()) == []

    listed = guard("transactions", "--config", "../conf/guard.yaml", "--json", cwd=elsewhere)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {"transactions": []}

    from_env = {"GUARD_AUDIT__URL": "sqlite:///env-audit.db", **wide}
    done = guard("db", "upgrade", "--config", str(config), cwd=elsewhere, env=from_env)
    assert done.returncode == 0, done.stderr
    assert (elsewhere / "env-audit.db").is_file()


def _quick_start() -> list[list[str]]:
    """The commands of the README's quick start (the block after "Serve it in front of the bundled demo
    tools"), as a user would type them, comments dropped."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = readme.split("Serve it in front of the bundled demo tools", 1)[1].split("```bash\n", 1)[1]
    lines = block.split("```", 1)[0].splitlines()
    return [line.split("#", 1)[0].split() for line in lines if line.strip()]


async def test_the_readme_quick_start_works_as_written(tmp_path: Path) -> None:
    """Requirement G27: the README's quick start, run as written from a checkout's root (here a copy of its
    demo config): the database files land where the README says, and every command finds them."""
    upgrade_cmd, serve_cmd, list_cmd = _quick_start()
    assert [c[:2] for c in (upgrade_cmd, serve_cmd, list_cmd)] == [
        ["guard", "db"],
        ["guard", "serve"],
        ["guard", "transactions"],
    ]
    (tmp_path / "deploy").mkdir()
    shipped = Path(__file__).resolve().parents[2] / "deploy" / "guard.demo.yaml"
    (tmp_path / "deploy" / "guard.demo.yaml").write_text(shipped.read_text())
    done = guard(*upgrade_cmd[1:], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "deploy" / "guard-audit.db").is_file(), "where the README says"
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "guard", *serve_cmd[1:], "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_ready(process, port, lambda: process.communicate()[1])
        async with Client(f"http://127.0.0.1:{port}/mcp/t/quick-1") as agent:
            await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
            blocked = await agent.call_tool("guard_commit", {"summary": "solved ticket 20"})
        assert blocked.is_error
    finally:
        process.terminate()
        process.communicate(timeout=60)
    listed = guard(*list_cmd[1:], "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [t["id"] for t in json.loads(listed.stdout)["transactions"]] == ["quick-1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deploy"], "nothing lands in the working directory"


def test_demo_runs_and_exits_zero() -> None:
    done = guard("demo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BLOCKED" in done.stdout
    assert "ticket 20: status 'solved' while carrier exception for ORD-10000020 is open" in done.stdout
    assert "COMMITTED" in done.stdout
    assert "demo ok" in done.stdout


def test_db_upgrade_is_idempotent_and_transactions_reads_the_log(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    for _ in range(2):
        done = guard("db", "upgrade", "--config", str(config))
        assert done.returncode == 0, done.stderr
        assert f"is at revision {head_revision()}" in done.stdout
    listed = guard("transactions", "--config", str(config), "--json")
    assert json.loads(listed.stdout) == {"transactions": []}
    wrong = guard("transactions", "--config", str(config), "--status", "weird")
    assert wrong.returncode == 2
    assert "unknown status 'weird'" in one_error_line(wrong)
    missing = guard("transactions", "show", "nope", "--config", str(config))
    assert missing.returncode == 2
    assert "no transaction nope" in one_error_line(missing)


# -- agent text is printed as text ----------------------------------------------------------


@pytest.fixture
async def hostile_log(tmp_path: Path) -> Path:
    """A migrated audit store holding one transaction whose every agent-written text is :data:`HOSTILE`."""
    config = write_config(tmp_path)
    engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
    audit = SqlAudit(engine)
    now = datetime.now(UTC)
    record = TxnRecord(
        id="t-1",
        principal="agent-a",
        instance="guard-1",
        backend="shop",
        status=Status.OPEN,
        opened_at=now,
        updated_at=now,
    )
    try:
        await upgrade(engine)
        await audit.open_transaction(record)
        await audit.record_call(
            CallEntry(
                transaction_id="t-1",
                seq=1,
                tool="update_ticket",
                arguments={"note": HOSTILE},
                write=True,
                outcome="ok",
                error_class=None,
                error_message=None,
                retries=0,
                latency_ms=1.5,
                started_at=now,
            )
        )
        finding = {"severity": "error", "message": HOSTILE, "hint": HOSTILE, "judge": "rules"}
        effect = {"kind": "update", "table": "tickets", "key": HOSTILE, "changed_fields": ["status"]}
        closed = replace(
            record,
            status=Status.ROLLED_BACK,
            closed_at=now,
            close_reason=HOSTILE,
            calls=1,
            blocked_attempts=1,
            summary=HOSTILE,
        )
        attempt = CommitEntry(
            transaction_id="t-1",
            attempt=1,
            via="tool",
            decision=Decision.BLOCK,
            status=CommitStatus.BLOCKED,
            findings=[finding],
            effects=[effect],
            summary=HOSTILE,
            at=now,
            duration_ms=2.0,
        )
        await audit.record_commit(attempt, closed)
    finally:
        await audit.close()
        await engine.dispose()
    return config


def test_transactions_lists_agent_text_verbatim_and_never_interprets_it(hostile_log: Path) -> None:
    """Requirement G28: the operator CLI prints agent text as text: markup and terminal escapes in it are
    shown, never interpreted (the list, as a table and as JSON)."""
    listed = guard("transactions", "--config", str(hostile_log), env={"COLUMNS": "400"})
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr == ""
    assert SHOWN in listed.stdout
    assert only_printable(listed.stdout)

    as_json = guard("transactions", "--config", str(hostile_log), "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert only_printable(as_json.stdout)
    (record,) = json.loads(as_json.stdout)["transactions"]
    assert record["close_reason"] == HOSTILE
    assert record["summary"] == HOSTILE


def test_transactions_show_prints_agent_text_verbatim_and_never_interprets_it(hostile_log: Path) -> None:
    """Requirement G28: the operator CLI prints agent text as text: markup and terminal escapes in it are
    shown, never interpreted (one transaction: reason, summaries, findings, effects, arguments)."""
    shown = guard("transactions", "show", "t-1", "--config", str(hostile_log), env={"COLUMNS": "400"})
    assert shown.returncode == 0, shown.stderr
    assert shown.stderr == ""
    assert only_printable(shown.stdout)
    lines = shown.stdout.splitlines()
    assert lines[1].endswith(f"  {SHOWN}")
    assert f"summary: {SHOWN}" in lines
    assert f"   summary: {SHOWN}" in lines
    assert f"   - [error] {SHOWN} ({SHOWN})" in lines
    assert f"   ~ update tickets/{SHOWN}: status" in lines
    assert f'{{"note": "{SHOWN_IN_ARGUMENTS}"}}' in shown.stdout

    as_json = guard("transactions", "show", "t-1", "--config", str(hostile_log), "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert only_printable(as_json.stdout)
    detail = json.loads(as_json.stdout)
    assert detail["close_reason"] == detail["summary"] == HOSTILE
    assert detail["call_log"][0]["arguments"] == {"note": HOSTILE}
    (attempt,) = detail["commit_log"]
    assert attempt["summary"] == attempt["findings"][0]["message"] == attempt["effects"][0]["key"] == HOSTILE


# -- start-up failures: one line and a documented exit code ---------------------------------

SERVE_MODES = [pytest.param(["--stdio"], id="stdio"), pytest.param([], id="http")]


def serve(config: Path, mode: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    return guard("serve", "--config", str(config), "--port", str(free_port()), *mode, *extra, timeout=60)


def migrated(config: Path) -> Path:
    done = guard("db", "upgrade", "--config", str(config))
    assert done.returncode == 0, done.stderr
    return config


@pytest.mark.parametrize("mode", SERVE_MODES)
def test_serve_with_a_broken_rule_file_is_one_line_and_exit_2(tmp_path: Path, mode: list[str]) -> None:
    """Requirement G27: every start-up failure is one line naming the problem and a documented exit code,
    and nothing is created or changed (a rule file that is not valid YAML)."""
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - id: x\n    when: {table: t\n")
    config = write_config(tmp_path, judges={"chain": [{"judge": "rules", "path": str(rules)}]})
    done = serve(config, mode)
    assert done.returncode == 2
    line = one_error_line(done)
    assert str(rules) in line
    assert "not valid YAML" in line
    assert not (tmp_path / "audit.db").exists()
    debug = guard("--debug", "serve", "--config", str(config), *mode, timeout=60)
    assert debug.returncode == 2
    assert "ConfigError" in debug.stderr
    assert len(debug.stderr.splitlines()) > 1


@pytest.mark.parametrize("mode", SERVE_MODES)
@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(
            {"module": "guard.demo.backend", "url": "postgresql://postgres:s3cret-pw@127.0.0.1:1/x"},
            id="postgresql",
        ),
        pytest.param({"kind": "mcp", "mcp": {"command": "/nonexistent/mcp-server"}}, id="mcp-command"),
    ],
)
def test_serve_with_an_unreachable_backend_is_one_line_and_exit_4(
    tmp_path: Path, mode: list[str], backend: dict[str, Any]
) -> None:
    """Requirement G27: every start-up failure is one line naming the problem and a documented exit code,
    and nothing is created or changed (the system of record or the upstream cannot be reached)."""
    config = migrated(write_config(tmp_path, backend=backend))
    done = serve(config, mode)
    assert done.returncode == 4
    line = one_error_line(done)
    assert "s3cret-pw" not in done.stderr
    if backend.get("kind") == "mcp":
        assert "/nonexistent/mcp-server" in line
    else:
        assert "postgresql://postgres:***@127.0.0.1:1/x" in line
        # asyncio's words (stdio) or the OS's (uvloop, serving HTTP)
        assert "Connect call failed" in line or "Connection refused" in line


@pytest.mark.parametrize("mode", SERVE_MODES)
def test_serve_without_a_migrated_audit_store_is_one_line_and_exit_3(tmp_path: Path, mode: list[str]) -> None:
    """Requirement G27: every start-up failure is one line naming the problem and a documented exit code,
    and nothing is created or changed (the audit store is missing, or there but not migrated)."""
    config = write_config(tmp_path)
    missing = serve(config, mode)
    assert missing.returncode == 3
    assert f"no audit database at {tmp_path / 'audit.db'}" in one_error_line(missing)
    assert not (tmp_path / "audit.db").exists()

    with sqlite3.connect(tmp_path / "audit.db") as db:
        db.execute("CREATE TABLE unrelated (x)")
    not_migrated = serve(config, mode)
    assert not_migrated.returncode == 3
    assert "is not migrated" in one_error_line(not_migrated)

    unreachable = write_config(tmp_path, audit={"url": "postgresql://postgres:s3cret-pw@127.0.0.1:1/x"})
    done = serve(unreachable, mode)
    assert done.returncode == 3
    line = one_error_line(done)
    assert "cannot reach the audit store at postgresql" in line
    assert "postgres:***@127.0.0.1:1/x" in line
    assert "s3cret-pw" not in done.stderr


@pytest.mark.parametrize("command", [["transactions"], ["transactions", "show", "t-1"]])
def test_reading_the_log_where_there_is_none_is_exit_3_and_creates_nothing(
    tmp_path: Path, command: list[str]
) -> None:
    """Requirement G27: every start-up failure is one line naming the problem and a documented exit code,
    and nothing is created or changed (no audit database where the default settings look)."""
    done = guard(*command, cwd=tmp_path)
    assert done.returncode == 3
    line = one_error_line(done)
    assert f"no audit database at {tmp_path / 'guard-audit.db'}" in line
    assert "guard db upgrade" in line
    assert list(tmp_path.iterdir()) == []


def test_serve_on_a_port_in_use_is_one_line_and_exit_5(tmp_path: Path) -> None:
    """Requirement G27: every start-up failure is one line naming the problem and a documented exit code,
    and nothing is created or changed (the address is taken: the backend is not even prepared)."""
    config = migrated(
        write_config(
            tmp_path,
            backend={
                "module": "guard.demo.backend",
                "url": f"sqlite:///{tmp_path / 'shop.db'}",
                "prepare": True,
            },
        )
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = guard("serve", "--config", str(config), "--port", str(port), timeout=60)
    assert done.returncode == 5
    assert f"cannot listen on 127.0.0.1:{port}" in one_error_line(done)
    assert not (tmp_path / "shop.db").exists()


def test_debug_shows_the_traceback_and_keeps_the_documented_exit_code(tmp_path: Path) -> None:
    """Requirement G27: ``--debug`` adds the traceback; the exit code a script reads stays (2, 3, 4, 5)."""
    for folder in ("broken", "unreachable", "fine"):
        (tmp_path / folder).mkdir()
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: [")
    broken = write_config(tmp_path / "broken", judges={"chain": [{"judge": "rules", "path": str(rules)}]})
    backend = {"module": "guard.demo.backend", "url": "postgresql://postgres@127.0.0.1:1/x"}
    unreachable = migrated(write_config(tmp_path / "unreachable", backend=backend))
    fine = migrated(write_config(tmp_path / "fine", backend=demo_backend(tmp_path / "fine")))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        cases = [
            (["serve", "--config", str(broken)], 2),
            (["transactions", "show", "no-such-id", "--config", str(fine)], 2),
            (["transactions", "--config", str(tmp_path / "missing.yaml")], 2),
            (["transactions"], 3),
            (["serve", "--stdio", "--config", str(unreachable)], 4),
            (["serve", "--config", str(fine), "--port", port], 5),
        ]
        for args, code in cases:
            plain, debug = (
                guard(*args, cwd=tmp_path, timeout=60),
                guard("--debug", *args, cwd=tmp_path, timeout=60),
            )
            assert (plain.returncode, debug.returncode) == (code, code), (args, debug.stderr[-3000:])
            one_error_line(plain)
            shown = debug.stderr.splitlines()
            assert sum(line.startswith("error: ") for line in shown) == 1, (args, debug.stderr)
            if code != 2 or args[0] == "serve":
                assert "Traceback" in debug.stderr, (args, debug.stderr)


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int, Path]]:
    port = free_port()
    config = migrated(
        write_config(
            tmp_path,
            server={"port": port},
            backend={
                "module": "guard.demo.backend",
                "url": f"sqlite:///{tmp_path / 'shop.db'}",
                "prepare": True,
            },
        )
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "guard", "serve", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_ready(process, port, lambda: process.communicate()[1])
        yield process, port, config
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def test_serve_prints_where_mcp_and_the_admin_api_are(
    serving: tuple[subprocess.Popen[str], int, Path],
) -> None:
    """Once it serves, ``guard serve`` says on stderr where MCP and the admin API are."""
    process, port, _ = serving
    assert process.stderr is not None
    base = f"http://127.0.0.1:{port}"
    banner = process.stderr.readline()
    assert banner.startswith(
        f"guard: MCP at {base}/mcp, admin API at {base} (/transactions, /healthz, /readyz), "
    )
    assert httpx2.get(f"{base}/transactions", timeout=10).json() == {"transactions": []}
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)


async def test_serve_stops_the_runtime_on_sigterm_before_it_exits(
    serving: tuple[subprocess.Popen[str], int, Path],
) -> None:
    """``guard serve`` starts and stops the runtime itself, around uvicorn: on SIGTERM it still stops
    it (the open transaction is rolled back, and logged so) and exits 0, with no traceback."""
    process, port, config = serving
    async with Client(f"http://127.0.0.1:{port}/mcp/t/k-1") as client:
        ticket = await client.call_tool("get_ticket", {"ticket_id": 20})
    assert not ticket.is_error
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    listed = json.loads(guard("transactions", "--config", str(config), "--json").stdout)
    assert [(t["id"], t["status"]) for t in listed["transactions"]] == [("k-1", "rolled_back")]


def test_transactions_lists_ids_whole_at_any_width(tmp_path: Path) -> None:
    """Requirement G56: a long id is never cut in the list, even on an 80-column terminal, and the time
    carries its zone."""
    long_id = "order-2025-10-01-customer-7781-refund-and-reship"
    config = tmp_path / "guard.yaml"
    config.write_text(f"audit: {{url: 'sqlite:///{tmp_path / 'audit.db'}'}}\n")

    async def write() -> None:
        engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
        await upgrade(engine)
        audit = SqlAudit(engine)
        try:
            now = datetime(2025, 10, 1, 13, tzinfo=UTC)
            await audit.open_transaction(TxnRecord.opened(long_id, "agent-a", "guard-1", "demo", now))
        finally:
            await audit.close()
            await engine.dispose()

    asyncio.run(write())
    listed = guard("transactions", "--config", str(config), env={"COLUMNS": "80"})
    assert listed.returncode == 0, listed.stderr
    assert long_id in listed.stdout
    assert "UTC" in listed.stdout


def test_transactions_show_names_the_principal_and_its_claims(tmp_path: Path) -> None:
    """Requirement G60: ``guard transactions show`` prints the agent and the claims kept from its token,
    as the audit store holds them (SQLite here; the claims column is migration 0006)."""
    config = tmp_path / "guard.yaml"
    config.write_text(f"audit: {{url: 'sqlite:///{tmp_path / 'audit.db'}'}}\n")
    claims = {"sub": "billing-bot", "roles": ["support-lead"]}

    async def write() -> None:
        engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
        await upgrade(engine)
        audit = SqlAudit(engine)
        try:
            now = datetime(2025, 10, 1, 13, tzinfo=UTC)
            await audit.open_transaction(
                TxnRecord.opened("jwt-1", "billing-bot", "guard-1", "demo", now, claims)
            )
        finally:
            await audit.close()
            await engine.dispose()

    asyncio.run(write())
    shown = guard("transactions", "show", "jwt-1", "--config", str(config))
    assert shown.returncode == 0, shown.stderr
    assert "agent=billing-bot" in shown.stdout
    assert 'claims: sub="billing-bot"  roles=["support-lead"]' in shown.stdout
    as_json = json.loads(guard("transactions", "show", "jwt-1", "--config", str(config), "--json").stdout)
    assert as_json["claims"] == claims
