"""What the benchmark's commands print: one-line errors, and a report as JSON or tables.

``guard bench``, ``guard report`` and ``guard judges eval`` end alike: the
report as JSON on stdout (``--json``) or as tables (at a fixed width when
stdout is a pipe, so a file gets whole rows), and ``wrote FILE`` on stderr
for the HTML page. An error is one red line on stderr and exit status 2 (bad usage
or data), or 1 for a run that did not finish as asked (``guard bench`` with
trials that ended in a system error).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import typer
from rich.console import Console
from rich.text import Text

__all__ = ["PIPE_WIDTH", "fail", "show"]

PIPE_WIDTH = 120
"""Columns of the tables when stdout is not a terminal."""

R = TypeVar("R")


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print the error (as text: it may quote a task, a file or an agent, never markup); raise the result."""
    Console(stderr=True, highlight=False).print(
        Text.assemble(("error:", "red"), " ", " ".join(message.split())), soft_wrap=True
    )
    return typer.Exit(code)


def show(
    report: R,
    *,
    as_json: bool,
    render_json: Callable[[R], str],
    print_tables: Callable[[R, Console], None],
    html: Path | None,
) -> None:
    """The report on stdout, as JSON or as tables; then where the HTML page went, if one was written."""
    if as_json:
        typer.echo(render_json(report), nl=False)
    else:
        console = Console()
        if not console.is_terminal:
            console = Console(width=PIPE_WIDTH)
        print_tables(report, console)
    if html is not None:
        typer.echo(f"wrote {html}", err=True)
