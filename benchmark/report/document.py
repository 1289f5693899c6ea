"""The metrics as one JSON document (``guard report --json``).

Structure (``"schema": 1``); every estimate is ``{"value", "low", "high"}``
(fractions in [0, 1]; ``low``/``high`` are null without a bootstrap), plus
``"count"`` (tasks) for ``observed_all_k`` and the bins::

    schema                      1
    meta                        arms, agents{arm: [names]}, simulated, notices[], data_refs[],
                                task_set_hashes[], tasks, domains[], trials_per_task, k, seeds[],
                                estimators{metric: definition}, bootstrap{resamples, seed,
                                confidence, method}, prices{prompt_per_million,
                                completion_per_million}|null, dropped_tasks[], warnings[]
    arms.<arm>                  tasks, trials_per_task, k, trials, passed_trials,
                                pass_at_1, pass_at_k, pass_hat_k_unbiased, pass_hat_k_plugin,
                                observed_all_k, bins{never, sometimes, always},
                                curve[{k, pass_hat_k_unbiased, pass_hat_k_plugin}] for k = 1..n,
                                signatures{failed_trials, counts{signature: trials}},
                                guard_errors, activity{...}, cost{total, per_trial,
                                dependable_tasks, per_dependable_task|null}|null
    lift.<metric>               guarded − baseline for the five scalar metrics and
                                lift.bins.<bin>, each {value, low, high} (paired bootstrap);
                                counted ones carry count = the difference in tasks; null with one arm
    moves                       {from, to, counts{bin: {bin: tasks}},
                                tasks{bin: {bin: [task]}} (moves between different bins only)}|null
    domains.<domain>            {tasks, arms, lift, moves} as above, for that domain's tasks
    system_errors               {count, by_arm{arm: n}, trials[{task, domain, arm, trial, error}]}

Floats are rounded to 6 decimals; the same metrics give the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

from benchmark.metrics import (
    BINS,
    ESTIMATORS,
    ArmMetrics,
    Bins,
    Estimate,
    Lift,
    Meta,
    Metrics,
    Moves,
    Scope,
    SystemErrors,
)
from benchmark.report.present import notices

__all__ = ["REPORT_SCHEMA", "document", "render_json"]

REPORT_SCHEMA = 1

_METHOD = (
    "percentile bootstrap: tasks resampled with replacement (all trials of a task move together); "
    "each arm's interval and the lift's come from the same resamples, so the lift is paired over tasks; "
    "quantiles by linear interpolation (type 7)"
)


def render_json(metrics: Metrics) -> str:
    """The document as indented JSON text with a final newline."""
    return json.dumps(_rounded(document(metrics)), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def document(metrics: Metrics) -> dict[str, Any]:
    """The document as plain data (unrounded)."""
    return {
        "schema": REPORT_SCHEMA,
        "meta": _meta(metrics.meta),
        **_scope(metrics.overall),
        "domains": {scope.name: {"tasks": scope.tasks, **_scope(scope)} for scope in metrics.domains},
        "system_errors": _system_errors(metrics.system_errors),
    }


def _estimate(estimate: Estimate) -> dict[str, Any]:
    out: dict[str, Any] = {"value": estimate.value, "low": estimate.low, "high": estimate.high}
    if estimate.count is not None:
        out["count"] = estimate.count
    return out


def _bins(bins: Bins) -> dict[str, Any]:
    return {name: _estimate(bins.get(name)) for name in BINS}


def _scope(scope: Scope) -> dict[str, Any]:
    return {
        "arms": {arm: _arm(metrics) for arm, metrics in scope.arms.items()},
        "lift": None if scope.lift is None else _lift(scope.lift),
        "moves": None if scope.moves is None else _moves(scope.moves),
    }


def _arm(arm: ArmMetrics) -> dict[str, Any]:
    activity = arm.activity
    return {
        "tasks": arm.tasks,
        "trials_per_task": arm.trials_per_task,
        "k": arm.k,
        "trials": arm.trials,
        "passed_trials": arm.passed_trials,
        "pass_at_1": _estimate(arm.pass_at_1),
        "pass_at_k": _estimate(arm.pass_at_k),
        "pass_hat_k_unbiased": _estimate(arm.pass_hat_k_unbiased),
        "pass_hat_k_plugin": _estimate(arm.pass_hat_k_plugin),
        "observed_all_k": _estimate(arm.observed_all_k),
        "bins": _bins(arm.bins),
        "curve": [
            {
                "k": point.k,
                "pass_hat_k_unbiased": _estimate(point.unbiased),
                "pass_hat_k_plugin": _estimate(point.plugin),
            }
            for point in arm.curve
        ],
        "signatures": {"failed_trials": arm.signatures.failed_trials, "counts": dict(arm.signatures.counts)},
        "guard_errors": arm.guard_errors,
        "activity": {
            "tool_calls": activity.tool_calls,
            "tool_errors": activity.tool_errors,
            "retries": activity.retries,
            "commit_attempts": activity.commit_attempts,
            "faults_injected": activity.faults_injected,
            "faults_surfaced": activity.faults_surfaced,
            "prompt_tokens": activity.prompt_tokens,
            "completion_tokens": activity.completion_tokens,
            "seconds": activity.seconds,
        },
        "cost": None
        if arm.cost is None
        else {
            "total": arm.cost.total,
            "per_trial": arm.cost.per_trial,
            "dependable_tasks": arm.cost.dependable_tasks,
            "per_dependable_task": arm.cost.per_dependable_task,
        },
    }


def _lift(lift: Lift) -> dict[str, Any]:
    return {
        "pass_at_1": _estimate(lift.pass_at_1),
        "pass_at_k": _estimate(lift.pass_at_k),
        "pass_hat_k_unbiased": _estimate(lift.pass_hat_k_unbiased),
        "pass_hat_k_plugin": _estimate(lift.pass_hat_k_plugin),
        "observed_all_k": _estimate(lift.observed_all_k),
        "bins": _bins(lift.bins),
    }


def _moves(moves: Moves) -> dict[str, Any]:
    return {
        "from": "baseline",
        "to": "guarded",
        "counts": {s: {t: moves.get(s, t).count for t in BINS} for s in BINS},
        "tasks": {s: {t: list(moves.get(s, t).tasks) for t in BINS if t != s} for s in BINS},
    }


def _meta(meta: Meta) -> dict[str, Any]:
    return {
        "arms": list(meta.arms),
        "agents": {arm: list(names) for arm, names in meta.agents.items()},
        "simulated": meta.simulated,
        "notices": notices(meta),
        "data_refs": list(meta.data_refs),
        "task_set_hashes": list(meta.task_set_hashes),
        "tasks": meta.tasks,
        "domains": list(meta.domains),
        "trials_per_task": meta.trials_per_task,
        "k": meta.k,
        "seeds": list(meta.seeds),
        "estimators": dict(ESTIMATORS),
        "bootstrap": {
            "resamples": meta.bootstrap,
            "seed": meta.bootstrap_seed,
            "confidence": meta.confidence,
            "method": _METHOD,
        },
        "prices": None
        if meta.prices is None
        else {"prompt_per_million": meta.prices.prompt, "completion_per_million": meta.prices.completion},
        "dropped_tasks": list(meta.dropped_tasks),
        "warnings": list(meta.warnings),
    }


def _system_errors(errors: SystemErrors) -> dict[str, Any]:
    return {
        "count": errors.count,
        "by_arm": dict(errors.by_arm),
        "trials": [
            {"task": t.task, "domain": t.domain, "arm": t.arm, "trial": t.trial, "error": t.error}
            for t in errors.trials
        ],
    }


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6) + 0.0
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value
