"""How numbers and names read in the report: one place for the tables and the HTML page.

It also owns what a change means: :func:`change_of` says whether a lift is
good, bad or neutral for its metric (pass rates are better higher; the
``never`` and ``sometimes`` bins better lower, ``always`` higher), and
:func:`move_change` the same for a task moving between bins. The tables
and the HTML page colour by these two and nothing else.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from benchmark.metrics import BINS, SIGNATURES, Bin, Estimate, Meta, Metrics, Scope

__all__ = [
    "BETTER",
    "RATES",
    "SIMULATED_NOTICE",
    "Change",
    "LiftMetric",
    "activity_rows",
    "change_of",
    "count_share",
    "interval",
    "lift_direction",
    "lift_text",
    "metric_labels",
    "money",
    "move_change",
    "notices",
    "pct",
    "points",
    "run_facts",
    "seeds_text",
    "share",
    "signature_rows",
    "signed_points",
]

SIMULATED_NOTICE = (
    "SIMULATED HARNESS CHECK — the agent is `simulated`, a seeded fault model over golden "
    "trajectories. These numbers test the benchmark harness and the guard's plumbing; "
    "they are NOT a model result and must not be reported as one."
)
_REPLAY_NOTICE = (
    "Replayed trajectories — the agent is `replay`: it plays back given or golden calls, "
    "so these numbers measure those trajectories, not a live model."
)


def metric_labels(k: int, *, formulas: bool = True) -> dict[str, str]:
    """The row label of each scalar metric at ``k``; both pass^k estimators named, with formulas."""
    unbiased, plugin = (" C(c,k)/C(n,k)", " (c/n)^k") if formulas else ("", "")
    return {
        "pass_at_1": "pass@1",
        "pass_at_k": f"pass@{k}",
        "pass_hat_k_unbiased": f"pass^{k} unbiased{unbiased}",
        "pass_hat_k_plugin": f"pass^{k} plug-in{plugin}",
        "observed_all_k": f"observed {k}/{k}",
    }


def notices(meta: Meta) -> list[str]:
    """What a reader must know before any number: simulated or replayed agents."""
    agents = {a for names in meta.agents.values() for a in names}
    out = [SIMULATED_NOTICE] if meta.simulated else []
    if any(a == "replay" or a.startswith("replay:") for a in agents):
        out.append(_REPLAY_NOTICE)
    return out


def pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def points(value: float) -> str:
    return f"{value * 100:.1f}"


def signed_points(value: float) -> str:
    shown = value * 100
    return f"{shown:+.1f}" if round(shown, 1) != 0 else "0.0"


def interval(estimate: Estimate) -> str:
    """``[low, high]`` in percent, or empty without a bootstrap."""
    if estimate.low is None or estimate.high is None:
        return ""
    return f"[{points(estimate.low)}, {points(estimate.high)}]"


def share(estimate: Estimate) -> str:
    """``41.2% [35.0, 47.5]``."""
    return f"{pct(estimate.value)} {interval(estimate)}".rstrip()


def count_share(estimate: Estimate, tasks: int) -> str:
    """``37/100 (37.0%) [28.0, 46.0]``."""
    return f"{estimate.count}/{tasks} ({pct(estimate.value)}) {interval(estimate)}".rstrip()


def lift_text(estimate: Estimate, *, counted: bool = False, unit: bool = True) -> str:
    """``+12.3 pp [+5.1, +19.0]``, with the difference in tasks for counted metrics."""
    text = signed_points(estimate.value) + (" pp" if unit else "")
    if counted and estimate.count is not None:
        text += f" ({estimate.count:+d} task{'' if abs(estimate.count) == 1 else 's'})"
    if estimate.low is not None and estimate.high is not None:
        text += f" [{signed_points(estimate.low)}, {signed_points(estimate.high)}]"
    return text


def lift_direction(estimate: Estimate) -> int:
    """+1 when the interval lies above 0, −1 below, 0 when it holds 0 (or there is none)."""
    if estimate.low is not None and estimate.low > 0:
        return 1
    if estimate.high is not None and estimate.high < 0:
        return -1
    return 0


class Change(Enum):
    """What a change in a metric means for the reader."""

    GOOD = "good"
    BAD = "bad"
    NEUTRAL = "neutral"


LiftMetric = (
    Literal["pass_at_1", "pass_at_k", "pass_hat_k_unbiased", "pass_hat_k_plugin", "observed_all_k"] | Bin
)

RATES: tuple[LiftMetric, ...] = ("pass_at_1", "pass_at_k", "pass_hat_k_unbiased", "pass_hat_k_plugin")
"""The four rates every table shows, in order (observed k/k and the bins follow them)."""

BETTER: dict[LiftMetric, int] = {
    "pass_at_1": 1,
    "pass_at_k": 1,
    "pass_hat_k_unbiased": 1,
    "pass_hat_k_plugin": 1,
    "observed_all_k": 1,
    "never": -1,
    "sometimes": -1,
    "always": 1,
}
"""The sign of a change for the better: +1 when higher is better, −1 when lower is.

Fewer tasks that never pass and fewer that pass only sometimes (flaky) are
improvements; more that always pass is one.
"""


def _change(sign: int) -> Change:
    return Change.GOOD if sign > 0 else Change.BAD if sign < 0 else Change.NEUTRAL


def change_of(metric: LiftMetric, lift: Estimate) -> Change:
    """Whether the lift of ``metric`` is an improvement: its interval lies wholly on the better
    side of 0 (good), wholly on the worse side (bad), or holds 0 or is missing (neutral)."""
    return _change(lift_direction(lift) * BETTER[metric])


def move_change(source: Bin, target: Bin) -> Change:
    """A task moving from bin ``source`` (baseline) to ``target`` (guarded): up towards
    ``always`` is good, down towards ``never`` bad, staying put neutral."""
    return _change(BINS.index(target) - BINS.index(source))


def money(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.2f}" if abs(value) >= 100 else f"{value:.4f}"


def seeds_text(seeds: tuple[int, ...]) -> str:
    if len(seeds) <= 6:
        return ", ".join(str(s) for s in seeds)
    return f"{len(seeds)} distinct per-trial seeds (all in --json)"


def run_facts(metrics: Metrics) -> list[tuple[str, str]]:
    """The provenance lines every rendering shows, in order."""
    meta = metrics.meta
    facts = [(f"agent ({arm})", ", ".join(meta.agents[arm])) for arm in meta.arms]
    facts += [
        ("data ref", ", ".join(meta.data_refs) or "unknown"),
        ("task-set hash", ", ".join(meta.task_set_hashes) or "unknown"),
        ("tasks", f"{meta.tasks} in {len(meta.domains)} domain(s)"),
        ("trials per task", str(meta.trials_per_task)),
        ("k", str(meta.k)),
        ("seeds", seeds_text(meta.seeds)),
        (
            "intervals",
            f"{meta.confidence * 100:g}% percentile bootstrap over tasks, "
            f"{meta.bootstrap} resamples, seed {meta.bootstrap_seed}; lift paired"
            if meta.bootstrap
            else "none (bootstrap off)",
        ),
        ("system errors", f"{metrics.system_errors.count} trial(s) left out of the metrics"),
    ]
    if meta.prices is not None:
        facts.append(
            ("token prices", f"{meta.prices.prompt:g} prompt / {meta.prices.completion:g} completion per 1M")
        )
    return facts


def activity_rows(scope: Scope) -> list[tuple[str, list[str]]]:
    """Activity and, when prices were given, cost: one row per quantity, one cell per arm."""
    arms = list(scope.arms.values())
    rows: list[tuple[str, list[str]]] = [
        ("trials", [str(a.trials) for a in arms]),
        ("tool calls / trial", [f"{a.activity.tool_calls / a.trials:.2f}" for a in arms]),
        ("tool errors / trial", [f"{a.activity.tool_errors / a.trials:.2f}" for a in arms]),
        ("retries", [str(a.activity.retries) for a in arms]),
        ("commit attempts", [str(a.activity.commit_attempts) for a in arms]),
        ("guard errors", [str(a.guard_errors) for a in arms]),
        (
            "faults injected / surfaced",
            [f"{a.activity.faults_injected} / {a.activity.faults_surfaced}" for a in arms],
        ),
        ("prompt tokens", [f"{a.activity.prompt_tokens:,}" for a in arms]),
        ("completion tokens", [f"{a.activity.completion_tokens:,}" for a in arms]),
        ("seconds / trial", [f"{a.activity.seconds / a.trials:.2f}" for a in arms]),
    ]
    costs = [a.cost for a in arms]
    if all(c is not None for c in costs):
        rows += [
            ("cost total", [money(c.total) for c in costs if c]),
            ("cost / trial", [money(c.per_trial) for c in costs if c]),
            ("dependable tasks (every trial passed)", [str(c.dependable_tasks) for c in costs if c]),
            ("cost / dependable task", [money(c.per_dependable_task) for c in costs if c]),
        ]
    return rows


def signature_rows(scope: Scope) -> list[tuple[str, list[str]]]:
    """Failed trials per signature, ``count (share of failed)``, one cell per arm."""
    rows: list[tuple[str, list[str]]] = []
    for name in SIGNATURES:
        cells = []
        for metrics in scope.arms.values():
            count, failed = metrics.signatures.counts[name], metrics.signatures.failed_trials
            cells.append(f"{count} ({count / failed * 100:.0f}%)" if failed else "0")
        rows.append((name, cells))
    rows.append(("all failed trials", [str(a.signatures.failed_trials) for a in scope.arms.values()]))
    return rows
