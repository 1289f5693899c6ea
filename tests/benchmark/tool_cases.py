"""The validation and refusal tests every domain has, written once over its case tables.

A domain's tool test module lists its :data:`Case` tables and binds the
tests to its own names, so that pytest collects them there::

    test_validation_errors, test_every_tool_has_a_validation_case, test_business_rule_refusals = (
        tool_case_tests(AUTO, VALIDATION_CASES, REFUSALS)
    )

The tests run on the directory's ``seeded`` world (the domain's seed rows)
and are named by the tool of each case.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import pytest

from benchmark.domains import get_domain
from benchmark.world import World
from tests.benchmark.helpers import assert_invalid, assert_refused

__all__ = ["Case", "ToolCaseTests", "tool_case_tests"]

Case = tuple[str, dict[str, Any], str]
"""A tool, its arguments and (part of) the message the reference answers with."""


class ToolCaseTests(NamedTuple):
    """The three tests, to bind to a module's ``test_…`` names."""

    validation_errors: Any
    every_tool_has_a_validation_case: Any
    business_rule_refusals: Any


def _by_tool(cases: Sequence[Case]) -> list[Any]:
    return [pytest.param(*case, id=case[0]) for case in cases]


def tool_case_tests(domain: str, validation: Sequence[Case], refusals: Sequence[Case]) -> ToolCaseTests:
    """Every case fails as the reference does and changes nothing; every tool but Zendesk's has a case."""

    @pytest.mark.parametrize(("tool", "arguments", "message"), _by_tool(validation))
    async def test_validation_errors(
        seeded: World, tool: str, arguments: dict[str, Any], message: str
    ) -> None:
        await assert_invalid(seeded, tool, arguments, message)

    def test_every_tool_has_a_validation_case() -> None:
        names = get_domain(domain).registry.names
        assert {case[0] for case in validation} == {n for n in names if not n.startswith("zendesk_")}

    @pytest.mark.parametrize(("tool", "arguments", "message"), _by_tool(refusals))
    async def test_business_rule_refusals(
        seeded: World, tool: str, arguments: dict[str, Any], message: str
    ) -> None:
        await assert_refused(seeded, tool, arguments, message)

    return ToolCaseTests(
        test_validation_errors, test_every_tool_has_a_validation_case, test_business_rule_refusals
    )
