"""Building a judge chain from configuration entries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from judges import (
    CallRecord,
    CommitContext,
    ConfigError,
    Decision,
    Effect,
    FailedWriteJudge,
    JudgeRegistry,
    NoEffectJudge,
    NonTerminalStatusJudge,
    Query,
    RulePack,
    Severity,
    Verdict,
    default_registry,
    judges_from_config,
)

RULES = """\
rules:
  - id: no-urgent
    when: {table: tickets}
    require: "effect.after.priority != 'urgent'"
    decision: escalate
    message: "ticket {{effect.key}}: priority urgent"
"""


class Limit:
    def __init__(self, limit: int) -> None:
        self.name = "limit"
        self.limit = limit

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.allow()


def build_limit(options: Mapping[str, Any], base_dir: Path) -> Limit:
    return Limit(int(options["limit"]))


def test_the_built_in_kinds(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "support.yaml").write_text(RULES)
    chain = judges_from_config(
        [
            {"judge": "rules", "path": "rules/support.yaml"},
            {"judge": "failed_write", "targets": {"update_ticket": ["id"]}},
            {"judge": "duplicate_effect", "ignore": {"*": ["id", "created_at"]}},
            {
                "judge": "non_terminal_status",
                "tables": {"tickets": {"non_terminal": ["open"]}},
                "severity": "warn",
            },
            {"judge": "no_effect", "claims": "default"},
        ],
        base_dir=tmp_path,
    )
    names = [judge.name for judge in chain.judges]
    assert names == ["support", "failed_write", "duplicate_effect", "non_terminal_status", "no_effect"]
    assert isinstance(chain.judges[0], RulePack)
    failed = chain.judges[1]
    assert isinstance(failed, FailedWriteJudge)
    assert failed.targets == {"update_ticket": ("id",)}
    status = chain.judges[3]
    assert isinstance(status, NonTerminalStatusJudge)
    assert status.severity is Severity.WARN
    no_effect = chain.judges[4]
    assert isinstance(no_effect, NoEffectJudge)
    verdict = chain(
        CommitContext("t", (), (CallRecord("update_ticket", {"id": 1}, True, False, "not_found"),))
    )
    assert verdict.decision is Decision.BLOCK
    assert {f.judge for f in verdict.findings} == {"failed_write", "no_effect"}


def test_python_judges_register_beside_the_built_ins() -> None:
    registry = default_registry()
    registry.register("limit", build_limit)
    chain = registry.chain([{"judge": "limit", "limit": 500}])
    judge = chain.judges[0]
    assert isinstance(judge, Limit)
    assert judge.limit == 500
    with pytest.raises(ValueError, match="already registered"):
        registry.register("limit", build_limit)
    assert "limit" in registry.kinds


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"path": "x.yaml"}, "a judge entry needs 'judge: <kind>'"),
        ({"judge": "nope"}, "unknown judge kind 'nope' (registered: duplicate_effect, failed_write"),
        ({"judge": "failed_write", "severity": "fatal"}, "judge 'failed_write': severity: Input should be"),
        (
            {"judge": "failed_write", "retries": 3},
            "judge 'failed_write': retries: Extra inputs are not permitted",
        ),
        (
            {"judge": "non_terminal_status", "tables": {"t": {}}},
            "give exactly one of terminal or non_terminal",
        ),
        ({"judge": "no_effect", "claims": ["("]}, "judge 'no_effect': missing ), unterminated subpattern"),
        ({"judge": "rules", "path": "absent.yaml"}, "cannot read the rule file"),
    ],
)
def test_bad_entries_are_one_config_error(entry: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        judges_from_config([entry], base_dir=tmp_path)
    assert message in str(caught.value)


def test_a_bad_rule_file_in_a_chain_names_the_file_and_rule(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(RULES.replace("!= 'urgent'", "!= 'urgent"))
    with pytest.raises(ConfigError, match=r"bad\.yaml:4:\d+: rule 'no-urgent': require: "):
        judges_from_config([{"judge": "rules", "path": "bad.yaml"}], base_dir=tmp_path)


def test_duplicate_judge_names_in_a_chain() -> None:
    with pytest.raises(ConfigError, match="repeated: failed_write"):
        judges_from_config([{"judge": "failed_write"}, {"judge": "failed_write"}])


def test_an_empty_registry() -> None:
    with pytest.raises(ConfigError, match=r"unknown judge kind 'rules' \(registered: \)"):
        JudgeRegistry().build({"judge": "rules"})
