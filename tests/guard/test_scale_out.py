"""A short run of ``perf/scale_out.py``: HAProxy, two ``guard serve`` replicas on one PostgreSQL, one killed.

Needs ``haproxy`` (Debian's package) and PostgreSQL; skipped with the reason without them, failed
instead under ``GUARD_REQUIRE_HAPROXY=1`` / ``GUARD_REQUIRE_POSTGRES=1`` (CI sets both).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT, _missing


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


@pytest.mark.slow
@pytest.mark.postgres
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


@pytest.mark.slow
@pytest.mark.postgres
async def test_reads_through_the_guard_beside_the_plain_server(
    haproxy: str, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The anchor arms run and are reported: the plain server's reads, and the same sessions of reads
    through the guard, each a transaction ended by a commit that the log shows committed."""
    scale_out = _scale_out(monkeypatch)
    spec = scale_out.RunSpec(replicas=1, agents=3, seconds=2, plain=True, admin_url=postgres_url)
    figures = await scale_out.run(spec)
    assert figures["problems"] == []
    assert (figures["errors"], figures["read_errors"], figures["plain_errors"]) == (0, 0, 0)
    assert figures["guarded_reads_per_s"] > 0
    assert figures["plain_calls_per_s"] > 0
    assert figures["reads_ratio"] == round(figures["guarded_reads_per_s"] / figures["plain_calls_per_s"], 2)
    assert figures["read_guard_cpu_ms_per_read"] > 0
    assert figures["read_calls"] == 5 * figures["read_sessions_committed"] > 0
    # the same reads from the light generator, at the servers
    assert figures["server_errors"] == 0, figures["server_error_samples"]
    assert figures["server_guard_calls_per_s"] > 0
    assert figures["server_plain_calls_per_s"] > 0
    assert figures["server_guard_cpu_ms_per_call"] > 0
    assert 0 < figures["server_generator_cpu_share"] < 0.5


def test_an_error_is_put_on_the_replica_that_served_the_failed_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The failover's split of errors: a transaction the killed replica held; a key whose first request (the
    protocol's discovery, which opens nothing) died with the killed replica, then was retried on a live one;
    and an error on a live replica after that key's redispatch, which stays an error on a live replica."""
    scale_out = _scale_out(monkeypatch)
    log = tmp_path / "haproxy.log"
    log.write_text(
        "route a1-0 guard-2 200 100.000\n"
        "route a2-0 guard-2 200 100.500\n"  # discovery answered, then guard-2 died mid-answer
        "[WARNING]  (1) : Server guards/guard-2 is DOWN\n"
        "route a2-0 guard-1 200 102.000\n"  # the agent's retry, redispatched
        "route a2-0 guard-1 200 102.000\n"
        "route a3-0 guard-2 200 100.200\n"
        "route a3-0 guard-1 200 103.000\n"  # a3-0 moved on, opened on guard-1, failed there
        "route - guard-1 200 99.000\n"
    )
    routed = scale_out.routes(log)
    assert routed["a2-0"] == [(100.5, "guard-2"), (102.0, "guard-1"), (102.0, "guard-1")]
    errors = [
        scale_out.Failure("a1-0", "Start a new transaction: guard-2 held it", 101.0),
        scale_out.Failure("a2-0", "RemoteProtocolError: peer closed connection", 100.9),
        scale_out.Failure("a3-0", "RemoteProtocolError: peer closed connection", 103.5),
    ]
    owner = {"a1-0": "guard-2", "a2-0": "guard-1", "a3-0": "guard-1"}
    split = scale_out._split_errors(errors, owner, {"a1-0"}, routed)
    assert split["errors_on_killed_replica"] == 2
    assert split["errors_on_live_replicas"] == 1
    assert split["live_error_samples"] == ["a3-0: RemoteProtocolError: peer closed connection"]
    assert (split["killed_transactions_with_errors"], split["killed_agents_told_new"]) == (1, 1)


def test_memory_figures_tell_a_warm_up_from_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """The soak's figures: growth from warm and over the second half, read off the sampled series."""
    scale_out = _scale_out(monkeypatch)
    seconds = 600.0
    times = [30.0 * i for i in range(21)]
    warming = [(t, 300 + 20 * (1 - 0.98 ** (t / 3)), 50 + (t > 100)) for t in times]
    leaking = [(t, 300 + t / 20, 50) for t in times]
    warm = scale_out.memory_figures(warming, seconds)
    leak = scale_out.memory_figures(leaking, seconds)
    assert warm["rss_mb_start"] == 300
    assert (warm["rss_mb_warm"], leak["rss_mb_warm"]) == (warming[2][1], leaking[2][1])
    assert (warm["connections_start"], warm["connections_end"]) == (50, 51)
    assert warm["rss_growth_pct_second_half"] < warm["rss_growth_pct_from_warm"] / 3
    assert leak["rss_growth_pct_second_half"] == pytest.approx(100 * 15 / 315, abs=0.05)
    assert leak["rss_growth_pct_from_warm"] == pytest.approx(100 * 27 / 303, abs=0.05)
    assert warm["memory_series"][-1] == list(warming[-1])
