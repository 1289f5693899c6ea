"""What compose makes of deploy/compose.yaml, for the deploy tests: interpolation and a service's settings.

:func:`interpolate` follows the compose file reference: ``$$`` is ``$``; ``${VAR}`` and ``$VAR`` are the
variable (empty when unset); ``${VAR:-default}`` / ``${VAR-default}`` give a default when unset (``:``
also when empty); ``${VAR:?message}`` / ``${VAR?message}`` are errors when unset (``:`` also when empty).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tests.deploy.pod import Confinement

__all__ = ["MissingVariable", "confinement", "interpolate", "load"]

_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
    r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)


class MissingVariable(ValueError):
    """A ``${VAR:?message}`` whose variable is unset (or empty)."""


def _one(match: re.Match[str], env: Mapping[str, str]) -> str:
    if match.group("escaped"):
        return "$"
    name = match.group("braced") or match.group("bare")
    value = env.get(name)
    op = match.group("op")
    missing = value is None or (op is not None and op.startswith(":") and value == "")
    if op is not None and op.endswith("?") and missing:
        raise MissingVariable(f"{name}: {match.group('arg')}")
    if op is not None and op.endswith("-") and missing:
        return match.group("arg")
    return value or ""


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """``value`` (a parsed compose file or part of one) with every string interpolated from ``env``."""
    if isinstance(value, str):
        return _VARIABLE.sub(lambda m: _one(m, env), value)
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    return value


def load(path: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """The compose file at ``path``, merge keys applied and interpolated from ``env``."""
    parsed = yaml.safe_load(path.read_text())
    assert isinstance(parsed, dict)
    resolved = interpolate(parsed, env)
    assert isinstance(resolved, dict)
    return resolved


def confinement(service: Mapping[str, Any]) -> Confinement:
    """What a service's ``read_only``, ``cap_drop`` and ``security_opt`` ask of the process."""
    return Confinement(
        read_only_root=bool(service.get("read_only", False)),
        no_capabilities="ALL" in service.get("cap_drop", []),
        no_new_privileges=any(
            opt.replace("=", ":") in ("no-new-privileges:true", "no-new-privileges")
            for opt in service.get("security_opt", [])
        ),
    )
