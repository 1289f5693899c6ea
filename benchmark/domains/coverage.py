"""A domain's policy, clause by clause: which rule judges each clause that constrains a write, or why none.

A domain may declare a coverage table (``coverage.yaml`` beside its rule pack,
:attr:`~benchmark.domains.declare.DomainSpec.coverage`): every clause of its
policy that constrains a write, quoted, with the rule ids that judge it and
what those rules read — ``state`` (the commit's effects and rows), ``trace``
(the transaction's calls in order), ``conversation`` (what the user and the
agent said) — or, for a clause no rule judges, why (``none``). ``guard judges
eval`` reports stops per clause and per input class from it; a test per domain
holds the table and the domain's rules to each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchmark.errors import BenchmarkError

__all__ = ["INPUT_CLASSES", "Clause", "Coverage", "InputClass", "RuleInfo", "input_class", "load_coverage"]

InputClass = Literal["state", "trace", "conversation"]
INPUT_CLASSES: tuple[InputClass, ...] = ("state", "trace", "conversation")
"""From the least to the most a rule reads: a rule's class is the most it reads."""


def input_class(inputs: frozenset[str]) -> InputClass:
    """The class of a rule that reads ``inputs``: conversation over trace over state."""
    for kind in reversed(INPUT_CLASSES):
        if kind in inputs:
            return kind
    return "state"


class Clause(BaseModel):
    """One clause of the policy: its words, and the rules that judge it or why none does."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    section: str
    text: str
    rules: Mapping[str, tuple[InputClass, ...]] = Field(default_factory=dict)
    """Each rule that judges the clause, with what it reads."""
    none: str | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _judged_or_explained(self) -> Clause:
        if bool(self.rules) == (self.none is not None):
            raise ValueError(f"clause {self.id}: name its rules or say why none judges it (none:), not both")
        empty = sorted(rule for rule, inputs in self.rules.items() if not inputs)
        if empty:
            raise ValueError(f"clause {self.id}: say what {', '.join(empty)} read(s)")
        return self


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What the coverage says of one rule: the clauses it judges and the class of what it reads."""

    clauses: tuple[str, ...]
    input_class: InputClass


class Coverage(BaseModel):
    """A domain's coverage table (see the module)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    clauses: tuple[Clause, ...]

    @model_validator(mode="after")
    def _unique(self) -> Coverage:
        ids = [clause.id for clause in self.clauses]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"clause ids must be unique; repeated: {', '.join(repeated)}")
        return self

    @property
    def rules(self) -> frozenset[str]:
        """Every rule id the table names."""
        return frozenset(rule for clause in self.clauses for rule in clause.rules)

    def rule_map(self) -> Mapping[str, RuleInfo]:
        """Each named rule's clauses and input class (a rule named under two clauses reads the same)."""
        clauses: dict[str, list[str]] = {}
        inputs: dict[str, set[str]] = {}
        for clause in self.clauses:
            for rule, reads in clause.rules.items():
                clauses.setdefault(rule, []).append(clause.id)
                inputs.setdefault(rule, set()).update(reads)
        return {
            rule: RuleInfo(tuple(clauses[rule]), input_class(frozenset(inputs[rule]))) for rule in clauses
        }


def load_coverage(path: Path) -> Coverage:
    """The coverage table at ``path``; :class:`BenchmarkError` naming the file and what is wrong."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return Coverage.model_validate(data)
    except (OSError, yaml.YAMLError) as exc:
        raise BenchmarkError(f"{path}: cannot read the coverage table: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        raise BenchmarkError(f"{path}: {problems}") from exc
