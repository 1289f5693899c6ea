"""How the booking judges word a finding: status text naming the record, and evidence keys."""

from __future__ import annotations

from collections.abc import Sequence

from judges import Effect, Finding, Severity

__all__ = ["finding"]


def finding(
    judge: str,
    rule: str,
    message: str,
    hint: str,
    effect: Effect,
    records: Sequence[str] = (),
    severity: Severity = Severity.BLOCK,
) -> Finding:
    """A finding about ``effect``; ``records`` are the other keys it was judged against."""
    evidence: dict[str, object] = {"table": effect.table, "key": effect.key_text}
    named = [r for r in dict.fromkeys(records) if r and r != effect.key_text]
    if named:
        evidence["records"] = named
    return Finding(judge, severity, message, hint=hint, rule=rule, evidence=evidence)
