"""judges: the pure checks shared by the commit gate and the benchmark grader.

Effects, canonical state hashing and diff, verdicts and the judge protocol,
rule packs, trace judges, the judge chain and its registry, the error
classifier, failure signatures and the rubric judge. Nothing here imports
``guard`` or ``benchmark``; the only I/O is the model seam of the rubric judge
(:mod:`judges.rubric`, imported on its own so that ``import judges`` pulls in
no HTTP client).
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judges.canonical import (
        CanonicalState,
        DiffEntry,
        TableSpec,
        canonical_json,
        canonical_state,
        canonical_value,
        diff_states,
        state_hash,
    )
    from judges.chain import (
        INLINE,
        AsyncJudge,
        Execution,
        Inline,
        InMode,
        JudgeChain,
        is_async,
        judge_failure,
        judge_modes,
    )
    from judges.classify import (
        Classification,
        ErrorClass,
        classify,
        classify_http_status,
        classify_mcp_code,
        classify_sqlite,
        classify_sqlstate,
        classify_tool_error,
        retryable,
        tool_error_text,
    )
    from judges.effects import (
        Effect,
        EffectKind,
        RowChange,
        call_effect,
        diff_fields,
        effects_between,
        fold_changes,
    )
    from judges.errors import (
        CommitTimeUnknown,
        ConfigError,
        JudgeRefused,
        JudgesError,
        ModelError,
        RubricBudgetError,
        RubricError,
        RubricParseError,
        RuleLoadError,
    )
    from judges.grading import StateGrade, grade_state
    from judges.registry import (
        JudgeFactory,
        JudgeRegistry,
        default_registry,
        judges_from_config,
    )
    from judges.rounds import MAX_ROUNDS, Gathered, gather, gather_memory
    from judges.rules import RulePack, load_rule_pack, parse_rule_pack
    from judges.signatures import (
        Signature,
        SignatureResult,
        failure_signature,
        signature_of_canonical,
        signature_of_states,
    )
    from judges.state import MemoryState, Query, Row, StateReader, StateSnapshot
    from judges.trace import (
        DEFAULT_CLAIMS,
        DuplicateEffectJudge,
        FailedWriteJudge,
        NoEffectJudge,
        NonTerminalStatusJudge,
        StatusSpec,
        TraceCall,
        unrecovered_writes,
    )
    from judges.verdict import (
        CallRecord,
        CommitContext,
        Decision,
        DeclaresModes,
        Finding,
        FollowUp,
        Judge,
        Mode,
        NamesTables,
        Role,
        Severity,
        Turn,
        Verdict,
        combine,
        commit_time,
        failure_mode,
        finding_modes,
        in_modes,
    )

# Each name is imported from its module when first used: ``import judges`` (and so
# ``import guard``) costs nothing until a name is read, and the CEL engine, whose
# package pulls in a whole terminal toolkit, loads only where a rule pack is used.
_MODULES: dict[str, tuple[str, ...]] = {
    "judges.canonical": (
        "CanonicalState",
        "DiffEntry",
        "TableSpec",
        "canonical_json",
        "canonical_state",
        "canonical_value",
        "diff_states",
        "state_hash",
    ),
    "judges.chain": (
        "AsyncJudge",
        "Execution",
        "INLINE",
        "InMode",
        "Inline",
        "JudgeChain",
        "is_async",
        "judge_failure",
        "judge_modes",
    ),
    "judges.classify": (
        "Classification",
        "ErrorClass",
        "classify",
        "classify_http_status",
        "classify_mcp_code",
        "classify_sqlite",
        "classify_sqlstate",
        "classify_tool_error",
        "retryable",
        "tool_error_text",
    ),
    "judges.effects": (
        "Effect",
        "EffectKind",
        "RowChange",
        "call_effect",
        "diff_fields",
        "effects_between",
        "fold_changes",
    ),
    "judges.errors": (
        "CommitTimeUnknown",
        "ConfigError",
        "JudgeRefused",
        "JudgesError",
        "ModelError",
        "RubricBudgetError",
        "RubricError",
        "RubricParseError",
        "RuleLoadError",
    ),
    "judges.grading": ("StateGrade", "grade_state"),
    "judges.registry": (
        "JudgeFactory",
        "JudgeRegistry",
        "default_registry",
        "judges_from_config",
    ),
    "judges.rounds": ("Gathered", "MAX_ROUNDS", "gather", "gather_memory"),
    "judges.rules": ("RulePack", "load_rule_pack", "parse_rule_pack"),
    "judges.signatures": (
        "Signature",
        "SignatureResult",
        "failure_signature",
        "signature_of_canonical",
        "signature_of_canonical",
        "signature_of_states",
    ),
    "judges.state": ("MemoryState", "Query", "Row", "StateReader", "StateSnapshot"),
    "judges.trace": (
        "DEFAULT_CLAIMS",
        "DuplicateEffectJudge",
        "FailedWriteJudge",
        "NoEffectJudge",
        "NonTerminalStatusJudge",
        "StatusSpec",
        "TraceCall",
        "unrecovered_writes",
    ),
    "judges.verdict": (
        "CallRecord",
        "CommitContext",
        "DeclaresModes",
        "Decision",
        "Finding",
        "FollowUp",
        "Judge",
        "Mode",
        "NamesTables",
        "Role",
        "Severity",
        "Turn",
        "Verdict",
        "combine",
        "commit_time",
        "failure_mode",
        "finding_modes",
        "in_modes",
    ),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

# A name that is also a submodule's (``classify``) is bound now: importing ``judges.classify`` from
# anywhere would otherwise leave the module, not the function, under ``judges.classify``. That module
# imports only the standard library.
from judges.classify import classify  # noqa: E402


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'judges' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = [
    "DEFAULT_CLAIMS",
    "INLINE",
    "MAX_ROUNDS",
    "AsyncJudge",
    "CallRecord",
    "CanonicalState",
    "Classification",
    "CommitContext",
    "CommitTimeUnknown",
    "ConfigError",
    "Decision",
    "DeclaresModes",
    "DiffEntry",
    "DuplicateEffectJudge",
    "Effect",
    "EffectKind",
    "ErrorClass",
    "Execution",
    "FailedWriteJudge",
    "Finding",
    "FollowUp",
    "Gathered",
    "InMode",
    "Inline",
    "Judge",
    "JudgeChain",
    "JudgeFactory",
    "JudgeRefused",
    "JudgeRegistry",
    "JudgesError",
    "MemoryState",
    "Mode",
    "ModelError",
    "NamesTables",
    "NoEffectJudge",
    "NonTerminalStatusJudge",
    "Query",
    "Role",
    "Row",
    "RowChange",
    "RubricBudgetError",
    "RubricError",
    "RubricParseError",
    "RuleLoadError",
    "RulePack",
    "Severity",
    "Signature",
    "SignatureResult",
    "StateGrade",
    "StateReader",
    "StateSnapshot",
    "StatusSpec",
    "TableSpec",
    "TraceCall",
    "Turn",
    "Verdict",
    "call_effect",
    "canonical_json",
    "canonical_state",
    "canonical_value",
    "classify",
    "classify_http_status",
    "classify_mcp_code",
    "classify_sqlite",
    "classify_sqlstate",
    "classify_tool_error",
    "combine",
    "commit_time",
    "default_registry",
    "diff_fields",
    "diff_states",
    "effects_between",
    "failure_mode",
    "failure_signature",
    "finding_modes",
    "fold_changes",
    "gather",
    "gather_memory",
    "grade_state",
    "in_modes",
    "is_async",
    "judge_failure",
    "judge_modes",
    "judges_from_config",
    "load_rule_pack",
    "parse_rule_pack",
    "retryable",
    "signature_of_canonical",
    "signature_of_states",
    "state_hash",
    "tool_error_text",
    "unrecovered_writes",
]
