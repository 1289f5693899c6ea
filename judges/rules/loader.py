"""Loading rule files: validate, compile every expression, and check every name, once.

Everything that can be wrong with a rule file is reported at load, as one
:class:`~judges.errors.RuleLoadError` naming the file, the rule and the
1-based line and column: malformed YAML, a field that breaks the schema, a
duplicate rule id, an expression or placeholder that does not compile, a name
that is neither ``effect``, a commit name (``now``, ``calls``, ``conversation``,
``summary``, ``principal``, ``claims``), a lookup, nor a comprehension variable, a lookup
named like a commit name or defined twice with different meanings, a ``let`` the rule never uses,
a ``where`` value that is null, reads ``now``, or takes its key from a lookup
that binds a list, and lookups whose keys come from each other in a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from judges.effects import EffectKind
from judges.errors import RuleLoadError, SchemaError
from judges.rounds import MAX_ROUNDS
from judges.rules.engine import CelCompileError, Expression, compile_expression
from judges.rules.lexer import Token, bound_names, field_path, mentioned_names, tokenize
from judges.rules.lookup import KeyValue, Lookup, with_keying
from judges.rules.pack import COMMIT_NAMES, Rule, RulePack
from judges.rules.source import SourceMap, read_yaml
from judges.rules.template import Template, TemplateError, compile_template
from judges.schemas import LookupSpec, PackSpec, validate
from judges.verdict import Severity

__all__ = ["load_rule_pack", "parse_rule_pack"]

DocPath = Sequence[str | int]

_SEVERITY = {"block": Severity.BLOCK, "warn": Severity.WARN, "escalate": Severity.ESCALATE}


def load_rule_pack(path: str | Path) -> RulePack:
    """Load and compile the rule file at ``path``."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleLoadError(str(file), f"cannot read the rule file: {exc}") from exc
    return parse_rule_pack(text, str(file))


def parse_rule_pack(text: str, file: str = "<string>") -> RulePack:
    """Compile rule-file text; ``file`` names it in errors and gives the default pack name."""
    data, source = read_yaml(text, file)
    try:
        spec = validate(PackSpec, data)
    except SchemaError as exc:
        line, column = source.position(exc.location)
        rule = _rule_id_at(data, exc.location)
        raise RuleLoadError(file, str(exc), rule=rule, line=line, column=column) from exc
    return _Compiler(spec, source).pack()


def _rule_id_at(data: object, location: Sequence[str | int]) -> str | None:
    if len(location) < 2 or location[0] != "rules" or not isinstance(location[1], int):
        return None
    rules = data.get("rules") if isinstance(data, dict) else None
    if isinstance(rules, list) and location[1] < len(rules) and isinstance(rules[location[1]], dict):
        ident = rules[location[1]].get("id")
        return str(ident) if ident is not None else f"#{location[1] + 1}"
    return None


class _Compiler:
    def __init__(self, spec: PackSpec, source: SourceMap) -> None:
        self.spec = spec
        self.source = source
        self.names: set[str] = set()
        self.lookups: dict[str, Lookup] = {}
        self.declared: dict[str, tuple[LookupSpec, DocPath, str | None]] = {}
        self.keyed_by: dict[tuple[str, str], tuple[DocPath, tuple[int, int]]] = {}

    def fail(
        self,
        detail: str,
        path: DocPath,
        *,
        rule: str | None = None,
        at: tuple[int, int] | None = None,
        cause: Exception | None = None,
    ) -> NoReturn:
        line, column = at if at is not None else self.source.position(path)
        raise RuleLoadError(self.source.file, detail, rule=rule, line=line, column=column) from cause

    def pack(self) -> RulePack:
        for name, lookup in self.spec.lookups.items():
            self.declare(name, lookup, ("lookups", name), rule=None)
        seen: dict[str, int] = {}
        for index, spec in enumerate(self.spec.rules):
            path: DocPath = ("rules", index)
            if spec.id in seen:
                self.fail(
                    f"duplicate rule id (first defined on line {seen[spec.id]})", (*path, "id"), rule=spec.id
                )
            seen[spec.id] = self.source.position(path)[0]
            for name, lookup in spec.let.items():
                self.declare(name, lookup, (*path, "let", name), rule=spec.id)
        self.lookups = self.in_dependency_order({name: self.lookup(name) for name in self.declared})
        rules = [self.rule(index) for index in range(len(self.spec.rules))]
        fields = frozenset(self.names) if self.spec.project else None
        name = self.spec.name or Path(self.source.file).stem
        return RulePack(name, rules, self.lookups, fields=fields, source=self.source.file)

    def declare(self, name: str, spec: LookupSpec, path: DocPath, *, rule: str | None) -> None:
        known = self.declared.get(name)
        if known is None:
            self.declared[name] = (spec, path, rule)
        elif known[0] != spec:
            self.fail(
                f"lookup {name!r} is already defined differently; give this one another name", path, rule=rule
            )

    def lookup(self, name: str) -> Lookup:
        """Compile a lookup's ``where`` values; a value may take its key from a one-row lookup."""
        spec, path, rule = self.declared[name]
        where: list[tuple[str, KeyValue]] = []
        for column, value in spec.where.items():
            value_path = (*path, "where", column)
            if value is None:
                detail = f"where {column}: null matches no row (as in SQL); leave the column out or key it"
                self.fail(detail, value_path, rule=rule)
            if not isinstance(value, str):
                where.append((column, KeyValue(constant=value)))
                continue
            expression, tokens = self.expression(value, value_path, rule=rule)
            if "now" in expression.variables - bound_names(tokens):
                detail = f"where {column}: now cannot key a lookup (rows are read before rules run)"
                self.fail(
                    detail, value_path, rule=rule, at=self.name_at(expression, tokens, "now", value_path)
                )
            refers = self.check_names(expression, tokens, frozenset(self.declared), value_path, rule=rule)
            for before in sorted(refers):
                at = self.name_at(expression, tokens, before, value_path)
                if not self.declared[before][0].one:
                    detail = (
                        f"where {column}: lookup {before!r} is a list; a key comes from a one: true lookup"
                    )
                    self.fail(detail, value_path, rule=rule, at=at)
                self.keyed_by[(name, before)] = (value_path, at)
            where.append((column, _key_value(expression, tokens, frozenset(refers))))
        return Lookup(name, spec.table, tuple(where), spec.limit, spec.one)

    def in_dependency_order(self, lookups: dict[str, Lookup]) -> dict[str, Lookup]:
        """The lookups with each after those that key it (else in file order).

        A cycle fails the load, and so does a chain longer than the fetch
        rounds can follow (one round per link).
        """
        ordered: dict[str, Lookup] = {}
        depth: dict[str, int] = {}
        path: list[str] = []

        def visit(name: str) -> None:
            if name in ordered:
                return
            if name in path:
                cycle = " -> ".join([*path[path.index(name) :], name])
                value_path, at = self.keyed_by[(path[-1], name)]
                detail = f"lookups {cycle} take their keys from each other in a cycle"
                self.fail(detail, value_path, rule=self.declared[path[-1]][2], at=at)
            path.append(name)
            for before in lookups[name].after:
                visit(before)
            path.pop()
            ordered[name] = lookups[name]
            depth[name] = max((depth[before] + 1 for before in lookups[name].after), default=0)
            if depth[name] >= MAX_ROUNDS:
                deepest = max(lookups[name].after, key=depth.__getitem__)
                value_path, at = self.keyed_by[(name, deepest)]
                detail = (
                    f"lookup {name!r} is keyed through {depth[name]} other lookups;"
                    f" at most {MAX_ROUNDS - 1} (one read round each)"
                )
                self.fail(detail, value_path, rule=self.declared[name][2], at=at)

        for name in lookups:
            visit(name)
        return ordered

    def rule(self, index: int) -> Rule:
        spec = self.spec.rules[index]
        path: DocPath = ("rules", index)
        require, tokens = self.expression(spec.require, (*path, "require"), rule=spec.id)
        message = self.template(spec.message, (*path, "message"), rule=spec.id)
        hint = self.template(spec.hint, (*path, "hint"), rule=spec.id) if spec.hint is not None else None
        names = frozenset(self.lookups)
        used = self.check_names(require, tokens, names, (*path, "require"), rule=spec.id, commit=True)
        for template, field in ((message, "message"), (hint, "hint")):
            if template is not None:
                for part in template.expressions:
                    part_tokens = tokenize(part.source)
                    at = (*path, field)
                    used |= self.check_names(part, part_tokens, names, at, rule=spec.id, commit=True)
        needed = with_keying(self.lookups, used)
        for name in spec.let:
            if name not in needed:
                self.fail(f"let {name!r} is never used by this rule", (*path, "let", name), rule=spec.id)
        tables = None if "*" in spec.when.tables else frozenset(spec.when.tables)
        return Rule(
            id=spec.id,
            description=spec.description,
            tables=tables,
            kinds=frozenset(EffectKind(kind) for kind in spec.when.kind),
            changed=frozenset(spec.when.changed),
            lookups=tuple(name for name in self.lookups if name in used),
            require=require,
            severity=_SEVERITY[spec.decision],
            message=message,
            hint=hint,
            line=self.source.position(path)[0],
            now="now" in used,
            mode=spec.mode,
            reviewers=spec.reviewers,
            reads=frozenset(used & (COMMIT_NAMES - {"now"})),
        )

    def expression(self, source: str, path: DocPath, *, rule: str | None) -> tuple[Expression, list[Token]]:
        try:
            expression = compile_expression(source)
        except CelCompileError as exc:
            at = self.source.position_in_scalar(path, exc.line, exc.column)
            self.fail(f"{path[-1]}: {exc.detail}", path, rule=rule, at=at, cause=exc)
        try:
            tokens = tokenize(source)
        except ValueError as exc:
            self.fail(f"{path[-1]}: {exc}", path, rule=rule, cause=exc)
        self.names |= mentioned_names(tokens)
        return expression, tokens

    def template(self, text: str, path: DocPath, *, rule: str) -> Template:
        try:
            template = compile_template(text)
        except TemplateError as exc:
            at = self.source.position_in_scalar(path, exc.line, exc.column)
            self.fail(f"{path[-1]}: {exc.detail}", path, rule=rule, at=at, cause=exc)
        for part in template.expressions:
            self.names |= mentioned_names(tokenize(part.source))
        return template

    def check_names(
        self,
        expression: Expression,
        tokens: list[Token],
        allowed: frozenset[str],
        path: DocPath,
        *,
        rule: str | None,
        commit: bool = False,
    ) -> set[str]:
        """The lookups (and commit names) the expression uses; an unknown name fails the load where it is."""
        free = expression.variables - bound_names(tokens) - {"effect"}
        commits = COMMIT_NAMES if commit else frozenset()
        unknown = sorted(free - allowed - commits)
        if unknown:
            name = unknown[0]
            at = self.name_at(expression, tokens, name, path)
            known = ", ".join(["effect", *sorted(allowed), *sorted(commits)])
            self.fail(f"{path[-1]}: unknown name {name!r} (known: {known})", path, rule=rule, at=at)
        return set(free)

    def name_at(
        self, expression: Expression, tokens: list[Token], name: str, path: DocPath
    ) -> tuple[int, int]:
        """The file position of the first use of ``name`` in the expression held at ``path``."""
        offset = next((t.offset for t in tokens if t.kind == "ident" and t.text == name), 0)
        before = expression.source[:offset]
        line = before.count("\n") + 1
        column = offset - (before.rfind("\n") + 1) + 1
        return self.source.position_in_scalar(path, line, column)


def _key_value(expression: Expression, tokens: list[Token], refers: frozenset[str]) -> KeyValue:
    """A ``where`` value: a plain path from ``effect`` or from the lookup it reads, else the expression."""
    steps = field_path(tokens, "effect")
    if steps is not None and not refers:
        return KeyValue(path=steps)
    if len(refers) == 1:
        (root,) = refers
        steps = field_path(tokens, root)
        if steps is not None:
            return KeyValue(path=steps, root=root, refers=refers)
    return KeyValue(expression=expression, refers=refers)
