"""``guard bench serve``: one task's world over MCP (streamable HTTP), with or without the guard.

Any MCP agent can be pointed at ``/mcp`` and tried on a real benchmark task.
The world lives in a SQLite file in a temporary directory (or in a fresh
PostgreSQL schema with ``--db``), so the grader reads committed state on its
own connection. ``POST /bench/grade`` grades the world as it stands — passed,
both hashes and the diff — and is never part of the agent's MCP endpoint.
With ``--guarded`` the guard fronts the tools (``/mcp``, ``/mcp/t/<id>``,
``guard_commit``, the admin API); without it a plain MCP server does.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.routing import Route
from starlette.types import ASGIApp

from benchmark.dataset import Task, load_scenario
from benchmark.domains import Domain, get_domain
from benchmark.world import World, golden, grade, open_world
from guard.audit.log import MemoryAudit
from guard.backends.sql import SqlBackend
from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.edge.plain import build_plain_server
from guard.runtime import assemble
from guard.settings import GuardSettings

__all__ = ["grade_world", "serve_task"]


async def grade_world(world: World, data_dir: Path) -> dict[str, Any]:
    expected = await golden(world.task, data_dir=data_dir)
    graded = grade(await world.state(), expected, world.domain)
    return {"task": world.task.id, **graded.to_dict()}


def _plain_app(world: World, domain: Domain, data_dir: Path) -> FastAPI:
    server = build_plain_server(
        world.engine, domain.registry, FixedClock(domain.scenario_now), name=domain.name
    )
    sessions = StreamableHTTPSessionManager(app=server, max_sessions=100)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with sessions.run():
            yield

    app = FastAPI(title=f"{domain.name} (no guard)", lifespan=lifespan)
    app.router.routes.append(
        Route("/mcp", endpoint=StreamableHTTPASGIApp(sessions), methods=["GET", "POST", "DELETE"])
    )
    return app


@contextlib.asynccontextmanager
async def serve_task(
    task: Task, *, data_dir: Path, guarded: bool, settings: GuardSettings, db: str | None = None
) -> AsyncIterator[ASGIApp]:
    """The app serving ``task``'s world; the world lives as long as the context."""
    domain = get_domain(task.domain)
    scenario = load_scenario(data_dir, task.domain)
    with tempfile.TemporaryDirectory(prefix="guard-bench-serve-") as tmp:
        url = db or f"sqlite:///{Path(tmp) / 'world.db'}"
        async with open_world(domain, task, data_dir=data_dir, scenario=scenario, url=url) as world:

            def grading(app: FastAPI) -> None:
                @app.post("/bench/grade")
                async def bench_grade() -> dict[str, Any]:
                    return await grade_world(world, data_dir)

            served: ASGIApp
            if guarded:
                clock = FixedClock(domain.scenario_now)
                backend = SqlBackend(
                    world.engine, domain.registry, clock, metadata=domain.metadata, name=domain.name
                )
                runtime = assemble(settings, backend, MemoryAudit(), clock=clock)
                served = create_app(runtime, extra_routes=grading)
            else:
                plain = _plain_app(world, domain, data_dir)
                grading(plain)
                served = plain
            yield served
