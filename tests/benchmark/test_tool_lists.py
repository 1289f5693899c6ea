"""Every domain lists the same tools as before its tools were declared: names, order, schemas, annotations.

``tool_lists.json`` was taken from the domains as they were when each system
registered its tools on a shared registry by being imported. Replays and the
agents' tool lists depend on the names, their order, the input schemas and
the MCP annotations, so a domain built from its declaration must list them
unchanged, byte for byte: each tool's description and schemas are compared
by the SHA-256 of their JSON text, key order included.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.domains import domain_names, get_domain
from guard.tools import Tool

_EXPECTED: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).with_name("tool_lists.json")).read_text(encoding="utf-8")
)


def _listed(tool: Tool) -> dict[str, Any]:
    body = {
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
    }
    digest = hashlib.sha256(json.dumps(body, ensure_ascii=False).encode()).hexdigest()
    return {"name": tool.name, "annotations": tool.annotations(), "sha256": digest}


def test_the_fixture_covers_every_domain() -> None:
    assert sorted(_EXPECTED) == sorted(domain_names())


@pytest.mark.parametrize("name", domain_names())
def test_the_tool_list_is_unchanged(name: str) -> None:
    """The agent sees the same tools, in the same order, with the same schemas and hints."""
    listed = [_listed(tool) for tool in get_domain(name).registry]
    expected = _EXPECTED[name]
    assert [t["name"] for t in listed] == [t["name"] for t in expected]
    for tool, before in zip(listed, expected, strict=True):
        assert tool == before, tool["name"]
