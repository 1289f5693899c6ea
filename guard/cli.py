"""The ``guard`` command: a thin layer over the library.

Every failure is one line on stderr (``error: ...``) and an :class:`ExitCode`;
``--debug`` shows the traceback before that line, and the exit code stays the
same. ``guard serve`` builds, binds and starts everything before it serves, so
that a start-up failure is such a line and creates nothing (no audit database
is created by reading one).

Text that came from agents (everything the audit log holds: reasons,
summaries, findings, arguments) is printed as text: rich markup in it is
never interpreted, and characters a terminal would act on (escape sequences,
other control and format characters) are shown as escapes such as ``\\x1b``.

Reading the command line imports typer and rich and nothing else: a command
imports what it uses when it runs. Commands other packages add arrive by the
entry point group ``guard.cli``: each entry point is one command of that name
(``bench = "benchmark.cli:bench_app"``) whose object, a typer app or a command
function, is loaded only when that command runs or shows its help; ``guard
--help`` lists them from the entry-point metadata alone.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
import unicodedata
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from contextlib import contextmanager
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand, TyperGroup, TyperOption

if TYPE_CHECKING:
    import socket
    from importlib.metadata import EntryPoint
    from types import FrameType

    from typer import _click  # the click typer vendors: its classes' types

    from guard.audit.log import CallEntry, CommitEntry, TxnDetail, TxnRecord
    from guard.errors import GuardError
    from guard.runtime import Runtime
    from guard.settings import GuardSettings

__all__ = ["ExitCode", "app", "main"]

T = TypeVar("T")

PLUGIN_GROUP = "guard.cli"


class ExitCode(IntEnum):
    """What a ``guard`` command's exit status means (listed in ``guard --help``)."""

    OK = 0
    FAILED = 1
    USAGE = 2
    STORE = 3
    BACKEND = 4
    ADDRESS = 5
    INTERRUPTED = 130


# \b: click prints the paragraph as it is, one code a line
_EXIT_CODES = """\b
Exit codes: 0 ok (also after SIGTERM, once stopped);
1 the demo or bench did not go as scripted (bench: a trial ended in a system error), or another failure;
2 bad configuration or usage (config, rule file, judge, YAML);
3 the guard's audit store is not ready (missing, not migrated, unreachable);
4 the backend (system of record or upstream MCP server) is unreachable or failed to start;
5 the guard cannot take its place (address in use or not permitted, instance name held);
130 interrupted. --debug shows a failure's traceback (the exit code is the same)."""

# statuses of the audit log (guard.transaction.state.Status), named here so that reading the command line
# imports nothing of the guard; tests/guard/test_cli.py holds the two lists equal
_STATUSES = ("open", "pending_approval", "committed", "rolled_back", "aborted", "partial", "committing")


# -- commands from other packages ---------------------------------------------------------


def _plugins() -> dict[str, EntryPoint]:
    """The commands other packages add, by name: entry-point metadata only, nothing imported."""
    from importlib.metadata import entry_points

    return {entry.name: entry for entry in entry_points(group=PLUGIN_GROUP)}


class _Unloaded(TyperCommand):
    """A plugin's command as ``guard --help`` lists it, before its package is imported."""

    def __init__(self, entry: EntryPoint) -> None:
        package = entry.value.partition(":")[0].split(".")[0]
        listed = f"From {package}: guard {entry.name} --help shows its options."
        super().__init__(entry.name, help=listed, short_help=listed)
        self.entry = entry


def _loaded(entry: EntryPoint) -> _click.Command:
    """The command an entry point names, imported now: a typer app (a group) or a command function."""
    try:
        target = entry.load()
    except Exception as exc:
        message = f"the {entry.name!r} command could not load: {type(exc).__name__}: {exc}"
        raise _failed(message, ExitCode.FAILED) from None
    # mounted as the guard's own commands are: plain help, no shell-completion options
    host = typer.Typer(rich_markup_mode=None, add_completion=False)
    if isinstance(target, typer.Typer):
        host.add_typer(target, name=entry.name)
    elif callable(target):
        host.command(entry.name)(target)
    else:
        raise _fail(
            f"the {entry.name!r} command ({entry.value}) is not a typer app or function", ExitCode.FAILED
        )
    return typer.main.get_group(host).commands[entry.name]


class _Commands(TyperGroup):
    """The guard's own commands, then those installed packages add, each imported only when it runs."""

    def list_commands(self, ctx: _click.Context) -> list[str]:
        own = super().list_commands(ctx)
        return [*own, *(name for name in sorted(_plugins()) if name not in own)]

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and (entry := _plugins().get(cmd_name)) is not None:
            return _Unloaded(entry)
        return command

    def get_help_option(self, ctx: _click.Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        # typer coerces a flag left out (None) through pydantic, and --help is left out of every command
        # line but one; False, what a left-out flag means, needs no coercion and no pydantic import
        if option is not None and option.default is None:
            option.default = False
        return option

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, _Unloaded):
            command = _loaded(command.entry)
        return name, command, rest


# plain help: typer's rich help imports rich's markdown renderer, a third of a second, on every --help
app = typer.Typer(
    cls=_Commands,
    rich_markup_mode=None,
    context_settings={"max_content_width": 110},
    no_args_is_help=True,
    add_completion=False,
    help="guard: judge an AI agent's writes before commit.",
    epilog=_EXIT_CODES,
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


# -- text from agents ---------------------------------------------------------------------


def _shown(value: object) -> str:
    """``value`` as text a terminal only displays: non-printable characters become escapes (``\\x1b``)."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() or unicodedata.category(ch) == "Zs" else ascii(ch)[1:-1] for ch in text
    )


def _line(*parts: object) -> Text:
    """A line of plain text (never markup) from parts; a part ``(value, style)`` is styled."""
    line = Text()
    for part in parts:
        if isinstance(part, tuple):
            line.append(_shown(part[0]), style=part[1])
        else:
            line.append(_shown(part))
    return line


def _one_line(message: str) -> str:
    return " ".join(piece.strip() for piece in message.splitlines() if piece.strip())


def _print_json(data: Any) -> None:
    """JSON on stdout; ``ensure_ascii`` leaves only printable ASCII: nothing in it reaches a terminal raw."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=True))


# -- failures -----------------------------------------------------------------------------


def _fail(message: str, code: ExitCode) -> typer.Exit:
    """Print ``error: message`` as one line on stderr; the exit to raise."""
    errors.print(_line(("error:", "red"), " ", _one_line(message)), soft_wrap=True)
    return typer.Exit(code)


def _failed(message: str, code: ExitCode) -> typer.Exit:
    """:func:`_fail` for the exception being handled; with ``--debug`` its traceback first. The exit code
    is the same either way: a script's reading of it must not depend on how much is printed."""
    if _state["debug"]:
        traceback.print_exc(file=sys.stderr)
    return _fail(message, code)


def _exit_code(exc: GuardError) -> ExitCode:
    """The exit code a guard error ends a command with: the most specific class decides."""
    from guard.errors import AuditError, BackendError, ConfigError, InstanceInUse, StoreNotReady

    codes: tuple[tuple[type[GuardError], ExitCode], ...] = (
        (ConfigError, ExitCode.USAGE),
        (StoreNotReady, ExitCode.STORE),
        (AuditError, ExitCode.STORE),
        (BackendError, ExitCode.BACKEND),
        (InstanceInUse, ExitCode.ADDRESS),
    )
    for kind, code in codes:
        if isinstance(exc, kind):
            return code
    return ExitCode.FAILED


def _guarded(call: Callable[[], T]) -> T:
    """``call()``; a failure becomes one line and its exit code (with ``--debug``: the traceback)."""
    from guard.errors import GuardError

    try:
        return call()
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    except GuardError as exc:
        raise _failed(exc.message, _exit_code(exc)) from None
    except Exception as exc:
        raise _failed(
            f"unexpected {type(exc).__name__}: {exc} (--debug shows the traceback)", ExitCode.FAILED
        ) from None


def _run(work: Callable[[], Coroutine[Any, Any, T]], *, serving: bool = False) -> T:
    """``work`` on a new event loop; ``serving``: uvloop's, where it is installed."""
    import asyncio

    factory = _serving_loop() if serving else None

    def run() -> T:
        with asyncio.Runner(loop_factory=factory) as runner:
            return runner.run(work())

    return _guarded(run)


def _serving_loop() -> Callable[[], Any] | None:
    """uvloop's event loop (libuv), as uvicorn picks it: the same asyncio API for less CPU a request."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _settings(config: Path | None, **overrides: Any) -> GuardSettings:
    from guard.settings import load_settings

    return _guarded(lambda: load_settings(config, **overrides))


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
        raise _fail(f"demo did not go as scripted: {result}", ExitCode.FAILED)
    typer.echo("demo ok: the bad commit was blocked, the repaired one committed.")


# -- serve --------------------------------------------------------------------------------


@app.command(epilog=_EXIT_CODES)
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
    runtime = _guarded(lambda: _build(settings))
    if stdio:
        from guard.edge.stdio import serve_stdio

        _run(lambda: serve_stdio(runtime))
        return
    sock = _listen(settings.server.host, settings.server.port)
    code = _run(lambda: _serve_http(runtime, sock), serving=True)
    if code is not ExitCode.OK:
        raise typer.Exit(code)


def _build(settings: GuardSettings) -> Runtime:
    from guard.runtime import build_runtime
    from guard.telemetry import install_provider

    provider = install_provider(settings.telemetry, instance=settings.server.instance)
    return build_runtime(settings, provider=provider)


def _listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound before anything starts: a taken address is one line, exit 5."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        code = ExitCode.USAGE if isinstance(exc, socket.gaierror) else ExitCode.ADDRESS
        raise _failed(f"cannot listen on {host}:{port}: {exc.strerror or exc}", code) from None
    sock.set_inheritable(True)
    return sock


@contextmanager
def _signals_recorded() -> Iterator[list[int]]:
    """SIGINT and SIGTERM only recorded while uvicorn serves.

    uvicorn stops serving on either and then raises it again; that second
    raise must not end the process (or cancel it) before the runtime stopped.
    """
    import signal

    seen: list[int] = []

    def record(sig: int, _frame: FrameType | None) -> None:
        seen.append(sig)

    originals = {sig: signal.signal(sig, record) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield seen
    finally:
        for sig, handler in originals.items():
            signal.signal(sig, handler)


def _address(host: str, port: int) -> str:
    """``http://host:port``, an IPv6 address in brackets."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _banner(runtime: Runtime) -> Text:
    """The line ``guard serve`` prints once it serves: where MCP and the admin API are, and the backend."""
    from guard.store.engine import display_url

    settings = runtime.settings
    base = _address(settings.server.host, settings.server.port)
    where = f" on {display_url(settings.backend.url)}" if settings.backend.kind == "sql" else ""
    return _line(
        f"guard: MCP at {base}/mcp, admin API at {base} (/transactions, /healthz, /readyz), ",
        f"backend {runtime.manager.backend.name}{where}",
    )


async def _serve_http(runtime: Runtime, sock: socket.socket) -> ExitCode:
    """Start the runtime, serve on ``sock`` until a signal, stop the runtime."""
    import signal

    import uvicorn

    from guard.edge.http import create_app

    settings = runtime.settings
    try:
        web = create_app(runtime, manage_runtime=False)  # refuses an exposed bind before anything starts
        await runtime.start()
        try:
            server = uvicorn.Server(
                uvicorn.Config(
                    web,
                    host=settings.server.host,
                    port=settings.server.port,
                    log_level="warning",
                    proxy_headers=False,  # the door reads X-Forwarded-For, from server.trusted_proxies only
                )
            )
            errors.print(_banner(runtime), soft_wrap=True)
            with _signals_recorded() as seen:
                await server.serve(sockets=[sock])
            return ExitCode.INTERRUPTED if signal.SIGINT in seen else ExitCode.OK
        finally:
            await runtime.stop()
    finally:
        sock.close()


@app.command("tools")
def tools_command(
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document.")] = False,
) -> None:
    """List the tools the guard serves, each with its class (read, deferred or passthrough write) and why."""
    settings = _settings(config)
    rows = _run(lambda: _classified(settings))
    if as_json:
        _print_json({"tools": rows})
        return
    table = Table(box=None, pad_edge=False)
    table.add_column("tool", no_wrap=True)
    table.add_column("class", no_wrap=True)
    table.add_column("repeat", no_wrap=True)
    table.add_column("why")
    for row in rows:
        repeat = "safe" if row["safe_to_repeat"] else "unsafe"
        kind = ("idempotent" if row["idempotent"] else "") + (" destructive" if row["destructive"] else "")
        table.add_row(
            _line(row["name"]),
            _line(row["class"]),
            _line(repeat),
            _line(f"{row['why']}{'; ' + kind.strip() if kind.strip() else ''}"),
        )
    console.print(table)


async def _classified(settings: GuardSettings) -> list[dict[str, Any]]:
    """Each tool as the guard serves it; an ``mcp`` upstream is connected and listed, and nothing else."""
    if settings.backend.kind == "mcp":
        from guard.backends.policy import resolve_policies
        from guard.edge.mcp_client import connect_upstream

        upstream = connect_upstream(settings.backend.mcp)
        await upstream.start()
        try:
            listed = await upstream.list_tools()
        finally:
            await upstream.close()
        policies = resolve_policies(listed, settings.backend.mcp)
        return [
            {
                "name": p.name,
                "class": p.mode + (f" (preview: {p.preview})" if p.preview else ""),
                "idempotent": p.idempotent,
                "destructive": p.destructive,
                "safe_to_repeat": p.safe_to_repeat,
                "source": p.source,
                "why": p.why,
            }
            for p in policies.values()
        ]
    from guard.runtime import build_runtime

    runtime = build_runtime(settings)
    try:
        return [
            {
                "name": t.name,
                "class": "write" if t.write else "read",
                "idempotent": t.idempotent,
                "destructive": t.destructive,
                "safe_to_repeat": t.repeat_safe,
                "source": "code",
                "why": f"declared by {settings.backend.module}",
            }
            for t in runtime.manager.backend.tools
        ]
    finally:
        await runtime.manager.backend.close()


# -- the audit store ----------------------------------------------------------------------


@db_app.command("upgrade")
def db_upgrade(config: ConfigOption = None) -> None:
    """Create or migrate the guard's audit tables to the current revision."""
    from guard.errors import GuardError, StoreNotReady
    from guard.store.engine import create_engine, display_url
    from guard.store.migrate import upgrade

    settings = _settings(config)
    shown_url = display_url(settings.audit.url)

    async def work() -> str:
        engine = create_engine(settings.audit.url, search_path=settings.audit.search_path)
        try:
            return await upgrade(engine)
        except GuardError:
            raise
        except Exception as exc:
            raise StoreNotReady(
                f"migration of {shown_url} failed: {type(exc).__name__}: {_one_line(str(exc))}"
            ) from exc
        finally:
            await engine.dispose()

    revision = _run(work)
    console.print(_line(f"audit store {shown_url} is at revision {revision}"))


def _audit_call(config: Path | None, work: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
    """``work(audit)`` on the configured audit store, which must exist and be migrated (exit 3 if not)."""
    from guard.store.engine import create_engine, require_file
    from guard.store.migrate import check_current
    from guard.store.sql_audit import SqlAudit

    settings = _settings(config)

    async def run() -> T:
        require_file(settings.audit.url)
        engine = create_engine(settings.audit.url, search_path=settings.audit.search_path)
        try:
            await check_current(engine)
            return await work(SqlAudit(engine))
        finally:
            await engine.dispose()

    return _run(run)


def _listing(records: Iterable[TxnRecord]) -> Table:
    """The list, ids whole (a reader copies them into the next command) and times with their zone."""
    records = list(records)
    table = Table()
    table.add_column("id", no_wrap=True, min_width=max((len(r.id) for r in records), default=2))
    for name in ("status", "agent", "calls", "blocked", "opened", "reason"):
        table.add_column(name)
    for r in records:
        opened = r.opened_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        cells = (r.id, r.status, r.principal, r.calls, r.blocked_attempts, opened, r.close_reason or "")
        table.add_row(*(_line(cell) for cell in cells))
    return table


@transactions_app.callback()
def transactions(
    ctx: typer.Context,
    config: ConfigOption = None,
    status: Annotated[
        str | None,
        typer.Option(
            help=f"{', '.join(_STATUSES)}, blocked (any blocked attempt), or would_block (committed in "
            "shadow mode although a shadowed finding would have stopped it)."
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document.")] = False,
) -> None:
    """List transactions, newest first."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = config
        return
    from guard.audit.log import LISTING_FILTERS

    if status is not None and status not in LISTING_FILTERS:
        raise _fail(f"unknown status {status!r}; use one of {', '.join(LISTING_FILTERS)}", ExitCode.USAGE)
    records = _audit_call(config, lambda audit: audit.list_transactions(status, limit))
    if as_json:
        _print_json({"transactions": [r.to_dict() for r in records]})
        return
    if console.width >= 110:
        console.print(_listing(records))
        return
    for r in records:  # a narrow terminal: one record per paragraph, nothing cut
        opened = r.opened_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        console.print(_line(r.id), soft_wrap=True)
        facts = f"  {r.status} · {r.principal} · {r.calls} calls · {r.blocked_attempts} blocked · {opened}"
        console.print(_line(facts), soft_wrap=True)
        if r.close_reason:
            console.print(_line("  ", r.close_reason), soft_wrap=True)


def _calls(entries: Iterable[CallEntry]) -> Table:
    table = Table("#", "tool", "outcome", "class", "retries", "ms", "arguments")
    for c in entries:
        arguments = json.dumps(c.arguments, ensure_ascii=False)
        if len(arguments) > 80:
            arguments = arguments[:79] + "…"
        cells = (c.seq, c.tool, c.outcome, c.error_class or "", c.retries, f"{c.latency_ms:.1f}", arguments)
        table.add_row(*(_line(cell) for cell in cells))
    return table


def _said_lines(turns: Iterable[Mapping[str, Any]] | None, before: str) -> Iterator[Text]:
    """The turns said before ``before``, one line each (a line break in a turn is shown, not made)."""
    if turns is None:
        return
    turns = list(turns)
    if not turns:
        yield _line("   said before ", before, ": nothing")
        return
    yield _line("   said before ", before, ":")
    for t in turns:
        length = (f" ({t['length']} characters)",) if "length" in t else ()
        yield _line("     ", (t.get("role"), "bold"), ": ", t.get("text"), *length)


def _commit_lines(commit: CommitEntry) -> Iterator[Text]:
    would = (" (would block: shadow mode)",) if commit.would_block else ()
    yield _line(
        f"commit #{commit.attempt} via ", commit.via, ": ", commit.decision, " → ", commit.status, *would
    )
    yield from _said_lines(commit.turns, "this commit")
    if commit.summary:
        yield _line("   summary: ", commit.summary)
    for f in commit.findings:
        hint = (" (", f["hint"], ")") if f.get("hint") else ()
        shadow = ", shadow" if f.get("shadow") is True else ""
        yield _line("   - [", f.get("severity"), shadow, "] ", f.get("message"), *hint)
    for e in commit.effects:
        changed = ", ".join(str(name) for name in e.get("changed_fields") or ())
        yield _line("   ~ ", e.get("kind"), " ", e.get("table"), "/", e.get("key"), ": ", changed)
    for w in commit.dispatch or []:
        error = (": ", w.get("error_class") or "error", ": ", w["error"]) if w.get("error") else ()
        attempts = f" ({w.get('attempts')} attempt(s))"
        yield _line("   > #", w.get("seq"), " ", w.get("tool"), " ", w.get("status"), attempts, *error)


def _print_detail(detail: TxnDetail) -> None:
    t = detail.transaction
    header = ((t.id, "bold"), "  ", t.status, "  agent=", t.principal, "  backend=", t.backend)
    console.print(_line(*header), soft_wrap=True)
    closed = t.closed_at or "-"
    console.print(_line(f"opened {t.opened_at}  closed {closed}  ", t.close_reason or ""), soft_wrap=True)
    if t.claims:
        claims = "  ".join(
            f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in t.claims.items()
        )
        console.print(_line("claims: ", claims), soft_wrap=True)
    if t.summary:
        console.print(_line("summary: ", t.summary), soft_wrap=True)
    console.print(_calls(detail.calls))
    for call in detail.calls:
        for line in _said_lines(call.turns or None, f"call #{call.seq} {call.tool}"):
            console.print(line, soft_wrap=True)
    for line in _said_lines(t.rollback_turns, "the rollback"):
        console.print(line, soft_wrap=True)
    for commit in detail.commits:
        for line in _commit_lines(commit):
            console.print(line, soft_wrap=True)


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
        raise _fail(f"no transaction {transaction_id}", ExitCode.USAGE)
    if as_json:
        _print_json(detail.to_dict())
        return
    _print_detail(detail)


def _finish(config: Path | None, transaction_id: str, step: Any, operator: str) -> TxnDetail | None:
    """An operator's step on a partial commit, from this process: the upstream reached as the config says,
    the outbox and the audit log in the configured store, the lease held as ``<instance>/cli``."""
    from guard.clock import SystemClock
    from guard.edge.mcp_client import connect_upstream
    from guard.runtime import mcp_backend
    from guard.store.sql_outbox import SqlOutbox
    from guard.transaction.recovery import finish

    settings = _settings(config)
    if settings.backend.kind != "mcp":
        raise _fail(
            f"the {settings.backend.kind} backend commits all-or-nothing: it has no partial commit to finish",
            ExitCode.USAGE,
        )
    server = settings.server.model_copy(update={"instance": f"{settings.server.instance}/cli"})
    settings = settings.model_copy(update={"server": server})

    async def work(audit: Any) -> TxnDetail | None:
        backend = mcp_backend(
            settings, connect_upstream(settings.backend.mcp), SqlOutbox(audit.engine), clock=SystemClock()
        )
        await backend.start()
        try:
            await finish(audit, backend, SystemClock(), transaction_id, step, operator)
        finally:
            await backend.close()
        detail: TxnDetail | None = await audit.get_transaction(transaction_id)
        return detail

    return _audit_call(config, work)


_OPERATOR = Annotated[str, typer.Option("--operator", help="Who does it, for the audit log.", envvar="USER")]


@transactions_app.command("resume")
def transactions_resume(
    ctx: typer.Context,
    transaction_id: Annotated[str, typer.Argument(help="A partial transaction's id.")],
    config: ConfigOption = None,
    operator: _OPERATOR = "operator",
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Send again a partial commit's writes that failed or were not sent, in order."""
    _show_finished(_finish(config or ctx.obj, transaction_id, None, operator), as_json)


@transactions_app.command("resolve")
def transactions_resolve(
    ctx: typer.Context,
    transaction_id: Annotated[str, typer.Argument(help="A partial transaction's id.")],
    outcome: Annotated[str, typer.Argument(help="applied or failed: what you found upstream.")],
    call: Annotated[int, typer.Option("--call", min=1, help="The write's number (seq in its dispatch).")],
    config: ConfigOption = None,
    operator: _OPERATOR = "operator",
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Settle a committed write whose outcome is unknown, as you found it upstream."""
    from guard.transaction.recovery import Resolve

    if outcome not in ("applied", "failed"):
        raise _fail(f"outcome {outcome!r}: use applied or failed", ExitCode.USAGE)
    step = Resolve(call, outcome == "applied")
    _show_finished(_finish(config or ctx.obj, transaction_id, step, operator), as_json)


def _show_finished(detail: TxnDetail | None, as_json: bool) -> None:
    assert detail is not None
    if as_json:
        _print_json(detail.to_dict())
    else:
        _print_detail(detail)


def main() -> None:
    """The ``guard`` console script."""
    app()
