"""Business tools as typed async functions, and the registry that holds them.

A tool is an ``async def`` whose first parameter is the :class:`ToolContext`
and whose other parameters are its arguments::

    tools = ToolRegistry("shop")

    @tools.tool(write=True)
    async def cancel_order(ctx: ToolContext, order_id: str, reason: Literal["customer", "fraud"]) -> Order:
        \"\"\"Cancel an order.\"\"\"

The registry derives a pydantic input model (and so the JSON input schema)
from the signature; ``Annotated[..., Field(alias="$filter")]`` gives an
argument a name that is not a Python identifier. A tool may instead take
its arguments as one pydantic model, in a single parameter named ``args``. The return annotation, when it is a
pydantic model, gives the output schema. ``write`` declares whether the tool
can change state; with ``idempotent`` and ``destructive`` it becomes the MCP
tool annotations the agent sees.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from guard.errors import ConfigError, InvalidArguments, ToolError

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncConnection

    from guard.clock import Clock

__all__ = [
    "Arguments",
    "ArgumentsCheck",
    "ErrorText",
    "FunctionTool",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "format_validation_error",
    "inline_refs",
    "plain_error_text",
    "result_text",
    "to_jsonable",
]

ToolFn = Callable[..., Awaitable[Any]]
F = TypeVar("F", bound=ToolFn)

ErrorText = Callable[[str, ToolError], str]
"""Turns a tool's name and its error into the text the agent reads."""


def plain_error_text(tool: str, error: ToolError) -> str:
    return error.message


@dataclass(slots=True)
class ToolContext:
    """What a running tool may use: the transaction's connection and the clock."""

    conn: AsyncConnection
    clock: Clock
    tool: str
    transaction_id: str | None = None


def format_validation_error(error: ValidationError) -> str:
    """One line naming every offending argument: ``Input validation failed: a: msg; b: msg``."""
    parts = []
    for item in error.errors(include_url=False):
        loc = ".".join(str(part) for part in item["loc"]) or "arguments"
        parts.append(f"{loc}: {item['msg']}")
    return "Input validation failed: " + "; ".join(parts)


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every local ``$ref`` replaced by its definition (agents read flat schemas best)."""
    defs = schema.get("$defs", {})

    def resolve(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name in seen:
                    return {"type": "object"}
                merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
                return resolve(merged, (*seen, name))
            return {k: resolve(v, seen) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        return node

    resolved: dict[str, Any] = resolve(schema, ())
    return resolved


def to_jsonable(value: Any) -> Any:
    """A tool's return value as JSON data (pydantic models without their null fields)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True, by_alias=True)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


ArgumentsCheck = Callable[[Mapping[str, Any]], dict[str, Any]]
"""Checks a call's arguments against a schema; returns them, or raises :class:`InvalidArguments`."""

Arguments = BaseModel | dict[str, Any]
"""A call's arguments once validated: the tool's input model, or a checked ``dict``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    """A tool as the guard lists and checks it: its name, schemas, declared behaviour and validation.

    A tool described only by a JSON schema (an upstream MCP server's) checks
    its arguments with ``check`` and is run by its backend, never here.
    ``repeat_safe`` says a repeat after an ambiguous failure cannot apply
    the call twice: the failed attempt left no trace (its savepoint or outbox
    entry was undone), or the upstream dedupes it by key.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    write: bool
    idempotent: bool
    destructive: bool
    title: str | None = None
    repeat_safe: bool = True
    check: ArgumentsCheck | None = None
    open_world: bool | None = None
    """MCP's ``openWorldHint`` as the tool's author gave it (an upstream's); None: not given."""

    def validate(self, arguments: Mapping[str, Any] | None) -> Arguments:
        """The arguments checked against the input schema; :class:`InvalidArguments` if they do not fit."""
        if self.check is None:
            raise ConfigError(f"tool {self.name} has no way to check its arguments")
        return self.check(arguments or {})

    def annotations(self) -> dict[str, Any]:
        """MCP tool annotation hints (camelCase, as on the wire)."""
        hints: dict[str, Any] = {"readOnlyHint": not self.write}
        if self.write:
            hints["destructiveHint"] = self.destructive
            hints["idempotentHint"] = self.idempotent
        else:
            hints["idempotentHint"] = True
        if self.title:
            hints["title"] = self.title
        if self.open_world is not None:
            hints["openWorldHint"] = self.open_world
        return hints


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionTool(Tool):
    """A tool that is a Python function (a ``sql`` backend's): validated by its input model, run here.

    The input model is derived from the function's signature (or is the one
    model its single ``args`` parameter takes, ``model_param``).
    """

    fn: ToolFn
    input_model: type[BaseModel]
    model_param: str | None = None

    def validate(self, arguments: Mapping[str, Any] | None) -> BaseModel:
        try:
            return self.input_model.model_validate(dict(arguments or {}))
        except ValidationError as exc:
            raise InvalidArguments(format_validation_error(exc)) from exc

    async def invoke(self, ctx: ToolContext, arguments: BaseModel) -> Any:
        """Run the function on validated arguments."""
        if self.model_param is not None:
            return await self.fn(ctx, arguments)
        return await self.fn(ctx, **{name: getattr(arguments, name) for name in type(arguments).model_fields})


class ToolRegistry:
    """An ordered, named set of tools: what a ``sql`` backend module exposes."""

    def __init__(self, name: str, *, error_text: ErrorText = plain_error_text) -> None:
        self.name = name
        self.error_text = error_text
        self._tools: dict[str, FunctionTool] = {}

    def tool(
        self,
        *,
        write: bool,
        name: str | None = None,
        description: str | None = None,
        idempotent: bool | None = None,
        destructive: bool = False,
        title: str | None = None,
    ) -> Callable[[F], F]:
        """Register a tool function; use as ``@registry.tool(write=...)``."""

        def register(func: F) -> F:
            # the defining scope, so that annotations naming local classes resolve
            scope = sys._getframe(1).f_locals
            self.add(
                build_spec(
                    func,
                    localns=scope,
                    write=write,
                    name=name,
                    description=description,
                    idempotent=(not write) if idempotent is None else idempotent,
                    destructive=destructive,
                    title=title,
                )
            )
            return func

        return register

    def add(self, spec: FunctionTool) -> None:
        if spec.name in self._tools:
            raise ConfigError(f"tool {spec.name!r} is registered twice in {self.name!r}")
        self._tools[spec.name] = spec

    def extend(self, other: ToolRegistry) -> None:
        for spec in other:
            self.add(spec)

    def __iter__(self) -> Iterator[FunctionTool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> FunctionTool:
        return self._tools[name]

    def get(self, name: str) -> FunctionTool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)


def build_spec(
    fn: ToolFn,
    *,
    write: bool,
    name: str | None = None,
    description: str | None = None,
    idempotent: bool = False,
    destructive: bool = False,
    title: str | None = None,
    localns: Mapping[str, Any] | None = None,
) -> FunctionTool:
    """Derive a :class:`FunctionTool` from a tool function's signature and docstring."""
    if not inspect.iscoroutinefunction(fn):
        raise ConfigError(f"tool {fn.__qualname__} must be an async function")
    tool_name = name or fn.__name__
    try:
        hints = get_type_hints(fn, localns=dict(localns or {}), include_extras=True)
    except NameError as exc:
        raise ConfigError(f"tool {tool_name}: cannot resolve an annotation: {exc}") from exc
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        raise ConfigError(f"tool {tool_name} must take the ToolContext as its first parameter")
    input_model, model_param = _input_model(tool_name, params[1:], hints)
    input_schema = inline_refs(input_model.model_json_schema(by_alias=True))
    input_schema.pop("title", None)
    returns = hints.get("return")
    output_schema = None
    if isinstance(returns, type) and issubclass(returns, BaseModel):
        output_schema = inline_refs(returns.model_json_schema(by_alias=True, mode="serialization"))
        output_schema.pop("title", None)
    doc = description if description is not None else inspect.getdoc(fn) or ""
    return FunctionTool(
        name=tool_name,
        description=doc.strip(),
        fn=fn,
        input_model=input_model,
        input_schema=input_schema,
        output_schema=output_schema,
        write=write,
        idempotent=idempotent,
        destructive=destructive,
        title=title,
        model_param=model_param,
    )


def _input_model(
    tool_name: str, args: list[inspect.Parameter], hints: Mapping[str, Any]
) -> tuple[type[BaseModel], str | None]:
    """The model of a tool's arguments, and the parameter that takes it whole (``args: Model``), if any."""
    annotation = hints.get("args") if len(args) == 1 and args[0].name == "args" else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, args[0].name
    fields: dict[str, Any] = {}
    for param in args:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigError(f"tool {tool_name}: *args and **kwargs cannot be described as a schema")
        if param.name not in hints:
            raise ConfigError(f"tool {tool_name}: argument {param.name!r} has no type annotation")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (hints[param.name], default)
    model = create_model(
        f"{tool_name}_arguments",
        __config__=ConfigDict(extra="forbid", populate_by_name=True),
        **fields,
    )
    return model, None


def result_text(value: Any) -> str:
    """The text content of a successful result."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
