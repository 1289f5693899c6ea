"""Arguments checked against a JSON schema, for tools whose schema is not a pydantic model.

An upstream MCP server publishes each tool's input schema as JSON Schema; the
guard checks a call's arguments against it before anything runs. The draft is
the one the schema names in ``$schema`` (2020-12 when it names none, as MCP
says). ``format`` is an annotation, not checked, as JSON Schema defaults to.
This is the one module that imports ``jsonschema``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.exceptions import SchemaError

from guard.errors import ConfigError, InvalidArguments

__all__ = ["JsonSchemaArguments"]


def _where(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path) or "arguments"


class JsonSchemaArguments:
    """A compiled input schema; calling it returns the arguments or raises :class:`InvalidArguments`."""

    def __init__(self, schema: dict[str, Any], *, tool: str) -> None:
        cls = validators.validator_for(schema, default=Draft202012Validator)
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            raise ConfigError(
                f"tool {tool}: its input schema is not valid JSON Schema: {exc.message}"
            ) from exc
        self._validator = cls(schema)

    def __call__(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        data = dict(arguments)
        errors = sorted(self._validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
        if errors:
            raise InvalidArguments(
                "Input validation failed: " + "; ".join(f"{_where(e)}: {e.message}" for e in errors)
            )
        return data
