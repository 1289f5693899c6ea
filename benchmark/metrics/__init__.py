"""Metrics of a benchmark run (DESIGN §6): pure functions over trial results, no I/O.

:func:`compute` turns :class:`~benchmark.results.TrialResult` records into a
:class:`Metrics` value: per arm, over all tasks and per domain, pass@1,
pass@k, pass^k by the unbiased and the plug-in estimator, observed k/k, the
never/sometimes/always bins and their moves between arms, failure
signatures, cost, and the guarded − baseline lift, each with a percentile
bootstrap interval over tasks (paired for the lift).
"""

from benchmark.metrics.bootstrap import percentile
from benchmark.metrics.compute import OVERALL, compute, is_simulated
from benchmark.metrics.errors import MetricsError, UnequalTrialsError, UnpairedTasksError
from benchmark.metrics.estimators import (
    BINS,
    ESTIMATORS,
    Bin,
    bin_of,
    pass_at_k,
    pass_hat_k_plugin,
    pass_hat_k_unbiased,
)
from benchmark.metrics.model import (
    SIGNATURES,
    Activity,
    ArmMetrics,
    Bins,
    Cost,
    CurvePoint,
    ErroredTrial,
    Estimate,
    Lift,
    Meta,
    Metrics,
    Move,
    Moves,
    Prices,
    Scope,
    Signatures,
    SystemErrors,
)

__all__ = [
    "BINS",
    "ESTIMATORS",
    "OVERALL",
    "SIGNATURES",
    "Activity",
    "ArmMetrics",
    "Bin",
    "Bins",
    "Cost",
    "CurvePoint",
    "ErroredTrial",
    "Estimate",
    "Lift",
    "Meta",
    "Metrics",
    "MetricsError",
    "Move",
    "Moves",
    "Prices",
    "Scope",
    "Signatures",
    "SystemErrors",
    "UnequalTrialsError",
    "UnpairedTasksError",
    "bin_of",
    "compute",
    "is_simulated",
    "pass_at_k",
    "pass_hat_k_plugin",
    "pass_hat_k_unbiased",
    "percentile",
]
