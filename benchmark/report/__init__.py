"""The report of a benchmark run: rich tables, a JSON document and a self-contained HTML page.

Each renderer takes a :class:`benchmark.metrics.Metrics` value and is
deterministic: the same metrics give the same text, byte for byte.
:func:`report` is the ``guard report`` command.
"""

from benchmark.report.command import load_metrics, prices_from, report
from benchmark.report.document import REPORT_SCHEMA, document, render_json
from benchmark.report.html import render_html
from benchmark.report.tables import print_tables, tables

__all__ = [
    "REPORT_SCHEMA",
    "document",
    "load_metrics",
    "prices_from",
    "print_tables",
    "render_html",
    "render_json",
    "report",
    "tables",
]
