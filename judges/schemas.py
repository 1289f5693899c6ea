"""The schemas of everything the judges library reads from files: rule packs and judge-chain entries.

This is the trust boundary, and the only module that imports pydantic. The
rule-file format (documented in :mod:`judges.rules`) is :class:`PackSpec`; the
options of the built-in judge kinds (documented in :mod:`judges.registry`)
are the ``*Options`` models. :func:`validate` turns a validation failure into
a :class:`SchemaError` that says where in the document it is.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from judges.errors import SchemaError
from judges.verdict import Mode, Severity

__all__ = [
    "DuplicateEffectOptions",
    "EntryMode",
    "FailedWriteOptions",
    "KindName",
    "LookupSpec",
    "NoEffectOptions",
    "NonTerminalOptions",
    "PackSpec",
    "RuleSpec",
    "RulesOptions",
    "StatusOptions",
    "WhenSpec",
    "validate",
]

KindName = Literal["insert", "update", "delete", "call"]
Scalar = str | int | float | bool | None
_DEFAULT_KINDS: list[KindName] = ["insert", "update"]

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_RULE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
_RESERVED = frozenset(
    {
        *("effect", "now", "calls", "conversation", "summary", "principal", "claims"),
        *("true", "false", "null", "in", "as", "break", "const", "continue", "else"),
        *("for", "function", "if", "import", "let", "loop", "package", "namespace", "return"),
        *("var", "void", "while"),
    }
)


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LookupSpec(_Spec):
    """Rows of ``table`` whose columns equal the ``where`` values; ``one`` binds the first row or null."""

    table: str = Field(min_length=1)
    where: dict[str, Scalar] = Field(min_length=1)
    limit: int | None = Field(default=None, ge=1)
    one: bool = False


def _all_calls(table: Any) -> bool:
    tables = [table] if isinstance(table, str) else table
    return (
        isinstance(tables, list)
        and bool(tables)
        and all(isinstance(t, str) and t.startswith("call:") for t in tables)
    )


class WhenSpec(_Spec):
    """Which effects a rule applies to: table (``*`` for any), kinds, and fields of which any changed."""

    table: str | list[str]
    kind: list[KindName] = Field(default_factory=lambda: _DEFAULT_KINDS.copy(), min_length=1)
    changed: list[str] = Field(default_factory=list)

    @field_validator("kind", mode="before")
    @classmethod
    def _one_kind(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @property
    def tables(self) -> tuple[str, ...]:
        return (self.table,) if isinstance(self.table, str) else tuple(self.table)

    @model_validator(mode="before")
    @classmethod
    def _call_kind(cls, data: Any) -> Any:
        """A rule over upstream calls only (``call:<tool>``) judges effects of kind ``call``: that is its
        kind when none is given."""
        if isinstance(data, dict) and "kind" not in data and _all_calls(data.get("table")):
            return {**data, "kind": ["call"]}
        return data

    @model_validator(mode="after")
    def _call_tables(self) -> WhenSpec:
        if _all_calls(self.table) and "call" not in self.kind:
            raise ValueError(
                f"kind {self.kind} never matches: the effects of {', '.join(self.tables)} have kind call"
            )
        return self


class RuleSpec(_Spec):
    id: str
    description: str = ""
    when: WhenSpec
    let: dict[str, LookupSpec] = Field(default_factory=dict)
    require: str = Field(min_length=1)
    decision: Literal["block", "warn", "escalate"]
    message: str = Field(min_length=1)
    hint: str | None = None
    mode: Mode | None = None
    reviewers: int = Field(
        1, ge=1, le=5, description="For an escalation: how many different people must approve the commit."
    )

    @model_validator(mode="after")
    def _reviewers_escalate(self) -> RuleSpec:
        if self.reviewers > 1 and self.decision != "escalate":
            raise ValueError("reviewers applies to a rule whose decision is escalate")
        return self

    @field_validator("id")
    @classmethod
    def _rule_id(cls, value: str) -> str:
        if not _RULE_ID.match(value):
            raise ValueError("a rule id is letters, digits and . _ : - (starting with a letter or digit)")
        return value

    @field_validator("let")
    @classmethod
    def _let_names(cls, value: dict[str, LookupSpec]) -> dict[str, LookupSpec]:
        for name in value:
            _check_name(name)
        return value


class PackSpec(_Spec):
    version: Literal[1] = 1
    name: str | None = None
    project: bool = True
    lookups: dict[str, LookupSpec] = Field(default_factory=dict)
    rules: list[RuleSpec]

    @field_validator("lookups")
    @classmethod
    def _lookup_names(cls, value: dict[str, LookupSpec]) -> dict[str, LookupSpec]:
        for name in value:
            _check_name(name)
        return value


def _check_name(name: str) -> None:
    if not _NAME.match(name) or name in _RESERVED:
        raise ValueError(
            f"{name!r} cannot name a lookup (use letters, digits and _; not a CEL keyword, 'effect'"
            " or a commit name: 'now', 'calls', 'conversation', 'summary', 'principal', 'claims')"
        )


class EntryMode(_Spec):
    """The ``mode`` a judge-chain entry may give its judge (else the guard's ``commit.mode`` applies)."""

    mode: Mode | None = None


class RulesOptions(_Spec):
    path: str


class FailedWriteOptions(_Spec):
    name: str = "failed_write"
    severity: Severity = Severity.BLOCK
    targets: dict[str, list[str]] = {}
    elsewhere: Severity = Severity.WARN


class DuplicateEffectOptions(_Spec):
    name: str = "duplicate_effect"
    severity: Severity = Severity.BLOCK
    ignore: dict[str, list[str]] = {"*": ["id"]}


class StatusOptions(_Spec):
    field: str = "status"
    terminal: list[str] | None = None
    non_terminal: list[str] | None = None


class NonTerminalOptions(_Spec):
    name: str = "non_terminal_status"
    severity: Severity = Severity.BLOCK
    tables: dict[str, StatusOptions]


class NoEffectOptions(_Spec):
    name: str = "no_effect"
    severity: Severity = Severity.BLOCK
    claims: list[str] | Literal["default"] = []


class RubricOptions(_Spec):
    """An LLM judge on an OpenAI-compatible endpoint (off unless a chain names it)."""

    base_url: str = Field(pattern=r"^https?://")
    model: str = Field(min_length=1)
    questions: list[str] = Field(min_length=1)
    subject: Literal["summary", "conversation"] = "conversation"
    api_key_env: str | None = None
    name: str = "rubric"
    severity: Severity = Severity.BLOCK
    max_tokens: int = Field(default=256, ge=1)
    timeout_s: float = Field(default=30.0, gt=0)
    temperature: float | None = 0.0


_Model = TypeVar("_Model", bound=BaseModel)


def validate(model: type[_Model], data: Any) -> _Model:
    """``data`` as ``model``; the first problem is a :class:`~judges.errors.SchemaError`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        location = tuple(
            str(part).lower() if isinstance(part, bool) else part
            for part in errors[0]["loc"]
            if isinstance(part, (str, int))
        )
        raise SchemaError(location, errors[0]["msg"], len(errors) - 1) from exc
