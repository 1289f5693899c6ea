"""A compiled rule pack: the judge that evaluates one rule file over a commit.

Two steps, both pure. :meth:`RulePack.queries` picks, for every effect, the
rules that apply to it and the lookups those rules use, and turns each lookup
into a :class:`~judges.state.Query` by evaluating its ``where`` values over the
effect. :meth:`RulePack.__call__` builds one CEL environment per effect
(``effect`` plus the fetched rows of its lookups, see :mod:`judges.rules.view`)
and evaluates every applicable rule's ``require`` against it.

A rule whose ``require`` is false yields a finding with the rule's decision
and its rendered message and hint. A rule that cannot be evaluated (a CEL
error, a result that is not a bool, a lookup that failed or was not fetched)
yields a blocking finding that names the rule: the pack fails closed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.effects import Effect, EffectKind
from judges.rules.engine import CelEvalError, Environment, Expression, evaluate_all
from judges.rules.template import Template
from judges.rules.view import effect_view, rows_view, to_cel
from judges.state import Query, StateSnapshot
from judges.verdict import CommitContext, Finding, Severity, Verdict

__all__ = ["KeyValue", "Lookup", "Rule", "RulePack"]

Scalar = str | int | float | bool | None
_SCALAR_TYPES = (str, int, float, bool, type(None))


class _LookupFailure(Exception):
    pass


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One ``where`` value: a constant, a plain path into ``effect``, or a CEL expression over it."""

    constant: Scalar = None
    path: tuple[str, ...] | None = None
    expression: Expression | None = None

    def resolve(self, effect: Effect, environment: Callable[[], Environment]) -> Scalar:
        if self.path is not None:
            value = _follow(effect, self.path)
        elif self.expression is not None:
            try:
                value = self.expression.evaluate(environment())
            except CelEvalError as exc:
                raise _LookupFailure(str(exc)) from exc
        else:
            return self.constant
        value = to_cel(value, None)
        if not isinstance(value, _SCALAR_TYPES):
            raise _LookupFailure(f"a lookup value must be a scalar, got {type(value).__name__}")
        return value


def _follow(effect: Effect, path: tuple[str, ...]) -> Any:
    head, rest = path[0], path[1:]
    value: Any
    if head == "before":
        value = effect.before
    elif head == "after":
        value = effect.after
    elif head == "key":
        value = effect.key_text
    elif head == "table":
        value = effect.table
    elif head == "kind":
        value = effect.kind.value
    elif head == "changed":
        value = list(effect.changed_fields)
    else:
        raise _LookupFailure(f"no such key: {head!r}")
    walked = f"effect.{head}"
    for name in rest:
        if not isinstance(value, Mapping):
            raise _LookupFailure(
                f"{walked} is {'null' if value is None else type(value).__name__}, not a map"
            )
        if name not in value:
            raise _LookupFailure(f"no such key: {name!r}")
        value = value[name]
        walked += f".{name}"
    return value


@dataclass(frozen=True, slots=True)
class Lookup:
    """Rows of ``table`` matching ``where``, bound to ``name`` (the first row or null when ``one``)."""

    name: str
    table: str
    where: tuple[tuple[str, KeyValue], ...]
    limit: int | None = None
    one: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "where", tuple(sorted(self.where, key=lambda item: item[0])))

    def query(self, effect: Effect, environment: Callable[[], Environment]) -> Query:
        """The query for one effect (columns in sorted order, as :meth:`Query.of` makes them)."""
        where = tuple((column, value.resolve(effect, environment)) for column, value in self.where)
        return Query(self.table, where, 1 if self.one else self.limit)


@dataclass(frozen=True, slots=True)
class Rule:
    """One compiled rule: where it applies, what it needs, what it requires, what it says."""

    id: str
    description: str
    tables: frozenset[str] | None
    kinds: frozenset[EffectKind]
    changed: frozenset[str]
    lookups: tuple[str, ...]
    require: Expression
    severity: Severity
    message: Template
    hint: Template | None = None
    line: int = 0

    def applies_to(self, table: str, kind: EffectKind) -> bool:
        return kind in self.kinds and (self.tables is None or table in self.tables)

    def applies(self, effect: Effect) -> bool:
        """Whether the rule's ``when`` selects ``effect``."""
        if not self.applies_to(effect.table, effect.kind):
            return False
        return not self.changed or not self.changed.isdisjoint(effect.changed_fields)


@dataclass(frozen=True, slots=True)
class _Group:
    """Rules that apply together, with their programs and the lookups they use (in pack order)."""

    rules: tuple[Rule, ...]
    programs: tuple[Expression, ...]
    lookups: tuple[str, ...]


_EMPTY = _Group((), (), ())


@dataclass(frozen=True, slots=True)
class _Plan:
    effect: Effect
    group: _Group
    queries: Mapping[str, Query] = field(default_factory=dict)
    failures: Mapping[str, str] = field(default_factory=dict)


class RulePack:
    """The rules of one file, evaluated as one judge named after the pack."""

    def __init__(
        self,
        name: str,
        rules: Sequence[Rule],
        lookups: Mapping[str, Lookup],
        *,
        fields: frozenset[str] | None,
        source: str = "<memory>",
    ) -> None:
        self.name = name
        self.rules = tuple(rules)
        self.lookups = dict(lookups)
        self.fields = fields
        self.source = source
        self._candidates: dict[tuple[str, EffectKind], tuple[tuple[Rule, ...], _Group | None]] = {}
        self._groups: dict[tuple[int, ...], _Group] = {}
        self._last_plan: tuple[Sequence[Effect], list[_Plan]] | None = None

    def __repr__(self) -> str:
        return f"RulePack({self.name!r}, {len(self.rules)} rules, source={self.source!r})"

    def rules_for(self, effect: Effect) -> tuple[Rule, ...]:
        """The pack's rules that apply to ``effect``, in pack order."""
        return self._group_for(effect).rules

    def queries(self, effects: Sequence[Effect]) -> list[Query]:
        seen: dict[Query, None] = {}
        for plan in self._plan(effects):
            for query in plan.queries.values():
                seen.setdefault(query, None)
        return list(seen)

    def __call__(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        for plan in self._plan(context.effects):
            if plan.group.rules:
                self._judge_effect(plan, context.state, findings)
        return Verdict.of(findings)

    def _group_for(self, effect: Effect) -> _Group:
        slot = (effect.table, effect.kind)
        cached = self._candidates.get(slot)
        if cached is None:
            candidates = tuple(rule for rule in self.rules if rule.applies_to(effect.table, effect.kind))
            fixed = None if any(rule.changed for rule in candidates) else self._group(candidates)
            cached = self._candidates[slot] = (candidates, fixed)
        candidates, fixed = cached
        if fixed is not None:
            return fixed
        changed = effect.changed_fields
        return self._group(tuple(r for r in candidates if not r.changed or not r.changed.isdisjoint(changed)))

    def _group(self, rules: tuple[Rule, ...]) -> _Group:
        if not rules:
            return _EMPTY
        key = tuple(id(rule) for rule in rules)
        group = self._groups.get(key)
        if group is None:
            used = {name for rule in rules for name in rule.lookups}
            lookups = tuple(name for name in self.lookups if name in used)
            group = self._groups[key] = _Group(rules, tuple(rule.require for rule in rules), lookups)
        return group

    def _plan(self, effects: Sequence[Effect]) -> list[_Plan]:
        # The gate asks for queries and then for the verdict over the same effects tuple;
        # the plan of the last tuple is kept so the lookup keys are worked out once.
        last = self._last_plan
        if last is not None and last[0] is effects:
            return last[1]
        plans = [self._plan_effect(effect) for effect in effects]
        if isinstance(effects, tuple):
            self._last_plan = (effects, plans)
        return plans

    def _plan_effect(self, effect: Effect) -> _Plan:
        group = self._group_for(effect)
        if not group.lookups:
            return _Plan(effect, group)
        cached: list[Environment] = []

        def environment() -> Environment:
            if not cached:
                cached.append(Environment({"effect": effect_view(effect, self.fields)}))
            return cached[0]

        queries: dict[str, Query] = {}
        failures: dict[str, str] = {}
        for name in group.lookups:
            try:
                queries[name] = self.lookups[name].query(effect, environment)
            except (_LookupFailure, CelEvalError) as exc:
                failures[name] = str(exc)
        return _Plan(effect, group, queries, failures)

    def _judge_effect(self, plan: _Plan, state: StateSnapshot, findings: list[Finding]) -> None:
        effect, group = plan.effect, plan.group
        variables: dict[str, Any] = {"effect": effect_view(effect, self.fields)}
        broken = dict(plan.failures)
        for name, query in plan.queries.items():
            try:
                rows = state.rows(query)
            except KeyError:
                broken[name] = "its rows were not fetched before the judges ran"
                continue
            variables[name] = rows_view(rows, self.fields, self.lookups[name].one)
        try:
            environment = Environment(variables)
        except CelEvalError as exc:
            findings.extend(self._failed(rule, effect, str(exc)) for rule in group.rules)
            return
        if broken:
            # A rule whose lookup failed blocks even if its condition would not have needed the rows.
            usable = [rule for rule in group.rules if not broken.keys() & set(rule.lookups)]
            for rule in group.rules:
                failed = next((name for name in rule.lookups if name in broken), None)
                if failed is not None:
                    findings.append(self._failed(rule, effect, f"lookup {failed!r}: {broken[failed]}"))
            rules = tuple(usable)
            results = evaluate_all([rule.require for rule in rules], environment)
        else:
            rules = group.rules
            results = evaluate_all(group.programs, environment)
        for rule, result in zip(rules, results, strict=True):
            if result is True:
                continue
            if isinstance(result, CelEvalError):
                findings.append(self._failed(rule, effect, str(result)))
            elif result is not False:
                detail = f"require gave a {type(result).__name__}, not a bool"
                findings.append(self._failed(rule, effect, detail))
            else:
                findings.append(self._fired(rule, effect, environment))

    def _evidence(self, effect: Effect) -> dict[str, Any]:
        return {"pack": self.name, "table": effect.table, "key": effect.key_text, "kind": effect.kind.value}

    def _fired(self, rule: Rule, effect: Effect, environment: Environment) -> Finding:
        errors: list[str] = []
        message = rule.message.render(environment, errors)
        hint = rule.hint.render(environment, errors) if rule.hint is not None else None
        evidence = self._evidence(effect)
        if errors:
            evidence["template_errors"] = errors
        return Finding(self.name, rule.severity, message, hint=hint, rule=rule.id, evidence=evidence)

    def _failed(self, rule: Rule, effect: Effect, detail: str) -> Finding:
        message = f"rule {rule.id} could not be evaluated for {effect.table} {effect.key_text}: {detail}"
        evidence = self._evidence(effect) | {"error": detail}
        return Finding(self.name, Severity.BLOCK, message, rule=rule.id, evidence=evidence)
