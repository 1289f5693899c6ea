"""The airline's coverage table against its rules and its policy: every rule the gate runs judges a clause
of the table, every rule the table names exists, and every clause quotes policy.md (Requirement G5: a
policy never fails open in silence; a clause no rule judges says why)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmark.domains.coverage import Clause, Coverage, load_coverage
from benchmark.domains.tau_airline import DOMAIN
from benchmark.errors import BenchmarkError
from judges import RulePack


def _rule_ids() -> set[str]:
    """Every rule id the airline's chain can name in a finding: its pack's rules and its judges' rules."""
    found: set[str] = set()
    for judge in DOMAIN.judges:
        if isinstance(judge, RulePack):
            found.update(rule.id for rule in judge.rules)
        else:
            found.update(getattr(judge, "rule_ids", ()))
    return found


def test_the_table_names_every_rule_of_the_airline_and_no_other() -> None:
    coverage = DOMAIN.coverage
    assert coverage is not None
    assert coverage.rules == _rule_ids()


def _words(text: str) -> str:
    return " ".join(re.sub(r"[*_`]", "", text).split()).lower()


def test_every_clause_quotes_the_policy(tau_data: Path) -> None:
    """A quote may leave words out (``...``); what it keeps is the policy's, word for word."""
    coverage = DOMAIN.coverage
    assert coverage is not None
    policy = _words((tau_data / "policy.md").read_text())
    for clause in coverage.clauses:
        for piece in clause.text.split("..."):
            for sentence in re.split(r"(?<=[.!?])\s+", piece.strip()):
                if sentence and len(sentence) > 12:
                    assert _words(sentence).strip(" .") in policy, (clause.id, sentence)


def test_a_clause_judged_names_what_its_rules_read_and_one_not_judged_says_why() -> None:
    with pytest.raises(ValueError, match="name its rules or say why none judges it"):
        Clause(id="x", section="s", text="t")
    with pytest.raises(ValueError, match="say what r read"):
        Clause(id="x", section="s", text="t", rules={"r": ()})
    judged = Clause(id="x", section="s", text="t", rules={"r": ("state", "trace")})
    assert Coverage(clauses=(judged,)).rule_map()["r"].input_class == "trace"


def test_a_broken_table_is_one_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "coverage.yaml"
    broken.write_text("clauses:\n  - id: a\n    section: s\n    text: t\n    rules: {r: [memory]}\n")
    with pytest.raises(BenchmarkError, match=r"coverage.yaml: clauses\.0\.rules\.r\.0"):
        load_coverage(broken)
