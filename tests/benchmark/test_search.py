"""search_policy: full-text search over the scenario's policy sources."""

from __future__ import annotations

from typing import Any

import pytest

from tests.benchmark.conftest import OpenWorld
from tests.benchmark.helpers import ok, refused


async def test_results_are_whole_sections_best_first(make_world: OpenWorld) -> None:
    async with make_world() as world:
        found = await ok(world, "search_policy", {"query": "What is the restocking fee for an opened item?"})
        snippets = found["snippets"]
        assert len(snippets) == 3
        assert set(snippets[0]) == {"source", "score", "text"}
        assert snippets[0]["score"] >= snippets[1]["score"] >= snippets[2]["score"]
        assert "restocking" in snippets[0]["text"].lower()


@pytest.mark.parametrize(("asked", "given"), [(None, 3), (0, 3), (-4, 3), (1, 1), (50, 9)])
async def test_max_results_is_clamped_like_the_reference(
    make_world: OpenWorld, asked: Any, given: int
) -> None:
    async with make_world() as world:
        arguments = {"query": "policy return refund warranty order customer", "max_results": asked}
        assert len((await ok(world, "search_policy", arguments))["snippets"]) == given


async def test_no_match_and_no_sources(make_world: OpenWorld) -> None:
    async with make_world() as world:
        assert (await ok(world, "search_policy", {"query": "zzzqqq"}))["snippets"] == []
        assert (await ok(world, "search_policy", {"query": "?!"}))["snippets"] == []
    async with make_world(scenario=None) as bare:
        assert await refused(bare, "search_policy", {"query": "returns"}) == "Search service is not available"


async def test_the_documents_are_not_part_of_the_graded_state(make_world: OpenWorld) -> None:
    async with make_world() as world:
        assert "kb_documents" not in await world.state()
