"""Every domain's tool surface and golden states: the checks that are the same for all five domains.

Each domain offers exactly its scenario's tools, with table names PostgreSQL
accepts. Every golden trajectory replays without a tool error and hashes the
same twice, every task's golden state is distinct, and the hashes agree
between SQLite and PostgreSQL (on a sample; all of them in the slow run).
What is particular to a domain (its wrong trajectories, its table keys) is
tested in its own directory.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmark.dataset import Task, load_scenario, load_tasks
from benchmark.domains import get_domain
from benchmark.results import read_results
from benchmark.run import RunOptions
from benchmark.run.runner import run_spec
from benchmark.run.setup import RunSpec
from benchmark.world import clear_golden_cache, golden
from tests.benchmark.auto_insurance.conftest import AUTO
from tests.benchmark.booking.conftest import BOOKING
from tests.benchmark.conftest import RETAIL
from tests.benchmark.consulting.conftest import CONSULTING
from tests.benchmark.neobank.conftest import NEOBANK

RUBRIC_SUFFIX = "_rubrics_yesno.py"


@dataclass(frozen=True)
class Facts:
    """What a domain has: its tasks (and how many are graded by rubric), tools and hashed tables."""

    domain: str
    tasks: int
    tools: int
    hashed_tables: int
    rubric_tasks: int = 0


DOMAINS = [
    pytest.param(Facts(RETAIL, tasks=98, tools=33, hashed_tables=22), id="retail"),
    pytest.param(Facts(AUTO, tasks=100, tools=33, hashed_tables=14), id="auto_insurance"),
    pytest.param(Facts(CONSULTING, tasks=101, tools=27, hashed_tables=30), id="consulting"),
    pytest.param(Facts(BOOKING, tasks=104, tools=38, hashed_tables=17, rubric_tasks=15), id="booking"),
    pytest.param(Facts(NEOBANK, tasks=104, tools=32, hashed_tables=20, rubric_tasks=15), id="neobank"),
]


def _tasks(facts: Facts, data_dir: Path) -> list[Task]:
    return list(load_tasks(data_dir, domain=facts.domain))


@pytest.mark.parametrize("facts", DOMAINS)
def test_the_domain_offers_exactly_the_scenarios_tools(facts: Facts, data_dir: Path) -> None:
    domain = get_domain(facts.domain)
    assert sorted(domain.registry.names) == sorted(load_scenario(data_dir, facts.domain).tools)
    assert len(domain.registry) == facts.tools
    assert len(domain.hashed_tables) == facts.hashed_tables
    assert all(len(table.name) <= 63 for table in domain.tables)


@pytest.mark.parametrize("facts", DOMAINS)
def test_the_rubric_tasks_are_the_rubric_files_tasks(facts: Facts, data_dir: Path) -> None:
    tasks = _tasks(facts, data_dir)
    rubric_files = Counter(t.file for t in tasks if t.file.endswith(RUBRIC_SUFFIX))
    assert rubric_files == (
        {f"{facts.domain}_group1{RUBRIC_SUFFIX}": facts.rubric_tasks} if facts.rubric_tasks else {}
    )
    assert all(t.rubrics for t in tasks if t.file.endswith(RUBRIC_SUFFIX))


@pytest.mark.parametrize("facts", DOMAINS)
async def test_all_golden_trajectories_run_without_errors_and_hash_stably(
    facts: Facts, data_dir: Path
) -> None:
    tasks = _tasks(facts, data_dir)
    assert len(tasks) == facts.tasks
    clear_golden_cache()
    first = {t.id: (await golden(t, data_dir=data_dir)).hash for t in tasks}
    clear_golden_cache()
    second = {t.id: (await golden(t, data_dir=data_dir, cache=False)).hash for t in tasks}
    assert first == second
    assert len(set(first.values())) == facts.tasks


async def _agree_between_sqlite_and_postgres(tasks: list[Task], data_dir: Path, postgres_url: str) -> None:
    for task in tasks:
        on_sqlite = await golden(task, data_dir=data_dir)
        on_postgres = await golden(task, data_dir=data_dir, url=postgres_url)
        assert on_postgres.hash == on_sqlite.hash, task.id


@pytest.mark.postgres
@pytest.mark.parametrize("facts", DOMAINS)
async def test_golden_hashes_agree_between_sqlite_and_postgres_sample(
    facts: Facts, data_dir: Path, postgres_url: str
) -> None:
    await _agree_between_sqlite_and_postgres(_tasks(facts, data_dir)[::10], data_dir, postgres_url)


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.parametrize("facts", DOMAINS)
async def test_golden_hashes_agree_between_sqlite_and_postgres_all(
    facts: Facts, data_dir: Path, postgres_url: str
) -> None:
    await _agree_between_sqlite_and_postgres(_tasks(facts, data_dir), data_dir, postgres_url)


async def _guarded_goldens_commit_on_postgres(
    facts: Facts, data_dir: Path, postgres_url: str, tmp_path: Path, step: int
) -> None:
    """On PostgreSQL worlds the guarded arm judges a golden as on SQLite: it commits, nothing blocks.

    The judges read effects captured by PostgreSQL's triggers there; a value
    typed differently than on SQLite (a whole double as an integer, say) would
    make a rule refuse the commit.
    """
    ids = tuple(t.id for t in _tasks(facts, data_dir)[::step])
    spec = RunSpec(data_dir=data_dir, task_ids=ids, db=postgres_url)
    out = tmp_path / "guarded.jsonl"
    summary = await run_spec(spec, RunOptions(1, ("guarded",), 0, 4, out))
    assert summary.system_errors == 0
    results = read_results(out)
    assert len(results) == len(ids)
    blocking = [
        (r.task, f.get("rule"), f["message"])
        for r in results
        for v in r.verdicts
        for f in v.findings
        if f.get("severity") != "warn"
    ]
    assert blocking == []
    assert [r.task for r in results if [v.status for v in r.verdicts] != ["committed"]] == []
    assert summary.passed == {"guarded": len(ids)}


@pytest.mark.postgres
@pytest.mark.parametrize("facts", DOMAINS)
async def test_guarded_goldens_commit_on_postgres_sample(
    facts: Facts, data_dir: Path, postgres_url: str, tmp_path: Path
) -> None:
    await _guarded_goldens_commit_on_postgres(facts, data_dir, postgres_url, tmp_path, step=5)


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.parametrize("facts", DOMAINS)
async def test_guarded_goldens_commit_on_postgres_all(
    facts: Facts, data_dir: Path, postgres_url: str, tmp_path: Path
) -> None:
    await _guarded_goldens_commit_on_postgres(facts, data_dir, postgres_url, tmp_path, step=1)
