"""From trial results to :class:`Metrics`: every number of DESIGN §6, per arm, overall and per domain.

Each task gives one row: for every arm, its per-task value of each metric
(:mod:`benchmark.metrics.estimators`) and of the pass^k curve for k = 1..n.
A metric is the mean of its column; its interval is a percentile bootstrap
over tasks (:mod:`benchmark.metrics.bootstrap`), with one resample of tasks
serving both arms, so the interval of a lift is a paired bootstrap. Each
scope (all tasks, each domain) draws from its own generator, seeded by
``seed`` and the scope's task ids, so the same results and seed give the
same numbers, and a domain that holds every task gets the overall intervals.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import product

from benchmark.metrics.bootstrap import Row, column_means, interval, resample_means
from benchmark.metrics.errors import MetricsError
from benchmark.metrics.estimators import (
    BINS,
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
from benchmark.metrics.sample import Sample, sample
from benchmark.results import TrialResult

__all__ = ["OVERALL", "compute", "is_simulated"]

OVERALL = "all"
"""The name of the scope of all tasks."""

_SCALARS = ("pass_at_1", "pass_at_k", "pass_hat_k_unbiased", "pass_hat_k_plugin", "observed_all_k")


def compute(
    results: Iterable[TrialResult],
    *,
    k: int | None = None,
    bootstrap: int = 2000,
    seed: int = 0,
    prices: Prices | None = None,
    confidence: float = 0.95,
) -> Metrics:
    """The metrics of ``results`` at ``k`` (default: the number of trials per task).

    ``bootstrap`` is the number of resamples (0: no intervals). Raises a
    :class:`~benchmark.metrics.errors.MetricsError` for results that cannot
    be compared fairly or for options out of range.
    """
    if bootstrap < 0:
        raise MetricsError(f"bootstrap resamples must be >= 0, got {bootstrap}")
    if not 0.0 < confidence < 1.0:
        raise MetricsError(f"confidence must be between 0 and 1, got {confidence}")
    if prices is not None and (prices.prompt < 0 or prices.completion < 0):
        raise MetricsError("token prices must be >= 0")
    grouped = sample(results)
    k = grouped.n if k is None else k
    if not 1 <= k <= grouped.n:
        raise MetricsError(f"k must be between 1 and the {grouped.n} trials per task, got {k}")
    context = _Context(grouped, k, bootstrap, seed, confidence, prices)
    domains = sorted(set(grouped.domain_of.values()))
    return Metrics(
        meta=_meta(context, domains),
        overall=context.scope(OVERALL, grouped.tasks),
        domains=tuple(
            context.scope(d, [t for t in grouped.tasks if grouped.domain_of[t] == d]) for d in domains
        ),
        system_errors=_system_errors(grouped),
    )


def is_simulated(agent: str) -> bool:
    """Whether an agent name is the simulated harness check (``simulated`` or ``simulated:...``)."""
    return agent == "simulated" or agent.startswith(("simulated:", "simulated("))


class _Context:
    def __init__(
        self, grouped: Sample, k: int, bootstrap: int, seed: int, confidence: float, prices: Prices | None
    ) -> None:
        self.sample = grouped
        self.k = k
        self.bootstrap = bootstrap
        self.seed = seed
        self.confidence = confidence
        self.prices = prices
        n = grouped.n
        self.metrics = [*_SCALARS, *BINS, *(f"unbiased@{j}" for j in range(1, n + 1))]
        self.metrics += [f"plugin@{j}" for j in range(1, n + 1)]
        self.column = {key: i for i, key in enumerate(product(grouped.arms, self.metrics))}

    def row(self, task: str) -> Row:
        n, k = self.sample.n, self.k
        values: list[float] = []
        for arm in self.sample.arms:
            passes = self.sample.passes(task, arm)
            c = sum(passes)
            group = bin_of(n, c)
            values += [
                c / n,
                pass_at_k(n, c, k),
                pass_hat_k_unbiased(n, c, k),
                pass_hat_k_plugin(n, c, k),
                float(all(passes[:k])),
                *(float(group == b) for b in BINS),
                *(pass_hat_k_unbiased(n, c, j) for j in range(1, n + 1)),
                *(pass_hat_k_plugin(n, c, j) for j in range(1, n + 1)),
            ]
        return tuple(values)

    def scope(self, name: str, tasks: Sequence[str]) -> Scope:
        rows = [self.row(task) for task in tasks]
        point = column_means(rows)
        rng = random.Random(f"guard-report:{self.seed}:" + "\n".join(tasks))
        resampled = resample_means(rows, resamples=self.bootstrap, rng=rng)

        def estimate(statistic: Callable[[Row], float], count: int | None = None) -> Estimate:
            bounds = interval(resampled, statistic, self.confidence)
            low, high = (None, None) if bounds is None else bounds
            return Estimate(statistic(point), low, high, count)

        def arm_value(arm: str, metric: str) -> Callable[[Row], float]:
            j = self.column[(arm, metric)]
            return lambda row: row[j]

        def counted(arm: str, metric: str) -> int:
            return sum(int(row[self.column[(arm, metric)]]) for row in rows)

        arms = {arm: self._arm(arm, tasks, estimate, arm_value, counted) for arm in self.sample.arms}
        lift = moves = None
        if {"baseline", "guarded"} <= set(arms):

            def gain(metric: str) -> Callable[[Row], float]:
                after, before = arm_value("guarded", metric), arm_value("baseline", metric)
                return lambda row: after(row) - before(row)

            def gained(metric: str) -> Estimate:
                return estimate(gain(metric), counted("guarded", metric) - counted("baseline", metric))

            lift = Lift(
                pass_at_1=estimate(gain("pass_at_1")),
                pass_at_k=estimate(gain("pass_at_k")),
                pass_hat_k_unbiased=estimate(gain("pass_hat_k_unbiased")),
                pass_hat_k_plugin=estimate(gain("pass_hat_k_plugin")),
                observed_all_k=gained("observed_all_k"),
                bins=Bins(*(gained(b) for b in BINS)),
            )
            moves = self._moves(tasks)
        return Scope(name=name, tasks=len(tasks), arms=arms, lift=lift, moves=moves)

    def _arm(
        self,
        arm: str,
        tasks: Sequence[str],
        estimate: Callable[..., Estimate],
        value: Callable[[str, str], Callable[[Row], float]],
        counted: Callable[[str, str], int],
    ) -> ArmMetrics:
        trials = self.sample.arm_trials(arm, tasks)
        n = self.sample.n
        bins = Bins(*(estimate(value(arm, b), counted(arm, b)) for b in BINS))
        return ArmMetrics(
            arm=arm,
            tasks=len(tasks),
            trials_per_task=n,
            k=self.k,
            trials=len(trials),
            passed_trials=sum(t.passed for t in trials),
            pass_at_1=estimate(value(arm, "pass_at_1")),
            pass_at_k=estimate(value(arm, "pass_at_k")),
            pass_hat_k_unbiased=estimate(value(arm, "pass_hat_k_unbiased")),
            pass_hat_k_plugin=estimate(value(arm, "pass_hat_k_plugin")),
            observed_all_k=estimate(value(arm, "observed_all_k"), counted(arm, "observed_all_k")),
            bins=bins,
            curve=tuple(
                CurvePoint(j, estimate(value(arm, f"unbiased@{j}")), estimate(value(arm, f"plugin@{j}")))
                for j in range(1, n + 1)
            ),
            signatures=_signatures(trials),
            guard_errors=sum(t.guard_error is not None for t in trials),
            activity=_activity(trials),
            cost=_cost(trials, bins.always.count or 0, self.prices),
        )

    def _moves(self, tasks: Sequence[str]) -> Moves:
        n = self.sample.n
        where = {
            task: (
                bin_of(n, sum(self.sample.passes(task, "baseline"))),
                bin_of(n, sum(self.sample.passes(task, "guarded"))),
            )
            for task in tasks
        }
        return Moves(
            tuple(
                Move(source, target, tuple(t for t in tasks if where[t] == (source, target)))
                for source, target in product(BINS, BINS)
            )
        )


def _signatures(trials: list[TrialResult]) -> Signatures:
    failed = [t for t in trials if not t.passed]
    counts = dict.fromkeys(SIGNATURES, 0)
    for trial in failed:
        counts[trial.signature or "unclassified"] += 1
    return Signatures(failed_trials=len(failed), counts=counts)


def _activity(trials: list[TrialResult]) -> Activity:
    return Activity(
        tool_calls=sum(t.tool_calls for t in trials),
        tool_errors=sum(t.tool_errors for t in trials),
        retries=sum(t.retries for t in trials),
        commit_attempts=sum(t.commit_attempts for t in trials),
        faults_injected=sum(t.faults.injected for t in trials),
        faults_surfaced=sum(t.faults.surfaced for t in trials),
        prompt_tokens=sum(t.tokens.prompt for t in trials),
        completion_tokens=sum(t.tokens.completion for t in trials),
        seconds=sum(t.seconds for t in trials),
    )


def _cost(trials: list[TrialResult], dependable: int, prices: Prices | None) -> Cost | None:
    if prices is None:
        return None
    prompt = sum(t.tokens.prompt for t in trials)
    completion = sum(t.tokens.completion for t in trials)
    total = (prompt * prices.prompt + completion * prices.completion) / 1_000_000
    return Cost(
        total=total,
        per_trial=total / len(trials),
        dependable_tasks=dependable,
        per_dependable_task=total / dependable if dependable else None,
    )


def _system_errors(grouped: Sample) -> SystemErrors:
    trials = tuple(
        ErroredTrial(r.task, r.domain, r.arm, r.trial, r.system_error or "") for r in grouped.errored
    )
    by_arm = {arm: sum(t.arm == arm for t in trials) for arm in grouped.arms}
    return SystemErrors(count=len(trials), by_arm=by_arm, trials=trials)


def _meta(context: _Context, domains: list[str]) -> Meta:
    grouped = context.sample
    records = [t for trials in grouped.trials.values() for t in trials] + list(grouped.errored)
    agents = {arm: tuple(sorted({r.agent for r in records if r.arm == arm})) for arm in grouped.arms}
    data_refs = tuple(sorted({r.data_ref for r in records if r.data_ref}))
    hashes = tuple(sorted({r.task_set_hash for r in records if r.task_set_hash}))
    warnings: list[str] = []
    if len({agents[arm] for arm in grouped.arms}) > 1:
        named = "; ".join(f"{arm}: {', '.join(agents[arm])}" for arm in grouped.arms)
        warnings.append(f"the arms ran different agents ({named}): the lift compares the agents too")
    if len(data_refs) > 1:
        warnings.append(f"the results mix {len(data_refs)} data refs")
    if any(not r.data_ref for r in records):
        warnings.append("some trials record no data ref")
    if len(hashes) > 1:
        warnings.append(f"the results mix {len(hashes)} task sets")
    if grouped.dropped:
        warnings.append(
            f"{len(grouped.dropped)} task(s) have no usable trial in any arm (all system errors) "
            f"and are left out: {', '.join(grouped.dropped[:8])}"
        )
    unclassified = sum(1 for r in records if r.system_error is None and not r.passed and r.signature is None)
    if unclassified:
        warnings.append(f"{unclassified} failed trial(s) carry no failure signature (shown as unclassified)")
    if len(grouped.arms) == 1:
        warnings.append(f"only the {grouped.arms[0]} arm is present: no lift")
    unjudged = sum(1 for r in records if r.system_error is None and any(q.passed is None for q in r.rubrics))
    if unjudged:
        warnings.append(
            f"{unjudged} trial(s) have yes/no rubrics that were not judged (no --judge-model): "
            "they are graded on their final state only"
        )
    return Meta(
        arms=grouped.arms,
        agents=agents,
        simulated=any(is_simulated(r.agent) for r in records),
        data_refs=data_refs,
        task_set_hashes=hashes,
        tasks=len(grouped.tasks),
        domains=tuple(domains),
        trials_per_task=grouped.n,
        k=context.k,
        seeds=tuple(sorted({r.seed for r in records})),
        bootstrap=context.bootstrap,
        bootstrap_seed=context.seed,
        confidence=context.confidence,
        prices=context.prices,
        dropped_tasks=grouped.dropped,
        warnings=tuple(warnings),
    )
