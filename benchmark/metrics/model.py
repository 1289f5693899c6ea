"""The metrics as plain frozen values: what :func:`benchmark.metrics.compute` returns.

Shares are fractions in [0, 1]; a lift is ``guarded − baseline`` of the same
number, so the lift of a share is in fraction points (×100 for percentage
points). ``low`` and ``high`` are ``None`` when the bootstrap was switched off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from benchmark.metrics.estimators import Bin

__all__ = [
    "SIGNATURES",
    "Activity",
    "ArmMetrics",
    "Bins",
    "Cost",
    "CurvePoint",
    "ErroredTrial",
    "Estimate",
    "Lift",
    "Meta",
    "Metrics",
    "Move",
    "Moves",
    "Prices",
    "Scope",
    "Signatures",
    "SystemErrors",
]

SIGNATURES: tuple[str, ...] = (
    "tool_usage",
    "wrong_state_update",
    "incomplete_resolution",
    "no_state_change",
    "unclassified",
)
"""The failure signatures of DESIGN §5, plus ``unclassified`` for a failed trial recorded without one."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with its bootstrap interval; ``count`` for metrics that count tasks."""

    value: float
    low: float | None = None
    high: float | None = None
    count: int | None = None


@dataclass(frozen=True, slots=True)
class Bins:
    """The share of tasks in each bin, over all ``n`` trials of each task."""

    never: Estimate
    sometimes: Estimate
    always: Estimate

    def get(self, name: Bin) -> Estimate:
        return {"never": self.never, "sometimes": self.sometimes, "always": self.always}[name]


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """pass^k at one ``k``, by both estimators."""

    k: int
    unbiased: Estimate
    plugin: Estimate


@dataclass(frozen=True, slots=True)
class Signatures:
    """How the arm's failed trials fail: trials per signature (every name in :data:`SIGNATURES`)."""

    failed_trials: int
    counts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Activity:
    """Totals over the arm's trials (what the agent and the guard did)."""

    tool_calls: int
    tool_errors: int
    retries: int
    commit_attempts: int
    faults_injected: int
    faults_surfaced: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Prices:
    """Token prices per one million tokens, in the caller's currency."""

    prompt: float
    completion: float


@dataclass(frozen=True, slots=True)
class Cost:
    """What the arm's tokens cost; ``per_dependable_task`` is ``None`` when no task always passed."""

    total: float
    per_trial: float
    dependable_tasks: int
    per_dependable_task: float | None


@dataclass(frozen=True, slots=True)
class ArmMetrics:
    """One arm in one scope (all tasks, or one domain)."""

    arm: str
    tasks: int
    trials_per_task: int
    k: int
    trials: int
    passed_trials: int
    pass_at_1: Estimate
    pass_at_k: Estimate
    pass_hat_k_unbiased: Estimate
    pass_hat_k_plugin: Estimate
    observed_all_k: Estimate
    bins: Bins
    curve: tuple[CurvePoint, ...]
    signatures: Signatures
    guard_errors: int
    activity: Activity
    cost: Cost | None


@dataclass(frozen=True, slots=True)
class Lift:
    """``guarded − baseline`` for each metric, with paired-bootstrap intervals."""

    pass_at_1: Estimate
    pass_at_k: Estimate
    pass_hat_k_unbiased: Estimate
    pass_hat_k_plugin: Estimate
    observed_all_k: Estimate
    bins: Bins


@dataclass(frozen=True, slots=True)
class Move:
    """The tasks in bin ``source`` in the baseline arm and in bin ``target`` in the guarded arm."""

    source: Bin
    target: Bin
    tasks: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.tasks)


@dataclass(frozen=True, slots=True)
class Moves:
    """All nine bin-to-bin moves from baseline to guarded, in bin order."""

    moves: tuple[Move, ...]

    def get(self, source: Bin, target: Bin) -> Move:
        return next(m for m in self.moves if m.source == source and m.target == target)


@dataclass(frozen=True, slots=True)
class Scope:
    """The metrics of a set of tasks: all of them, or one domain's."""

    name: str
    tasks: int
    arms: Mapping[str, ArmMetrics]
    lift: Lift | None
    moves: Moves | None


@dataclass(frozen=True, slots=True)
class ErroredTrial:
    """One trial left out of the metrics because the harness, not the agent or the guard, failed."""

    task: str
    domain: str
    arm: str
    trial: int
    error: str


@dataclass(frozen=True, slots=True)
class SystemErrors:
    count: int
    by_arm: Mapping[str, int]
    trials: tuple[ErroredTrial, ...]


@dataclass(frozen=True, slots=True)
class Meta:
    """Where the numbers come from, and how they were computed."""

    arms: tuple[str, ...]
    agents: Mapping[str, tuple[str, ...]]
    simulated: bool
    data_refs: tuple[str, ...]
    task_set_hashes: tuple[str, ...]
    tasks: int
    domains: tuple[str, ...]
    trials_per_task: int
    k: int
    seeds: tuple[int, ...]
    bootstrap: int
    bootstrap_seed: int
    confidence: float
    prices: Prices | None
    dropped_tasks: tuple[str, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Metrics:
    """Everything the report shows: all tasks, each domain, system errors, provenance."""

    meta: Meta
    overall: Scope
    domains: tuple[Scope, ...]
    system_errors: SystemErrors
