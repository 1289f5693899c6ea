"""The command line: the demo, migrations and the audit log readers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml


def guard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_demo_runs_and_exits_zero() -> None:
    done = guard("demo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BLOCKED" in done.stdout
    assert "ticket 20: status 'solved' while carrier exception for ORD-10000020 is open" in done.stdout
    assert "COMMITTED" in done.stdout
    assert "demo ok" in done.stdout


def test_db_upgrade_is_idempotent_and_transactions_reads_the_log(tmp_path: Path) -> None:
    config = tmp_path / "guard.yaml"
    config.write_text(yaml.safe_dump({"audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"}}))
    for _ in range(2):
        done = guard("db", "upgrade", "--config", str(config))
        assert done.returncode == 0, done.stderr
        assert "is at revision 0002" in done.stdout
    listed = guard("transactions", "--config", str(config), "--json")
    assert json.loads(listed.stdout) == {"transactions": []}
    wrong = guard("transactions", "--config", str(config), "--status", "weird")
    assert wrong.returncode == 2
    assert "unknown status 'weird'" in wrong.stderr
    missing = guard("transactions", "show", "nope", "--config", str(config))
    assert missing.returncode == 2
    assert "no transaction nope" in missing.stderr
