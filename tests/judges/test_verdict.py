"""Verdicts as values: the strongest decision wins; warnings do not change it."""

from __future__ import annotations

from judges import Decision, Finding, Severity, Verdict, combine


def finding(severity: Severity, judge: str = "j") -> Finding:
    return Finding(judge, severity, f"{judge} {severity.value}")


def test_of_takes_the_strongest_decision() -> None:
    assert Verdict.of([]).decision is Decision.ALLOW
    assert Verdict.of([finding(Severity.WARN)]).decision is Decision.ALLOW
    assert Verdict.of([finding(Severity.WARN), finding(Severity.ESCALATE)]).decision is Decision.ESCALATE
    assert Verdict.of([finding(Severity.BLOCK), finding(Severity.ESCALATE)]).decision is Decision.BLOCK


def test_combine_keeps_order() -> None:
    verdict = combine(
        [Verdict.of([finding(Severity.ESCALATE, "a")]), Verdict.allow(finding(Severity.WARN, "b"))]
    )
    assert verdict.decision is Decision.ESCALATE
    assert [f.judge for f in verdict.findings] == ["a", "b"]
    assert [f.judge for f in verdict.blocking] == ["a"]


def test_finding_to_dict() -> None:
    full = Finding(
        "rules", Severity.BLOCK, "ticket 20: status 'solved'", "allowed: hold", "r1", {"key": "20"}
    )
    assert full.to_dict() == {
        "judge": "rules",
        "severity": "block",
        "message": "ticket 20: status 'solved'",
        "rule": "r1",
        "hint": "allowed: hold",
        "evidence": {"key": "20"},
    }
    assert finding(Severity.WARN).to_dict() == {"judge": "j", "severity": "warn", "message": "j warn"}
