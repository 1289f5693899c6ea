"""Settings: the example file documents every key; the environment overrides the file; errors are clear."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from guard.errors import ConfigError
from guard.settings import GuardSettings, load_settings
from tests.conftest import ROOT


def keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    found = set()
    for name, field in model.model_fields.items():
        annotation: Any = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found |= keys(annotation, f"{prefix}{name}.")
        else:
            found.add(f"{prefix}{name}")
    return found


def flatten(data: dict[str, Any], prefix: str = "") -> set[str]:
    found = set()
    for name, value in data.items():
        if isinstance(value, dict) and value and f"{prefix}{name}" not in {"telemetry.otlp_headers"}:
            found |= flatten(value, f"{prefix}{name}.")
        else:
            found.add(f"{prefix}{name}")
    return found


def test_the_example_documents_every_key_with_its_default() -> None:
    example = ROOT / "deploy" / "guard.example.yaml"
    assert flatten(yaml.safe_load(example.read_text())) == keys(GuardSettings)
    loaded = load_settings(example)
    here = example.parent.resolve()
    assert loaded.judges.base_dir == here
    assert (loaded.backend.url, loaded.audit.url) == (
        f"sqlite:///{here / 'guard-demo.db'}",
        f"sqlite:///{here / 'guard-audit.db'}",
    ), "the file's relative database paths are beside it"
    defaults = GuardSettings()
    beside = {
        "judges": defaults.judges,
        "backend": loaded.backend.model_copy(update={"url": defaults.backend.url}),
        "audit": loaded.audit.model_copy(update={"url": defaults.audit.url}),
    }
    assert loaded.model_copy(update=beside) == defaults


def test_environment_overrides_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "g.yaml"
    config.write_text("commit:\n  max_blocked: 2\n  idle_timeout_s: 9\n")
    monkeypatch.setenv("GUARD_COMMIT__MAX_BLOCKED", "5")
    settings = load_settings(config)
    assert (settings.commit.max_blocked, settings.commit.idle_timeout_s) == (5, 9)


def test_bad_settings_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "g.yaml"
    config.write_text("commit:\n  max_blockd: 2\n")
    with pytest.raises(ConfigError, match=r"commit\.max_blockd: Extra inputs are not permitted"):
        load_settings(config)
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "missing.yaml")


def test_jwt_settings_refuse_what_would_weaken_them() -> None:
    """Requirements G57, G58, G61: HMAC and none are no algorithms of a key set; the resource the metadata
    names is configured, never a request's Host; a limit keyed on a claim the guard does not keep would
    never apply; operators need both the claim and its values."""
    jwt = {"issuer": "https://id.example.com", "audience": "https://guard.example.com/mcp"}
    cases = [
        ({**jwt, "algorithms": ["RS256", "HS256"]}, None, "HS256 not accepted"),
        ({**jwt, "algorithms": ["none"]}, None, "none not accepted"),
        ({**jwt, "audience": "api://guard"}, None, "auth.jwt.resource: set it"),
        ({**jwt, "issuer": "http://id.example.com"}, None, "must be https"),
        ({**jwt, "operator_claim": "groups"}, None, "operator_claim and operator_values together"),
        (jwt, {"principals": [{"match": {"claim": "tier", "value": "x"}, "max_open_per_agent": 1}]}, "tier"),
    ]
    for auth_jwt, limits, message in cases:
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_settings(auth={"jwt": auth_jwt}, limits=limits or {})
    loaded = load_settings(
        auth={"jwt": {**jwt, "audience": "api://guard", "resource": "https://g.example/mcp"}}
    )
    assert loaded.auth.jwt is not None
    assert loaded.auth.jwt.claims[0] == "sub"


def test_the_jwt_example_documents_every_jwt_key_and_loads() -> None:
    """Requirement G57: ``deploy/guard.jwt.example.yaml`` names every key of ``auth.jwt`` with its value, and
    is a configuration the guard loads as it is (a test elsewhere runs it against a local provider)."""
    from guard.settings import JwtSettings

    example = ROOT / "deploy" / "guard.jwt.example.yaml"
    written = yaml.safe_load(example.read_text())["auth"]["jwt"]
    assert set(written) == set(JwtSettings.model_fields)
    loaded = load_settings(example)
    assert loaded.auth.jwt is not None
    assert loaded.auth.jwt.operators
    assert loaded.judges.chain
