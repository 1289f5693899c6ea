"""The renderings: rich tables, the JSON document and the HTML page, each deterministic."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console

from benchmark.metrics import Estimate, Metrics, Prices, compute
from benchmark.report import document, print_tables, render_html, render_json
from benchmark.report.charts import curve_chart, domains_chart
from benchmark.report.present import SIMULATED_NOTICE, Change, LiftMetric, change_of, move_change
from tests.benchmark.report.builders import HAND, mixed, trials

ESTIMATE = {"value", "low", "high"}
SCALARS = ("pass_at_1", "pass_at_k", "pass_hat_k_unbiased", "pass_hat_k_plugin", "observed_all_k")


@pytest.fixture(scope="module")
def metrics() -> Metrics:
    return compute(mixed(), bootstrap=300, prices=Prices(prompt=3.0, completion=15.0))


def _text(metrics: Metrics) -> str:
    out = io.StringIO()
    print_tables(metrics, Console(file=out, width=130, color_system=None))
    return out.getvalue()


def test_tables_show_every_metric_with_both_estimators_named(metrics: Metrics) -> None:
    text = _text(metrics)
    for needle in (
        "pass@1",
        "pass@5",
        "pass^5 unbiased",
        "pass^5 plug-in",
        "C(c,k)/C(n,k)",
        "(c/n)^k",
        "observed 5/5",
        "bin: never",
        "bin: sometimes",
        "bin: always",
        "Bin moves",
        "Failure signatures",
        "wrong_state_update",
        "domain0",
        "domain1",
        "cost / dependable task",
        "lift, guarded − baseline",
    ):
        assert needle in text, needle


def test_tables_show_provenance_and_the_simulated_notice(metrics: Metrics) -> None:
    text = " ".join(_text(metrics).split())
    assert "SIMULATED HARNESS CHECK" in text
    assert "NOT a model result" in text
    for needle in ("agent (baseline) │ simulated", "thinkingbox-bench-v1.0@fcaba4c", "sha256:5e7"):
        assert needle in text
    assert "trials per task │ 5" in text
    assert "seeds │ 0, 1, 2, 3, 4" in text


def test_tables_list_system_errors() -> None:
    spec = dict(HAND) | {"Z": {"baseline": "!!!!!", "guarded": "!!!!!"}}
    text = _text(compute(trials(spec), bootstrap=0))
    assert "System errors — 10 trial(s) left out" in text
    assert "model endpoint unreachable" in text


def test_tables_without_simulated_agent_have_no_notice() -> None:
    results = [r.model_copy(update={"agent": "openai:gpt-x"}) for r in trials(HAND)]
    assert "SIMULATED" not in _text(compute(results, bootstrap=0))


def test_tables_are_the_same_twice(metrics: Metrics) -> None:
    assert _text(metrics) == _text(compute(mixed(), bootstrap=300, prices=Prices(3.0, 15.0)))


def test_json_has_the_named_keys(metrics: Metrics) -> None:
    data = json.loads(render_json(metrics))
    assert data["schema"] == 1
    for arm in ("baseline", "guarded"):
        block = data["arms"][arm]
        for key in SCALARS:
            assert set(block[key]) >= ESTIMATE, key
        assert set(block["bins"]) == {"never", "sometimes", "always"}
        for name in ("never", "sometimes", "always"):
            assert ESTIMATE | {"count"} == set(block["bins"][name])
        assert "count" in block["observed_all_k"]
        assert [point["k"] for point in block["curve"]] == [1, 2, 3, 4, 5]
        assert set(block["signatures"]) == {"failed_trials", "counts"}
        assert set(block["cost"]) == {"total", "per_trial", "dependable_tasks", "per_dependable_task"}
    for key in SCALARS:
        assert {"low", "high"} <= set(data["lift"][key]), key
    assert set(data["lift"]["bins"]) == {"never", "sometimes", "always"}
    assert set(data["moves"]) == {"from", "to", "counts", "tasks"}
    assert set(data["domains"]) == {"domain0", "domain1"}
    assert set(data["domains"]["domain0"]) == {"tasks", "arms", "lift", "moves"}
    assert set(data["system_errors"]) == {"count", "by_arm", "trials"}
    meta = data["meta"]
    assert meta["simulated"] is True
    assert meta["notices"] == [SIMULATED_NOTICE]
    assert meta["estimators"]["pass_hat_k_unbiased"].startswith("unbiased")
    assert meta["estimators"]["pass_hat_k_plugin"].startswith("plug-in")
    assert meta["bootstrap"]["resamples"] == 300


def test_json_values_are_the_metrics(metrics: Metrics) -> None:
    data = json.loads(render_json(metrics))
    arm = metrics.overall.arms["guarded"]
    assert data["arms"]["guarded"]["pass_hat_k_unbiased"]["value"] == pytest.approx(
        arm.pass_hat_k_unbiased.value, abs=1e-6
    )
    assert data["arms"]["guarded"]["bins"]["always"]["count"] == arm.bins.always.count
    assert metrics.overall.lift is not None
    assert data["lift"]["pass_at_1"]["low"] == pytest.approx(metrics.overall.lift.pass_at_1.low, abs=1e-6)


def test_json_of_the_hand_example() -> None:
    data = json.loads(render_json(compute(trials(HAND), bootstrap=0)))
    assert data["arms"]["baseline"]["pass_at_1"] == {"value": 0.5, "low": None, "high": None}
    assert data["arms"]["guarded"]["observed_all_k"] == {"value": 0.5, "low": None, "high": None, "count": 2}
    assert data["lift"]["pass_at_1"] == {"value": 0.2, "low": None, "high": None}
    assert data["moves"]["counts"]["never"] == {"never": 0, "sometimes": 1, "always": 0}
    assert data["moves"]["tasks"]["sometimes"] == {"never": [], "always": ["B"]}


def test_json_with_one_arm_has_no_lift() -> None:
    data = document(compute(trials({"A": {"guarded": "110"}}), bootstrap=0))
    assert list(data["arms"]) == ["guarded"]
    assert data["lift"] is None
    assert data["moves"] is None


def test_json_is_the_same_twice(metrics: Metrics) -> None:
    again = compute(list(reversed(mixed())), bootstrap=300, prices=Prices(3.0, 15.0))
    assert render_json(metrics) == render_json(again)


def test_html_is_self_contained_with_three_plots(metrics: Metrics) -> None:
    page = render_html(metrics)
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<svg ") == 3
    for label in (
        "Never, sometimes and always passing tasks per arm",
        "pass^k against k for each arm, both estimators",
        "pass^5 and pass@1 per domain and arm",
    ):
        assert f'aria-label="{label}"' in page
    assert re.findall(r"https?://[^\s\"'<>]*", page) == ["http://www.w3.org/2000/svg"] * 3
    for fetch in ("<script", "<link", "<img", "<iframe", "@import", "url(", "src=", "href="):
        assert fetch not in page, fetch


def test_html_says_what_matters(metrics: Metrics) -> None:
    page = render_html(metrics)
    for needle in (
        "SIMULATED HARNESS CHECK",
        "unbiased C(c,k)/C(n,k)",
        "plug-in (c/n)^k",
        "thinkingbox-bench-v1.0@fcaba4c",
        "sha256:5e7",
        "domain0",
        "Bin moves",
        "Failure signatures",
        "cost / dependable task",
    ):
        assert needle in page, needle


def test_html_escapes_what_it_shows() -> None:
    results = [r.model_copy(update={"agent": "<b>agent</b>", "task": "<x>" + r.task}) for r in trials(HAND)]
    page = render_html(compute(results, bootstrap=0))
    assert "<b>agent</b>" not in page
    assert "&lt;b&gt;agent&lt;/b&gt;" in page


def test_html_is_byte_identical_twice(metrics: Metrics) -> None:
    again = compute(mixed(), bootstrap=300, prices=Prices(3.0, 15.0))
    assert render_html(metrics).encode() == render_html(again).encode()


def test_html_without_bootstrap_and_with_one_trial_renders() -> None:
    page = render_html(compute(trials({"A": {"baseline": "1", "guarded": "0"}}), bootstrap=0))
    assert page.count("<svg ") == 3
    assert "no interval (bootstrap off)" in page


def test_one_arm_renders_everywhere() -> None:
    metrics = compute(trials({"A": {"guarded": "110"}, "B": {"guarded": "111"}}), bootstrap=50)
    page = render_html(metrics)
    assert page.count("<svg ") == 3
    assert "lift · guarded − baseline" not in page
    assert "<td>lift, guarded − baseline</td>" not in page
    assert "only the guarded arm is present: no lift" in page
    assert "only the guarded arm is present" in _text(metrics)
    assert json.loads(render_json(metrics))["lift"] is None


def _lift(low: float, high: float) -> Estimate:
    return Estimate(value=(low + high) / 2, low=low, high=high)


@pytest.mark.parametrize(
    ("metric", "low", "high", "change"),
    [
        ("pass_hat_k_unbiased", 0.1, 0.3, Change.GOOD),
        ("pass_at_1", -0.3, -0.1, Change.BAD),
        ("observed_all_k", 0.1, 0.3, Change.GOOD),
        ("always", 0.1, 0.3, Change.GOOD),
        ("sometimes", -0.3, -0.1, Change.GOOD),
        ("sometimes", 0.1, 0.3, Change.BAD),
        ("never", -0.3, -0.1, Change.GOOD),
        ("never", 0.1, 0.3, Change.BAD),
        ("never", -0.1, 0.1, Change.NEUTRAL),
        ("pass_at_k", -0.1, 0.1, Change.NEUTRAL),
    ],
)
def test_a_change_is_good_by_its_metric_not_by_its_sign(
    metric: LiftMetric, low: float, high: float, change: Change
) -> None:
    assert change_of(metric, _lift(low, high)) is change


def test_a_change_without_an_interval_is_neutral() -> None:
    assert change_of("sometimes", Estimate(value=-0.5)) is Change.NEUTRAL


def test_moves_up_towards_always_are_good() -> None:
    assert move_change("sometimes", "always") is Change.GOOD
    assert move_change("never", "sometimes") is Change.GOOD
    assert move_change("sometimes", "never") is Change.BAD
    assert move_change("always", "always") is Change.NEUTRAL


FLAKY_FIXED = {f"t{i:02d}": {"baseline": "11100", "guarded": "11111"} for i in range(12)}


def test_tables_colour_a_fall_in_sometimes_green() -> None:
    out = io.StringIO()
    print_tables(
        compute(trials(FLAKY_FIXED), bootstrap=200), Console(file=out, width=160, color_system="standard")
    )
    lines = out.getvalue().splitlines()
    green, red = "\x1b[32m", "\x1b[31m"

    def row(name: str) -> str:
        return next(line for line in lines if f"bin: {name}" in line)

    assert green in row("sometimes")
    assert red not in row("sometimes")
    assert green in row("always")
    assert green not in row("never")
    assert red not in row("never")


def test_html_colours_a_fall_in_sometimes_good() -> None:
    page = render_html(compute(trials(FLAKY_FIXED), bootstrap=200))
    row = re.search(r"<tr><td class=\"name\">bin: sometimes</td>.*?</tr>", page)
    assert row is not None
    assert '<span class="good" title="better">-100.0 pp (-12 tasks)' in row.group(0)
    assert 'class="bad"' not in row.group(0)


def test_identical_arms_are_drawn_apart_with_a_note() -> None:
    same = {f"t{i}": {"baseline": p, "guarded": p} for i, p in enumerate(("11100", "11111", "10000"))}
    chart = curve_chart(compute(trials(same), bootstrap=0).overall, 3)
    assert "arms identical: lines drawn 5 px apart" in chart
    solid = re.findall(
        r'<polyline points="([^"]+)" fill="none" stroke="(#[0-9a-f]+)" stroke-width="2.5"', chart
    )
    (base, base_colour), (guarded, guarded_colour) = solid
    assert base_colour != guarded_colour
    assert base != guarded
    shapes = set(re.findall(r"<(circle|rect) [^>]*><title>(baseline|guarded), pass\^1 unbiased", chart))
    assert shapes == {("circle", "baseline"), ("rect", "guarded")}  # each arm its marker shape


def test_different_arms_get_no_identical_note(metrics: Metrics) -> None:
    assert "arms identical" not in render_html(metrics)


def test_per_domain_bars_and_lift_rows_name_their_arm(metrics: Metrics) -> None:
    chart = domains_chart(metrics)
    for arm in ("baseline", "guarded"):
        # one arm label per bar row: all tasks and each of the two domains
        assert chart.count(f'font-weight="bold">{arm}</text>') == 3
    assert render_html(metrics).count("<td>lift, guarded − baseline</td>") == 3
