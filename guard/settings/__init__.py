"""The guard's one settings object: a YAML file plus ``GUARD_*`` environment variables.

Environment variables override the file; nested keys use ``__``
(``GUARD_COMMIT__MAX_BLOCKED=5``). The CLI and the app factory build a
:class:`GuardSettings` and pass it down; nothing deeper reads the environment.
``deploy/guard.example.yaml`` documents every key.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import (
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from guard.audit.redact import check_path
from guard.errors import ConfigError
from guard.settings.base import Section as _Section
from guard.settings.identity import AuthSettings, JwtSettings, LimitSettings, PrincipalLimits
from judges.verdict import Mode

__all__ = [
    "AuditSettings",
    "AuthSettings",
    "BackendSettings",
    "CommitSettings",
    "CompensationSettings",
    "ConsoleSettings",
    "DispatchSettings",
    "GuardSettings",
    "JudgeSettings",
    "JwtSettings",
    "LimitSettings",
    "McpSettings",
    "McpToolSettings",
    "NotifySettings",
    "PrincipalLimits",
    "RetrySettings",
    "ServerSettings",
    "TelemetrySettings",
    "load_settings",
]


_NAME_PORT = r"(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:(\d+|\*))?"
_HOST_ENTRY = re.compile(rf"^(\*|{_NAME_PORT}|[0-9a-f.]*:[0-9a-f:.]*)$", re.IGNORECASE)
_ORIGIN_ENTRY = re.compile(rf"^[a-z][a-z0-9+.-]*://{_NAME_PORT}$", re.IGNORECASE)


class ServerSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    max_request_bytes: int = Field(
        1_048_576, gt=0, description="Largest MCP request body accepted (413 above)."
    )
    admin_max_request_bytes: int = Field(
        65_536, gt=0, description="Largest request body to the admin API and every other route (413 above)."
    )
    allowed_hosts: list[str] | None = Field(
        None,
        description="Host headers accepted: host (any port), host:port, host:*, or * for any. "
        "None: the loopback names plus the bind address when it is a specific one.",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origin headers accepted besides http://127.0.0.1:*, http://localhost:*, http://[::1]:*; "
        "scheme://host, scheme://host:port or scheme://host:*.",
    )
    insecure: bool = Field(
        False, description="Serve on a non-loopback address without agent or operator tokens (warned)."
    )
    instance: str = Field(
        "guard-1", description="This process's name in the audit log; crash recovery is per instance."
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="Addresses or networks (10.0.0.5, 10.0.0.0/8) of proxies whose X-Forwarded-For names the "
        "client a request comes from (and X-Forwarded-Proto its scheme); from other peers both are ignored.",
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_entries(cls, value: list[str]) -> list[str]:
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or network") from None
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _host_entries(cls, value: list[str] | None) -> list[str] | None:
        for entry in value or []:
            if not _HOST_ENTRY.match(entry):
                raise ValueError(f"{entry!r} is not host, host:port, host:* or *")
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _origin_entries(cls, value: list[str]) -> list[str]:
        for entry in value:
            if not _ORIGIN_ENTRY.match(entry):
                raise ValueError(f"{entry!r} is not scheme://host, scheme://host:port or scheme://host:*")
        return value


class DispatchSettings(_Section):
    """How deferred writes are sent to the upstream at commit."""

    max_attempts: int = Field(4, ge=1, description="Attempts per write, the first included.")
    initial_backoff_s: float = Field(0.05, ge=0)
    max_backoff_s: float = Field(2.0, ge=0)
    jitter_s: float = Field(0.05, ge=0)
    lease_s: float = Field(
        300.0,
        gt=0,
        description="A commit's dispatch is this instance's for this long after each step; "
        "past it, any replica may finish it.",
    )


class ReconnectSettings(_Section):
    """How the guard reconnects to an upstream that went away (a stdio child that died, an HTTP server
    that restarted or forgot its session): at once, then with exponential backoff, for as long as it runs."""

    initial_backoff_s: float = Field(0.2, ge=0)
    max_backoff_s: float = Field(10.0, gt=0)
    wait_s: float = Field(
        5.0,
        ge=0,
        description="How long a call waits for a reconnection in progress before it is refused, unsent.",
    )


_REFERENCE = re.compile(r"^\$(?:arguments|result)(?:\.[^.]+)*$")


def _check_template(value: Any, where: str) -> None:
    if isinstance(value, str) and value.startswith("$") and not value.startswith("$$"):
        if not _REFERENCE.match(value):
            raise ValueError(
                f"{where}: {value!r} is not a reference; use $arguments.<name> or $result.<name> "
                "(or $$ for a literal $)"
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_template(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_template(item, f"{where}[{index}]")


class CompensationSettings(_Section):
    """The tool that undoes a passthrough write, and its arguments built from the original call."""

    tool: str = Field(min_length=1, description="The upstream tool that undoes the write.")
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        description="Its arguments: constants, or references $arguments.<path> (the original call's "
        "arguments) and $result.<path> (its structured result); $$ starts a literal $.",
    )

    @field_validator("arguments")
    @classmethod
    def _references(cls, value: dict[str, Any]) -> dict[str, Any]:
        _check_template(value, "arguments")
        return value


def _compiles(pattern: str, where: str) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{where}: {pattern!r} is not a regular expression ({exc})") from None


class McpToolSettings(_Section):
    """What the guard does with one upstream tool; unset fields come from its annotations."""

    mode: Literal["read", "defer", "passthrough"] | None = Field(
        None, description="read: forwarded at once; defer: held until commit; passthrough: sent at once."
    )
    idempotent: bool | None = Field(None, description="Whether repeating the call is harmless.")
    compensate: CompensationSettings | None = Field(
        None, description="For a passthrough write: the call that undoes it on rollback."
    )
    error_pattern: str | None = Field(
        None,
        description="A regular expression: a result of this tool whose text matches is an error, though "
        "the upstream did not set isError (replaces backend.mcp.error_patterns for this tool).",
    )
    preview: str | None = Field(
        None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$",
        description="A write's boolean argument that, true, makes the call a dry run the upstream applies "
        "nowhere (e.g. dryRun): such a call is forwarded at once and its answer returned, like a read.",
    )

    @model_validator(mode="after")
    def _compensate_passthrough(self) -> McpToolSettings:
        if self.compensate is not None and self.mode in ("read", "defer"):
            raise ValueError(f"compensate applies to passthrough writes, not to mode {self.mode}")
        if self.preview is not None and self.mode == "read":
            raise ValueError("preview applies to writes; a read is forwarded at once anyway")
        if self.error_pattern is not None:
            _compiles(self.error_pattern, "error_pattern")
        return self


class UpstreamSettings(_Section):
    """One upstream MCP server: how it is reached (streamable HTTP ``url``, or stdio ``command``) and how
    its tools are served."""

    url: str | None = Field(None, description="The upstream's streamable-HTTP endpoint.")
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers sent upstream.")
    agent_headers: dict[str, str] = Field(
        default_factory=dict,
        description="HTTP headers sent with each request made for an agent, '{principal}' replaced by its "
        "name (URL-quoted), e.g. {X-On-Behalf-Of: '{principal}'}; requests made for no agent (listing the "
        "tools, a recovery) carry only headers.",
    )
    command: str | None = Field(None, description="The upstream launched as a subprocess (stdio).")
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    write_mode: Literal["defer", "passthrough"] = Field(
        "defer", description="What a write is unless its tool says otherwise."
    )
    honours_idempotency_key: bool = Field(
        False,
        description="The upstream applies a call at most once per _meta['guard/idempotency-key'], "
        "so an ambiguous failure of any write may be retried.",
    )
    tools: dict[str, McpToolSettings] = Field(default_factory=dict, description="Per-tool overrides.")
    error_patterns: list[str] = Field(
        default_factory=list,
        description="Regular expressions: a result whose text matches one is an error, for upstreams that "
        "report failures as plain text without isError (e.g. '^Error:').",
    )

    @model_validator(mode="after")
    def _reached_one_way(self) -> UpstreamSettings:
        for index, pattern in enumerate(self.error_patterns):
            _compiles(pattern, f"error_patterns[{index}]")
        if self.url is not None and self.command is not None:
            raise ValueError("set either url (streamable HTTP) or command (stdio), not both")
        if self.url is None and (self.headers or self.agent_headers):
            raise ValueError("headers and agent_headers apply to an upstream reached by url")
        if self.command is None and (self.args or self.env or self.cwd is not None):
            raise ValueError("args, env and cwd apply to an upstream launched by command")
        return self


_UPSTREAM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,31}$")

NAMESPACE = "__"
"""Between an upstream's name and its tools' when the guard fronts several: ``memory__create_entities``."""


class McpSettings(UpstreamSettings):
    """The upstream MCP server of an ``mcp`` backend (the fields of :class:`UpstreamSettings`), or several
    (``upstreams``), each tool then named ``<upstream>__<tool>``; and what they share."""

    timeout_s: float = Field(30.0, gt=0, description="Longest wait for one upstream request.")
    upstreams: dict[str, UpstreamSettings] = Field(
        default_factory=dict,
        description="Several upstreams by name (letters, digits, '-'), instead of the one above: each "
        "with its own connection and tool settings, its tools served as <name>__<tool>.",
    )
    dispatch: DispatchSettings = Field(default_factory=DispatchSettings)
    withdraw_tool_name: str | None = Field(
        "guard_withdraw",
        min_length=1,
        max_length=64,
        description="The tool by which an agent takes back a deferred write it has not committed (to "
        "replace it after a blocked commit without rolling back everything); null: not offered.",
    )
    reconnect: ReconnectSettings = Field(default_factory=ReconnectSettings)

    @model_validator(mode="after")
    def _consistent(self) -> McpSettings:
        if self.upstreams:
            bad = sorted(name for name in self.upstreams if not _UPSTREAM_NAME.match(name))
            if bad:
                raise ValueError(f"upstreams {bad}: a name is 1 to 32 letters, digits and '-'")
            fields = UpstreamSettings.model_fields
            own = sorted(
                name
                for name in self.model_fields_set & fields.keys()
                if getattr(self, name) != fields[name].get_default(call_default_factory=True)
            )
            if own:
                raise ValueError(f"with upstreams, set {', '.join(own)} in each upstream, not beside them")
        step = self.timeout_s + self.dispatch.max_backoff_s + self.dispatch.jitter_s
        if self.dispatch.lease_s <= step:
            raise ValueError(
                f"dispatch.lease_s ({self.dispatch.lease_s:g}) must exceed one dispatch attempt "
                f"(timeout_s + max_backoff_s + jitter_s = {step:g})"
            )
        return self

    def served(self) -> dict[str, UpstreamSettings]:
        """Each upstream by the prefix of its tools' names (one upstream: the empty prefix)."""
        if not self.upstreams:
            return {"": self}
        return {f"{name}{NAMESPACE}": upstream for name, upstream in self.upstreams.items()}


class BackendSettings(_Section):
    kind: Literal["sql", "mcp"] = Field(
        "sql", description="sql: tool functions on a database; mcp: an upstream MCP server."
    )
    module: str = Field("guard.demo.backend", description="Python module exposing `tools` (a ToolRegistry).")
    url: str = Field("sqlite:///guard-demo.db", description="The system of record (SQLAlchemy URL).")
    prepare: bool = Field(
        False, description="Call the module's `prepare(conn)` at start (creates demo tables)."
    )
    search_path: str | None = Field(None, description="PostgreSQL: the schema(s) the tools' tables live in.")
    statement_timeout_s: float = Field(10.0, gt=0)
    lock_timeout_s: float = Field(2.0, gt=0)
    max_open_transactions: int = Field(
        20, ge=1, description="Each open transaction pins a connection; past this, new keys are refused."
    )
    idle_connections: int = Field(
        10,
        ge=1,
        description="Connections kept open between transactions for the next ones; any more that a burst "
        "opened (up to max_open_transactions) are closed when their transaction ends.",
    )
    mcp: McpSettings = Field(default_factory=McpSettings)

    @model_validator(mode="after")
    def _upstream_named(self) -> BackendSettings:
        unnamed = [p for p, u in self.mcp.served().items() if u.url is None and u.command is None]
        if self.kind == "mcp" and unnamed:
            where = (
                "backend.mcp"
                if unnamed == [""]
                else ", ".join(f"backend.mcp.upstreams.{p.removesuffix(NAMESPACE)}" for p in unnamed)
            )
            raise ValueError(f"backend.kind is mcp: set url or command in {where}")
        return self


class AuditSettings(_Section):
    url: str = Field(
        "sqlite:///guard-audit.db", description="The guard's own tables (migrated by `guard db upgrade`)."
    )
    search_path: str | None = Field(None, description="PostgreSQL: the schema the guard's tables live in.")
    statement_timeout_s: float = Field(10.0, gt=0, description="Longest audit statement (PostgreSQL).")
    lock_timeout_s: float = Field(
        5.0, gt=0, description="Longest wait for a lock on the audit store (SQLite: its one write lock)."
    )
    pool_size: int = Field(
        20,
        ge=1,
        le=1000,
        description="Connections the guard keeps to the audit store, opened as needed; a statement that "
        "finds them all busy waits for one (never opens and closes one of its own).",
    )
    redact: list[str] = Field(
        default_factory=list,
        description="Paths kept out of the audit log and the settled outbox: <tool or table>.<field>[...], "
        "* for any (e.g. create_payment.card_number, *.password, customers.ssn); the conversation's turns "
        "by role: guard/conversation.user, guard/conversation.assistant, guard/conversation.*.",
    )

    @field_validator("redact")
    @classmethod
    def _redact_paths(cls, value: list[str]) -> list[str]:
        for path in value:
            check_path(path)
        return value


class CommitSettings(_Section):
    tool_name: str = Field("guard_commit", pattern=r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
    rollback_tool_name: str | None = Field(
        "guard_rollback",
        pattern=r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$",
        description="The tool that lets the agent discard its transaction; null: no such tool.",
    )
    max_blocked: int = Field(3, ge=1, description="Blocked attempts before the transaction is rolled back.")
    idle_timeout_s: float = Field(
        300.0, gt=0, description="An idle open transaction is rolled back after this."
    )
    approval_timeout_s: float = Field(3600.0, gt=0)
    judge_timeout_s: float = Field(2.0, gt=0, description="A judge slower than this blocks the commit.")
    judge_workers: int = Field(4, ge=1, description="Threads that run the synchronous judges.")
    max_hung_judges: int = Field(
        16,
        ge=1,
        description="Judge evaluations that may hang past their timeout, each on a written-off thread, "
        "before every synchronous judge blocks at once.",
    )
    max_hung_per_judge: int = Field(
        2,
        ge=1,
        description="Hung evaluations of one judge for one agent's commits after which that judge blocks "
        "that agent's commits at once (quarantined for that agent) until one of them ends.",
    )
    max_hung_per_agent: int = Field(
        4,
        ge=1,
        description="Hung judge evaluations of one agent's commits after which every judge blocks that "
        "agent's commits at once until one of them ends; at most max_hung_judges - 1 takes effect, so "
        "that one agent cannot use up the hung threads of all.",
    )
    reap_interval_s: float = Field(5.0, gt=0)
    mode: Mode = Field(
        Mode.ENFORCE,
        description="enforce: findings block or escalate commits; shadow: they are recorded (would_block) "
        "and the commit goes ahead. A rule's or a judge entry's own mode wins.",
    )


class RetrySettings(_Section):
    max_attempts: int = Field(4, ge=1, description="Attempts per call, the first included.")
    initial_backoff_s: float = Field(0.05, ge=0)
    max_backoff_s: float = Field(2.0, ge=0)
    jitter_s: float = Field(0.05, ge=0)


class JudgeSettings(_Section):
    chain: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Judges in order: {judge: rules, path: ...}, failed_write, duplicate_effect, "
        "non_terminal_status, no_effect, rubric (an LLM judge, off unless named), "
        "or {judge: python, target: module:attribute}.",
    )
    use_backend_judges: bool = Field(True, description="Also run the judges the backend module exports.")
    base_dir: Path | None = Field(
        None, description="Where relative judge paths resolve; default: the config file's directory."
    )


def _otel_environment() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name.startswith("OTEL_")}


class TelemetrySettings(_Section):
    """Span export over OTLP/HTTP; a key set here wins over the standard ``OTEL_*`` variable for it.

    The object also keeps the process's ``OTEL_*`` variables as they were when
    it was built (:attr:`otel_environment`), from which ``guard.telemetry``
    decides whether to export; the OpenTelemetry SDK reads the values it
    applies (endpoint, headers, resource, sampler, batching) itself.
    """

    otlp_endpoint: str | None = Field(
        None,
        description="OTLP/HTTP traces endpoint (…/v1/traces). Unset: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or "
        "OTEL_EXPORTER_OTLP_ENDPOINT plus /v1/traces; with neither (nor OTEL_TRACES_EXPORTER=otlp) nothing "
        "is exported.",
    )
    otlp_headers: dict[str, str] = Field(
        default_factory=dict,
        description="Headers on every export, over those of OTEL_EXPORTER_OTLP_(TRACES_)HEADERS.",
    )
    service_name: str | None = Field(
        None,
        description="The resource's service.name. Unset: OTEL_SERVICE_NAME, or service.name in "
        "OTEL_RESOURCE_ATTRIBUTES, else guard.",
    )
    _otel: dict[str, str] = PrivateAttr(default_factory=_otel_environment)

    @property
    def otel_environment(self) -> Mapping[str, str]:
        """The ``OTEL_*`` environment variables when these settings were built."""
        return MappingProxyType(self._otel)


class ConsoleSettings(_Section):
    enabled: bool = Field(
        True, description="Serve the operator's console at /console (operator tokens apply)."
    )
    session_ttl_s: float = Field(
        28_800.0, gt=0, description="A console session ends this long after its sign-in (or first page)."
    )
    max_sessions: int = Field(
        1000, ge=1, description="Console sessions kept at once; past this the oldest one ends."
    )
    trace_url: str | None = Field(
        None,
        description="A trace UI address with {transaction_id} in it, linked from each transaction's page "
        "(e.g. a Jaeger search on the guard.transaction.id tag).",
    )
    public_url: str | None = Field(
        None,
        pattern=r"^https?://[^\s/]+(/[^\s]*)?$",
        description="The console's address as people reach it (e.g. https://guard.example.com); an agent "
        "whose commit waits for a reviewer is sent its page there. Default: http://<server.host>:<port>.",
    )
    approval_wait_s: float = Field(
        20.0,
        gt=0,
        le=300,
        description="How long an agent's client, once its user has opened the page, waits in one request "
        "for the reviewer's decision before it asks again.",
    )
    approval_ttl_s: float = Field(
        86_400.0,
        gt=0,
        description="An approval request is valid this long after the commit asked for it; after, it can "
        "only be rejected (the agent commits again to ask anew).",
    )
    approval_rounds: int = Field(
        6,
        ge=1,
        le=9,
        description="Requests an agent's client makes for one decision before it is told the commit "
        "still waits (the MCP client gives up after 10).",
    )

    @field_validator("trace_url")
    @classmethod
    def _names_the_transaction(cls, value: str | None) -> str | None:
        if value is not None and "{transaction_id}" not in value:
            raise ValueError("trace_url must contain {transaction_id}")
        return value


NoticeEvent = Literal["escalated", "approved", "rejected", "approved_in_part"]
_NOTICE_EVENTS: list[NoticeEvent] = ["escalated", "approved", "rejected", "approved_in_part"]


class WebhookSettings(_Section):
    """One receiver of notices (a chat's incoming webhook, an incident tool, your own endpoint)."""

    url: str = Field(pattern=r"^https?://\S+$", description="Where notices are POSTed.")
    format: Literal["generic", "slack"] = Field(
        "generic", description="generic: the guard's JSON; slack: an incoming-webhook payload with the link."
    )
    events: list[NoticeEvent] = Field(
        default_factory=lambda: list(_NOTICE_EVENTS),
        min_length=1,
        description="Which notices it gets.",
    )
    secret: str | None = Field(None, description="The HMAC key of the Guard-Signature header.")
    secret_env: str | None = Field(None, description="An environment variable holding the HMAC key instead.")
    timeout_s: float = Field(5.0, gt=0, le=60)
    max_attempts: int = Field(6, ge=1, le=20, description="Attempts per notice, the first included.")
    initial_backoff_s: float = Field(0.5, ge=0)
    max_backoff_s: float = Field(60.0, ge=0)


class NotifySettings(_Section):
    webhooks: list[WebhookSettings] = Field(
        default_factory=list,
        description="Receivers told when a commit waits for a reviewer and when a reviewer decides.",
    )


class GuardSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GUARD_", env_nested_delimiter="__", extra="forbid")

    server: ServerSettings = Field(default_factory=ServerSettings)
    backend: BackendSettings = Field(default_factory=BackendSettings)
    audit: AuditSettings = Field(default_factory=AuditSettings)
    commit: CommitSettings = Field(default_factory=CommitSettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    judges: JudgeSettings = Field(default_factory=JudgeSettings)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    console: ConsoleSettings = Field(default_factory=ConsoleSettings)
    notify: NotifySettings = Field(default_factory=NotifySettings)

    @model_validator(mode="after")
    def _limits_read_kept_claims(self) -> GuardSettings:
        kept = set(self.auth.jwt.claims) if self.auth.jwt is not None else set()
        for index, entry in enumerate(self.limits.principals):
            claim = entry.match.claim
            if claim is not None and claim not in kept:
                raise ValueError(
                    f"limits.principals[{index}].match.claim: {claim!r} is not among the claims the guard "
                    "keeps (auth.jwt.claims), so no agent would ever match it"
                )
        return self


# sqlite[+driver]:///path[?query]: the path is relative unless it starts with /
_SQLITE_URL = re.compile(r"^(?P<scheme>sqlite(?:\+\w+)?):///(?P<path>[^?]*)(?P<query>\?.*)?$")
_DATABASE_URLS = ("backend", "audit")  # the sections whose `url` names a database


def _beside(url: str, directory: Path) -> str:
    """``url`` with a relative SQLite file path made absolute against ``directory``; any other URL as it is.

    In memory (``sqlite://``, ``:memory:``, ``mode=memory``) and SQLite URI filenames
    (``uri=true``) are left as written.
    """
    match = _SQLITE_URL.match(url)
    if match is None:
        return url
    path, query = match["path"], match["query"] or ""
    if path in ("", ":memory:") or path.startswith("/") or "mode=memory" in query or "uri=true" in query:
        return url
    return f"{match['scheme']}:///{os.path.normpath(directory / path)}{query}"


class _ConfigFile(YamlConfigSettingsSource):
    """A YAML config file's settings, with its SQLite paths resolved against the file's directory."""

    def __init__(self, settings_cls: type[BaseSettings], config: Path) -> None:
        super().__init__(settings_cls, yaml_file=config)
        self._directory = config.resolve().parent

    def __call__(self) -> dict[str, Any]:
        data = dict(super().__call__())
        for name in _DATABASE_URLS:
            section = data.get(name)
            if isinstance(section, dict) and isinstance(section.get("url"), str):
                data[name] = {**section, "url": _beside(section["url"], self._directory)}
        return data


def load_settings(config: Path | None = None, **overrides: Any) -> GuardSettings:
    """Settings from ``config`` (YAML), the environment and ``overrides``, in rising precedence.

    Relative paths in the file resolve against the file's directory: its SQLite
    database files (``backend.url``, ``audit.url``) and, unless ``judges.base_dir``
    says otherwise, its judges' files. Database paths from the environment, from
    ``overrides`` and the defaults stay relative to the working directory.
    """
    if config is not None and not config.is_file():
        raise ConfigError(f"config file not found: {config}")

    class _FromFile(GuardSettings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
            if config is not None:
                sources.append(_ConfigFile(settings_cls, config))
            return tuple(sources)

    try:
        loaded = _FromFile(**overrides)
    except ValidationError as exc:
        where = f" in {config}" if config else ""
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        raise ConfigError(f"invalid configuration{where}: {problems}") from exc
    except Exception as exc:
        raise ConfigError(f"cannot read configuration {config}: {exc}") from exc
    settings = GuardSettings.model_validate(loaded.model_dump())
    if config is not None and settings.judges.base_dir is None:
        judges = settings.judges.model_copy(update={"base_dir": config.resolve().parent})
        settings = settings.model_copy(update={"judges": judges})
    return settings
