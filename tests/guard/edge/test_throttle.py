"""Failed authentications paced per source, in a table of bounded size, and which source a request has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest
from opentelemetry.sdk.trace import TracerProvider

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.edge.throttle import Failures, forwarded_scheme, networks, source_of
from guard.runtime import build_runtime
from guard.store.migrate import upgrade
from tests.guard.conftest import demo_settings, no_sleep


def test_a_key_fails_its_burst_then_once_per_interval() -> None:
    """Requirement G39: ten failures at once, then one per window / burst; whole again after the window."""
    clock = FixedClock()
    failures = Failures(10, 60, clock)
    assert [failures.failed("k") for _ in range(9)] == [0.0] * 9
    assert failures.failed("k") == 6.0
    assert failures.wait("k") == 6.0
    assert failures.wait("other") == 0.0
    clock.advance(6)
    assert failures.wait("k") == 0.0
    assert failures.failed("k") == 6.0
    clock.advance(66)
    assert [failures.failed("k") for _ in range(9)] == [0.0] * 9, "the budget came back whole"


def test_the_table_stays_bounded_however_many_sources_fail() -> None:
    """Requirement G39: many sources do not grow the table past its capacity; the newest are kept."""
    clock = FixedClock()
    failures = Failures(2, 60, clock, capacity=1000)
    for n in range(50_000):
        failures.failed(("agent", f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"))
        failures.failed(("agent", "198.51.100.7"))
    assert len(failures) <= 1000
    assert failures.wait(("agent", "198.51.100.7")) > 0, "a source that keeps failing keeps its place"
    clock.advance(61)
    failures.failed("late")
    assert len(failures) == 1, "spent budgets that came back whole are forgotten"


def scope(peer: str, *forwarded: str) -> dict[str, Any]:
    return {"client": (peer, 5000), "headers": [(b"x-forwarded-for", value.encode()) for value in forwarded]}


def test_the_source_is_the_peer_unless_a_trusted_proxy_names_another() -> None:
    """Requirement G39: X-Forwarded-For counts only from server.trusted_proxies, read from the right."""
    assert source_of(scope("203.0.113.9", "198.51.100.1")) == "203.0.113.9"
    proxies = networks(["10.0.0.0/8", "192.0.2.1"])
    assert source_of(scope("203.0.113.9", "198.51.100.1"), proxies) == "203.0.113.9"
    assert source_of(scope("10.1.1.1", "198.51.100.1"), proxies) == "198.51.100.1"
    assert source_of(scope("10.1.1.1", "1.1.1.1, 198.51.100.1, 192.0.2.1"), proxies) == "198.51.100.1"
    assert source_of(scope("10.1.1.1", "1.1.1.1", "198.51.100.1"), proxies) == "198.51.100.1"
    assert source_of(scope("10.1.1.1", "1.1.1.1, not-an-address, 10.2.2.2"), proxies) == "10.2.2.2"
    assert source_of(scope("10.1.1.1"), proxies) == "10.1.1.1"
    assert source_of(scope("2001:db8:1:2:3:4:5:6")) == "2001:db8:1:2::/64", "an IPv6 host has a /64"
    assert source_of(scope("::ffff:203.0.113.9")) == "203.0.113.9"
    assert source_of({"client": None}) == "unknown"


def test_only_a_trusted_proxy_says_the_client_used_https() -> None:
    """Requirement G34: X-Forwarded-Proto (the cookie's Secure flag) counts from a trusted proxy only."""
    proxied = {"client": ("10.1.1.1", 1), "headers": [(b"x-forwarded-proto", b"https")]}
    assert forwarded_scheme(proxied, networks(["10.0.0.0/8"])) == "https"
    assert forwarded_scheme(proxied, networks(["192.0.2.0/24"])) is None
    assert forwarded_scheme(proxied, ()) is None
    odd = {"client": ("10.1.1.1", 1), "headers": [(b"x-forwarded-proto", b"gopher")]}
    assert forwarded_scheme(odd, networks(["10.0.0.0/8"])) is None


async def test_behind_a_trusted_proxy_each_client_has_its_own_budget(tmp_path: Path) -> None:
    """Requirement G39: with the proxy in server.trusted_proxies one client's wrong tokens do not lock out
    the others behind it; without it, every client of the proxy shares the proxy's budget."""
    auth = {"agent_tokens": {"agent-secret": "agent-a"}, "operator_tokens": ["operator-secret"]}
    for trusted, other_client in ((["127.0.0.0/8"], 401), ([], 429)):
        settings = demo_settings(tmp_path, server={"trusted_proxies": trusted}, auth=auth)
        runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
        await upgrade(runtime.audit_engine)
        async with httpx2.AsyncClient(  # the ASGI transport's peer is 127.0.0.1, as a local proxy's
            transport=httpx2.ASGITransport(app=create_app(runtime, manage_runtime=False)),
            base_url="http://127.0.0.1",
        ) as http:

            async def guess(client: str) -> int:
                headers = {"Authorization": "Bearer guess", "X-Forwarded-For": client}
                return (await http.get("/transactions", headers=headers)).status_code

            assert [await guess("198.51.100.1") for _ in range(10)] == [401] * 10
            assert await guess("198.51.100.1") == 429
            assert await guess("198.51.100.2") == other_client
        await runtime.audit_engine.dispose()


@pytest.mark.parametrize(("burst", "window"), [(0, 60), (1, 0)])
def test_a_budget_needs_a_burst_and_a_window(burst: int, window: float) -> None:
    with pytest.raises(ValueError, match="burst"):
        Failures(burst, window, FixedClock())
