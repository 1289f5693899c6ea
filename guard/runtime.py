"""Assembling a guard from settings: engines, backend, judges, gate, audit, telemetry, manager."""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit.log import Audit
from guard.audit.redact import Redactor
from guard.backends.base import Backend
from guard.backends.mcp import McpBackend
from guard.backends.outbox import Outbox
from guard.backends.sql import SqlBackend
from guard.backends.upstream import Upstream
from guard.clock import Clock, SystemClock
from guard.edge.mcp_client import connect_upstream
from guard.errors import BackendError, ConfigError
from guard.gate.commit import CommitGate
from guard.lease import InstanceLease, NoLease
from guard.notify import Deliveries, MemoryDeliveries, Notifier
from guard.retry import RetryRules
from guard.settings import AuditSettings, GuardSettings
from guard.store.engine import create_engine, display_url, require_file, sqlite_file
from guard.store.migrate import check_current
from guard.store.sql_audit import SqlAudit
from guard.store.sql_deliveries import SqlDeliveries
from guard.store.sql_lease import SqlInstanceLease
from guard.store.sql_outbox import SqlOutbox
from guard.telemetry import Telemetry, provider_from_settings
from guard.transaction.manager import TransactionManager
from judges import AsyncJudge, Judge, default_registry, judges_from_config
from judges import ConfigError as JudgesConfigError

__all__ = [
    "Runtime",
    "assemble",
    "build_runtime",
    "configured_judges",
    "mcp_backend",
]

log = logging.getLogger(__name__)


def _python_judge(options: Mapping[str, Any], base_dir: Path) -> Judge | AsyncJudge:
    """The ``python`` judge kind: ``target: module:attribute``, a judge or a class built with the rest."""
    target = options.get("target")
    if not isinstance(target, str) or ":" not in target:
        raise ConfigError("a python judge needs `target: module:attribute`")
    module_name, _, attribute = target.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except Exception as exc:  # ImportError, AttributeError, or a module that fails as it loads
        raise ConfigError(f"cannot load python judge {target!r}: {exc}") from exc
    rest = {k: v for k, v in options.items() if k != "target"}
    judge = found(**rest) if isinstance(found, type) else found
    if not isinstance(judge, (Judge, AsyncJudge)):
        raise ConfigError(f"python judge {target!r} is not a judge (needs `name`, `queries` and a decision)")
    return judge


def configured_judges(settings: GuardSettings, backend_judges: Sequence[Judge]) -> list[Judge | AsyncJudge]:
    """The chain in order: the configured entries, then the backend's own judges."""
    registry = default_registry()
    registry.register("python", _python_judge)
    try:
        chain = judges_from_config(
            settings.judges.chain, registry=registry, base_dir=settings.judges.base_dir
        )
    except JudgesConfigError as exc:
        raise ConfigError(f"judges: {exc}") from exc
    judges: list[Judge | AsyncJudge] = list(chain.judges)
    if settings.judges.use_backend_judges:
        judges.extend(backend_judges)
    return judges


def _one_line(exc: BaseException) -> str:
    cause = getattr(exc, "orig", None) or exc
    return f"{type(cause).__name__}: {' '.join(str(cause).split())}"[:500]


def _start_failure(settings: GuardSettings, backend: str, exc: Exception) -> BackendError:
    """A foreign failure to start the backend, as one line naming it (never its password)."""
    where = display_url(settings.backend.url) if settings.backend.kind == "sql" else backend
    # SQLAlchemy wraps the driver's error and appends the statement and a link; the driver's text says it all
    cause = getattr(exc, "orig", None) or exc
    detail = " ".join(str(cause).split())
    return BackendError(
        f"cannot start the backend {where}: {type(cause).__name__}" + (f": {detail}" if detail else "")
    )


@dataclass
class Runtime:
    """A guard's parts, started and stopped together.

    ``audit_engine`` is None for an in-memory audit. Ready means the audit
    store and the backend (:meth:`~guard.backends.base.Backend.ping`) answer.
    """

    settings: GuardSettings
    manager: TransactionManager
    audit_engine: AsyncEngine | None
    telemetry: Telemetry
    lease: InstanceLease = field(default_factory=NoLease)
    owns_gate: bool = True

    async def start(self) -> list[str]:
        """Check the audit store, then start the manager (and with it the backend).

        Raises :class:`StoreNotReady` when the audit store is missing (a SQLite
        file that does not exist is not created), unreachable or not migrated,
        and :class:`BackendError` when the backend cannot be reached or fails to
        start: the network's and the database's exceptions are translated here,
        naming the backend without its password. A failed start releases what
        it opened.
        """
        try:
            if self.audit_engine is not None:
                require_file(self.settings.audit.url)
                await check_current(self.audit_engine)
            await self.lease.acquire()
            try:
                return await self.manager.start()
            except (OSError, SQLAlchemyError) as exc:
                raise _start_failure(self.settings, self.manager.backend.name, exc) from exc
        except BaseException:
            with contextlib.suppress(Exception):
                await self.manager.backend.close()
            with contextlib.suppress(Exception):
                await self.lease.release()
            if self.audit_engine is not None:
                await self.audit_engine.dispose()
            raise

    async def stop(self) -> None:
        try:
            await self.manager.stop()
            if self.manager.notifier is not None:
                await self.manager.notifier.drain()
        finally:
            with contextlib.suppress(Exception):
                await self.lease.release()
            if self.owns_gate:
                self.manager.gate.close()
                await self.manager.gate.aclose_judges()
            if self.audit_engine is not None:
                await self.audit_engine.dispose()
            self.telemetry.shutdown()

    async def ready(self) -> dict[str, str]:
        """Problems by component; empty when ready.

        Each check takes the path a transaction takes: the audit store takes
        this instance's heartbeat (a write), the backend a write it rolls back
        (:meth:`~guard.backends.base.Backend.ping`); audit writes still waiting
        for the store make the guard not ready, and so does a judge pool
        exhausted by hung evaluations (every agent's commits refused; a judge
        quarantined for one agent, or one agent held back, refuses only that agent's).
        """
        problems: dict[str, str] = {}
        try:
            await self.lease.heartbeat()
        except Exception as exc:
            problems["audit"] = _one_line(exc)
        if self.manager.backlog:
            problems["audit"] = f"{self.manager.backlog} audit write(s) are waiting for the audit store"
        try:
            await self.manager.backend.ping()
        except Exception as exc:
            problems["backend"] = _one_line(exc)
        pool = self.manager.gate.pool_status()
        # only an exhausted pool refuses every agent; a quarantine or a held-back agent refuses one
        if pool.exhausted:
            problems["judges"] = f"the judge pool is exhausted by {len(pool.hung)} hung evaluations"
        return problems


def assemble(
    settings: GuardSettings,
    backend: Backend,
    audit: Audit,
    *,
    audit_engine: AsyncEngine | None = None,
    clock: Clock | None = None,
    provider: TracerProvider | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
    gate: CommitGate | None = None,
    telemetry: Telemetry | None = None,
) -> Runtime:
    """A runtime around a backend built by the caller: the one assembly the server and the benchmark use.

    The gate runs the configured judges, then the backend's; a ``gate`` given
    (one shared by many runtimes, as the benchmark's trials share their
    domain's) is used as it is and left open when the runtime stops; so is a
    ``telemetry`` given (a harness's, on the global tracer provider).
    """
    owns_gate = gate is None
    if gate is None:
        gate = CommitGate.from_settings(configured_judges(settings, backend.judges), settings.commit)
    if telemetry is None:
        telemetry = Telemetry(
            provider
            if provider is not None
            else provider_from_settings(settings.telemetry, instance=settings.server.instance)
        )
    rules = RetryRules.from_settings(settings.retry, sleep=sleep)
    clock = clock or SystemClock()
    manager = TransactionManager(backend, gate, audit, telemetry, clock, settings, rules)
    if settings.notify.webhooks:
        deliveries: Deliveries = MemoryDeliveries() if audit_engine is None else SqlDeliveries(audit_engine)
        manager.notifier = Notifier(settings.notify, deliveries, clock)
    return Runtime(settings, manager, audit_engine, telemetry, owns_gate=owns_gate)


def mcp_backend(
    settings: GuardSettings,
    upstream: Upstream,
    outbox: Outbox,
    *,
    clock: Clock,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> McpBackend:
    """The ``mcp`` backend a config describes, over a given upstream and outbox."""
    return McpBackend(
        upstream,
        outbox,
        settings.backend.mcp,
        clock,
        instance=settings.server.instance,
        rules=RetryRules.from_settings(settings.retry, sleep=sleep),
        redactor=Redactor(settings.audit.redact),
    )


def build_runtime(
    settings: GuardSettings,
    *,
    clock: Clock | None = None,
    provider: TracerProvider | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
    audit: Audit | None = None,
    upstream: Upstream | None = None,
) -> Runtime:
    """Everything a guard process needs from its settings, not yet started (``await runtime.start()``).

    An ``mcp`` backend keeps its outbox in the audit store; ``upstream`` replaces
    the one the config names (an in-process server, in tests).
    """
    clock = clock or SystemClock()
    _distinct_sqlite_files(settings)
    audit_engine = _audit_engine(settings.audit)
    backend: SqlBackend | McpBackend
    if settings.backend.kind == "mcp":
        backend = mcp_backend(
            settings,
            upstream if upstream is not None else connect_upstream(settings.backend.mcp),
            SqlOutbox(audit_engine),
            clock=clock,
            sleep=sleep,
        )
    else:
        backend_engine = create_engine(
            settings.backend.url,
            statement_timeout_s=settings.backend.statement_timeout_s,
            lock_timeout_s=settings.backend.lock_timeout_s,
            pool_size=min(settings.backend.idle_connections, settings.backend.max_open_transactions),
            max_overflow=max(settings.backend.max_open_transactions - settings.backend.idle_connections, 0),
            search_path=settings.backend.search_path,
        )
        backend = SqlBackend.from_module(
            backend_engine,
            settings.backend.module,
            clock,
            prepare=settings.backend.prepare,
            instance=settings.server.instance,
        )
    runtime = assemble(
        settings,
        backend,
        audit if audit is not None else SqlAudit(audit_engine),
        audit_engine=audit_engine,
        clock=clock,
        provider=provider,
        sleep=sleep,
    )
    runtime.lease = SqlInstanceLease(
        audit_engine, settings.server.instance, clock, scope=settings.audit.search_path or ""
    )
    return runtime


def _audit_engine(audit: AuditSettings) -> AsyncEngine:
    """The audit store's engine: ``audit.pool_size`` connections and none past them, plus the lease's.

    Past its pool SQLAlchemy opens a connection and closes it when it is returned: under a burst every
    such statement paid for a connection (TCP, start-up, the driver's type look-ups). A statement waits
    for a pooled one instead; the one more is the instance lease's, held while the process lives.
    """
    return create_engine(
        audit.url,
        search_path=audit.search_path,
        statement_timeout_s=audit.statement_timeout_s,
        lock_timeout_s=audit.lock_timeout_s,
        pool_size=audit.pool_size + 1,
        max_overflow=0,
    )


def _distinct_sqlite_files(settings: GuardSettings) -> None:
    """SQLite has one writer per file: the audit log must not share the system of record's file."""
    if settings.backend.kind != "sql":
        return
    backend, audit = sqlite_file(settings.backend.url), sqlite_file(settings.audit.url)
    if backend is not None and backend == audit:
        raise ConfigError(
            f"backend.url and audit.url name the same SQLite file ({backend}): SQLite has one writer per "
            "file, so the audit log would wait for every open transaction; give the audit log its own file"
        )
