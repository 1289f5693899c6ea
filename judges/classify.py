"""The error classifier: one class per upstream failure, and whether to retry it.

:func:`classify` takes whatever failed — an exception from mcp, SQLAlchemy,
a database driver, an HTTP client or Python itself, an MCP tool error result,
or plain error text — and returns a :class:`Classification`. It imports none
of those libraries; it reads the attributes they are known to carry:

* ``error_class`` (the guard's own errors): that class;
* ``.error.code`` (mcp ``MCPError``): the JSON-RPC/MCP code;
* ``.sqlstate`` / ``.pgcode`` (asyncpg, psycopg, SQLAlchemy's adapters): the SQLSTATE;
* ``.sqlite_errorname`` (sqlite3): the extended result code, or the message
  ("database is locked") when the name is missing;
* ``.response.status_code`` / ``.status_code`` (httpx2 and most HTTP errors):
  the status, with the ``Retry-After`` header's delay when given (seconds, or
  an HTTP date read against the caller's clock, see :func:`retry_after_seconds`);
* the class names of httpx-style transport errors, then Python's own
  ``TimeoutError``, ``ConnectionError`` and friends;
* ``isError`` plus text content (an MCP tool error result): the text, read
  conservatively.

Wrappers are unwrapped through ``.orig``, ``__cause__`` and ``__context__``.

Ambiguity is the heart of it: a failure after which the request *may* have
taken effect (a read timeout, a connection reset mid-response, an MCP
connection closed before the reply) is ``timeout``, and is retried only where
a retry is safe; a failure that certainly did not take effect (refused
connection, serialization failure, deadlock, lock timeout, 502/503) is
``transient``. See :func:`retryable`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from enum import StrEnum
from typing import Any

__all__ = [
    "MAX_RETRY_AFTER_S",
    "Classification",
    "ErrorClass",
    "classify",
    "classify_http_status",
    "classify_mcp_code",
    "classify_sqlite",
    "classify_sqlstate",
    "classify_tool_error",
    "is_lock_wait",
    "retry_after_seconds",
    "retryable",
    "tool_error_text",
]


class ErrorClass(StrEnum):
    TRANSIENT = "transient"
    RATE_LIMITED = "rate_limited"
    TIMEOUT = "timeout"
    INVALID_ARGUMENTS = "invalid_arguments"
    NOT_FOUND = "not_found"
    PRECONDITION_FAILED = "precondition_failed"
    PERMISSION_DENIED = "permission_denied"
    INTERNAL = "internal"
    CONFLICT = "conflict"
    """Another open transaction holds the records, and the guard names it: waiting again cannot help."""


@dataclass(frozen=True, slots=True)
class Classification:
    """The class of one failure, why, and how long the peer asked us to wait, if it did.

    ``retry_after`` is in seconds from the time the failure was classified,
    between 0 and :data:`MAX_RETRY_AFTER_S`.
    """

    error_class: ErrorClass
    reason: str
    retry_after: float | None = None


def retryable(error_class: ErrorClass | str, in_transaction: bool = False, idempotent: bool = False) -> bool:
    """Whether a failure of this class may be retried.

    ``transient`` and ``rate_limited`` always (the request did not take
    effect); ``timeout`` only inside a SQL transaction (the call's savepoint
    is rolled back first) or when the call is idempotent; never the others
    (``conflict`` included: its holder is a transaction waiting on its agent).
    """
    kind = ErrorClass(error_class)
    if kind in (ErrorClass.TRANSIENT, ErrorClass.RATE_LIMITED):
        return True
    if kind is ErrorClass.TIMEOUT:
        return in_transaction or idempotent
    return False


_C = ErrorClass


def classify_http_status(
    status: int, retry_after: str | None = None, *, now: datetime | None = None
) -> Classification:
    """The class of an HTTP error status; ``retry_after`` is the header's value, if any.

    ``now`` is the time by the caller's clock, against which an HTTP-date
    ``Retry-After`` is read (see :func:`retry_after_seconds`).
    """
    delay = retry_after_seconds(retry_after, now=now)
    reason = f"HTTP {status}"
    if status == 429:
        return Classification(_C.RATE_LIMITED, reason, delay)
    if status in (408, 504):
        return Classification(_C.TIMEOUT, reason, delay)
    if status in (502, 503):
        return Classification(_C.TRANSIENT, reason, delay)
    if status in (401, 403, 407):
        return Classification(_C.PERMISSION_DENIED, reason)
    if status in (404, 410):
        return Classification(_C.NOT_FOUND, reason)
    if status in (409, 412, 423, 428):
        return Classification(_C.PRECONDITION_FAILED, reason)
    if 400 <= status < 500 and status not in (405, 406, 426):
        return Classification(_C.INVALID_ARGUMENTS, reason)
    return Classification(_C.INTERNAL, reason)


MAX_RETRY_AFTER_S = 3600.0
"""The longest wait a ``Retry-After`` is read as: a longer one (a date days ahead, a peer whose
clock is wrong) is read as an hour, which is still longer than any retry here is willing to wait."""


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """The wait a ``Retry-After`` header asks for, in seconds; None when it is absent or unreadable.

    Either form of RFC 9110 is read: delay-seconds (``"120"``; a decimal is
    accepted, a negative or non-finite number is not), or an HTTP date
    (``"Wed, 21 Oct 2015 07:28:00 GMT"``, and the obsolete RFC 850 and asctime
    forms), whose wait is the time from ``now`` (the caller's clock; the wall
    clock when None; a naive time is UTC, as HTTP dates are) to that date: 0
    when it has passed. Every wait is capped at :data:`MAX_RETRY_AFTER_S`.
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds: float | None = float(text)
    except ValueError:
        seconds = _until(text, now)
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_RETRY_AFTER_S)


def _until(text: str, now: datetime | None) -> float | None:
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    start = now if now is not None else datetime.now(UTC)
    try:
        return max(0.0, (_aware(when) - _aware(start)).total_seconds())
    except OverflowError:
        return None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


_MCP_CODES: Mapping[int, tuple[ErrorClass, str]] = {
    -32000: (_C.TIMEOUT, "MCP connection closed before the reply; the outcome is unknown"),
    -32001: (_C.TIMEOUT, "MCP request timed out"),
    -32601: (_C.NOT_FOUND, "MCP method not found"),
    -32602: (_C.INVALID_ARGUMENTS, "MCP invalid params"),
    -32603: (_C.INTERNAL, "MCP internal error"),
    -32600: (_C.INTERNAL, "MCP invalid request"),
    -32700: (_C.INTERNAL, "MCP parse error"),
    -32020: (_C.INTERNAL, "MCP header mismatch"),
    -32021: (_C.INTERNAL, "MCP missing client capability"),
    -32022: (_C.INTERNAL, "MCP unsupported protocol version"),
    -32042: (_C.PERMISSION_DENIED, "MCP URL elicitation (authorisation) required"),
}


def classify_mcp_code(code: int, message: str = "") -> Classification:
    """The class of an MCP / JSON-RPC error code (HTTP-style codes 400–599 read as statuses)."""
    if 400 <= code <= 599:
        return classify_http_status(code)
    known = _MCP_CODES.get(code)
    if known is None:
        return Classification(_C.INTERNAL, f"MCP error {code}: {message}".rstrip(": "))
    kind, reason = known
    if code == -32602 and _NOT_FOUND.search(message):
        kind = _C.NOT_FOUND
    return Classification(kind, f"{reason} ({code}): {message}".rstrip(": "))


_SQLSTATE_EXACT: Mapping[str, ErrorClass] = {
    "40001": _C.TRANSIENT,  # serialization_failure
    "40P01": _C.TRANSIENT,  # deadlock_detected
    "55P03": _C.TRANSIENT,  # lock_not_available (lock_timeout)
    "55006": _C.TRANSIENT,  # object_in_use
    "57014": _C.TIMEOUT,  # query_canceled (statement_timeout)
    "08007": _C.TIMEOUT,  # transaction_resolution_unknown
    "40003": _C.TIMEOUT,  # statement_completion_unknown
    "53300": _C.TRANSIENT,  # too_many_connections
    "23502": _C.INVALID_ARGUMENTS,  # not_null_violation
    "23514": _C.INVALID_ARGUMENTS,  # check_violation
    "42501": _C.PERMISSION_DENIED,  # insufficient_privilege
    "25006": _C.PERMISSION_DENIED,  # read_only_sql_transaction
    "55000": _C.PRECONDITION_FAILED,  # object_not_in_prerequisite_state
}
_SQLSTATE_CLASS: Mapping[str, ErrorClass] = {
    "08": _C.TRANSIENT,  # connection exception
    "57": _C.TRANSIENT,  # operator intervention (shutdown, cannot connect now)
    "23": _C.PRECONDITION_FAILED,  # integrity constraint violation (unique, foreign key, exclusion)
    "22": _C.INVALID_ARGUMENTS,  # data exception
    "28": _C.PERMISSION_DENIED,  # invalid authorization
}


def classify_sqlstate(code: str) -> Classification:
    """The class of a SQLSTATE (PostgreSQL's five-character error code)."""
    kind = _SQLSTATE_EXACT.get(code) or _SQLSTATE_CLASS.get(code[:2], _C.INTERNAL)
    return Classification(kind, f"SQLSTATE {code}")


def classify_sqlite(name: str | None, message: str = "") -> Classification:
    """The class of a SQLite result code name (``SQLITE_BUSY``, ``SQLITE_CONSTRAINT_UNIQUE``, ...)."""
    if name is None:
        if re.search(r"database (?:table )?is (?:locked|busy)", message):
            return Classification(_C.TRANSIENT, f"SQLite: {message}")
        return Classification(_C.INTERNAL, f"SQLite: {message}")
    reason = f"{name}: {message}" if message else name
    if name == "SQLITE_BUSY_SNAPSHOT":
        # The transaction read a snapshot that another one has since overwritten: it can never
        # write again, so repeating the statement cannot help; the whole transaction must start over.
        return Classification(_C.PRECONDITION_FAILED, reason)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return Classification(_C.TRANSIENT, reason)
    if name == "SQLITE_INTERRUPT":
        return Classification(_C.TIMEOUT, reason)
    if name in ("SQLITE_CONSTRAINT_NOTNULL", "SQLITE_CONSTRAINT_CHECK", "SQLITE_CONSTRAINT_DATATYPE"):
        return Classification(_C.INVALID_ARGUMENTS, reason)
    if name.startswith("SQLITE_CONSTRAINT"):
        return Classification(_C.PRECONDITION_FAILED, reason)
    if name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")):
        return Classification(_C.PERMISSION_DENIED, reason)
    if name in ("SQLITE_MISMATCH", "SQLITE_TOOBIG", "SQLITE_RANGE"):
        return Classification(_C.INVALID_ARGUMENTS, reason)
    return Classification(_C.INTERNAL, reason)


_NOT_FOUND = re.compile(
    r"not found|does ?n[o']t exist|no such|unknown (?:\w+ )?(?:id|tool|record|resource|method)", re.I
)
_TEXT_RULES: tuple[tuple[re.Pattern[str], ErrorClass], ...] = (
    (re.compile(r"input validation failed|validation error", re.I), _C.INVALID_ARGUMENTS),
    (re.compile(r"rate.?limit|too many requests|quota exceeded|throttl", re.I), _C.RATE_LIMITED),
    (re.compile(r"timed? ?out|timeout|deadline exceeded", re.I), _C.TIMEOUT),
    (
        re.compile(
            r"temporarily unavailable|service unavailable|try again later|database is locked|deadlock", re.I
        ),
        _C.TRANSIENT,
    ),
    (
        re.compile(
            r"permission denied|not (?:authori[sz]ed|allowed|permitted)|unauthori[sz]ed|forbidden"
            r"|access denied|insufficient (?:privileges|permissions)",
            re.I,
        ),
        _C.PERMISSION_DENIED,
    ),
    (_NOT_FOUND, _C.NOT_FOUND),
    (
        re.compile(
            r"already (?:exists|been|in)|cannot be|can(?:no|')t \w+ (?:a|an|the) |conflict|not in a state"
            r"|must be in (?:status|state)|is not (?:open|active|pending|available|eligible)"
            r"|insufficient (?:funds|balance|stock|inventory|capacity)|exceeds?",
            re.I,
        ),
        _C.PRECONDITION_FAILED,
    ),
    (
        re.compile(
            r"invalid|is required|missing (?:required )?(?:field|argument|parameter)|must be|malformed"
            r"|not a valid|unrecogni[sz]ed|expected .+ (?:got|but)",
            re.I,
        ),
        _C.INVALID_ARGUMENTS,
    ),
)
_ENVELOPE_PREFIX = re.compile(r"^\s*(?:tool execution failed|error executing tool[^:]*)\s*:\s*", re.I)


def classify_tool_error(text: str) -> Classification:
    """The class of a tool's error text, read conservatively: unrecognised text is ``internal``.

    Accepts the JSON envelope ``{"error": "...", "tool": ...}`` some servers
    return in place of an MCP error result.
    """
    message = _envelope_error(text) or text
    message = _ENVELOPE_PREFIX.sub("", message).strip()
    short = message if len(message) <= 200 else message[:197] + "..."
    for pattern, kind in _TEXT_RULES:
        if pattern.search(message):
            return Classification(kind, f"tool error: {short}")
    return Classification(_C.INTERNAL, f"unrecognised tool error: {short}")


def _envelope_error(text: str) -> str | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        payload = json.loads(stripped)
    except ValueError:
        return None
    if isinstance(payload, dict) and isinstance(payload.get("error"), str):
        return str(payload["error"])
    return None


def tool_error_text(result: object) -> str | None:
    """The error text of a tool result that reports failure, else None.

    A result fails when it carries ``isError`` (MCP), or when its only text
    content is a JSON object with an ``error`` string (the ThinkingBox
    reference servers' envelope, sent without ``isError``).
    """
    flag = _field(result, "isError", "is_error")
    texts = [
        text for item in (_field(result, "content") or ()) if isinstance(text := _field(item, "text"), str)
    ]
    if flag is True:
        return "\n".join(texts) or "tool error (no text)"
    if len(texts) == 1:
        return _envelope_error(texts[0])
    return None


def _field(value: object, *names: str) -> Any:
    for name in names:
        if isinstance(value, Mapping):
            if name in value:
                return value[name]
        elif hasattr(value, name):
            return getattr(value, name)
    return None


_TRANSPORT_NAMES: tuple[tuple[str, ErrorClass, str], ...] = (
    ("ConnectTimeout", _C.TRANSIENT, "connection timed out before the request was sent"),
    ("PoolTimeout", _C.TRANSIENT, "no connection free in the pool; the request was not sent"),
    ("ConnectError", _C.TRANSIENT, "connection failed before the request was sent"),
    ("ProxyError", _C.TRANSIENT, "proxy error before the request was sent"),
    ("ReadTimeout", _C.TIMEOUT, "timed out waiting for the response"),
    ("WriteTimeout", _C.TIMEOUT, "timed out sending the request"),
    ("TimeoutException", _C.TIMEOUT, "timed out"),
    ("RemoteProtocolError", _C.TIMEOUT, "the peer broke the protocol or closed the connection mid-request"),
    ("ReadError", _C.TIMEOUT, "the connection failed while reading the response"),
    ("WriteError", _C.TIMEOUT, "the connection failed while sending the request"),
    ("CloseError", _C.TRANSIENT, "the connection failed while closing"),
)


def _classify_one(error: object, now: datetime | None) -> Classification | None:
    declared = getattr(error, "error_class", None)
    if isinstance(declared, str) and declared in ErrorClass.__members__.values():
        return Classification(ErrorClass(declared), f"{type(error).__name__}: {error}")
    data = getattr(error, "error", None)
    code = getattr(data, "code", None)
    if isinstance(code, int) and not isinstance(code, bool):
        return classify_mcp_code(code, str(getattr(data, "message", "") or ""))
    for name in ("sqlstate", "pgcode"):
        state = getattr(error, name, None)
        if isinstance(state, str) and len(state) == 5:
            found = classify_sqlstate(state)
            return Classification(found.error_class, f"{found.reason}: {_first_line(error)}")
    if hasattr(error, "sqlite_errorname") or type(error).__module__ == "sqlite3":
        return classify_sqlite(getattr(error, "sqlite_errorname", None), _first_line(error))
    status, headers = _http_status(error)
    if status is not None:
        retry_after = headers.get("retry-after") if headers is not None else None
        return classify_http_status(status, retry_after if isinstance(retry_after, str) else None, now=now)
    text = tool_error_text(error) if not isinstance(error, BaseException) else None
    if text is not None:
        return classify_tool_error(text)
    if isinstance(error, str):
        return classify_tool_error(error)
    if isinstance(error, BaseException):
        return _classify_exception(error)
    return None


def _http_status(error: object) -> tuple[int | None, Mapping[str, Any] | None]:
    response = getattr(error, "response", None)
    for holder in (response, error):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int) and 400 <= status <= 599:
            return status, getattr(holder, "headers", None)
    return None, None


def _classify_exception(error: BaseException) -> Classification | None:
    names = {cls.__name__ for cls in type(error).__mro__}
    for name, kind, reason in _TRANSPORT_NAMES:
        if name in names and type(error).__module__.split(".")[0] != "builtins":
            return Classification(kind, f"{reason} ({type(error).__name__})")
    if getattr(error, "connection_invalidated", False) is True:
        return Classification(_C.TRANSIENT, "database connection lost")
    if type(error).__module__.startswith("sqlalchemy") and "TimeoutError" in names:
        return Classification(_C.TRANSIENT, "no database connection free in the pool")
    reason = f"{type(error).__name__}: {_first_line(error)}".rstrip(": ")
    if isinstance(error, TimeoutError):
        return Classification(_C.TIMEOUT, reason)
    if isinstance(error, (ConnectionResetError, ConnectionAbortedError, BrokenPipeError)):
        return Classification(_C.TIMEOUT, f"{reason} (the outcome is unknown)")
    if isinstance(error, ConnectionError):
        return Classification(_C.TRANSIENT, reason)
    if isinstance(error, PermissionError):
        return Classification(_C.PERMISSION_DENIED, reason)
    if isinstance(error, FileNotFoundError):
        return Classification(_C.NOT_FOUND, reason)
    if isinstance(error, ValueError) and type(error).__module__ in (
        "builtins",
        "pydantic_core._pydantic_core",
    ):
        return Classification(_C.INVALID_ARGUMENTS, reason)
    if isinstance(error, LookupError) and type(error).__module__ == "builtins":
        return Classification(_C.NOT_FOUND, reason)
    return None


def _first_line(error: object) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


_LOCK_SQLSTATES = frozenset({"55P03", "40P01"})  # lock_not_available (lock_timeout), deadlock_detected


def is_lock_wait(error: object) -> bool:
    """Whether a failure is a wait for a lock that another transaction held (database errors only).

    PostgreSQL's lock timeout and deadlock, SQLite's busy write lock (not a stale
    snapshot, which no waiting cures), through the same wrappers :func:`classify` reads.
    """
    current: object = error
    seen: set[int] = set()
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        for name in ("sqlstate", "pgcode"):
            if getattr(current, name, None) in _LOCK_SQLSTATES:
                return True
        if hasattr(current, "sqlite_errorname") or type(current).__module__ == "sqlite3":
            code = getattr(current, "sqlite_errorname", None)
            if code == "SQLITE_BUSY_SNAPSHOT":
                return False
            if (code or "").startswith("SQLITE_BUSY") or "database is locked" in _first_line(current):
                return True
        current = _inner(current)
    return False


def classify(error: object, *, now: datetime | None = None) -> Classification:
    """The class of one failure; unrecognised failures are ``internal`` (never retried).

    Wrapped failures are unwrapped until one is recognised; an ``internal``
    on the outside (a wrapper's default) gives way to a more specific cause.
    ``now`` is the caller's time, for an HTTP-date ``Retry-After`` (the wall
    clock when None).
    """
    current: object = error
    seen: set[int] = set()
    fallback: Classification | None = None
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        found = _classify_one(current, now)
        if found is not None and found.error_class is not _C.INTERNAL:
            return found
        fallback = fallback or found
        current = _inner(current)
    if fallback is not None:
        return fallback
    return Classification(
        _C.INTERNAL, f"unrecognised error: {type(error).__name__}: {_first_line(error)}".rstrip(": ")
    )


def _inner(error: object) -> object:
    orig = getattr(error, "orig", None)
    if isinstance(orig, BaseException):
        return orig
    if isinstance(error, BaseException):
        if error.__cause__ is not None:
            return error.__cause__
        if not error.__suppress_context__:
            return error.__context__
    return None
