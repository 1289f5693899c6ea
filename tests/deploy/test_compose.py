"""deploy/compose.yaml offline: valid by the Compose Specification's schema, and as compose resolves it.

The schema is the one ``check-jsonschema`` vendors (``vendor.compose-spec``, the schema Docker Compose v2
validates against). ``docker-compose config`` (Debian's docker-compose; it parses, it needs no Docker
engine) resolves interpolation, merge keys and defaults as compose does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.deploy import compose
from tests.deploy.conftest import DEPLOY, clean_env, require_compose

INPUTS = {"POSTGRES_PASSWORD": "pw-1", "GUARD_AGENT_TOKEN": "agent-1", "GUARD_OPERATOR_TOKEN": "operator-1"}


def _schema_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_compose_file_matches_the_compose_specification(tmp_path: Path) -> None:
    """Requirement G31: deploy/compose.yaml is valid by the Compose Specification's schema (and a typo in a
    service's key is not)."""
    done = _schema_check(DEPLOY / "compose.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    typo = tmp_path / "compose.yaml"
    typo.write_text((DEPLOY / "compose.yaml").read_text().replace("read_only: true", "read_onyl: true"))
    refused = _schema_check(typo)
    assert refused.returncode == 1
    assert "read_onyl" in refused.stdout


def _config(env: dict[str, str], env_file: Path) -> subprocess.CompletedProcess[str]:
    """``docker-compose config`` with ``env`` and no .env file (a developer's deploy/.env is not read)."""
    env_file.write_text("")
    files = [
        "--project-directory",
        str(DEPLOY),
        "--env-file",
        str(env_file),
        "-f",
        str(DEPLOY / "compose.yaml"),
    ]
    return subprocess.run(
        [require_compose(), *files, "config"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean_env(), **env},
        check=False,
    )


def test_compose_resolves_tokens_from_the_environment_and_publishes_on_loopback_only(tmp_path: Path) -> None:
    """Requirements G18, G31: compose resolves the file with the tokens and database password from the
    environment (as the tests' own reading does), publishes the guard on the host's loopback only, runs
    it hardened, and refuses to start without a token."""
    done = _config(INPUTS, tmp_path / "empty.env")
    assert done.returncode == 0, done.stderr
    resolved: dict[str, Any] = yaml.safe_load(done.stdout)["services"]
    guard = resolved["guard"]
    assert guard["ports"]
    assert all(str(port).startswith("127.0.0.1:") for port in guard["ports"])
    assert guard["environment"]["GUARD_AUTH__AGENT_TOKENS"] == '{"agent-1": "demo-agent"}'
    assert guard["environment"]["GUARD_AUTH__OPERATOR_TOKENS"] == '["operator-1"]'
    assert guard["read_only"] is True
    assert guard["cap_drop"] == ["ALL"]
    assert guard["user"] == "10001:10001"
    ours = compose.load(DEPLOY / "compose.yaml", INPUTS)["services"]
    for name in ("guard", "migrate"):
        assert ours[name]["environment"] == resolved[name]["environment"], name
        assert ours[name]["command"] == resolved[name]["command"], name
    missing = _config({k: v for k, v in INPUTS.items() if k != "GUARD_AGENT_TOKEN"}, tmp_path / "empty.env")
    assert missing.returncode != 0
    assert "GUARD_AGENT_TOKEN" in missing.stderr
