"""compute(): every metric of DESIGN §6 against values computed by hand, and the refusals."""

from __future__ import annotations

import pytest

from benchmark.errors import BenchmarkError
from benchmark.metrics import (
    MetricsError,
    Prices,
    UnequalTrialsError,
    UnpairedTasksError,
    compute,
)
from tests.benchmark.report.builders import HAND, trial, trials

# HAND, n = 5: baseline c = (A 5, B 3, C 0, D 2), guarded c = (A 5, B 5, C 1, D 3).


def test_hand_computed_metrics_at_k_equal_n() -> None:
    metrics = compute(trials(HAND), bootstrap=0)
    base, guarded = metrics.overall.arms["baseline"], metrics.overall.arms["guarded"]
    assert (base.trials_per_task, base.k, base.tasks, base.trials) == (5, 5, 4, 20)
    assert base.pass_at_1.value == pytest.approx(10 / 20)
    assert guarded.pass_at_1.value == pytest.approx(14 / 20)
    assert base.pass_at_k.value == pytest.approx((1 + 1 + 0 + 1) / 4)
    assert guarded.pass_at_k.value == pytest.approx(1.0)
    assert base.pass_hat_k_unbiased.value == pytest.approx(1 / 4)
    assert guarded.pass_hat_k_unbiased.value == pytest.approx(2 / 4)
    assert base.pass_hat_k_plugin.value == pytest.approx((1 + 0.6**5 + 0 + 0.4**5) / 4)
    assert guarded.pass_hat_k_plugin.value == pytest.approx((1 + 1 + 0.2**5 + 0.6**5) / 4)
    assert base.pass_at_1.low is None
    assert base.pass_at_1.high is None


def test_hand_computed_metrics_at_k_2() -> None:
    base = compute(trials(HAND), k=2, bootstrap=0).overall.arms["baseline"]
    assert base.k == 2
    assert base.pass_at_k.value == pytest.approx((1 + 0.9 + 0 + 0.7) / 4)
    assert base.pass_hat_k_unbiased.value == pytest.approx((1 + 0.3 + 0 + 0.1) / 4)
    assert base.pass_hat_k_plugin.value == pytest.approx((1 + 0.36 + 0 + 0.16) / 4)
    # first two trials: A 11, B 11, C 00, D 10
    assert base.observed_all_k.count == 2
    assert base.observed_all_k.value == pytest.approx(0.5)


def test_fewer_passes_than_k_unbiased_zero_plugin_positive() -> None:
    spec = {"T": {"baseline": "11100"}}
    arm = compute(trials(spec), bootstrap=0).overall.arms["baseline"]
    assert arm.pass_hat_k_unbiased.value == 0.0
    assert arm.pass_hat_k_plugin.value == pytest.approx(0.6**5)
    assert arm.pass_hat_k_plugin.value > 0


def test_k_equal_n_makes_observed_the_count_of_all_pass_tasks() -> None:
    metrics = compute(trials(HAND), bootstrap=0)
    for arm, expected in (("baseline", 1), ("guarded", 2)):
        observed = metrics.overall.arms[arm].observed_all_k
        assert observed.count == expected
        assert observed.value == pytest.approx(expected / 4)
        assert metrics.overall.arms[arm].bins.always.count == expected


def test_bins_and_moves() -> None:
    scope = compute(trials(HAND), bootstrap=0).overall
    base, guarded = scope.arms["baseline"].bins, scope.arms["guarded"].bins
    assert (base.never.count, base.sometimes.count, base.always.count) == (1, 2, 1)
    assert (guarded.never.count, guarded.sometimes.count, guarded.always.count) == (0, 2, 2)
    assert base.sometimes.value == pytest.approx(0.5)
    assert scope.moves is not None
    assert scope.moves.get("always", "always").tasks == ("A",)
    assert scope.moves.get("sometimes", "always").tasks == ("B",)
    assert scope.moves.get("never", "sometimes").tasks == ("C",)
    assert scope.moves.get("sometimes", "sometimes").tasks == ("D",)
    assert sum(move.count for move in scope.moves.moves) == 4
    assert len(scope.moves.moves) == 9


def test_lift_is_guarded_minus_baseline() -> None:
    lift = compute(trials(HAND), bootstrap=0).overall.lift
    assert lift is not None
    assert lift.pass_at_1.value == pytest.approx(0.2)
    assert lift.pass_at_k.value == pytest.approx(0.25)
    assert lift.pass_hat_k_unbiased.value == pytest.approx(0.25)
    assert lift.observed_all_k.count == 1
    assert (lift.bins.never.count, lift.bins.sometimes.count, lift.bins.always.count) == (-1, 0, 1)


def test_curve_runs_k_1_to_n_and_agrees_with_the_scalars() -> None:
    metrics = compute(trials(HAND), k=3, bootstrap=200)
    arm = metrics.overall.arms["baseline"]
    assert [p.k for p in arm.curve] == [1, 2, 3, 4, 5]
    assert arm.curve[0].unbiased.value == pytest.approx(arm.pass_at_1.value)
    assert arm.curve[0].plugin.value == pytest.approx(arm.pass_at_1.value)
    assert arm.curve[2].unbiased == arm.pass_hat_k_unbiased
    assert arm.curve[2].plugin == arm.pass_hat_k_plugin
    values = [p.unbiased.value for p in arm.curve]
    assert values == sorted(values, reverse=True)


def test_bootstrap_is_deterministic_by_seed() -> None:
    results = trials(HAND)
    assert compute(results, seed=3, bootstrap=300) == compute(list(reversed(results)), seed=3, bootstrap=300)
    varied = trials({f"t{i}": {"baseline": "11000" if i % 3 else "11111"} for i in range(12)})
    assert compute(varied, seed=3, bootstrap=300) != compute(varied, seed=4, bootstrap=300)


def test_intervals_hold_the_point_estimate() -> None:
    spec = {f"t{i}": {"baseline": "11000" if i % 3 else "11111", "guarded": "11110"} for i in range(12)}
    arm = compute(trials(spec), bootstrap=500).overall.arms["baseline"]
    for estimate in (arm.pass_at_1, arm.pass_at_k, arm.pass_hat_k_unbiased, arm.pass_hat_k_plugin):
        assert estimate.low is not None
        assert estimate.high is not None
        assert estimate.low <= estimate.value <= estimate.high
    assert arm.pass_at_1.low < arm.pass_at_1.high


def test_task_clustered_interval_of_pass_at_1() -> None:
    spec = {"easy": {"baseline": "11111"}, "hard": {"baseline": "00000"}}
    estimate = compute(trials(spec), bootstrap=2000).overall.arms["baseline"].pass_at_1
    assert estimate.value == pytest.approx(0.5)
    # resampling two tasks gives 0, 0.5 or 1 with chances 1/4, 1/2, 1/4
    assert estimate.low == 0.0
    assert estimate.high == 1.0


def test_paired_lift_interval_excludes_zero_when_every_task_gains() -> None:
    patterns = ["00000", "10000", "11000", "11100", "11110"]
    gained = ["10000", "11000", "11100", "11110", "11111"]
    spec = {f"t{i}": {"baseline": patterns[i % 5], "guarded": gained[i % 5]} for i in range(20)}
    scope = compute(trials(spec), bootstrap=2000).overall
    lift = scope.lift
    assert lift is not None
    assert lift.pass_at_1.value == pytest.approx(0.2)
    assert lift.pass_at_1.low == pytest.approx(0.2)
    assert lift.pass_at_1.high == pytest.approx(0.2)
    base, guarded = scope.arms["baseline"].pass_at_1, scope.arms["guarded"].pass_at_1
    assert base.high is not None
    assert guarded.low is not None
    assert base.high > guarded.low  # the arms' own intervals overlap; only pairing shows the gain


def test_paired_lift_interval_straddles_zero_when_gains_and_losses_cancel() -> None:
    spec = {f"t{i}": {"baseline": "11100", "guarded": "11110" if i % 2 else "11000"} for i in range(20)}
    lift = compute(trials(spec), bootstrap=2000).overall.lift
    assert lift is not None
    assert lift.pass_at_1.value == pytest.approx(0.0, abs=1e-12)
    assert lift.pass_at_1.low is not None
    assert lift.pass_at_1.high is not None
    assert lift.pass_at_1.low < 0 < lift.pass_at_1.high


def test_unequal_trial_counts_across_tasks_are_refused_naming_the_task() -> None:
    spec = {"A": {"baseline": "11111", "guarded": "11111"}, "B": {"baseline": "1111", "guarded": "11111"}}
    spec |= {"C": {"baseline": "10101", "guarded": "11111"}}
    with pytest.raises(UnequalTrialsError, match=r"B \(baseline: 4\)") as caught:
        compute(trials(spec))
    assert caught.value.expected == 5
    assert caught.value.offenders == (("B", "baseline", 4),)
    assert isinstance(caught.value, BenchmarkError)


def test_unequal_trial_counts_across_arms_are_refused() -> None:
    spec = {"A": {"baseline": "11111", "guarded": "111"}, "B": {"baseline": "10000", "guarded": "100"}}
    with pytest.raises(UnequalTrialsError, match="unequal trial counts"):
        compute(trials(spec))


def test_system_errors_that_unbalance_trials_are_refused_with_a_rerun_hint() -> None:
    spec = {"A": {"baseline": "1111!", "guarded": "11111"}, "B": {"baseline": "10000", "guarded": "11111"}}
    with pytest.raises(UnequalTrialsError, match=r"system error.*rerun") as caught:
        compute(trials(spec))
    assert caught.value.system_errors == 1


def test_tasks_in_one_arm_only_are_refused() -> None:
    spec = {"A": {"baseline": "11111", "guarded": "11111"}, "B": {"baseline": "10000"}}
    with pytest.raises(UnpairedTasksError, match=r"B \(no guarded trials\)") as caught:
        compute(trials(spec))
    assert caught.value.missing == (("B", "guarded"),)


def test_system_errors_are_excluded_counted_and_listed() -> None:
    spec = dict(HAND) | {"Z": {"baseline": "!!!!!", "guarded": "!!!!!"}}
    metrics = compute(trials(spec), bootstrap=0)
    assert metrics.overall.tasks == 4
    assert metrics.overall.arms["baseline"].pass_at_1.value == pytest.approx(0.5)
    assert metrics.system_errors.count == 10
    assert dict(metrics.system_errors.by_arm) == {"baseline": 5, "guarded": 5}
    assert {(t.task, t.arm) for t in metrics.system_errors.trials} == {("Z", "baseline"), ("Z", "guarded")}
    assert metrics.meta.dropped_tasks == ("Z",)
    assert any("left out" in w for w in metrics.meta.warnings)


def test_a_rerun_replaces_the_system_error_of_its_trial() -> None:
    results = trials(HAND)
    errored = trial("A", "baseline", 4, False, system_error="timeout")
    rerun = trial("A", "baseline", 4, True)
    metrics = compute([errored, *results, rerun], bootstrap=0)
    assert metrics.system_errors.count == 0
    assert metrics.overall.arms["baseline"].bins.always.count == 1


def test_guard_errors_are_ordinary_failures_of_the_guarded_arm() -> None:
    spec = {"A": {"baseline": "11111", "guarded": "11111"}}
    results = trials(spec)
    results[-1] = trial("A", "guarded", 4, False, guard_error="guard unreachable", signature="tool_usage")
    metrics = compute(results, bootstrap=0)
    guarded = metrics.overall.arms["guarded"]
    assert guarded.pass_at_1.value == pytest.approx(0.8)
    assert guarded.guard_errors == 1
    assert metrics.system_errors.count == 0


def test_one_arm_gives_arm_metrics_without_lift() -> None:
    metrics = compute(trials({t: {"baseline": p["baseline"]} for t, p in HAND.items()}), bootstrap=0)
    assert metrics.meta.arms == ("baseline",)
    assert metrics.overall.lift is None
    assert metrics.overall.moves is None
    assert any("no lift" in w for w in metrics.meta.warnings)


def test_per_domain_metrics_are_the_metrics_of_that_domain_alone() -> None:
    first = trials({t: HAND[t] for t in ("A", "B")}, domain="alpha")
    second = trials({t: HAND[t] for t in ("C", "D")}, domain="beta")
    metrics = compute(first + second, bootstrap=100)
    assert [scope.name for scope in metrics.domains] == ["alpha", "beta"]
    alone = compute(second, bootstrap=0).overall
    beta = metrics.domains[1]
    assert beta.tasks == 2
    for arm in ("baseline", "guarded"):
        assert beta.arms[arm].pass_at_1.value == pytest.approx(alone.arms[arm].pass_at_1.value)
        assert beta.arms[arm].pass_hat_k_plugin.value == pytest.approx(
            alone.arms[arm].pass_hat_k_plugin.value
        )
    assert beta.lift is not None
    assert alone.lift is not None
    assert beta.lift.pass_at_1.value == pytest.approx(alone.lift.pass_at_1.value)


def test_signatures_per_arm() -> None:
    results = trials({"A": {"baseline": "10000", "guarded": "11110"}})
    results[1] = trial("A", "baseline", 1, False, signature="tool_usage")
    results[2] = trial("A", "baseline", 2, False, signature=None)
    metrics = compute(results, bootstrap=0)
    base = metrics.overall.arms["baseline"].signatures
    assert base.failed_trials == 4
    assert dict(base.counts) == {
        "tool_usage": 1,
        "wrong_state_update": 2,
        "incomplete_resolution": 0,
        "no_state_change": 0,
        "unclassified": 1,
    }
    assert metrics.overall.arms["guarded"].signatures.counts["wrong_state_update"] == 1
    assert any("no failure signature" in w for w in metrics.meta.warnings)


def test_cost_per_dependable_task() -> None:
    # every trial: 1000 prompt + 100 completion tokens; 20 trials per arm
    metrics = compute(trials(HAND), bootstrap=0, prices=Prices(prompt=3.0, completion=15.0))
    total = 20 * (1000 * 3.0 + 100 * 15.0) / 1_000_000
    base, guarded = metrics.overall.arms["baseline"].cost, metrics.overall.arms["guarded"].cost
    assert base is not None
    assert guarded is not None
    assert base.total == pytest.approx(total)
    assert base.per_trial == pytest.approx(total / 20)
    assert (base.dependable_tasks, guarded.dependable_tasks) == (1, 2)
    assert base.per_dependable_task == pytest.approx(total)
    assert guarded.per_dependable_task == pytest.approx(total / 2)


def test_cost_is_none_without_prices_and_per_dependable_none_without_dependable_tasks() -> None:
    assert compute(trials(HAND), bootstrap=0).overall.arms["baseline"].cost is None
    never = trials({"A": {"baseline": "10000"}})
    cost = compute(never, bootstrap=0, prices=Prices(1.0, 1.0)).overall.arms["baseline"].cost
    assert cost is not None
    assert cost.per_dependable_task is None
    assert cost.dependable_tasks == 0


def test_meta_names_agent_data_and_seeds() -> None:
    metrics = compute(trials(HAND), bootstrap=10, seed=9)
    meta = metrics.meta
    assert meta.simulated is True
    assert dict(meta.agents) == {"baseline": ("simulated",), "guarded": ("simulated",)}
    assert meta.data_refs == ("thinkingbox-bench-v1.0@fcaba4c",)
    assert meta.task_set_hashes == ("sha256:5e7",)
    assert (meta.trials_per_task, meta.k, meta.seeds) == (5, 5, (0, 1, 2, 3, 4))
    assert (meta.bootstrap, meta.bootstrap_seed, meta.confidence) == (10, 9, 0.95)
    assert meta.warnings == ()


def test_different_agents_per_arm_are_warned_about() -> None:
    results = [r.model_copy(update={"agent": "openai:m"}) if r.arm == "guarded" else r for r in trials(HAND)]
    meta = compute(results, bootstrap=0).meta
    assert meta.simulated is True
    assert any("different agents" in w for w in meta.warnings)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"k": 6}, "k must be between 1 and the 5 trials"),
        ({"k": 0}, "k must be between"),
        ({"bootstrap": -1}, "resamples"),
        ({"confidence": 1.0}, "confidence"),
        ({"prices": Prices(-1.0, 0.0)}, "prices"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(MetricsError, match=message):
        compute(trials(HAND), **options)  # type: ignore[arg-type]


def test_no_trials_are_refused() -> None:
    with pytest.raises(MetricsError, match="no trials"):
        compute([])
    with pytest.raises(MetricsError, match="system error"):
        compute(trials({"A": {"baseline": "!!", "guarded": "!!"}}))


def test_a_task_under_two_domains_is_refused() -> None:
    results = trials({"A": {"baseline": "11"}}) + trials({"A": {"guarded": "11"}}, domain="other")
    with pytest.raises(MetricsError, match="more than one domain"):
        compute(results)


def test_a_domain_holding_every_task_has_the_overall_intervals() -> None:
    metrics = compute(trials(HAND), bootstrap=300)
    (domain,) = metrics.domains
    assert domain.arms == metrics.overall.arms
    assert domain.lift == metrics.overall.lift


def test_unjudged_rubrics_are_named_in_the_warnings() -> None:
    from benchmark.results import RubricResult

    unjudged = [
        RubricResult(question="Did the agent apologise?", error="not judged: no judge model configured")
    ]
    results = trials({"t1": {"baseline": "11", "guarded": "11"}}, rubrics=unjudged)
    warnings = compute(results, bootstrap=0).meta.warnings
    assert any("4 trial(s) have yes/no rubrics that were not judged" in w for w in warnings)
    assert not any(
        "rubrics" in w for w in compute(trials({"t1": {"baseline": "1", "guarded": "1"}})).meta.warnings
    )
