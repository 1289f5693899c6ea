"""A compiled rule pack: the judge that evaluates one rule file over a commit.

Pure steps. :meth:`RulePack.queries` picks, for every effect, the rules that
apply to it and the lookups those rules use, and turns each lookup keyed by
the effect alone into a :class:`~judges.state.Query` by evaluating its
``where`` values over the effect. :meth:`RulePack.follow_up` does the same,
round after round, for chained lookups (keyed by a row another lookup
fetched, :mod:`judges.rules.lookup`), in dependency order.
:meth:`RulePack.__call__` builds one CEL environment per effect (``effect``,
the commit's names its rules read, and the fetched rows of its lookups, see
:mod:`judges.rules.view`) and evaluates every applicable rule's ``require``
against it. The commit's names are ``now`` (the commit time), ``calls`` (the
transaction's calls in order: ``{tool, arguments, write, ok, error_class,
error_message, turns}``), ``conversation`` (the turns the host handed over,
``{role, text}``), ``summary`` (the agent's commit summary), ``principal``
(the agent), ``claims`` (the claims of the agent's token the guard keeps, ``{}`` for a
static token: ``"support-lead" in claims.roles``) and ``effects`` (every effect of the
commit, each as ``effect`` is: a rule can judge the pending set as a whole); each is
built once per commit, and only when a rule reads it.

A rule that reads ``conversation`` when the host handed none is not judged:
it yields a warning that says so, never a block (the conversation is an
optional channel, and its absence is no evidence of anything).

A rule whose ``require`` is false yields a finding with the rule's decision,
its rendered message and hint, and its ``mode`` when it declares one. A rule that cannot be evaluated (a CEL
error, a result that is not a bool, a lookup that failed or was not fetched,
``now`` when the commit has no time) yields a blocking finding that names
the rule, in the rule's mode: the pack fails closed (a shadowed rule's
failure is shadowed too). :attr:`RulePack.finding_modes` names its rules'
modes, so that a pack that cannot answer at all fails in the mode its
findings would have had (:func:`judges.failure_mode`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.effects import Effect, EffectKind
from judges.rules.engine import CelEvalError, Environment, Expression, evaluate_all
from judges.rules.lookup import Lookup, LookupFailure, with_keying
from judges.rules.template import Template
from judges.rules.view import effect_view, rows_view, to_cel
from judges.state import Query, Row, StateSnapshot
from judges.verdict import CommitContext, Finding, Mode, Severity, Verdict

__all__ = ["Rule", "RulePack"]

_NO_CLOCK = "now: the commit time is not known (the gate was given no clock)"
_NO_CONVERSATION = "it reads the conversation, which the agent's host did not hand over: not judged"

COMMIT_NAMES = frozenset({"now", "calls", "conversation", "summary", "principal", "claims", "effects"})
"""The names a rule reads from the commit as a whole, beside ``effect`` and its lookups."""


_FIELD_READ = re.compile(
    r"""effect\.(?:after|before)(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*["']([^"']+)["']\s*\])"""
)


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
    now: bool = False
    mode: Mode | None = None
    """``shadow``: its findings are recorded, not acted on; ``enforce``: they act even in a shadow guard."""
    reads: frozenset[str] = frozenset()
    """The commit names other than ``now`` that it reads (``calls``, ``conversation``, ...)."""
    reviewers: int = 1
    """For an escalation: how many different people must approve (a finding's ``evidence.reviewers``)."""

    def fingerprint(self) -> str:
        """What the rule decides and says, as text: two versions of it differ here when they differ."""
        parts = (
            self.id,
            ",".join(sorted(self.tables or ("*",))),
            ",".join(sorted(kind.value for kind in self.kinds)),
            self.require.source,
            self.severity.value,
            self.message.text,
            str(self.mode),
            str(self.reviewers),
        )
        return "\x1f".join(parts)

    def fields_read(self) -> frozenset[str]:
        """The fields of ``effect.after`` / ``effect.before`` its condition and texts read by name."""
        sources = [self.require.source]
        for template in (self.message, self.hint):
            if template is not None:
                sources.extend(part.source for part in template.expressions)
        return frozenset(dotted or quoted for text in sources for dotted, quoted in _FIELD_READ.findall(text))

    def applies_to(self, table: str, kind: EffectKind) -> bool:
        return kind in self.kinds and (self.tables is None or table in self.tables)

    def applies(self, effect: Effect) -> bool:
        """Whether the rule's ``when`` selects ``effect``."""
        if not self.applies_to(effect.table, effect.kind):
            return False
        return not self.changed or not self.changed.isdisjoint(effect.changed_fields)


@dataclass(frozen=True, slots=True)
class _Group:
    """Rules that apply together, with their programs and the lookups they need (in pack order).

    ``lookups`` includes the lookups that key a chained one; ``chained`` says
    whether any of them is chained, ``now`` whether a rule reads the time.
    """

    rules: tuple[Rule, ...]
    programs: tuple[Expression, ...]
    lookups: tuple[str, ...]
    chained: bool = False
    now: bool = False
    reads: frozenset[str] = frozenset()


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
        self._chained = any(lookup.after for lookup in self.lookups.values())
        self._candidates: dict[tuple[str, EffectKind], tuple[tuple[Rule, ...], _Group | None]] = {}
        self._groups: dict[tuple[int, ...], _Group] = {}
        self._last_plan: tuple[Sequence[Effect], list[_Plan]] | None = None

    def __repr__(self) -> str:
        return f"RulePack({self.name!r}, {len(self.rules)} rules, source={self.source!r})"

    @property
    def version(self) -> str:
        """A short hash of its rules as they decide (an approval records the versions that asked for it)."""
        text = "\x1e".join(rule.fingerprint() for rule in self.rules)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def finding_modes(self) -> frozenset[Mode | None]:
        """The modes its rules declare (None for a rule that declares none): its findings' modes."""
        return frozenset(rule.mode for rule in self.rules)

    @property
    def tables_named(self) -> frozenset[str]:
        """The tables the pack's rules select by ``when.table`` and its lookups read."""
        named = {table for rule in self.rules for table in rule.tables or ()}
        named.update(lookup.table for lookup in self.lookups.values())
        return frozenset(named)

    def rules_for(self, effect: Effect) -> tuple[Rule, ...]:
        """The pack's rules that apply to ``effect``, in pack order."""
        return self._group_for(effect).rules

    def queries(self, effects: Sequence[Effect]) -> list[Query]:
        """The first round: the lookups keyed by the effects alone."""
        seen: dict[Query, None] = {}
        for plan in self._plan(effects):
            for query in plan.queries.values():
                seen.setdefault(query, None)
        return list(seen)

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> list[Query]:
        """The chained lookups whose keys the rows fetched so far give, and that are not fetched yet."""
        if not self._chained:
            return []
        seen: dict[Query, None] = {}
        for plan in self._plan(effects):
            if plan.group.chained:
                queries, _ = self._resolve(plan, state)
                for query in queries.values():
                    if query not in state.answers:
                        seen.setdefault(query, None)
        return list(seen)

    def __call__(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        commit = _CommitNames(context)
        for plan in self._plan(context.effects):
            if plan.group.rules:
                self._judge_effect(plan, context.state, commit, findings)
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
            used = with_keying(self.lookups, (name for rule in rules for name in rule.lookups))
            lookups = tuple(name for name in self.lookups if name in used)
            chained = any(self.lookups[name].after for name in lookups)
            now = any(rule.now for rule in rules)
            reads = frozenset().union(*(rule.reads for rule in rules))
            programs = tuple(rule.require for rule in rules)
            group = self._groups[key] = _Group(rules, programs, lookups, chained, now, reads)
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
            lookup = self.lookups[name]
            if lookup.after:
                continue
            try:
                queries[name] = lookup.query(effect, environment)
            except (LookupFailure, CelEvalError) as exc:
                failures[name] = str(exc)
        return _Plan(effect, group, queries, failures)

    def _resolve(self, plan: _Plan, state: StateSnapshot) -> tuple[dict[str, Query], dict[str, str]]:
        """The plan's queries and failures, plus the chained lookups that the rows in ``state`` key."""
        queries, failures = dict(plan.queries), dict(plan.failures)
        for name in plan.group.lookups:
            lookup = self.lookups[name]
            if not lookup.after or name in queries or name in failures:
                continue
            rows: dict[str, Row | None] = {}
            for before in lookup.after:
                if before in failures:
                    failures[name] = f"lookup {before!r}: {failures[before]}"
                    break
                answer = state.answers.get(queries[before]) if before in queries else None
                if answer is None:
                    break
                rows[before] = answer[0] if answer else None
            else:
                try:
                    queries[name] = lookup.query(plan.effect, self._environment(plan.effect, rows), rows)
                except (LookupFailure, CelEvalError) as exc:
                    failures[name] = str(exc)
        return queries, failures

    def _environment(self, effect: Effect, rows: Mapping[str, Row | None]) -> Callable[[], Environment]:
        """The environment a chained lookup's expressions read: ``effect`` and the rows keying it."""

        def environment() -> Environment:
            variables: dict[str, Any] = {"effect": effect_view(effect, self.fields)}
            for name, row in rows.items():
                variables[name] = rows_view((row,) if row is not None else (), self.fields, True)
            return Environment(variables)

        return environment

    def _judge_effect(
        self, plan: _Plan, state: StateSnapshot, commit: _CommitNames, findings: list[Finding]
    ) -> None:
        now = commit.context.now
        effect, group = plan.effect, plan.group
        variables: dict[str, Any] = {"effect": effect_view(effect, self.fields)}
        queries, broken = self._resolve(plan, state) if group.chained else (plan.queries, dict(plan.failures))
        for name in group.lookups:
            if name in broken:
                continue
            try:
                rows = state.rows(queries[name])
            except KeyError:
                broken[name] = "its rows were not fetched before the judges ran"
                continue
            variables[name] = rows_view(rows, self.fields, self.lookups[name].one)
        if group.now and now is not None:
            variables["now"] = to_cel(now, None)
        for name in group.reads:
            variables[name] = commit.value(name)
        try:
            environment = Environment(variables)
        except CelEvalError as exc:
            findings.extend(self._failed(rule, effect, str(exc)) for rule in group.rules)
            return
        clockless = group.now and now is None
        unheard = "conversation" in group.reads and commit.context.conversation is None
        if broken or clockless or unheard:
            # A rule whose lookup failed blocks even if its condition would not have needed the rows;
            # a rule that needs the conversation the host did not hand over only says it was not judged.
            usable = []
            for rule in group.rules:
                problem = _problem(rule, broken, clockless)
                if problem is not None:
                    findings.append(self._failed(rule, effect, problem))
                elif unheard and "conversation" in rule.reads:
                    findings.append(self._unjudged(rule, effect))
                else:
                    usable.append(rule)
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
        if rule.reviewers > 1:
            evidence["reviewers"] = rule.reviewers
        return Finding(
            self.name, rule.severity, message, hint=hint, rule=rule.id, evidence=evidence, mode=rule.mode
        )

    def _unjudged(self, rule: Rule, effect: Effect) -> Finding:
        message = f"rule {rule.id} for {effect.table} {effect.key_text}: {_NO_CONVERSATION}"
        evidence = self._evidence(effect) | {"not_judged": "conversation"}
        return Finding(self.name, Severity.WARN, message, rule=rule.id, evidence=evidence, mode=rule.mode)

    def _failed(self, rule: Rule, effect: Effect, detail: str) -> Finding:
        message = f"rule {rule.id} could not be evaluated for {effect.table} {effect.key_text}: {detail}"
        evidence = self._evidence(effect) | {"error": detail}
        return Finding(self.name, Severity.BLOCK, message, rule=rule.id, evidence=evidence, mode=rule.mode)


class _CommitNames:
    """The commit's names as CEL data, each built on first use and kept for the commit's other effects."""

    __slots__ = ("_values", "context")

    def __init__(self, context: CommitContext) -> None:
        self.context = context
        self._values: dict[str, Any] = {}

    def value(self, name: str) -> Any:
        if name not in self._values:
            self._values[name] = self._build(name)
        return self._values[name]

    def _build(self, name: str) -> Any:
        context = self.context
        if name == "calls":
            return [
                {
                    "tool": call.tool,
                    "arguments": to_cel(call.arguments, None),
                    "write": call.write,
                    "ok": call.ok,
                    "error_class": call.error_class,
                    "error_message": call.error_message,
                    "turns": [turn.to_dict() for turn in call.turns],
                }
                for call in context.calls
            ]
        if name == "conversation":
            return None if context.conversation is None else [turn.to_dict() for turn in context.conversation]
        if name == "summary":
            return context.summary
        if name == "principal":
            return context.principal
        if name == "claims":
            return to_cel(dict(context.claims), None)
        if name == "effects":
            return [effect_view(effect, None) for effect in context.effects]
        raise KeyError(name)


def _problem(rule: Rule, broken: Mapping[str, str], clockless: bool) -> str | None:
    """Why ``rule`` cannot be evaluated: a lookup it reads failed, or it reads ``now`` and there is none."""
    failed = next((name for name in rule.lookups if name in broken), None)
    if failed is not None:
        return f"lookup {failed!r}: {broken[failed]}"
    return _NO_CLOCK if rule.now and clockless else None
