"""Loading rule files: validate, compile every expression, and check every name, once.

Everything that can be wrong with a rule file is reported at load, as one
:class:`~judges.errors.RuleLoadError` naming the file, the rule and the
1-based line and column: malformed YAML, a field that breaks the schema, a
duplicate rule id, an expression or placeholder that does not compile, a name
that is neither ``effect``, a lookup, nor a comprehension variable, a lookup
defined twice with different meanings, a ``let`` the rule never uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from judges.effects import EffectKind
from judges.errors import RuleLoadError, SchemaError
from judges.rules.engine import CelCompileError, Expression, compile_expression
from judges.rules.lexer import Token, bound_names, field_path, mentioned_names, tokenize
from judges.rules.pack import KeyValue, Lookup, Rule, RulePack
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
        self.lookup_specs: dict[str, LookupSpec] = {}

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
            self.add_lookup(name, lookup, ("lookups", name), rule=None)
        seen: dict[str, int] = {}
        for index, spec in enumerate(self.spec.rules):
            path: DocPath = ("rules", index)
            if spec.id in seen:
                self.fail(
                    f"duplicate rule id (first defined on line {seen[spec.id]})", (*path, "id"), rule=spec.id
                )
            seen[spec.id] = self.source.position(path)[0]
            for name, lookup in spec.let.items():
                self.add_lookup(name, lookup, (*path, "let", name), rule=spec.id)
        rules = [self.rule(index) for index in range(len(self.spec.rules))]
        fields = frozenset(self.names) if self.spec.project else None
        name = self.spec.name or Path(self.source.file).stem
        return RulePack(name, rules, self.lookups, fields=fields, source=self.source.file)

    def add_lookup(self, name: str, spec: LookupSpec, path: DocPath, *, rule: str | None) -> None:
        known = self.lookup_specs.get(name)
        if known is not None:
            if known != spec:
                self.fail(
                    f"lookup {name!r} is already defined differently; give this one another name",
                    path,
                    rule=rule,
                )
            return
        where: list[tuple[str, KeyValue]] = []
        for column, value in spec.where.items():
            value_path = (*path, "where", column)
            if not isinstance(value, str):
                where.append((column, KeyValue(constant=value)))
                continue
            expression, tokens = self.expression(value, value_path, rule=rule)
            self.check_names(expression, tokens, frozenset(), value_path, rule=rule)
            steps = field_path(tokens, "effect")
            if steps is not None:
                where.append((column, KeyValue(path=steps)))
            else:
                where.append((column, KeyValue(expression=expression)))
        self.lookup_specs[name] = spec
        self.lookups[name] = Lookup(name, spec.table, tuple(where), spec.limit, spec.one)

    def rule(self, index: int) -> Rule:
        spec = self.spec.rules[index]
        path: DocPath = ("rules", index)
        require, tokens = self.expression(spec.require, (*path, "require"), rule=spec.id)
        message = self.template(spec.message, (*path, "message"), rule=spec.id)
        hint = self.template(spec.hint, (*path, "hint"), rule=spec.id) if spec.hint is not None else None
        used = self.check_names(require, tokens, frozenset(self.lookups), (*path, "require"), rule=spec.id)
        for template, field in ((message, "message"), (hint, "hint")):
            if template is not None:
                for part in template.expressions:
                    part_tokens = tokenize(part.source)
                    used |= self.check_names(
                        part, part_tokens, frozenset(self.lookups), (*path, field), rule=spec.id
                    )
        for name in spec.let:
            if name not in used:
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
    ) -> set[str]:
        """The lookups the expression uses; an unknown name fails the load at its position."""
        free = expression.variables - bound_names(tokens) - {"effect"}
        unknown = sorted(free - allowed)
        if unknown:
            name = unknown[0]
            offset = next((t.offset for t in tokens if t.kind == "ident" and t.text == name), 0)
            before = expression.source[:offset]
            line = before.count("\n") + 1
            column = offset - (before.rfind("\n") + 1) + 1
            at = self.source.position_in_scalar(path, line, column)
            known = ", ".join(["effect", *sorted(allowed)])
            self.fail(f"{path[-1]}: unknown name {name!r} (known: {known})", path, rule=rule, at=at)
        return set(free)
