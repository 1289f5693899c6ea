"""Newline-delimited JSON-RPC framing for stdio: lines with a size limit, and what each line is.

Pure: no I/O. :class:`LineSplitter` cuts a byte stream into lines of at most
``limit`` bytes (the newline excluded) while holding no more than ``limit``
bytes plus the chunk it is given: a longer line is reported once as
:class:`Oversized` and its remaining bytes are dropped as they arrive, up to
its newline. :func:`decode_line` turns a line into the JSON-RPC message it
carries (the official SDK's ``JSONRPCMessage`` types) or into the error reply
it earns (Requirement G4):

* not JSON → ``-32700`` parse error, ``id: null``;
* JSON nested too deeply to read (past the JSON decoder's recursion limit) →
  ``-32700`` parse error, ``id: null``; the MCP SDK's own parser stops far
  earlier (about 200 levels), so such a line never reaches a tool;
* JSON but not a JSON-RPC 2.0 message → ``-32600`` invalid request, with the
  line's ``id`` when it is a valid request id and the line is not shaped like
  a response (a response's id belongs to the server's own requests, and an
  error carrying it would be matched to one of the client's), else ``null``;
* an oversized line → ``-32600`` naming the limit, ``id: null`` (the id was
  not kept).

Blank lines are skipped without a reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import ValidationError

__all__ = ["LineSplitter", "Oversized", "Rejected", "decode_line", "oversized_reply"]


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line longer than ``limit`` bytes; its bytes were dropped, not kept."""

    limit: int


@dataclass(frozen=True, slots=True)
class Rejected:
    """A line that is not a JSON-RPC message, and the error reply it gets."""

    reply: types.JSONRPCError

    @property
    def message(self) -> str:
        return self.reply.error.message


class LineSplitter:
    """Cuts a byte stream into lines of at most ``limit`` bytes; see the module docstring."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError("the line limit must be positive")
        self._limit = limit
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """The lines this chunk completes (and an :class:`Oversized` as soon as a line passes the limit)."""
        out: list[bytes | Oversized] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if self._discarding:
                self._discarding = False
            elif len(self._buffer) + end - start > self._limit:
                out.append(Oversized(self._limit))
            else:
                self._buffer += chunk[start:end]
                out.append(bytes(self._buffer))
            self._buffer.clear()
            start = end + 1
        if not self._discarding and start < len(chunk):
            if len(self._buffer) + len(chunk) - start > self._limit:
                self._buffer.clear()
                self._discarding = True
                out.append(Oversized(self._limit))
            else:
                self._buffer += chunk[start:]
        return out

    @property
    def held(self) -> int:
        """Bytes of the unfinished line held now: never more than the limit."""
        return len(self._buffer)

    def close(self) -> list[bytes]:
        """At the end of the stream: the last line, when it had no newline."""
        line = bytes(self._buffer)
        self._buffer.clear()
        self._discarding = False
        return [line] if line else []


def decode_line(line: bytes) -> types.JSONRPCMessage | Rejected | None:
    """The message a line carries, the reply it is rejected with, or None for a blank line."""
    if not line.strip():
        return None
    try:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        pass
    try:
        data = json.loads(line)
    except ValueError as exc:
        return _reject(None, types.PARSE_ERROR, f"Parse error: the line is not JSON ({exc})")
    except RecursionError:
        return _reject(None, types.PARSE_ERROR, "Parse error: the line nests JSON too deeply to read")
    return _reject(
        _request_id(data),
        types.INVALID_REQUEST,
        "Invalid request: the line is JSON but not a JSON-RPC 2.0 request, notification or response",
    )


def oversized_reply(line: Oversized) -> Rejected:
    """The reply to a line over the limit."""
    return _reject(
        None,
        types.INVALID_REQUEST,
        f"Invalid request: the line is longer than the limit of {line.limit} bytes "
        "(server.max_request_bytes); it was discarded",
    )


def _request_id(data: Any) -> types.RequestId | None:
    if not isinstance(data, dict) or "result" in data or "error" in data:
        return None
    value = data.get("id")
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _reject(request_id: types.RequestId | None, code: int, message: str) -> Rejected:
    error = types.ErrorData(code=code, message=message)
    return Rejected(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))
