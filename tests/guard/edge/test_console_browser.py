"""The console as a reviewer uses it, in headless Chromium: sign in, read a blocked commit, approve one.

Requirement G34. The guard serves on a real socket (uvicorn in a thread, its own event loop); an agent
makes the transactions over streamable HTTP with the official client; the browser does the rest. The
screenshots are kept under ``$GUARD_TEST_ARTIFACTS`` as ``console-*.png``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import uvicorn
from mcp import Client
from opentelemetry.sdk.trace import TracerProvider

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from tests.guard.conftest import no_sleep, ticket_status
from tests.guard.edge.test_console import HOSTILE, OPERATOR, console_settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


class Served:
    """``guard serve`` in a thread: runtime, app and uvicorn on one event loop of their own."""

    def __init__(self, settings: GuardSettings) -> None:
        self.settings = settings
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._server: uvicorn.Server | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        runtime = build_runtime(self.settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
        await upgrade(runtime.audit_engine)
        app = create_app(runtime)
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        await self._server.serve(sockets=[self._socket])

    def __enter__(self) -> Served:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not (self._server is not None and self._server.started):
            assert self._thread.is_alive(), "the guard stopped while starting"
            assert time.monotonic() < deadline, "the guard did not start in 30 s"
            time.sleep(0.02)
        return self

    def run(self, work: Callable[[str], Coroutine[Any, Any, None]]) -> None:
        """Run ``work(url)`` as an agent process would: its own thread and event loop (Playwright's sync
        API holds this thread's)."""
        failures: list[BaseException] = []

        def agent() -> None:
            try:
                asyncio.run(work(self.url))
            except BaseException as exc:
                failures.append(exc)

        thread = threading.Thread(target=agent)
        thread.start()
        thread.join(60)
        if failures:
            raise failures[0]

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.should_exit = True
        self._thread.join(30)
        self._socket.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with Served(console_settings(tmp_path)) as running:
        yield running


async def _agent(url: str) -> None:
    """Over HTTP, one transaction per URL: b-1 blocked then rolled back, e-1 escalated."""
    async with Client(f"{url}/mcp/t/b-1") as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved", "note": HOSTILE})
        blocked = await agent.call_tool("guard_commit", {"summary": HOSTILE})
        assert blocked.is_error
        await agent.call_tool("guard_rollback", {"reason": "the carrier exception is still open"})
    async with Client(f"{url}/mcp/t/e-1") as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"})
        await agent.call_tool("guard_commit", {"summary": "closed ticket 21 at the customer's request"})


def _sign_in(page: Page, url: str) -> None:
    page.goto(f"{url}/console")
    assert page.url == f"{url}/console/sign-in", "an unsigned browser is sent to the sign-in page"
    page.fill("input[name=token]", OPERATOR)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/console")


def test_a_reviewer_reads_a_blocked_commit_and_approves_an_escalated_one(
    chromium: Browser, served: Served, artifacts: Path
) -> None:
    served.run(_agent)
    page = chromium.new_page(viewport={"width": 1200, "height": 900}, java_script_enabled=False)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    _sign_in(page, served.url)

    page.click("nav.tabs >> text=blocked")
    page.click("text=b-1")
    page.wait_for_url(f"{served.url}/console/t/b-1")
    finding = page.locator("tr.finding.block").first
    assert "ticket-solved-with-open-carrier-exception" in finding.inner_text()
    assert "allowed: hold, pending, open" in finding.inner_text()
    assert page.locator("tr.changed td.field").all_inner_texts() == ["note", "status"]
    assert HOSTILE in page.locator("dl.facts").inner_text(), "agent text shown as text"
    page.screenshot(path=str(artifacts / "console-blocked.png"), full_page=True)

    page.goto(f"{served.url}/console?status=pending_approval")
    page.click("text=e-1")
    assert "closing-needs-a-supervisor" in page.locator("tr.finding").first.inner_text()
    page.fill("input[name=reviewer]", "ana")
    page.screenshot(path=str(artifacts / "console-pending.png"), full_page=True)
    page.click("button.approve")
    page.wait_for_url(f"{served.url}/console/t/e-1")
    assert page.locator("[role=status]").inner_text() == (
        "last: commit attempt #2 via review: committed: approved by ana"
    )
    assert page.locator("h1 .status").inner_text() == "committed"
    page.screenshot(path=str(artifacts / "console-approved.png"), full_page=True)
    page.close()

    assert dialogs == [], "no script ran"
    assert ticket_status(served.settings, 21) == "closed"
    assert ticket_status(served.settings, 20) == "open"
    for name in ("console-blocked.png", "console-pending.png", "console-approved.png"):
        assert (artifacts / name).stat().st_size > 20_000, name


def _no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width} px wide"  # type: ignore[index]


@pytest.mark.parametrize("width", [1280, 390])
def test_the_console_fits_the_screen_and_rolls_back_from_the_page(
    chromium: Browser, served: Served, artifacts: Path, width: int
) -> None:
    """Requirement G56: at 1280 and 390 px the list and a transaction's page fit without sideways scroll,
    times carry their zone, a message in the URL is not shown, and an operator rolls back from the page."""
    served.run(_agent)
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    _sign_in(page, served.url)
    assert " UTC" in page.locator("table").inner_text()
    _no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"console-list-{width}.png"), full_page=True)
    page.goto(f"{served.url}/console/t/e-1?done=committed%3A+approved+by+mallory")
    assert "mallory" not in page.content(), "a message in the URL is never shown"
    assert "2025-10-01 13:00:00 UTC" in page.locator("dl.facts").inner_text()
    _no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"console-pending-{width}.png"), full_page=True)
    page.fill("form.rollback input[name=operator]", "ana")
    page.click("form.rollback button")
    page.wait_for_url(f"{served.url}/console/t/e-1")
    assert page.locator("h1 .status").inner_text() == "rolled_back"
    assert "rolled back by ana" in page.locator("[role=status]").inner_text()
    _no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"console-rolled-back-{width}.png"), full_page=True)
    context.close()
    assert ticket_status(served.settings, 21) == "open"
    for name in (f"console-list-{width}.png", f"console-pending-{width}.png"):
        assert (artifacts / name).stat().st_size > 10_000, name
