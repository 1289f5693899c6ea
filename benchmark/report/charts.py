"""The report's three charts as inline SVG.

- :func:`bins_chart`: each arm's tasks split into never / sometimes / always
  (a 100 % bar per arm, interval whiskers on the two boundaries);
- :func:`curve_chart`: pass^k against k = 1..n for every arm, the unbiased
  estimator solid with its interval band, the plug-in estimator dashed; each
  arm has its colour and its marker shape, and arms whose curves coincide are
  drawn a few pixels apart with a note saying so, so no arm hides another;
- :func:`domains_chart`: per domain (and all tasks), each arm's pass^k
  (unbiased, filled, with its interval) over its pass@1 (outline), each bar
  named by its arm: the gap is what unreliability costs.
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil

from benchmark.metrics import BINS, ArmMetrics, Estimate, Metrics, Scope
from benchmark.report import svg
from benchmark.report.present import interval, metric_labels, pct

__all__ = ["ARM_COLORS", "BIN_COLORS", "bins_chart", "curve_chart", "domains_chart"]

ARM_COLORS = {"baseline": "#7b8794", "guarded": "#0072b2"}
BIN_COLORS = {"never": "#d55e00", "sometimes": "#f0e442", "always": "#009e73"}
_BIN_INK = {"never": "#ffffff", "sometimes": "#1f2933", "always": "#ffffff"}
_GRID = "#d9dee3"
_MUTED = "#52606d"
_WIDTH = 800
_SHAPES = ("circle", "square")
_DODGE = 5.0
_At = Callable[[int, float], tuple[float, float]]
_Bars = tuple[float, float, float, float]


def _arm_color(arm: str) -> str:
    return ARM_COLORS.get(arm, "#3e4c59")


def _tip(name: str, estimate: Estimate) -> str:
    return f"{name}: {pct(estimate.value)} {interval(estimate)}".rstrip()


def _whisker(x1: float, x2: float, y: float, *, color: str = svg.INK) -> list[str]:
    return [
        svg.line(x1, y, x2, y, stroke=color, width=1.5),
        svg.line(x1, y - 4, x1, y + 4, stroke=color, width=1.5),
        svg.line(x2, y - 4, x2, y + 4, stroke=color, width=1.5),
    ]


def _percent_axis(left: float, width: float, top: float, bottom: float) -> list[str]:
    out = []
    for step in range(5):
        x = left + width * step / 4
        out.append(svg.line(x, top, x, bottom, stroke=_GRID))
        out.append(svg.text(x, bottom + 12, f"{step * 25}%", size=11, anchor="middle", fill=_MUTED))
    return out


def bins_chart(scope: Scope) -> str:
    """A 100 % bar per arm: the share of tasks that never, sometimes, always passed."""
    left, width, row, top = 130.0, _WIDTH - 160.0, 62.0, 44.0
    height = int(top + row * len(scope.arms) + 24)
    body = [
        svg.text(left, 14, "Where the tasks land: share of tasks by how many of their trials passed", size=13)
    ]
    x = left
    for name in BINS:
        body += [svg.rect(x, 26, 12, 12, fill=BIN_COLORS[name]), svg.text(x + 18, 32, name, size=12)]
        x += 110
    body += _percent_axis(left, width, top - 4, top + row * len(scope.arms) - 16)
    for index, (arm, metrics) in enumerate(scope.arms.items()):
        y = top + index * row
        body.append(svg.text(left - 12, y + 15, arm, size=13, anchor="end", weight="bold"))
        body.append(svg.text(left - 12, y + 31, f"{metrics.tasks} tasks", size=11, anchor="end", fill=_MUTED))
        start = 0.0
        for name in BINS:
            estimate = metrics.bins.get(name)
            x0, span = left + start * width, estimate.value * width
            tip = f"{arm}, {name}: {estimate.count} of {metrics.tasks} tasks, {_tip('share', estimate)}"
            body.append(svg.rect(x0, y, span, 30, fill=BIN_COLORS[name], tip=tip))
            label = f"{estimate.count} · {pct(estimate.value)}" if span > 92 else str(estimate.count)
            if span > 8 * len(label):
                body.append(
                    svg.text(x0 + span / 2, y + 15, label, size=12, anchor="middle", fill=_BIN_INK[name])
                )
            start += estimate.value
        never, always = metrics.bins.never, metrics.bins.always
        if never.low is not None and never.high is not None:
            body += _whisker(left + never.low * width, left + never.high * width, y + 38)
        if always.low is not None and always.high is not None:
            body += _whisker(left + (1 - always.high) * width, left + (1 - always.low) * width, y + 38)
    return svg.document(_WIDTH, height, body, label="Never, sometimes and always passing tasks per arm")


def _shifts(scope: Scope, plot_h: float) -> tuple[dict[str, float], str | None]:
    """A vertical offset per arm, and a note, when the arms' curves would hide one another.

    Curves closer than a line's width everywhere are drawn ``_DODGE`` px apart,
    centred on their true place, so each arm stays visible; the note says so.
    """
    curves = [
        [value for p in metrics.curve for value in (p.unbiased.value, p.plugin.value)]
        for metrics in scope.arms.values()
    ]
    if len(curves) < 2 or any(len(c) != len(curves[0]) for c in curves):
        return {arm: 0.0 for arm in scope.arms}, None
    gap = max(abs(a - b) for c in curves[1:] for a, b in zip(curves[0], c, strict=True))
    if gap * plot_h >= _DODGE:
        return {arm: 0.0 for arm in scope.arms}, None
    middle = (len(curves) - 1) / 2
    shifts = {arm: (index - middle) * _DODGE for index, arm in enumerate(scope.arms)}
    note = "arms identical" if gap == 0 else "arms coincide"
    return shifts, f"{note}: lines drawn {_DODGE:g} px apart"


def _marker(
    shape: str, x: float, y: float, r: float, *, fill: str, tip: str, stroke: str | None = None
) -> str:
    """A point of an arm's curve: each arm has its own shape, so arms that meet stay apart."""
    width = None if stroke is None else 1.5
    if shape == "square":
        side = r * 1.8
        return svg.rect(
            x - side / 2, y - side / 2, side, side, fill=fill, stroke=stroke, stroke_width=width, tip=tip
        )
    return svg.circle(x, y, r, fill=fill, stroke=stroke, stroke_width=width, tip=tip)


def _band(metrics: ArmMetrics, at: _At, n: int, color: str) -> list[str]:
    curve = metrics.curve
    if not all(p.unbiased.low is not None and p.unbiased.high is not None for p in curve):
        return []
    upper = [at(p.k, p.unbiased.high or 0.0) for p in curve]
    lower = [at(p.k, p.unbiased.low or 0.0) for p in reversed(curve)]
    if n == 1:
        upper = [(x - 6, y) for x, y in upper] + [(x + 6, y) for x, y in upper]
        lower = [(x + 6, y) for x, y in lower] + [(x - 6, y) for x, y in lower]
    return [svg.polygon(upper + lower, fill=color, opacity=0.16)]


def _arm_curve(arm: str, metrics: ArmMetrics, at: _At, n: int, shape: str) -> list[str]:
    """One arm's band, both estimators' lines and their points (unbiased filled, plug-in hollow)."""
    color = _arm_color(arm)
    unbiased = [at(p.k, p.unbiased.value) for p in metrics.curve]
    plugin = [at(p.k, p.plugin.value) for p in metrics.curve]
    body = _band(metrics, at, n, color)
    body += [
        svg.polyline(plugin, stroke=color, width=2.0, dash="6 4"),
        svg.polyline(unbiased, stroke=color, width=2.5),
    ]
    for point, (x, y), (px, py) in zip(metrics.curve, unbiased, plugin, strict=True):
        labels = metric_labels(point.k)
        plugin_tip = f"{arm}, {_tip(labels['pass_hat_k_plugin'], point.plugin)}"
        body.append(_marker(shape, px, py, 3.5, fill="#ffffff", stroke=color, tip=plugin_tip))
        unbiased_tip = f"{arm}, {_tip(labels['pass_hat_k_unbiased'], point.unbiased)}"
        body.append(_marker(shape, x, y, 4.0, fill=color, tip=unbiased_tip))
    return body


def _curve_legend(arm: str, shape: str, x: float, y: float) -> list[str]:
    color, body = _arm_color(arm), []
    for style, label in ((None, "unbiased C(c,k)/C(n,k)"), ("6 4", "plug-in (c/n)^k")):
        fill, stroke = (color, None) if style is None else ("#ffffff", color)
        body += [
            svg.line(x, y, x + 32, y, stroke=color, width=2.5, dash=style),
            _marker(shape, x + 16, y, 3.5, fill=fill, stroke=stroke, tip=f"{arm} · {label}"),
            svg.text(x + 38, y, f"{arm} · {label}", size=12),
        ]
        y += 20
    return body


def curve_chart(scope: Scope, k: int) -> str:
    """pass^k against k for every arm, by both estimators; each arm its colour and marker shape."""
    left, top, plot_w, plot_h = 64.0, 34.0, 430.0, 270.0
    bottom, right = top + plot_h, left + plot_w
    n = next(iter(scope.arms.values())).trials_per_task

    def at_x(j: int) -> float:
        return left + plot_w / 2 if n == 1 else left + plot_w * (j - 1) / (n - 1)

    def at_y(value: float) -> float:
        return bottom - plot_h * value

    body = [svg.text(left, 14, "pass^k against k: the chance that k trials of a task all pass", size=13)]
    for step in range(5):
        y = at_y(step / 4)
        body += [
            svg.line(left, y, right, y, stroke=_GRID),
            svg.text(left - 8, y, f"{step * 25}%", size=11, anchor="end", fill=_MUTED),
        ]
    every = max(1, ceil(n / 12))
    for j in range(1, n + 1):
        if (j - 1) % every == 0 or j == n:
            body.append(svg.text(at_x(j), bottom + 14, str(j), size=11, anchor="middle", fill=_MUTED))
    body += [
        svg.line(at_x(k), top, at_x(k), bottom, stroke=_MUTED, dash="2 3"),
        svg.text(
            at_x(k) + (-4 if k == n else 4),
            top - 8,
            f"k = {k}",
            size=11,
            fill=_MUTED,
            anchor="end" if k == n else "start",
        ),
        svg.line(left, bottom, right, bottom, stroke=_MUTED),
        svg.text((left + right) / 2, bottom + 34, "k: trials that must all pass", size=12, anchor="middle"),
        svg.text(18, (top + bottom) / 2, "pass^k", size=12, anchor="middle", rotate=-90),
    ]
    shifts, note = _shifts(scope, plot_h)
    legend_y = top + 4
    for index, (arm, metrics) in enumerate(scope.arms.items()):
        shape, dy = _SHAPES[index % len(_SHAPES)], shifts[arm]

        def at(j: int, value: float, dy: float = dy) -> tuple[float, float]:
            return at_x(j), at_y(value) + dy

        body += _arm_curve(arm, metrics, at, n, shape)
        body += _curve_legend(arm, shape, right + 24, legend_y)
        legend_y += 48
    if any(a.curve[0].unbiased.low is not None for a in scope.arms.values()):
        body.append(
            svg.text(right + 24, legend_y + 4, "band: interval of the unbiased", size=11, fill=_MUTED)
        )
        legend_y += 20
    if note is not None:
        body.append(svg.text(right + 24, legend_y + 4, note, size=12, weight="bold", fill=svg.INK))
    return svg.document(
        _WIDTH, int(bottom + 48), body, label="pass^k against k for each arm, both estimators"
    )


def _domain_bar(scope_name: str, arm: str, metrics: ArmMetrics, k: int, geometry: _Bars) -> list[str]:
    """One arm's row in one scope: its name, pass@1 outline, pass^k fill, interval and numbers."""
    left, width, y, bar = geometry
    color = _arm_color(arm)
    reliable, once = metrics.pass_hat_k_unbiased, metrics.pass_at_1
    label = metric_labels(k)["pass_hat_k_unbiased"]
    body = [
        svg.text(left - 8, y + bar / 2, arm, size=11, anchor="end", fill=color, weight="bold"),
        svg.rect(
            left,
            y + 1,
            once.value * width,
            bar - 2,
            fill=color,
            opacity=0.12,
            stroke=color,
            stroke_width=1.2,
            tip=f"{scope_name}, {arm}, {_tip('pass@1', once)}",
        ),
        svg.rect(
            left,
            y + 1,
            reliable.value * width,
            bar - 2,
            fill=color,
            tip=f"{scope_name}, {arm}, {_tip(label, reliable)}",
        ),
    ]
    if reliable.low is not None and reliable.high is not None:
        body += _whisker(left + reliable.low * width, left + reliable.high * width, y + bar / 2)
    body.append(
        svg.text(
            left + width + 12,
            y + bar / 2,
            f"{pct(reliable.value)} / {pct(once.value)}",
            size=11,
            fill=_MUTED,
        )
    )
    return body


def domains_chart(metrics: Metrics) -> str:
    """Per scope, each arm's pass^k (unbiased) as a filled bar over its pass@1 as an outline.

    Every bar is named by its arm at its left, so a number on its row belongs to that arm.
    """
    k = metrics.meta.k
    scopes = (metrics.overall, *metrics.domains)
    arms = metrics.meta.arms
    left, width, bar, gap, top = 300.0, _WIDTH - 410.0, 18.0, 18.0, 56.0
    block = bar * len(arms) + gap
    bottom = top + block * len(scopes) - gap
    body = [svg.text(10, 14, f"Per domain: pass^{k} (unbiased, filled) against pass@1 (outline)", size=13)]
    x = 10.0
    for arm in arms:
        color = _arm_color(arm)
        body += [svg.rect(x, 26, 12, 12, fill=color), svg.text(x + 18, 32, arm, size=12)]
        x += 110
    body += [
        svg.rect(x, 26, 12, 12, fill="none", stroke=svg.INK, stroke_width=1.2),
        svg.text(x + 18, 32, "pass@1", size=12),
        *_whisker(x + 96, x + 120, 32),
        svg.text(x + 128, 32, "interval of pass^k", size=12),
    ]
    body += _percent_axis(left, width, top - 6, bottom + 6)
    body.append(svg.text(left + width + 12, top - 12, f"pass^{k} / pass@1", size=11, fill=_MUTED))
    for index, scope in enumerate(scopes):
        y0 = top + index * block
        weight = "bold" if scope is metrics.overall else None
        name = "all tasks" if scope is metrics.overall else scope.name
        body.append(svg.text(10, y0 + bar * len(arms) / 2, name, size=12, weight=weight))
        for offset, arm in enumerate(arms):
            body += _domain_bar(name, arm, scope.arms[arm], k, (left, width, y0 + offset * bar, bar))
        if scope is metrics.overall and metrics.domains:
            body.append(svg.line(10, y0 + block - gap / 2, _WIDTH - 10, y0 + block - gap / 2, stroke=_GRID))
    return svg.document(_WIDTH, int(bottom + 30), body, label=f"pass^{k} and pass@1 per domain and arm")
