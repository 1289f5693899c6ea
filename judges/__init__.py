"""judges: the pure checks shared by the commit gate and the benchmark grader.

Effects, canonical state hashing and diff, verdicts and the judge protocol,
rule packs, trace judges, the judge chain and its registry, the error
classifier, failure signatures and the rubric judge. Nothing here imports
``guard`` or ``benchmark``; the only I/O is the model seam of the rubric judge
(:mod:`judges.rubric`, imported on its own so that ``import judges`` pulls in
no HTTP client).
"""

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
from judges.chain import AsyncJudge, JudgeChain, is_async, judge_failure
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
    ConfigError,
    JudgesError,
    ModelError,
    RubricBudgetError,
    RubricError,
    RubricParseError,
    RuleLoadError,
)
from judges.grading import StateGrade, grade_state
from judges.registry import JudgeFactory, JudgeRegistry, default_registry, judges_from_config
from judges.rounds import MAX_ROUNDS, Gathered, gather, gather_memory
from judges.rules import RulePack, load_rule_pack, parse_rule_pack
from judges.signatures import Signature, SignatureResult, failure_signature, signature_of_states
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
    Finding,
    FollowUp,
    Judge,
    NamesTables,
    Severity,
    Verdict,
    combine,
)

__all__ = [
    "DEFAULT_CLAIMS",
    "MAX_ROUNDS",
    "AsyncJudge",
    "CallRecord",
    "CanonicalState",
    "Classification",
    "CommitContext",
    "ConfigError",
    "Decision",
    "DiffEntry",
    "DuplicateEffectJudge",
    "Effect",
    "EffectKind",
    "ErrorClass",
    "FailedWriteJudge",
    "Finding",
    "FollowUp",
    "Gathered",
    "Judge",
    "JudgeChain",
    "JudgeFactory",
    "JudgeRegistry",
    "JudgesError",
    "MemoryState",
    "ModelError",
    "NamesTables",
    "NoEffectJudge",
    "NonTerminalStatusJudge",
    "Query",
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
    "default_registry",
    "diff_fields",
    "diff_states",
    "effects_between",
    "failure_signature",
    "fold_changes",
    "gather",
    "gather_memory",
    "grade_state",
    "is_async",
    "judge_failure",
    "judges_from_config",
    "load_rule_pack",
    "parse_rule_pack",
    "retryable",
    "signature_of_states",
    "state_hash",
    "tool_error_text",
    "unrecovered_writes",
]
