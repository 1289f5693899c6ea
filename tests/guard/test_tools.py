"""Tool registration: schemas from signatures, annotations, validation messages."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from guard.errors import ConfigError, InvalidArguments
from guard.tools import ToolContext, ToolRegistry


class Result(BaseModel):
    id: str
    note: str | None = None


def registry() -> ToolRegistry:
    tools = ToolRegistry("t")

    @tools.tool(write=True, idempotent=True)
    async def set_status(
        ctx: ToolContext,
        record_id: Annotated[str, Field(description="The record.")],
        status: Literal["open", "closed"],
        query: Annotated[str | None, Field(alias="$filter")] = None,
    ) -> Result:
        """Set a record's status."""
        return Result(id=record_id)

    @tools.tool(write=False)
    async def read(ctx: ToolContext, record_id: str) -> dict[str, str]:
        return {"id": record_id}

    class Args(BaseModel):
        a: int
        b: list[str] = []

    @tools.tool(write=True, destructive=True)
    async def bulk(ctx: ToolContext, args: Args) -> dict[str, int]:
        return {"a": args.a}

    return tools


def test_schema_comes_from_the_signature() -> None:
    spec = registry()["set_status"]
    schema = spec.input_schema
    assert schema["required"] == ["record_id", "status"]
    assert schema["properties"]["status"]["enum"] == ["open", "closed"]
    assert "$filter" in schema["properties"]
    assert schema["properties"]["record_id"]["description"] == "The record."
    assert schema["additionalProperties"] is False
    assert spec.description == "Set a record's status."
    assert spec.output_schema is not None
    assert set(spec.output_schema["properties"]) == {"id", "note"}


def test_a_single_args_model_is_the_schema() -> None:
    spec = registry()["bulk"]
    assert set(spec.input_schema["properties"]) == {"a", "b"}
    parsed = spec.validate({"a": "3"})
    assert parsed.a == 3  # type: ignore[attr-defined]


def test_annotations_follow_the_declaration() -> None:
    tools = registry()
    assert tools["read"].annotations() == {"readOnlyHint": True, "idempotentHint": True}
    assert tools["set_status"].annotations() == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
    }
    assert tools["bulk"].annotations()["destructiveHint"] is True
    assert tools["bulk"].annotations()["idempotentHint"] is False


def test_validation_names_every_bad_argument() -> None:
    spec = registry()["set_status"]
    with pytest.raises(InvalidArguments) as caught:
        spec.validate({"status": "maybe", "extra": 1})
    message = caught.value.message
    assert message.startswith("Input validation failed: ")
    assert "record_id: Field required" in message
    assert "status: Input should be 'open' or 'closed'" in message
    assert "extra: Extra inputs are not permitted" in message
    assert caught.value.error_class == "invalid_arguments"


def test_alias_is_accepted_on_the_wire() -> None:
    spec = registry()["set_status"]
    parsed = spec.validate({"record_id": "r1", "status": "open", "$filter": "x eq 1"})
    assert parsed.query == "x eq 1"  # type: ignore[attr-defined]


def test_duplicate_and_sync_tools_are_refused() -> None:
    tools = ToolRegistry("t")

    @tools.tool(write=False)
    async def one(ctx: ToolContext) -> dict[str, int]:
        return {}

    with pytest.raises(ConfigError, match="registered twice"):

        @tools.tool(write=False, name="one")
        async def again(ctx: ToolContext) -> dict[str, int]:
            return {}

    with pytest.raises(ConfigError, match="async"):

        @tools.tool(write=False)
        def sync(ctx: ToolContext) -> dict[str, int]:  # type: ignore[type-var]
            return {}
