"""A short run of ``perf/isolation_replicas.py``: two replicas on one PostgreSQL, random transactions."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.postgres


def _isolation(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "perf"))  # it imports scale_stack beside it
    spec = importlib.util.spec_from_file_location(
        "isolation_replicas", ROOT / "perf" / "isolation_replicas.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


async def test_no_transaction_reads_uncommitted_rows_across_replicas(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirements G6, G33: across two replicas, every read is of committed state or the reader's own."""
    isolation = _isolation(monkeypatch)
    figures = await isolation.run(operations=400, workers=6, seed=7, admin_url=postgres_url)
    assert figures["anomalies"] == 0, figures["examples"]
    assert figures["operations"] >= 400
    assert figures["reads"] > 0
    assert figures["committed"] > 0


def test_the_check_finds_a_dirty_read_and_a_stale_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker has teeth: a read of a write whose transaction never committed, and a read older than a
    commit that had ended before it began, are both anomalies; a read of one's own write is not."""
    isolation = _isolation(monkeypatch)
    history = isolation.History()
    history.writes = {"w": {1000: "w:0"}, "c": {1001: "c:0"}, "r": {1002: "r:1"}}
    history.commits = {"c": (1.0, 2.0)}
    history.reads = [
        isolation.Read("r", 1000, "w:0", None, 3.0, 3.1),
        isolation.Read("r", 1001, None, None, 3.0, 3.1),
        isolation.Read("r", 1002, "r:1", "r:1", 3.0, 3.1),
    ]
    found = isolation.anomalies(history)
    assert len(found) == 2
    assert "not committed when read" in found[0]
    assert "had committed since" in found[1]
