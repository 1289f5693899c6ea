"""Which transaction a request belongs to.

MCP 2026-07-28 has no sessions, so the guard names its own transactions. In
order of precedence a request's key is:

1. the header ``Guard-Transaction: <id>``;
2. ``_meta["guard/transaction"]`` on the request;
3. the URL ``/mcp/t/<id>`` (for clients that can set neither);
4. the ``Mcp-Session-Id`` of a handshake-era client (``session-<id>``), so
   that a legacy client that can do none of the above still gets one
   transaction per session (rolled back, if still open, when the client
   ends the session: :func:`session_key`);
5. on stdio, the stream's current transaction: one process serves one stream,
   and a new transaction opens after each commit or rollback.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from typing import Any

from guard.errors import RequestRejected

__all__ = ["HEADER", "META_KEY", "StreamKeys", "key_from_http", "new_key", "session_key", "valid_key"]

HEADER = "guard-transaction"
META_KEY = "guard/transaction"
_SESSION_HEADER = "mcp-session-id"
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


def valid_key(key: object, source: str) -> str:
    if not isinstance(key, str) or not _KEY.match(key):
        raise RequestRejected(
            f"invalid transaction key from {source}: use 1-128 characters of letters, digits and . _ : -, "
            "starting with a letter or digit"
        )
    return key


def new_key() -> str:
    return f"txn-{secrets.token_hex(8)}"


def key_from_http(
    headers: Mapping[str, str], meta: Mapping[str, Any] | None, path_params: Mapping[str, Any]
) -> str | None:
    """The key a streamable-HTTP request names, or ``None`` when it names none."""
    if (value := headers.get(HEADER)) is not None:
        return valid_key(value, f"the {HEADER} header")
    if meta is not None and META_KEY in meta:
        return valid_key(meta[META_KEY], f"_meta[{META_KEY!r}]")
    if (value := path_params.get("transaction")) is not None:
        return valid_key(value, "the URL")
    if (value := headers.get(_SESSION_HEADER)) is not None:
        return valid_key(f"session-{value}"[:128], f"the {_SESSION_HEADER} header")
    return None


def session_key(headers: Mapping[str, str], path_params: Mapping[str, Any]) -> str | None:
    """The transaction key a request has only from its ``Mcp-Session-Id`` (rule 4), else ``None``.

    A request that names its transaction otherwise (header or URL) keeps that
    transaction when its session ends.
    """
    if headers.get(HEADER) is not None or path_params.get("transaction") is not None:
        return None
    if headers.get(_SESSION_HEADER) is None:
        return None
    try:
        return key_from_http(headers, None, path_params)
    except RequestRejected:
        return None


class StreamKeys:
    """The current transaction of a stdio stream; a new one after each commit or rollback."""

    def __init__(self) -> None:
        self._current: str | None = None

    def current(self, meta: Mapping[str, Any] | None = None) -> str:
        if meta is not None and META_KEY in meta:
            return valid_key(meta[META_KEY], f"_meta[{META_KEY!r}]")
        if self._current is None:
            self._current = new_key()
        return self._current

    @staticmethod
    def named(meta: Mapping[str, Any] | None) -> bool:
        """Whether the request names its own key (``_meta``), rather than taking the stream's."""
        return meta is not None and META_KEY in meta

    def finished(self, key: str) -> None:
        if key == self._current:
            self._current = None
