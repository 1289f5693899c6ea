"""Keeping named values out of what the guard writes down: the audit log, the outbox, the commit log.

``audit.redact`` lists paths ``<scope>.<field>[.<field>...]``. The scope is a
tool name (the tool's call arguments, and its write's effect ``call:<tool>``)
or a table name (a row effect's before and after images), or ``*`` for any;
a field ``*`` matches every key at its level. A value found there is written
as ``"[redacted]"``; where a judge's finding quotes such a value (its message,
hint or evidence), the quote is replaced too before the finding is logged or
put on a span (:meth:`Redactor.findings`).

The conversation a host hands over (:mod:`guard.transaction.conversation`) has a scope of
its own, :data:`CONVERSATION` (``*`` does not reach it): ``guard/conversation.user``,
``guard/conversation.assistant`` or ``guard/conversation.*`` (every turn). A
redacted turn keeps its role and its length in characters, not its words:
``{"role": "user", "text": "[redacted]", "length": 42}`` (:meth:`Redactor.turns`);
a finding that quotes a redacted turn whole (four characters or more) has the
quote replaced, a finding that quotes a part of one does not: a judge over a
redacted conversation should not quote it. What the judges see is not redacted (they must judge the
real values), nor what a held write sends upstream: an outbox entry keeps its
arguments until its transaction has ended, and is redacted then.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from judges import Effect, Finding

__all__ = ["CONVERSATION", "REDACTED", "Redactor", "check_path", "scrub"]

REDACTED = "[redacted]"
CONVERSATION = "guard/conversation"
"""The scope of ``audit.redact`` paths over the conversation's turns: ``.user``, ``.assistant`` or ``.*``."""
_ROLES = ("user", "assistant", "*")
_PATH = re.compile(r"^[^.\s]+(\.[^.\s]+)+$")
_CALL = "call:"
_SHORTEST_QUOTE = 4  # shorter values (a flag, a small number) are too common to scrub from free text


def check_path(path: str) -> str:
    """``path`` if it reads ``<scope>.<field>[.<field>...]``; else ``ValueError`` saying how it should."""
    if not _PATH.match(path):
        raise ValueError(f"{path!r} is not <tool or table>.<field>[.<field>...] (use * for any)")
    scope, _, fields = path.partition(".")
    if scope == CONVERSATION and fields not in _ROLES:
        raise ValueError(
            f"{path!r}: the conversation's paths are {', '.join(f'{scope}.{r}' for r in _ROLES)}"
        )
    return path


class Redactor:
    """The paths of ``audit.redact``, applied to arguments, rows and logged effects."""

    def __init__(self, paths: Sequence[str] = ()) -> None:
        self._rules: list[tuple[str, tuple[str, ...]]] = []
        self._roles: frozenset[str] = frozenset()
        for path in paths:
            scope, *fields = check_path(path).split(".")
            if scope == CONVERSATION:
                self._roles |= {fields[0]}
            else:
                self._rules.append((scope, tuple(fields)))

    def __bool__(self) -> bool:
        return bool(self._rules or self._roles)

    def _hides(self, role: object) -> bool:
        return "*" in self._roles or role in self._roles

    def turns(self, turns: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
        """Logged turns (``Turn.to_dict`` each) with the redacted roles' text replaced, its length kept."""
        if turns is None or not self._roles:
            return None if turns is None else [dict(t) for t in turns]
        return [
            {"role": t.get("role"), "text": REDACTED, "length": len(str(t.get("text", "")))}
            if self._hides(t.get("role"))
            else dict(t)
            for t in turns
        ]

    def said(self, turns: Sequence[Mapping[str, Any]] | None) -> frozenset[str]:
        """The redacted turns' texts in ``turns``, as text a finding may quote whole."""
        if not turns or not self._roles:
            return frozenset()
        found = (str(t.get("text", "")) for t in turns if self._hides(t.get("role")))
        return frozenset(text for text in found if len(text) >= _SHORTEST_QUOTE)

    def arguments(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """A call's arguments with the paths for ``tool`` redacted (a copy; the input is left alone)."""
        return self._apply(tool, dict(arguments))

    def row(self, table: str, row: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """A row (or a call effect's arguments, for table ``call:<tool>``) with its paths redacted."""
        if row is None:
            return None
        scope = table.removeprefix(_CALL)
        return self._apply(scope, dict(row))

    def result(self, tool: str, result: Any) -> Any:
        """A write's result from the upstream, with the tool's paths redacted (results echo arguments)."""
        return self._apply(tool, dict(result)) if isinstance(result, Mapping) else result

    def dispatch(self, writes: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
        """A commit's dispatch report (``OutboxEntry.report`` each) with each write's result redacted."""
        if writes is None:
            return None
        return [
            {**w, "result": self.result(str(w["tool"]), w["result"])} if "result" in w else dict(w)
            for w in writes
        ]

    def effect(self, effect: Mapping[str, Any]) -> dict[str, Any]:
        """A logged effect (``Effect.to_dict``) with its before and after images redacted."""
        table = str(effect.get("table", ""))
        return {
            **effect,
            "before": self.row(table, effect.get("before")),
            "after": self.row(table, effect.get("after")),
        }

    def quoted(self, rows: Iterable[tuple[str, Mapping[str, Any] | None]]) -> frozenset[str]:
        """The redacted values in ``rows`` (table or call:<tool>, row), as text a finding quotes."""
        found: set[str] = set()
        for table, row in rows:
            if row is None:
                continue
            scope = table.removeprefix(_CALL)
            for rule_scope, fields in self._rules:
                if rule_scope in ("*", scope):
                    _collect(row, fields, found)
        return frozenset(text for text in found if len(text) >= _SHORTEST_QUOTE)

    def findings(
        self, findings: Sequence[Finding], effects: Sequence[Effect], said: frozenset[str] = frozenset()
    ) -> tuple[Finding, ...]:
        """``findings`` with every quote of a redacted value of ``effects``, or of ``said``, replaced."""
        quotes = (self.quoted(_rows(effects)) | said) if self else frozenset()
        if not quotes:
            return tuple(findings)
        return tuple(
            replace(
                f,
                message=scrub(f.message, quotes),
                hint=None if f.hint is None else scrub(f.hint, quotes),
                evidence=scrub(dict(f.evidence), quotes),
            )
            for f in findings
        )

    def logged_findings(
        self,
        findings: Sequence[Mapping[str, Any]],
        effects: Sequence[Mapping[str, Any]],
        said: frozenset[str] = frozenset(),
    ) -> list[dict[str, Any]]:
        """Serialised findings (``Finding.to_dict``) scrubbed of the redacted values of serialised effects
        and of ``said`` (redacted turns' texts, :meth:`said`)."""
        quotes = said | self.quoted(
            (str(e.get("table", "")), row) for e in effects for row in (e.get("before"), e.get("after"))
        )
        return [scrub(dict(f), quotes) for f in findings]

    def _apply(self, scope: str, value: dict[str, Any]) -> dict[str, Any]:
        for rule_scope, fields in self._rules:
            if rule_scope in ("*", scope):
                value = _redact(value, fields)
        return value


def _redact(value: Any, fields: tuple[str, ...]) -> Any:
    if not fields or not isinstance(value, Mapping):
        return value
    head, rest = fields[0], fields[1:]
    out = dict(value)
    for key in list(out):
        if head not in ("*", key):
            continue
        out[key] = REDACTED if not rest else _redact(out[key], rest)
    return out


def _rows(effects: Sequence[Effect]) -> Iterable[tuple[str, Mapping[str, Any] | None]]:
    for effect in effects:
        yield effect.table, effect.before
        yield effect.table, effect.after


def _collect(value: Any, fields: tuple[str, ...], found: set[str]) -> None:
    if not fields:
        _leaves(value, found)
        return
    if not isinstance(value, Mapping):
        return
    head, rest = fields[0], fields[1:]
    for key, item in value.items():
        if head in ("*", key):
            _collect(item, rest, found)


def _leaves(value: Any, found: set[str]) -> None:
    if isinstance(value, Mapping):
        for item in value.values():
            _leaves(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _leaves(item, found)
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        found.add(str(value))


def scrub(value: Any, quotes: frozenset[str]) -> Any:
    """``value`` (text, or a structure of it) with every one of ``quotes`` in its text replaced."""
    if not quotes:
        return value
    if isinstance(value, str):
        for quote in sorted(quotes, key=len, reverse=True):
            value = value.replace(quote, REDACTED)
        return value
    if isinstance(value, Mapping):
        return {key: scrub(item, quotes) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(item, quotes) for item in value]
    if value is not None and not isinstance(value, bool) and str(value) in quotes:
        return REDACTED
    return value
