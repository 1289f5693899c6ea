"""A short run of ``perf/scale_out.py``: HAProxy, two ``guard serve`` replicas on one PostgreSQL, one killed.

Needs ``haproxy`` (Debian's package) and PostgreSQL; skipped with the reason without them, failed
instead under ``GUARD_REQUIRE_HAPROXY=1`` / ``GUARD_REQUIRE_POSTGRES=1`` (CI sets both).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from types import ModuleType

import pytest

from tests.conftest import ROOT, _missing

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def _scale_out(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "perf"))  # scale_out imports scale_stack beside it
    spec = importlib.util.spec_from_file_location("scale_out", ROOT / "perf" / "scale_out.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def haproxy() -> str:
    found = shutil.which("haproxy")
    if found is None:
        _missing("haproxy", "not on PATH (Debian: apt-get install haproxy)", "GUARD_REQUIRE_HAPROXY")
    assert found is not None
    return found


async def test_two_replicas_behind_haproxy_survive_one_killed(
    haproxy: str, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirements G33, G3: routed by the transaction key, a replica SIGKILLed mid-run costs the agents on
    the live replica nothing; agents on the dead one are told to start a new transaction; its open
    transactions end aborted in the log when it starts again; nothing committed is lost or unjudged."""
    scale_out = _scale_out(monkeypatch)
    spec = scale_out.RunSpec(
        replicas=2, agents=4, seconds=6, kill_replica=True, plain=False, admin_url=postgres_url
    )
    figures = await scale_out.run(spec)
    assert figures["problems"] == []
    assert (figures["lost"], figures["unjudged"], figures["extra_rows"]) == (0, 0, 0)
    assert figures["committed_seen"] > 0
    assert figures["blocked_then_repaired"] > 0
    assert figures["errors_on_live_replicas"] == 0, figures["live_error_samples"]
    assert figures["killed_agents_told_new"] == figures["killed_transactions_with_errors"]
    assert figures["killed_left_open"] == 0
