"""The error classifier on real error objects of mcp, httpx2 and Python, and on tool error text.

SQL driver errors (SQLite, PostgreSQL) are in test_classify_sql.py.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime

import httpx2
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from judges import (
    Classification,
    ErrorClass,
    classify,
    classify_http_status,
    classify_mcp_code,
    classify_sqlstate,
    classify_tool_error,
    retryable,
    tool_error_text,
)
from judges.classify import MAX_RETRY_AFTER_S, retry_after_seconds

C = ErrorClass


class TestRetryable:
    @pytest.mark.parametrize("kind", [C.TRANSIENT, C.RATE_LIMITED])
    def test_always(self, kind: ErrorClass) -> None:
        assert all(retryable(kind, t, i) for t in (False, True) for i in (False, True))

    def test_timeout_only_where_a_retry_is_safe(self) -> None:
        assert retryable(C.TIMEOUT, in_transaction=True)
        assert retryable(C.TIMEOUT, idempotent=True)
        assert not retryable(C.TIMEOUT, in_transaction=False, idempotent=False)

    @pytest.mark.parametrize(
        "kind",
        [C.INVALID_ARGUMENTS, C.NOT_FOUND, C.PRECONDITION_FAILED, C.PERMISSION_DENIED, C.INTERNAL],
    )
    def test_never(self, kind: ErrorClass) -> None:
        assert not any(retryable(kind, t, i) for t in (False, True) for i in (False, True))

    def test_accepts_the_class_name(self) -> None:
        assert retryable("rate_limited")
        with pytest.raises(ValueError, match="'busy' is not a valid ErrorClass"):
            retryable("busy")


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, C.INVALID_ARGUMENTS),
        (401, C.PERMISSION_DENIED),
        (403, C.PERMISSION_DENIED),
        (404, C.NOT_FOUND),
        (405, C.INTERNAL),
        (408, C.TIMEOUT),
        (409, C.PRECONDITION_FAILED),
        (410, C.NOT_FOUND),
        (412, C.PRECONDITION_FAILED),
        (413, C.INVALID_ARGUMENTS),
        (422, C.INVALID_ARGUMENTS),
        (429, C.RATE_LIMITED),
        (500, C.INTERNAL),
        (501, C.INTERNAL),
        (502, C.TRANSIENT),
        (503, C.TRANSIENT),
        (504, C.TIMEOUT),
    ],
)
def test_http_statuses(status: int, kind: ErrorClass) -> None:
    assert classify_http_status(status).error_class is kind


class TestHttpx2:
    @staticmethod
    def fail_with(status: int, headers: dict[str, str] | None = None) -> httpx2.HTTPStatusError:
        transport = httpx2.MockTransport(lambda request: httpx2.Response(status, headers=headers, text="no"))
        with httpx2.Client(transport=transport) as client:
            response = client.get("http://upstream.test/tools")
            with pytest.raises(httpx2.HTTPStatusError) as caught:
                response.raise_for_status()
        return caught.value

    def test_rate_limited_with_retry_after(self) -> None:
        assert classify(self.fail_with(429, {"Retry-After": "7"})) == Classification(
            C.RATE_LIMITED, "HTTP 429", 7.0
        )

    def test_an_http_date_retry_after_is_read_against_the_callers_clock(self) -> None:
        error = self.fail_with(503, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
        now = datetime(2015, 10, 21, 7, 27, 30, tzinfo=UTC)
        assert classify(error, now=now) == Classification(C.TRANSIENT, "HTTP 503", 30.0)

    @pytest.mark.parametrize(
        ("status", "kind"), [(400, C.INVALID_ARGUMENTS), (404, C.NOT_FOUND), (409, C.PRECONDITION_FAILED)]
    )
    def test_status_errors(self, status: int, kind: ErrorClass) -> None:
        assert classify(self.fail_with(status)).error_class is kind

    def test_a_response_object_itself(self) -> None:
        assert classify(httpx2.Response(504)).error_class is C.TIMEOUT

    def test_a_refused_connection_is_transient(self, closed_port: int) -> None:
        with httpx2.Client() as client, pytest.raises(httpx2.ConnectError) as caught:
            client.get(f"http://127.0.0.1:{closed_port}/")
        found = classify(caught.value)
        assert found.error_class is C.TRANSIENT
        assert "before the request was sent" in found.reason

    def test_a_read_timeout_is_ambiguous(self, silent_port: int) -> None:
        with (
            httpx2.Client(timeout=httpx2.Timeout(5.0, read=0.05)) as client,
            pytest.raises(httpx2.ReadTimeout) as caught,
        ):
            client.get(f"http://127.0.0.1:{silent_port}/")
        assert classify(caught.value).error_class is C.TIMEOUT

    @pytest.mark.parametrize(
        ("error", "kind"),
        [
            (httpx2.ConnectTimeout("connect"), C.TRANSIENT),
            (httpx2.PoolTimeout("pool"), C.TRANSIENT),
            (httpx2.WriteTimeout("write"), C.TIMEOUT),
            (httpx2.RemoteProtocolError("Server disconnected without sending a response."), C.TIMEOUT),
            (httpx2.ReadError("reset"), C.TIMEOUT),
            (httpx2.LocalProtocolError("bad"), C.INTERNAL),
            (httpx2.UnsupportedProtocol("ftp"), C.INTERNAL),
        ],
    )
    def test_transport_errors_raised_through_a_client(self, error: Exception, kind: ErrorClass) -> None:
        def handler(request: httpx2.Request) -> httpx2.Response:
            raise error

        with (
            httpx2.Client(transport=httpx2.MockTransport(handler)) as client,
            pytest.raises(type(error)) as caught,
        ):
            client.get("http://upstream.test/")
        assert classify(caught.value).error_class is kind


NOW = datetime(2015, 10, 21, 7, 27, 30, tzinfo=UTC)


class TestRetryAfter:
    """``Retry-After`` in both of RFC 9110's forms, read against the caller's clock and capped."""

    @pytest.mark.parametrize(
        "header",
        [
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed Oct 21 07:28:00 2015",
            "  Wed, 21 Oct 2015 09:28:00 +0200  ",
        ],
    )
    def test_an_http_date_is_the_time_from_now_until_then(self, header: str) -> None:
        assert retry_after_seconds(header, now=NOW) == 30.0
        assert classify_http_status(429, header, now=NOW) == Classification(C.RATE_LIMITED, "HTTP 429", 30.0)

    def test_a_date_that_has_passed_means_now(self) -> None:
        assert retry_after_seconds("Wed, 21 Oct 2015 07:00:00 GMT", now=NOW) == 0.0

    def test_the_wall_clock_when_the_caller_gives_none(self) -> None:
        assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
        assert retry_after_seconds("Fri, 31 Dec 9999 23:59:59 GMT") == MAX_RETRY_AFTER_S

    def test_a_naive_clock_reads_as_utc(self) -> None:
        assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=NOW.replace(tzinfo=None)) == 30.0
        later = NOW.astimezone(timezone(timedelta(hours=-7)))
        assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=later) == 30.0

    def test_waits_are_capped(self) -> None:
        waits = {"7": 7.0, " 1.5 ": 1.5, "0": 0.0, "86400": MAX_RETRY_AFTER_S}
        waits["Thu, 22 Oct 2015 07:28:00 GMT"] = MAX_RETRY_AFTER_S
        assert {header: retry_after_seconds(header, now=NOW) for header in waits} == waits
        assert classify_http_status(429, "86400").retry_after == MAX_RETRY_AFTER_S

    def test_unreadable_values_are_none(self) -> None:
        unreadable = ["", "-1", "inf", "nan", "1e400", "soon", "Wed, 32 Oct 2015 07:28:00 GMT"]
        assert [retry_after_seconds(header, now=NOW) for header in unreadable] == [None] * len(unreadable)
        assert [classify_http_status(503, header).retry_after for header in unreadable] == [None] * len(
            unreadable
        )

    @given(
        st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
        st.integers(min_value=-7200, max_value=7200),
    )
    def test_an_http_date_is_read_to_the_second(self, now: datetime, offset: int) -> None:
        when = now.replace(microsecond=0) + timedelta(seconds=offset)
        expected = min(max(0.0, (when - now).total_seconds()), MAX_RETRY_AFTER_S)
        assert retry_after_seconds(format_datetime(when, usegmt=True), now=now) == expected

    @given(st.text(max_size=40))
    @example("inf")
    @example("Mon, 01 Jan 0001 00:00:00 -2359")
    def test_any_text_is_a_bounded_wait_or_none(self, header: str) -> None:
        seconds = retry_after_seconds(header, now=NOW)
        assert seconds is None or 0.0 <= seconds <= MAX_RETRY_AFTER_S


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


class TestMcp:
    @pytest.mark.parametrize(
        ("code", "kind"),
        [
            (-32000, C.TIMEOUT),
            (-32001, C.TIMEOUT),
            (-32600, C.INTERNAL),
            (-32601, C.NOT_FOUND),
            (-32602, C.INVALID_ARGUMENTS),
            (-32603, C.INTERNAL),
            (-32700, C.INTERNAL),
            (-32042, C.PERMISSION_DENIED),
            (-32099, C.INTERNAL),
            (429, C.RATE_LIMITED),
            (503, C.TRANSIENT),
        ],
    )
    def test_error_codes(self, code: int, kind: ErrorClass) -> None:
        error = MCPError(code=code, message="failed")
        assert classify(error).error_class is kind
        assert classify_mcp_code(code, "failed").error_class is kind

    def test_invalid_params_that_say_not_found(self) -> None:
        assert classify(MCPError(-32602, "Unknown resource: res://x")).error_class is C.NOT_FOUND

    def test_errors_from_a_real_server(self) -> None:
        server = MCPServer("upstream")

        @server.tool()
        def cancel_order(order_id: str) -> str:
            raise ToolError(f"Order {order_id} not found")

        @server.tool()
        async def wait() -> str:
            await asyncio.Event().wait()
            return "never"

        async def run() -> list[object]:
            outcomes: list[object] = []
            async with Client(server) as client:
                outcomes.append(await client.call_tool("cancel_order", {"order_id": "ORD-1"}))
                outcomes.append(await client.call_tool("cancel_order", {"order": "ORD-1"}))
                outcomes.append(await client.call_tool("no_such_tool", {}))
                try:
                    await client.read_resource("res://absent")
                except MCPError as exc:
                    outcomes.append(exc)
            async with Client(server, read_timeout_seconds=0.05) as client:
                try:
                    await client.call_tool("wait", {})
                except MCPError as exc:
                    outcomes.append(exc)
            return outcomes

        results = asyncio.run(run())
        assert [classify(result).error_class for result in results] == [
            C.NOT_FOUND,
            C.INVALID_ARGUMENTS,
            C.NOT_FOUND,
            C.NOT_FOUND,
            C.TIMEOUT,
        ]
        assert tool_error_text(results[0]) == "Error executing tool cancel_order: Order ORD-1 not found"
        assert classify(results[0]).reason == "tool error: Order ORD-1 not found"


class TestToolErrorResults:
    def test_is_error_results(self) -> None:
        result = CallToolResult(content=[TextContent(type="text", text="Rate limit exceeded")], is_error=True)
        assert classify(result).error_class is C.RATE_LIMITED
        as_dict = {"isError": True, "content": [{"type": "text", "text": "Permission denied for refunds"}]}
        assert classify(as_dict).error_class is C.PERMISSION_DENIED
        assert tool_error_text({"isError": True, "content": []}) == "tool error (no text)"

    def test_the_error_envelope_without_is_error(self) -> None:
        envelope = json.dumps(
            {"error": "Tool execution failed: Input validation failed: order_id: Field required", "tool": "x"}
        )
        result = CallToolResult(content=[TextContent(type="text", text=envelope)])
        assert (
            tool_error_text(result)
            == "Tool execution failed: Input validation failed: order_id: Field required"
        )
        assert classify(result) == Classification(
            C.INVALID_ARGUMENTS, "tool error: Input validation failed: order_id: Field required"
        )

    def test_successful_results_have_no_error_text(self) -> None:
        assert tool_error_text(CallToolResult(content=[TextContent(type="text", text='{"id": 1}')])) is None
        assert tool_error_text({"content": [{"text": "[1, 2]"}]}) is None

    @pytest.mark.parametrize(
        ("text", "kind"),
        [
            ("Order ORD-1 not found", C.NOT_FOUND),
            ("Customer C9 does not exist", C.NOT_FOUND),
            ("Object with ID TXN-00000010 already exists", C.PRECONDITION_FAILED),
            ("Order ORD-1 cannot be cancelled: status shipped", C.PRECONDITION_FAILED),
            ("Refund amount exceeds the order total", C.PRECONDITION_FAILED),
            ("Asset A1 is not available", C.PRECONDITION_FAILED),
            ("Order must be in status pending", C.PRECONDITION_FAILED),
            ("Invalid date format: 2025-13-01", C.INVALID_ARGUMENTS),
            ("quantity must be positive", C.INVALID_ARGUMENTS),
            ("Field 'reason' is required", C.INVALID_ARGUMENTS),
            ("Too many requests, slow down", C.RATE_LIMITED),
            ("Upstream timed out", C.TIMEOUT),
            ("Service temporarily unavailable", C.TRANSIENT),
            ("Not authorized to approve this request", C.PERMISSION_DENIED),
            ("Something odd happened", C.INTERNAL),
            (
                '{"error": "Tool execution failed: Ticket 99 not found", "tool": "zendesk_get_item"}',
                C.NOT_FOUND,
            ),
        ],
    )
    def test_text(self, text: str, kind: ErrorClass) -> None:
        assert classify_tool_error(text).error_class is kind
        assert classify(text).error_class is kind

    def test_unrecognised_text_is_internal_and_said_so(self) -> None:
        found = classify_tool_error("x" * 300)
        assert found.reason.startswith("unrecognised tool error: xxx")
        assert len(found.reason) < 240


class TestPython:
    def test_a_real_asyncio_timeout(self) -> None:
        async def run() -> None:
            await asyncio.wait_for(asyncio.Event().wait(), timeout=0.01)

        with pytest.raises(TimeoutError) as caught:
            asyncio.run(run())
        assert classify(caught.value).error_class is C.TIMEOUT

    def test_a_real_refused_connection(self, closed_port: int) -> None:
        with pytest.raises(ConnectionRefusedError) as caught:
            socket.create_connection(("127.0.0.1", closed_port), timeout=2)
        assert classify(caught.value).error_class is C.TRANSIENT

    @pytest.mark.parametrize(
        ("error", "kind"),
        [
            (ConnectionResetError("reset by peer"), C.TIMEOUT),
            (BrokenPipeError(), C.TIMEOUT),
            (ConnectionError("down"), C.TRANSIENT),
            (PermissionError("no"), C.PERMISSION_DENIED),
            (FileNotFoundError("gone"), C.NOT_FOUND),
            (ValueError("bad amount"), C.INVALID_ARGUMENTS),
            (KeyError("ORD-1"), C.NOT_FOUND),
            (RuntimeError("bug"), C.INTERNAL),
            (TypeError("bug"), C.INTERNAL),
        ],
    )
    def test_builtin_exceptions(self, error: Exception, kind: ErrorClass) -> None:
        assert classify(error).error_class is kind

    def test_pydantic_validation_errors_are_invalid_arguments(self) -> None:
        from pydantic import BaseModel, ValidationError

        class Args(BaseModel):
            amount: int

        with pytest.raises(ValidationError) as caught:
            Args.model_validate({"amount": "many"})
        assert classify(caught.value).error_class is C.INVALID_ARGUMENTS

    def test_a_declared_error_class_wins(self) -> None:
        class ToolFailure(Exception):
            error_class = "precondition_failed"

        assert classify(ToolFailure("ticket closed")) == Classification(
            C.PRECONDITION_FAILED, "ToolFailure: ticket closed"
        )

    def test_wrapped_errors_are_unwrapped(self) -> None:
        def call() -> None:
            try:
                raise MCPError(-32001, "timed out")
            except MCPError as inner:
                raise RuntimeError("call failed") from inner

        with pytest.raises(RuntimeError) as caught:
            call()
        assert classify(caught.value).error_class is C.TIMEOUT

    def test_a_default_internal_gives_way_to_a_specific_cause(self) -> None:
        class ToolFailure(Exception):
            error_class = "internal"

        def call() -> None:
            try:
                raise TimeoutError("upstream took too long")
            except TimeoutError as inner:
                raise ToolFailure("call failed") from inner

        with pytest.raises(ToolFailure) as caught:
            call()
        assert classify(caught.value).error_class is C.TIMEOUT
        assert classify(ToolFailure("alone")).reason == "ToolFailure: alone"

    def test_an_unknown_object(self) -> None:
        assert classify(object()).error_class is C.INTERNAL
        assert classify(RuntimeError("odd")).reason == "unrecognised error: RuntimeError: odd"


def test_sqlstate_classes() -> None:
    assert classify_sqlstate("08006").error_class is C.TRANSIENT
    assert classify_sqlstate("23505").error_class is C.PRECONDITION_FAILED
    assert classify_sqlstate("22P02").error_class is C.INVALID_ARGUMENTS
    assert classify_sqlstate("42P01").error_class is C.INTERNAL
