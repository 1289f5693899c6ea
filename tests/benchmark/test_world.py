"""Task worlds: initial state, golden replay errors, grading, isolation on SQLite and PostgreSQL.

The golden checks every domain shares are in ``tests/benchmark/test_goldens.py``.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy.engine import make_url

from benchmark.dataset import Task, load_scenario
from benchmark.domains import Domain, get_domain
from benchmark.errors import BenchmarkError, DatasetError, GoldenReplayError, WorldError
from benchmark.world import build, golden, open_world, seed_dir, seed_rows
from tests.benchmark.conftest import OpenWorld
from tests.benchmark.helpers import ok, refused, rows
from tests.benchmark.regrade import chain, change_item, regrade


def test_unknown_domains_are_refused() -> None:
    with pytest.raises(BenchmarkError, match="unknown domain 'nope'"):
        get_domain("nope")


async def test_initial_state_is_seed_rows_with_the_patch_upserted(
    make_world: OpenWorld, data_dir: Path
) -> None:
    seed_tickets = json.loads((seed_dir(data_dir) / "zendesk/initial_data/tickets.json").read_text())
    replaced = {**seed_tickets[1], "status": "closed"}
    added = {**seed_tickets[0], "id": "77"}
    article = {
        "id": "10099",
        "url": "u",
        "html_url": "h",
        "title": "t",
        "body": "b",
        "author_id": "1",
        "section_id": 2,
        "locale": "en-us",
        "source_locale": "en-us",
        "created_at": "x",
        "updated_at": "y",
    }
    patch = {"zendesk_tickets": [added, replaced], "zendesk_users": [], "zendesk_articles": [article]}
    async with make_world(patch=patch) as world:
        tickets = await rows(world, "zendesk_tickets")
        assert [t["id"] for t in tickets] == ["1", "2", "3", "4", "5", "77"]
        assert tickets[1]["status"] == "closed"
        assert len(await rows(world, "zendesk_users")) == len(seed_tickets)
        stored = (await rows(world, "zendesk_articles"))[-1]
        assert stored["id"] == 10099
        assert stored["author_id"] == 1
        created = await ok(world, "zendesk_create_item", {"table": "tickets", "item": {"subject": "s"}})
        assert created["item"]["id"] == "7"


async def test_bad_patches_fail_with_the_task_and_table_named(make_world: OpenWorld, blog_task: Task) -> None:
    with pytest.raises(WorldError, match="unknown table 'zendesk_views'") as info:
        async with make_world(patch={"zendesk_views": []}):
            pass
    assert info.value.task == blog_task.id
    with pytest.raises(WorldError, match=r"(?s)data_patch zendesk_tickets row 0: .*subject"):
        async with make_world(patch={"zendesk_tickets": [{"id": "9", "created_at": "x", "updated_at": "y"}]}):
            pass


async def test_unknown_tools_are_tool_errors(make_world: OpenWorld) -> None:
    async with make_world() as world:
        assert await refused(world, "drop_tables", {}) == "Unknown tool: drop_tables"


async def test_a_failing_golden_call_is_an_error_not_a_silent_state(blog_task: Task, data_dir: Path) -> None:
    broken = dataclasses.replace(
        blog_task, golden=(dataclasses.replace(blog_task.golden[1], arguments={"order_id": "ORD-404"}),)
    )
    with pytest.raises(
        GoldenReplayError, match=r"golden call 0 \(get_order\) failed: Order not found: ORD-404"
    ):
        await golden(broken, data_dir=data_dir, cache=False)


async def test_the_blog_case_fails_on_exactly_the_ticket_status(
    blog_task: Task, data_dir: Path, retail: Domain
) -> None:
    assert blog_task.golden[-1].arguments["item"]["status"] == "hold"
    result = await regrade(blog_task, change_item(-1, status="solved"), data_dir=data_dir, domain=retail)
    assert not result.passed
    assert [(e.path, e.result, e.expected) for e in result.diff] == [
        ("zendesk_tickets[20].status", "solved", "hold")
    ]
    same = await regrade(blog_task, chain(), data_dir=data_dir, domain=retail)
    assert same.passed
    assert same.diff == ()


async def test_unstable_fields_do_not_count(blog_task: Task, data_dir: Path, retail: Domain) -> None:
    reworded = change_item(-1, subject="Other words", description="x")
    assert (await regrade(blog_task, reworded, data_dir=data_dir, domain=retail)).passed


async def test_a_sqlite_file_world_is_its_own_file(make_world: OpenWorld, tmp_path: Path) -> None:
    path = tmp_path / "trial.db"
    async with make_world(url=f"sqlite+aiosqlite:///{path}") as world:
        assert path.exists()
        await ok(
            world, "cancel_order", {"order_id": "ORD-10000020", "cancellation_reason": "customer_request"}
        )
        assert (await ok(world, "get_order", {"order_id": "ORD-10000020"}))["status"] == "cancelled"
    assert not path.exists()
    path.write_text("")
    with pytest.raises(WorldError, match="existing file"):
        async with make_world(url=f"sqlite+aiosqlite:///{path}"):
            pass


async def test_the_state_is_read_in_one_transaction_while_others_commit(
    make_world: OpenWorld, tmp_path: Path, retail: Domain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dump reads every table in one snapshot: a commit between two tables' reads is not seen."""
    path = tmp_path / "snapshot.db"
    async with make_world(url=f"sqlite+aiosqlite:///{path}") as world:
        before = await world.state()
        last = retail.hashed_tables[-1]
        read = aiosqlite.Connection.execute_fetchall
        writer = sqlite3.connect(path)
        changed: list[bool] = []

        async def read_then_commit_elsewhere(self: aiosqlite.Connection, *args: Any) -> Any:
            rows = await read(self, *args)
            if not changed:  # after the first table, another connection empties the last one
                writer.execute(f'DELETE FROM "{last.name}"')
                writer.commit()
                changed.append(True)
            return rows

        monkeypatch.setattr(aiosqlite.Connection, "execute_fetchall", read_then_commit_elsewhere)
        try:
            during = await world.state()
        finally:
            writer.close()
        assert changed
        assert during == before
        assert before[last.benchmark_name]
        assert (await world.state())[last.benchmark_name] == []
    assert not path.exists()


@pytest.mark.postgres
async def test_a_postgres_world_lives_in_its_own_schema(make_world: OpenWorld, postgres_url: str) -> None:
    async with make_world(url=postgres_url) as first, make_world(url=postgres_url) as second:
        assert first.schema
        assert second.schema
        assert first.schema != second.schema
        await ok(
            first, "cancel_order", {"order_id": "ORD-10000020", "cancellation_reason": "customer_request"}
        )
        assert (await ok(second, "get_order", {"order_id": "ORD-10000020"}))["status"] != "cancelled"
        hits = await ok(
            first, "search_policy", {"query": "restocking fee for opened items", "max_results": 2}
        )
        assert len(hits["snippets"]) == 2
    assert make_url(postgres_url).get_backend_name() == "postgresql"


def test_the_seed_folder_is_where_the_initial_data_folders_meet(data_dir: Path, tmp_path: Path) -> None:
    assert (seed_dir(data_dir) / "zendesk/initial_data").is_dir()
    assert (seed_dir(data_dir) / "sandbox_consulting/workday/initial_data").is_dir()
    (tmp_path / "servers" / "pkg").mkdir(parents=True)
    with pytest.raises(DatasetError, match="no initial_data folder under servers/"):
        seed_rows(tmp_path, get_domain("sandbox_consulting"))


async def test_a_tasks_worlds_start_from_its_patched_image_built_once(
    blog_task: Task, data_dir: Path, retail: Domain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every world of a task starts from the same rows: the patch is applied once, and no trial's
    writes reach the next trial's world; a world built afresh in a file holds the same state."""
    scenario = load_scenario(data_dir, retail.name)
    patched: list[str] = []
    real = build._patch

    async def counted(conn: Any, domain: Domain, task: Task) -> None:
        patched.append(task.id)
        await real(conn, domain, task)

    monkeypatch.setattr(build, "_patch", counted)
    monkeypatch.setattr(build, "_TASK_IMAGES", type(build._TASK_IMAGES)())
    async with open_world(retail, blog_task, data_dir=data_dir, scenario=scenario) as first:
        initial = await first.state()
        cancel = {"order_id": "ORD-10000020", "cancellation_reason": "customer_request"}
        await ok(first, "cancel_order", cancel)
        assert await first.state() != initial
    async with open_world(retail, blog_task, data_dir=data_dir, scenario=scenario) as second:
        assert await second.state() == initial
    assert patched == [blog_task.id]
    fresh = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    async with open_world(retail, blog_task, data_dir=data_dir, scenario=scenario, url=fresh) as built:
        assert await built.state() == initial
