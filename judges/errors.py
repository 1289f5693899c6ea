"""The exceptions the judges library raises.

Decisions are values (:class:`judges.verdict.Verdict`); exceptions are for
things that stop a judge from being built or asked: a rule file that does not
load, a chain configuration that names an unknown judge, a rubric question the
model did not answer. Foreign exceptions (CEL, YAML, HTTP) are translated here
once, with ``raise ... from exc``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "CommitTimeUnknown",
    "ConfigError",
    "JudgeRefused",
    "JudgesError",
    "ModelError",
    "RubricBudgetError",
    "RubricError",
    "RubricParseError",
    "RuleLoadError",
    "SchemaError",
]


class JudgesError(Exception):
    """Base class of every error the judges library raises."""


class RuleLoadError(JudgesError):
    """A rule file that cannot be loaded: unreadable, malformed, or an expression that does not compile.

    ``line`` and ``column`` are 1-based positions in ``file``; ``rule`` is the
    rule's id when the problem is inside one rule.
    """

    def __init__(
        self,
        file: str,
        detail: str,
        *,
        rule: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.file = file
        self.rule = rule
        self.line = line
        self.column = column
        self.detail = detail
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        rule = f" rule {self.rule!r}:" if self.rule is not None else ""
        return f"{where}:{rule} {self.detail}"


class SchemaError(JudgesError):
    """A document that breaks its schema: the first problem's location (keys and indexes) and message."""

    def __init__(self, location: tuple[str | int, ...], message: str, others: int = 0) -> None:
        self.location = location
        self.message = message
        self.others = others
        where = ".".join(str(part) for part in location) or "document"
        more = f" (and {others} more problems)" if others else ""
        super().__init__(f"{where}: {message}{more}")


class ConfigError(JudgesError):
    """A judge chain configuration that names an unknown judge or gives it bad options."""


class RubricError(JudgesError):
    """A rubric question that got no usable yes/no answer. Never read as a "no"."""


class RubricBudgetError(RubricError):
    """The model used its whole token budget (typically on reasoning) before answering."""


class RubricParseError(RubricError):
    """The model answered, but not with a bare YES or NO."""


class ModelError(RubricError):
    """The chat-completions endpoint failed: transport error, error status or a malformed body.

    ``status_code`` and ``headers`` are the HTTP response's, when there was
    one, so :func:`judges.classify.classify` can tell a 429 from a 400; a
    transport failure is the ``__cause__``.
    """

    def __init__(
        self, message: str, *, status_code: int | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        self.status_code = status_code
        self.headers = dict(headers or {})
        super().__init__(message)


class CommitTimeUnknown(JudgesError):
    """A judge needs the commit time and the caller gave none (``CommitContext.now`` is None)."""


class JudgeRefused(JudgesError):
    """Raised by an :class:`~judges.chain.Execution` that did not run a judge to an answer.

    (It timed out, or it was turned away.) ``message`` is the blocking
    finding's text as it stands; ``evidence`` goes with it.
    """

    def __init__(self, message: str, evidence: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.evidence: Mapping[str, Any] = dict(evidence or {})
