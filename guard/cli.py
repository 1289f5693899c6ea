"""The ``guard`` command: a thin layer over the library; an error is one clear line and an exit code."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable, Coroutine
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from guard.errors import GuardError
from guard.settings import GuardSettings, load_settings

__all__ = ["app", "main"]

T = TypeVar("T")

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="guard: judge an AI agent's writes before commit."
)
db_app = typer.Typer(no_args_is_help=True, help="The guard's own database.")
app.add_typer(db_app, name="db")
transactions_app = typer.Typer(help="Read the audit log.", invoke_without_command=True)
app.add_typer(transactions_app, name="transactions")

console = Console()
errors = Console(stderr=True)
_state: dict[str, Any] = {"debug": False}

ConfigOption = Annotated[
    Path | None, typer.Option("--config", "-c", help="YAML config (see deploy/guard.example.yaml).")
]


def _run(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    try:
        return asyncio.run(work())
    except GuardError as exc:
        if _state["debug"]:
            raise
        errors.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def _settings(config: Path | None, **overrides: Any) -> GuardSettings:
    try:
        return load_settings(config, **overrides)
    except GuardError as exc:
        if _state["debug"]:
            raise
        errors.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from None


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks and debug logs.")] = False,
) -> None:
    _state["debug"] = debug
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


@app.command()
def demo() -> None:
    """Run the embedded end-to-end demo (SQLite in a temporary directory, no network)."""
    from guard.demo.agent import run_demo

    result = _run(lambda: run_demo(typer.echo))
    if not result.ok:
        errors.print(f"[red]demo did not go as scripted:[/red] {result}")
        raise typer.Exit(1)
    typer.echo("demo ok: the bad commit was blocked, the repaired one committed.")


@app.command()
def serve(
    config: ConfigOption = None,
    host: Annotated[str | None, typer.Option(help="Bind address (default from config: 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default from config: 8765).")] = None,
    stdio: Annotated[bool, typer.Option("--stdio", help="Serve one MCP stream on stdin/stdout.")] = False,
) -> None:
    """Serve the guard: MCP at /mcp (streamable HTTP) plus the admin API, or MCP over stdio."""
    settings = _settings(config)
    if host is not None or port is not None:
        server = settings.server.model_copy(
            update={k: v for k, v in (("host", host), ("port", port)) if v is not None}
        )
        settings = settings.model_copy(update={"server": server})
    from opentelemetry import trace

    from guard.runtime import build_runtime
    from guard.telemetry import provider_from_settings

    _run(lambda: _check_audit_store(settings))
    provider = provider_from_settings(settings.telemetry)
    if provider is not None:
        trace.set_tracer_provider(provider)
    runtime = build_runtime(settings, provider=provider)
    if stdio:
        from guard.edge.stdio import serve_stdio

        _run(lambda: serve_stdio(runtime))
        return
    import uvicorn

    from guard.edge.http import create_app

    web = create_app(runtime)
    errors.print(
        f"guard: MCP at http://{settings.server.host}:{settings.server.port}/mcp, "
        f"backend {runtime.manager.backend.name}"
        + (f" on {settings.backend.url}" if settings.backend.kind == "sql" else "")
    )
    config_ = uvicorn.Config(web, host=settings.server.host, port=settings.server.port, log_level="warning")
    _run(lambda: uvicorn.Server(config_).serve())


async def _check_audit_store(settings: GuardSettings) -> None:
    from guard.store.engine import create_engine
    from guard.store.migrate import check_current

    engine = create_engine(settings.audit.url, search_path=settings.audit.search_path)
    try:
        await check_current(engine)
    finally:
        await engine.dispose()


@db_app.command("upgrade")
def db_upgrade(config: ConfigOption = None) -> None:
    """Create or migrate the guard's audit tables to the current revision."""
    from guard.store.engine import create_engine
    from guard.store.migrate import upgrade

    settings = _settings(config)

    async def work() -> str:
        engine = create_engine(settings.audit.url, search_path=settings.audit.search_path)
        try:
            return await upgrade(engine)
        except Exception as exc:
            raise GuardError(f"migration of {settings.audit.url} failed: {exc}") from exc
        finally:
            await engine.dispose()

    revision = _run(work)
    console.print(f"audit store {settings.audit.url} is at revision {revision}")


def _audit_call(config: Path | None, work: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
    from guard.store.audit import SqlAudit
    from guard.store.engine import create_engine
    from guard.store.migrate import check_current

    settings = _settings(config)

    async def run() -> T:
        engine = create_engine(settings.audit.url, search_path=settings.audit.search_path)
        try:
            await check_current(engine)
            return await work(SqlAudit(engine))
        finally:
            await engine.dispose()

    return _run(run)


@transactions_app.callback()
def transactions(
    ctx: typer.Context,
    config: ConfigOption = None,
    status: Annotated[
        str | None,
        typer.Option(
            help="open, pending_approval, committed, rolled_back, aborted, or blocked (any blocked attempt)."
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document.")] = False,
) -> None:
    """List transactions, newest first."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = config
        return
    valid = {"open", "pending_approval", "committed", "rolled_back", "aborted", "blocked"}
    if status is not None and status not in valid:
        errors.print(f"[red]error:[/red] unknown status {status!r}; use one of {', '.join(sorted(valid))}")
        raise typer.Exit(2)
    records = _audit_call(config, lambda audit: audit.list_transactions(status, limit))
    if as_json:
        console.print_json(json.dumps({"transactions": [r.to_dict() for r in records]}))
        return
    table = Table("id", "status", "agent", "calls", "blocked", "opened", "reason")
    for r in records:
        table.add_row(
            r.id,
            r.status,
            r.principal,
            str(r.calls),
            str(r.blocked_attempts),
            r.opened_at.strftime("%Y-%m-%d %H:%M:%S"),
            r.close_reason or "",
        )
    console.print(table)


@transactions_app.command("show")
def transactions_show(
    ctx: typer.Context,
    transaction_id: Annotated[str, typer.Argument(help="The transaction id.")],
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """One transaction with its calls and commit attempts."""
    detail = _audit_call(config or ctx.obj, lambda audit: audit.get_transaction(transaction_id))
    if detail is None:
        errors.print(f"[red]error:[/red] no transaction {transaction_id}")
        raise typer.Exit(2)
    if as_json:
        console.print_json(json.dumps(detail.to_dict()))
        return
    t = detail.transaction
    console.print(f"[bold]{t.id}[/bold]  {t.status}  agent={t.principal}  backend={t.backend}")
    console.print(f"opened {t.opened_at}  closed {t.closed_at or '-'}  {t.close_reason or ''}")
    calls = Table("#", "tool", "outcome", "class", "retries", "ms", "arguments")
    for c in detail.calls:
        calls.add_row(
            str(c.seq),
            c.tool,
            c.outcome,
            c.error_class or "",
            str(c.retries),
            f"{c.latency_ms:.1f}",
            json.dumps(c.arguments)[:80],
        )
    console.print(calls)
    for commit in detail.commits:
        console.print(f"commit #{commit.attempt} via {commit.via}: {commit.decision} → {commit.status}")
        for f in commit.findings:
            console.print(
                f"   - [{f.get('severity')}] {f.get('message')}"
                + (f" ({f['hint']})" if f.get("hint") else "")
            )
        for e in commit.effects:
            console.print(f"   ~ {e['kind']} {e['table']}/{e['key']}: {', '.join(e['changed_fields'])}")
        for w in commit.dispatch or []:
            error = f": {w.get('error_class') or 'error'}: {w['error']}" if w.get("error") else ""
            console.print(f"   > #{w['seq']} {w['tool']} {w['status']} ({w['attempts']} attempt(s)){error}")


def _plug_in(target: typer.Typer) -> None:
    """Commands other installed packages add (entry point group ``guard.cli``: ``register(app)``).

    This is how ``guard bench`` and ``guard report`` arrive from the ``benchmark``
    package without the guard importing it.
    """
    for entry in sorted(entry_points(group="guard.cli"), key=lambda e: e.name):
        try:
            register = entry.load()
        except Exception as exc:
            errors.print(f"[yellow]warning:[/yellow] the {entry.name!r} commands could not load: {exc}")
            continue
        register(target)


def main() -> None:
    _plug_in(app)
    app()
