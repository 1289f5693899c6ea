"""Wrong trajectories of every domain as one kind of case, and what the gate must do with each.

A :class:`WrongCase` is a task's golden trajectory changed by one edit (the
task by its short test name, ``bil_001``), of one :class:`Kind`:

* ``blocked``: a mistake the policy forbids. The first commit is blocked,
  each of ``rules`` blocks it, and one finding of those rules holds every
  one of ``words`` (the record, the field, the value found, what is allowed).
* ``warned``: a mistake the gate reports without blocking; the trajectory
  commits with one warning of its rule, which holds the ``words``.
* ``allowed``: another correct way to do the task; it commits with no
  blocking finding.
* ``missed``: a real mistake the gate cannot see; it commits, the graded
  state differs from the golden one, and ``why`` says why the gate misses it.

Every call of the edited trajectory succeeds but ``tool_errors`` of them
(a call the mistake itself makes fail, such as an update of a deleted ticket).

A :class:`WrongDomain` declares a domain's cases with what differs between
domains, as data: how its tasks are named and its gate built, how its
findings must be worded (:class:`Wording`) and what its catalogue must
cover (:class:`Catalogue`). Each ``tests/benchmark/<domain>_rules/cases.py``
exports one as ``WRONG_DOMAIN``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Catalogue",
    "Kind",
    "Wording",
    "WrongCase",
    "WrongDomain",
    "allowed",
    "blocked",
    "by_name",
    "missed",
    "warned",
]

Calls = list[tuple[str, dict[str, Any]]]
Edit = Callable[[Calls], Calls]


class Kind(enum.StrEnum):
    """What the gate must do with a wrong trajectory."""

    BLOCKED = "blocked"
    WARNED = "warned"
    ALLOWED = "allowed"
    MISSED = "missed"


@dataclass(frozen=True, kw_only=True)
class WrongCase:
    """A golden trajectory with one edit, and what the gate must say about it (see the module)."""

    task: str
    edit: Edit
    kind: Kind
    rules: frozenset[str] = frozenset()
    words: tuple[str, ...] = ()
    why: str = ""
    tool_errors: int = 0

    def __post_init__(self) -> None:
        if self.kind in (Kind.BLOCKED, Kind.WARNED) and not self.rules:
            raise ValueError(f"a {self.kind} case names the rule that decides it")
        if self.kind is Kind.MISSED and not self.why:
            raise ValueError("a missed case says why the gate cannot see it")


def _maker(kind: Kind) -> Callable[..., WrongCase]:
    def make(task: str, edit: Edit, rule: str = "", words: tuple[str, ...] = (), why: str = "") -> WrongCase:
        return WrongCase(
            task=task, edit=edit, kind=kind, rules=frozenset({rule} - {""}), words=words, why=why
        )

    make.__doc__ = f"A {kind} case: ``(task, edit, rule, words, why)``, ``rule`` empty for none."
    return make


blocked = _maker(Kind.BLOCKED)
warned = _maker(Kind.WARNED)
allowed = _maker(Kind.ALLOWED)
missed = _maker(Kind.MISSED)


@dataclass(frozen=True, kw_only=True)
class Wording:
    """How the findings of a blocked commit must read: status text with a hint of what is allowed.

    The findings checked are those of ``judges`` (all judges when ``None``),
    and only those of the case's rules if ``rules_only``. Neither message nor
    hint may hold ``imperative`` (an order to the agent), the hint starts with
    ``hint``, and with ``evidence`` the finding's evidence names its table.
    """

    imperative: re.Pattern[str]
    hint: str = "allowed"
    judges: frozenset[str] | None = None
    rules_only: bool = False
    evidence: bool = False


@dataclass(frozen=True, kw_only=True)
class Catalogue:
    """What a domain's cases must cover: at least ``blocked`` blocked cases over ``rules`` distinct rules,
    exactly ``missed`` missed ones (when given), rules of every one of ``families`` (the rule's first word)
    and every rule of ``named``."""

    blocked: int
    rules: int = 0
    missed: int | None = None
    families: frozenset[str] = frozenset()
    named: frozenset[str] = frozenset()


@dataclass(frozen=True, kw_only=True)
class WrongDomain:
    """A domain's wrong trajectories, and how they are replayed and checked.

    ``name`` prefixes the test ids; ``domain`` is the benchmark's domain;
    a case's task is the domain's task whose test is ``prefix + case.task``.
    ``bench`` builds the gate and trials the way ``guard bench`` does (its
    judge chain before the domain's judges); ``judge_timeout_s`` is the
    gate's time per judge.
    """

    name: str
    domain: str
    cases: Mapping[str, WrongCase]
    catalogue: Catalogue
    wording: Wording | None = None
    prefix: str = "test_"
    bench: bool = False
    judge_timeout_s: float = 5.0

    def of(self, kind: Kind) -> dict[str, WrongCase]:
        """The cases of ``kind``, by name."""
        return {name: case for name, case in self.cases.items() if case.kind is kind}


def by_name(*parts: Mapping[str, WrongCase]) -> dict[str, WrongCase]:
    """The cases of ``parts`` in one mapping; a name given twice is an error, not an override."""
    merged: dict[str, WrongCase] = {}
    for part in parts:
        twice = merged.keys() & part.keys()
        if twice:
            raise ValueError(f"case names given twice: {sorted(twice)}")
        merged |= part
    return merged
