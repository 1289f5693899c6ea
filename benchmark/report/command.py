"""``guard report``: the metrics of a results file as tables, JSON or an HTML page.

:func:`report` is a typer command function (the CLI mounts it); everything it
does is :func:`load_metrics` plus a renderer. A missing file, a bad record,
unequal trial counts or a bad option is one line on stderr and exit code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchmark.console import fail, show
from benchmark.errors import BenchmarkError
from benchmark.metrics import Metrics, MetricsError, Prices, compute
from benchmark.report.document import render_json
from benchmark.report.html import render_html
from benchmark.report.tables import print_tables
from benchmark.results import read_results

__all__ = ["load_metrics", "prices_from", "report"]


def load_metrics(
    results: Path,
    *,
    k: int | None = None,
    prices: Prices | None = None,
    bootstrap: int = 2000,
    seed: int = 0,
) -> Metrics:
    """Read and validate a results file and compute its metrics (see :func:`benchmark.metrics.compute`)."""
    return compute(read_results(results), k=k, bootstrap=bootstrap, seed=seed, prices=prices)


def prices_from(prompt: float | None, completion: float | None) -> Prices | None:
    """Prices from the two options: both or neither."""
    if prompt is None and completion is None:
        return None
    if prompt is None or completion is None:
        raise MetricsError("give both --prompt-price and --completion-price (per 1M tokens), or neither")
    return Prices(prompt=prompt, completion=completion)


def report(
    results: Annotated[Path, typer.Argument(help="A results file written by `guard bench --out`.")],
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML page with plots here.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the metrics as JSON instead of tables.")
    ] = False,
    k: Annotated[
        int | None,
        typer.Option("--k", "-k", help="k of pass@k, pass^k and observed k/k (default: trials per task)."),
    ] = None,
    prompt_price: Annotated[
        float | None, typer.Option("--prompt-price", help="Price per 1M prompt tokens (for cost).")
    ] = None,
    completion_price: Annotated[
        float | None, typer.Option("--completion-price", help="Price per 1M completion tokens (for cost).")
    ] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Bootstrap resamples for the intervals (0: no intervals).")
    ] = 2000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
) -> None:
    """Report a benchmark run: pass@1, pass@k, pass^k (unbiased and plug-in), bins, lift, intervals."""
    try:
        metrics = load_metrics(
            results,
            k=k,
            prices=prices_from(prompt_price, completion_price),
            bootstrap=bootstrap,
            seed=seed,
        )
        if html is not None:
            html.write_text(render_html(metrics), encoding="utf-8")
    except BenchmarkError as exc:
        raise fail(exc.message) from None
    except OSError as exc:
        raise fail(f"cannot write {html}: {exc.strerror or exc}") from None
    show(metrics, as_json=as_json, render_json=render_json, print_tables=print_tables, html=html)
