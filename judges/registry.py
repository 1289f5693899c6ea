"""Building a judge chain from configuration.

A chain is configured as a list of entries, each naming a registered judge
kind and its options::

    - judge: rules
      path: rules/retail.yaml           # relative to the configuration file
    - judge: failed_write
      targets: {zendesk_update_item: [id]}
    - judge: non_terminal_status
      tables: {zendesk_tickets: {field: status, non_terminal: [new, open, pending]}}
    - judge: refund_limit              # a Python judge registered by the application
      limit: 500

Any entry may say ``mode: shadow`` (its judge's findings are recorded and the
commit goes ahead) or ``mode: enforce`` (they act even when the guard runs in
shadow); the judge is then a :class:`~judges.chain.InMode` and
:func:`~judges.chain.judge_modes` reads the modes back by judge name. A
rule's own ``mode`` wins over its entry's, for its pack's failures too.

Built-in kinds: ``rules``, ``failed_write``, ``duplicate_effect``,
``non_terminal_status``, ``no_effect`` (``claims: default`` uses
:data:`judges.trace.DEFAULT_CLAIMS`), and ``rubric``: yes/no questions to a
model on an OpenAI-compatible endpoint (``base_url``, ``model``,
``questions``, ``subject: conversation`` by default, the key in the
environment variable ``api_key_env``), off unless a chain names it. Python judges register beside them with
:meth:`JudgeRegistry.register`, for what CEL cannot say. Options are validated
here, at the configuration boundary; a bad entry is one :class:`ConfigError`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from judges.chain import AsyncJudge, InMode, JudgeChain
from judges.errors import ConfigError, RuleLoadError, SchemaError
from judges.rubric import OpenAIChat, RubricJudge
from judges.rules import load_rule_pack
from judges.schemas import (
    DuplicateEffectOptions,
    EntryMode,
    FailedWriteOptions,
    NoEffectOptions,
    NonTerminalOptions,
    RubricOptions,
    RulesOptions,
    validate,
)
from judges.trace import (
    DEFAULT_CLAIMS,
    DuplicateEffectJudge,
    FailedWriteJudge,
    NoEffectJudge,
    NonTerminalStatusJudge,
    StatusSpec,
)
from judges.verdict import Judge

__all__ = ["JudgeFactory", "JudgeRegistry", "default_registry", "judges_from_config"]

JudgeFactory = Callable[[Mapping[str, Any], Path], Judge | AsyncJudge]
"""Builds a judge from its options and the directory relative paths resolve against."""


class JudgeRegistry:
    """Judge kinds by name."""

    def __init__(self) -> None:
        self._factories: dict[str, JudgeFactory] = {}

    def register(self, kind: str, factory: JudgeFactory) -> None:
        if kind in self._factories:
            raise ValueError(f"judge kind {kind!r} is already registered")
        self._factories[kind] = factory

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted(self._factories))

    def build(self, entry: Mapping[str, Any], *, base_dir: Path | None = None) -> Judge | AsyncJudge:
        kind = entry.get("judge")
        if not isinstance(kind, str):
            raise ConfigError(f"a judge entry needs 'judge: <kind>' (one of {', '.join(self.kinds)})")
        factory = self._factories.get(kind)
        if factory is None:
            raise ConfigError(f"unknown judge kind {kind!r} (registered: {', '.join(self.kinds)})")
        options = {key: value for key, value in entry.items() if key not in ("judge", "mode")}
        try:
            mode = validate(EntryMode, {"mode": entry.get("mode")}).mode
            judge = factory(options, base_dir or Path.cwd())
            return judge if mode is None else InMode(judge, mode)
        except SchemaError as exc:
            raise ConfigError(f"judge {kind!r}: {exc}") from exc
        except (ValueError, TypeError, re.error, RuleLoadError) as exc:
            raise ConfigError(f"judge {kind!r}: {exc}") from exc

    def chain(
        self, entries: Sequence[Mapping[str, Any]], *, base_dir: Path | None = None, name: str = "chain"
    ) -> JudgeChain:
        judges = [self.build(entry, base_dir=base_dir) for entry in entries]
        try:
            return JudgeChain(judges, name=name)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc


def _rules(options: Mapping[str, Any], base_dir: Path) -> Judge:
    spec = validate(RulesOptions, options)
    path = Path(spec.path)
    return load_rule_pack(path if path.is_absolute() else base_dir / path)


def _failed_write(options: Mapping[str, Any], base_dir: Path) -> Judge:
    spec = validate(FailedWriteOptions, options)
    targets = {tool: tuple(names) for tool, names in spec.targets.items()}
    return FailedWriteJudge(spec.name, spec.severity, targets, spec.elsewhere)


def _duplicate(options: Mapping[str, Any], base_dir: Path) -> Judge:
    spec = validate(DuplicateEffectOptions, options)
    return DuplicateEffectJudge(spec.name, spec.severity, {t: frozenset(f) for t, f in spec.ignore.items()})


def _non_terminal(options: Mapping[str, Any], base_dir: Path) -> Judge:
    spec = validate(NonTerminalOptions, options)
    tables = {
        table: StatusSpec(
            status.field,
            None if status.terminal is None else frozenset(status.terminal),
            None if status.non_terminal is None else frozenset(status.non_terminal),
        )
        for table, status in spec.tables.items()
    }
    return NonTerminalStatusJudge(tables, spec.name, spec.severity)


def _no_effect(options: Mapping[str, Any], base_dir: Path) -> Judge:
    spec = validate(NoEffectOptions, options)
    claims = DEFAULT_CLAIMS if spec.claims == "default" else tuple(spec.claims)
    return NoEffectJudge(spec.name, spec.severity, claims)


def _rubric(options: Mapping[str, Any], base_dir: Path) -> AsyncJudge:
    spec = validate(RubricOptions, options)
    api_key = None
    if spec.api_key_env is not None:
        api_key = os.environ.get(spec.api_key_env)
        if not api_key:
            raise ConfigError(f"judge 'rubric': the environment variable {spec.api_key_env} is not set")
    model = OpenAIChat(spec.base_url, spec.model, api_key=api_key, timeout=spec.timeout_s)
    return RubricJudge(
        model,
        max_tokens=spec.max_tokens,
        questions=spec.questions,
        name=spec.name,
        severity=spec.severity,
        temperature=spec.temperature,
        subject=spec.subject,
        owns_model=True,
    )


def default_registry() -> JudgeRegistry:
    """A new registry holding the built-in judge kinds."""
    registry = JudgeRegistry()
    registry.register("rules", _rules)
    registry.register("failed_write", _failed_write)
    registry.register("duplicate_effect", _duplicate)
    registry.register("non_terminal_status", _non_terminal)
    registry.register("no_effect", _no_effect)
    registry.register("rubric", _rubric)
    return registry


def judges_from_config(
    entries: Sequence[Mapping[str, Any]],
    *,
    registry: JudgeRegistry | None = None,
    base_dir: Path | None = None,
) -> JudgeChain:
    """The chain the entries describe, built with ``registry`` (the built-ins by default)."""
    return (registry or default_registry()).chain(entries, base_dir=base_dir)
