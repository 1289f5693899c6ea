"""The metrics as one self-contained HTML page (``guard report --html``).

Inline CSS and inline SVG charts (:mod:`benchmark.report.charts`); no script,
no font or image fetched from anywhere. Nothing on the page comes from a
clock, so the same metrics give the same bytes.

Colour means good or bad, never the sign: a lift or a bin move is green
(class ``good``) when :func:`benchmark.report.present.change_of` or
:func:`~benchmark.report.present.move_change` calls it an improvement for its
metric, red (``bad``) for a regression, and plain otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from benchmark.metrics import BINS, ESTIMATORS, Estimate, Metrics, Scope
from benchmark.report import present
from benchmark.report.charts import bins_chart, curve_chart, domains_chart
from benchmark.report.document import REPORT_SCHEMA
from benchmark.report.present import Change, LiftMetric

__all__ = ["CSS", "render_html"]

CSS = """
:root { --ink: #1f2933; --muted: #52606d; --line: #d9dee3; --soft: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 980px; margin: 0 auto; padding: 32px 20px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 40px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.sub, .caption, footer { color: var(--muted); }
.caption { font-size: 13px; margin: 4px 0 0; }
.notice { border: 3px solid #c62828; background: #fdecea; color: #8e1b1b; padding: 14px 18px;
  margin: 20px 0; font-weight: 700; font-size: 16px; border-radius: 6px; }
.warn { border-left: 4px solid #e6a700; background: #fff8e1; padding: 8px 16px; margin: 16px 0; }
.warn ul { margin: 4px 0; padding-left: 20px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 20px 0; }
.card { flex: 1 1 200px; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.card .label { color: var(--muted); font-size: 13px; }
.card .big { display: block; font-size: 30px; font-weight: 700; line-height: 1.2; }
.card .iv { color: var(--muted); font-size: 13px; }
figure { margin: 24px 0; }
svg { max-width: 100%; height: auto; display: block; }
table { border-collapse: collapse; width: 100%; font-size: 14px; margin: 8px 0; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: right; vertical-align: top; }
td + td { white-space: nowrap; }
.scroll { overflow-x: auto; }
th:first-child, td:first-child { text-align: left; }
thead th { background: var(--soft); font-weight: 600; }
td.name { font-weight: 600; }
.good { color: #00703c; font-weight: 600; }
.bad { color: #b3261e; font-weight: 600; }
.diag { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px;
  word-break: break-all; }
details { margin: 8px 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
footer { margin-top: 48px; font-size: 12px; }
"""


def render_html(metrics: Metrics) -> str:
    """The whole page."""
    meta = metrics.meta
    k = meta.k
    scope = metrics.overall
    agents = ", ".join(sorted({a for names in meta.agents.values() for a in names}))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>guard bench report — {escape(agents)}</title>",
        f"<style>{CSS}</style></head><body><main>",
        "<h1>guard bench — reliability report</h1>",
        f'<p class="sub">ThinkingBox-Bench · agent <code>{escape(agents)}</code> · {meta.tasks} tasks × '
        f"{meta.trials_per_task} trials per arm · k = {k}</p>",
        *(f'<div class="notice">{escape(notice)}</div>' for notice in present.notices(meta)),
    ]
    if meta.warnings:
        items = "".join(f"<li>{escape(w)}</li>" for w in meta.warnings)
        parts.append(f'<div class="warn"><strong>Warnings</strong><ul>{items}</ul></div>')
    parts += [
        _cards(scope, k),
        "<h2>Reliability</h2>",
        _figure(
            bins_chart(scope),
            "Never: no trial passed; sometimes: some did; always: every trial passed. Whiskers under a bar: "
            "the interval of the never | sometimes and the sometimes | always boundaries.",
        ),
        _figure(
            curve_chart(scope, k),
            "Solid: the unbiased estimator C(c,k)/C(n,k), 0 for a task with fewer than k passes; "
            "dashed: the plug-in estimator (c/n)^k, which stays positive. At k = 1 both are pass@1.",
        ),
        _figure(
            domains_chart(metrics),
            f"The gap between a bar's outline (pass@1) and its fill (pass^{k}) is the reliability lost "
            f"when {k} trials must all pass.",
        ),
        "<h2>All tasks</h2>",
        _scalars(scope, k),
    ]
    if scope.moves is not None:
        parts += ["<h2>Bin moves</h2>", _moves(scope)]
    parts += [
        "<h2>Failure signatures</h2>",
        _table(["signature", *scope.arms], [(name, cells) for name, cells in present.signature_rows(scope)]),
        "<h2>Per domain</h2>",
        _domains(metrics),
        "<h2>Activity and cost</h2>",
        _table(["", *scope.arms], present.activity_rows(scope)),
        _system_errors(metrics),
        "<h2>Run</h2>",
        _facts(metrics),
        "<h2>Method</h2>",
        _method(metrics),
        f"<footer>guard report · report schema {REPORT_SCHEMA}</footer>",
        "</main></body></html>",
    ]
    return "\n".join(part for part in parts if part) + "\n"


def _figure(chart: str, caption: str) -> str:
    return f'<figure>{chart}<figcaption class="caption">{escape(caption)}</figcaption></figure>'


_TITLE = {Change.GOOD: "better", Change.BAD: "worse", Change.NEUTRAL: ""}
_LEGEND = (
    '<span class="good">green</span>: a change for the better, <span class="bad">red</span>: for the '
    "worse — its interval clear of 0 (a fall in never or sometimes is for the better)."
)


def _marked(change: Change, text: str, *, extra: str = "") -> str:
    """``text`` (HTML already) in a span whose class says whether its change is good or bad."""
    css = " ".join(c for c in ((change.value if change is not Change.NEUTRAL else ""), extra) if c)
    if not css:
        return text
    title = f' title="{_TITLE[change]}"' if _TITLE[change] else ""
    return f'<span class="{css}"{title}>{text}</span>'


def _lift_html(metric: LiftMetric, estimate: Estimate, *, counted: bool = False, unit: bool = True) -> str:
    text = escape(present.lift_text(estimate, counted=counted, unit=unit))
    return _marked(present.change_of(metric, estimate), text)


def _cards(scope: Scope, k: int) -> str:
    label = present.metric_labels(k)["pass_hat_k_unbiased"]
    cards = []
    for arm, metrics in scope.arms.items():
        estimate = metrics.pass_hat_k_unbiased
        cards.append(
            f'<div class="card"><div class="label">{escape(arm)} · {escape(label)}</div>'
            f'<div class="big">{present.pct(estimate.value)}</div>'
            f'<div class="iv">{escape(present.interval(estimate))} · pass@1 '
            f"{present.pct(metrics.pass_at_1.value)} · "
            f"always {metrics.bins.always.count}/{metrics.tasks}</div></div>"
        )
    if scope.lift is not None:
        lift = scope.lift.pass_hat_k_unbiased
        direction = present.lift_direction(lift)
        verdict = {1: "interval above 0", -1: "interval below 0", 0: "interval holds 0"}[direction]
        if lift.low is None or lift.high is None:
            verdict = "no interval (bootstrap off)"
        else:
            bounds = f"[{present.signed_points(lift.low)}, {present.signed_points(lift.high)}]"
            verdict = f"{bounds} · {verdict}"
        big = _marked(
            present.change_of("pass_hat_k_unbiased", lift),
            f"{present.signed_points(lift.value)} pp",
            extra="big",
        )
        cards.append(
            f'<div class="card"><div class="label">lift · guarded − baseline · {escape(label)}</div>'
            f"{big}"
            f'<div class="iv">{verdict}</div></div>'
        )
    return f'<div class="cards">{"".join(cards)}</div>'


def _table(head: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]], *, raw: bool = False) -> str:
    """A table; cells are escaped unless ``raw`` (then they are HTML already)."""
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = []
    for name, cells in rows:
        shown = "".join(f"<td>{c if raw else escape(c)}</td>" for c in cells)
        body.append(f'<tr><td class="name">{escape(name)}</td>{shown}</tr>')
    table = f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'<div class="scroll">{table}</div>'


def _scalars(scope: Scope, k: int) -> str:
    labels = present.metric_labels(k)
    head = ["metric", *scope.arms] + (["lift (guarded − baseline)"] if scope.lift is not None else [])
    rows: list[tuple[str, list[str]]] = []
    for key in present.RATES:
        cells = [escape(present.share(getattr(a, key))) for a in scope.arms.values()]
        if scope.lift is not None:
            cells.append(_lift_html(key, getattr(scope.lift, key)))
        rows.append((labels[key], cells))
    counted: list[tuple[LiftMetric, str, list[Estimate], Estimate | None]] = [
        (
            "observed_all_k",
            labels["observed_all_k"],
            [a.observed_all_k for a in scope.arms.values()],
            None if scope.lift is None else scope.lift.observed_all_k,
        )
    ]
    counted += [
        (
            name,
            f"bin: {name}",
            [a.bins.get(name) for a in scope.arms.values()],
            None if scope.lift is None else scope.lift.bins.get(name),
        )
        for name in BINS
    ]
    for metric, label, estimates, lift in counted:
        cells = [escape(present.count_share(e, scope.tasks)) for e in estimates]
        if lift is not None:
            cells.append(_lift_html(metric, lift, counted=True))
        rows.append((label, cells))
    caption = (
        f'<p class="caption">{scope.tasks} tasks; [interval] in percent; lift in percentage points. '
        f"{_LEGEND if scope.lift is not None else ''}</p>"
    )
    return _table(head, rows, raw=True) + caption


def _moves(scope: Scope) -> str:
    assert scope.moves is not None
    rows = []
    for source in BINS:
        cells = []
        for target in BINS:
            count = scope.moves.get(source, target).count
            extra = "diag" if source == target else ""
            cells.append(
                _marked(present.move_change(source, target), str(count), extra=extra) if count else "0"
            )
        rows.append((f"baseline {source}", cells))
    table = _table(["", *(f"guarded {t}" for t in BINS)], rows, raw=True)
    table += (
        '<p class="caption">Tasks per move: <span class="good">green</span> moved up towards always, '
        '<span class="bad">red</span> down towards never.</p>'
    )
    moved = [m for m in scope.moves.moves if m.source != m.target and m.tasks]
    if moved:
        items = "".join(
            f"<li>{m.source} → {m.target} ({m.count}): {escape(', '.join(m.tasks))}</li>" for m in moved
        )
        table += f"<details><summary>Tasks that changed bin</summary><ul>{items}</ul></details>"
    return table


def _domains(metrics: Metrics) -> str:
    labels = present.metric_labels(metrics.meta.k, formulas=False)
    head = ["domain", "arm", "pass@1", labels["pass_hat_k_unbiased"], labels["pass_hat_k_plugin"], "always"]
    rows: list[tuple[str, list[str]]] = []
    for scope in (metrics.overall, *metrics.domains):
        name = "all tasks" if scope is metrics.overall else scope.name
        for index, (arm, arm_metrics) in enumerate(scope.arms.items()):
            rows.append(
                (
                    name if index == 0 else "",
                    [
                        escape(arm),
                        escape(present.share(arm_metrics.pass_at_1)),
                        escape(present.share(arm_metrics.pass_hat_k_unbiased)),
                        escape(present.share(arm_metrics.pass_hat_k_plugin)),
                        f"{arm_metrics.bins.always.count}/{scope.tasks}",
                    ],
                )
            )
        if scope.lift is not None:
            lift = scope.lift
            always = lift.bins.always
            rows.append(
                (
                    "",
                    [
                        "lift, guarded − baseline",
                        _lift_html("pass_at_1", lift.pass_at_1, unit=False),
                        _lift_html("pass_hat_k_unbiased", lift.pass_hat_k_unbiased, unit=False),
                        _lift_html("pass_hat_k_plugin", lift.pass_hat_k_plugin, unit=False),
                        _marked(present.change_of("always", always), f"{always.count:+d}"),
                    ],
                )
            )
    caption = (
        '<p class="caption">One row per arm, named in the arm column; [interval] in percent; lift in '
        "percentage points; always: tasks whose every trial passed."
        f"{' ' + _LEGEND if metrics.overall.lift is not None else ''}</p>"
    )
    return _table(head, rows, raw=True) + caption


def _system_errors(metrics: Metrics) -> str:
    errors = metrics.system_errors
    if not errors.count:
        return ""
    by_arm = ", ".join(f"{arm} {n}" for arm, n in errors.by_arm.items())
    rows = [(t.task, [t.arm, str(t.trial), t.error]) for t in errors.trials]
    return (
        "<h2>System errors</h2>"
        f"<p>{errors.count} trial(s) failed for reasons of the harness ({escape(by_arm)}) and are "
        "left out of every metric; rerun <code>guard bench</code> with the same <code>--out</code> "
        "to fill them in.</p>"
        f"<details><summary>The trials</summary>{_table(['task', 'arm', 'trial', 'error'], rows)}</details>"
    )


def _facts(metrics: Metrics) -> str:
    items = "".join(f"<dt>{escape(n)}</dt><dd>{escape(v)}</dd>" for n, v in present.run_facts(metrics))
    return f'<dl class="facts">{items}</dl>'


def _method(metrics: Metrics) -> str:
    n = metrics.meta.trials_per_task
    items = "".join(
        f"<li><code>{escape(name)}</code>: {escape(text)}</li>" for name, text in ESTIMATORS.items()
    )
    return (
        f"<p>Each task ran n = {n} trials per arm; c is how many passed. Per-task values, "
        f"averaged over tasks:</p><ul>{items}</ul>"
        "<p>Intervals: percentile bootstrap over tasks (a task's trials move together), "
        f"{metrics.meta.bootstrap} resamples, seed {metrics.meta.bootstrap_seed}. Both arms are computed on "
        "the same resampled tasks, so the lift's interval is a paired bootstrap. Trials with a system error "
        "are left out; failures caused by the guard count against the guarded arm.</p>"
    )
