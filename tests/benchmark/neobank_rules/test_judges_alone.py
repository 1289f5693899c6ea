"""Each neobank judge asks for every row it reads: judged alone, on a snapshot of its own reads only.

In the gate all judges share one snapshot, so a judge that reads a row it
never asked for can pass by luck; here each judge of the domain's chain
runs on the golden commits' effects with nothing but its own queries (and
follow-ups, in rounds) answered, and must neither crash nor find anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from benchmark.dataset import Task, load_scenario
from benchmark.domains import Domain
from benchmark.world import golden, open_world
from judges import CommitContext, MemoryState, effects_between, gather_memory
from tests.benchmark.neobank_rules.conftest import NEOBANK

_TESTS = (
    "test_ie_001",
    "test_sa_003",
    "test_he_010",
    "test_he_032",
    "test_sa_005",
    "test_aa_001",
    "test_sl_004",
)


@pytest.mark.parametrize("test", _TESTS)
async def test_each_judge_alone_on_a_golden_commit(
    test: str, tasks_by_test: Mapping[str, Task], neobank_domain: Domain, data_dir: Path
) -> None:
    task = tasks_by_test[test]
    async with open_world(
        neobank_domain, task, data_dir=data_dir, scenario=load_scenario(data_dir, NEOBANK)
    ) as world:
        initial = await world.state()
    final = (await golden(task, data_dir=data_dir)).state
    ours = {t.benchmark_name: t.name for t in neobank_domain.hashed_tables}
    before = {ours[name]: rows for name, rows in initial.items()}
    after = {ours[name]: rows for name, rows in final.items()}
    keys = {t.name: t.key for t in neobank_domain.hashed_tables}
    effects = tuple(effects_between(before, after, keys))
    assert effects
    state = MemoryState(after)
    for judge in neobank_domain.judges:
        snapshot = gather_memory([judge], effects, state).snapshot
        context = CommitContext("t", effects, (), "", snapshot, neobank_domain.scenario_now)
        verdict = judge(context)
        assert [f for f in verdict.findings if f.severity.value == "block"] == [], judge.name
