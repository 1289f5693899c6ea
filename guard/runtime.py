"""Assembling a guard from settings: engines, backend, judges, gate, audit, telemetry, manager."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit import Audit
from guard.backends.sql import SqlBackend
from guard.clock import Clock, SystemClock
from guard.errors import ConfigError
from guard.gate import CommitGate
from guard.manager import TransactionManager
from guard.settings import GuardSettings
from guard.store.audit import SqlAudit
from guard.store.engine import create_engine
from guard.store.migrate import check_current
from guard.telemetry import Telemetry, provider_from_settings
from judges import AsyncJudge, Judge, default_registry, judges_from_config
from judges import ConfigError as JudgesConfigError
from judges.classify import classify, retryable

__all__ = ["Runtime", "assemble", "build_runtime", "classify_error", "configured_judges", "is_retryable"]

log = logging.getLogger(__name__)


def classify_error(exc: BaseException) -> str:
    """The classifier's class for a failure, as the string the audit log and spans carry."""
    return classify(exc).error_class.value


def is_retryable(error_class: str, in_transaction: bool, idempotent: bool) -> bool:
    return retryable(error_class, in_transaction=in_transaction, idempotent=idempotent)


def _python_judge(options: Mapping[str, Any], base_dir: Path) -> Judge | AsyncJudge:
    """The ``python`` judge kind: ``target: module:attribute``, a judge or a class built with the rest."""
    target = options.get("target")
    if not isinstance(target, str) or ":" not in target:
        raise ConfigError("a python judge needs `target: module:attribute`")
    module_name, _, attribute = target.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
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


@dataclass
class Runtime:
    """A guard's parts, started and stopped together; ``audit_engine`` is None for an in-memory audit."""

    settings: GuardSettings
    manager: TransactionManager
    audit_engine: AsyncEngine | None
    backend_engine: AsyncEngine
    telemetry: Telemetry

    async def start(self) -> list[str]:
        if self.audit_engine is not None:
            await check_current(self.audit_engine)
        return await self.manager.start()

    async def stop(self) -> None:
        try:
            await self.manager.stop()
        finally:
            if self.audit_engine is not None:
                await self.audit_engine.dispose()
            self.telemetry.shutdown()

    async def ready(self) -> dict[str, str]:
        """Problems by component; empty when ready."""
        problems: dict[str, str] = {}
        engines = [("backend", self.backend_engine)]
        if self.audit_engine is not None:
            engines.insert(0, ("audit", self.audit_engine))
        for name, engine in engines:
            try:
                async with engine.connect() as conn:
                    await conn.execute(text("SELECT 1"))
            except Exception as exc:
                problems[name] = f"{type(exc).__name__}: {exc}"
        return problems


def assemble(
    settings: GuardSettings,
    backend: SqlBackend,
    audit: Audit,
    *,
    audit_engine: AsyncEngine | None = None,
    clock: Clock | None = None,
    provider: TracerProvider | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> Runtime:
    """A runtime around a backend built by the caller (the configured judges, then the backend's)."""
    gate = CommitGate(
        configured_judges(settings, backend.judges), judge_timeout_s=settings.commit.judge_timeout_s
    )
    telemetry = Telemetry(provider if provider is not None else provider_from_settings(settings.telemetry))
    extra = {} if sleep is None else {"sleep": sleep}
    manager = TransactionManager(
        backend,
        gate,
        audit,
        telemetry,
        clock or SystemClock(),
        settings,
        classify=classify_error,
        retryable=is_retryable,
        **extra,
    )
    return Runtime(settings, manager, audit_engine, backend.engine, telemetry)


def build_runtime(
    settings: GuardSettings,
    *,
    clock: Clock | None = None,
    provider: TracerProvider | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
    audit: Audit | None = None,
) -> Runtime:
    """Everything a guard process needs from its settings, not yet started (``await runtime.start()``)."""
    clock = clock or SystemClock()
    backend_engine = create_engine(
        settings.backend.url,
        statement_timeout_s=settings.backend.statement_timeout_s,
        lock_timeout_s=settings.backend.lock_timeout_s,
        pool_size=settings.backend.max_open_transactions,
        search_path=settings.backend.search_path,
    )
    audit_engine = create_engine(settings.audit.url, search_path=settings.audit.search_path)
    backend = SqlBackend.from_module(
        backend_engine, settings.backend.module, clock, prepare=settings.backend.prepare
    )
    return assemble(
        settings,
        backend,
        audit if audit is not None else SqlAudit(audit_engine),
        audit_engine=audit_engine,
        clock=clock,
        provider=provider,
        sleep=sleep,
    )
