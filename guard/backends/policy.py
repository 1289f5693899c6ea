"""What the guard does with each upstream tool: pure decisions over the tool list and the config.

Classification, in order of precedence: the tool's entry in
``backend.mcp.tools``; then its MCP annotations (``readOnlyHint`` true is a
read; anything else is a write in the default write mode, idempotent only
when ``idempotentHint`` says so, destructive unless ``destructiveHint`` says
not, as MCP's defaults for a missing hint are); a tool with no hints at all is
a non-idempotent, destructive write. A write is safe to repeat
after an ambiguous failure when it is idempotent or when the upstream honours
the idempotency key.

A compensating call's arguments come from a template: constants, and the
references ``$arguments.<path>`` (the original call's arguments) and
``$result.<path>`` (its structured result); ``$$`` starts a literal ``$``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from guard.backends.upstream import UpstreamTool
from guard.errors import ConfigError
from guard.json_schema import JsonSchemaArguments
from guard.settings import NAMESPACE, CompensationSettings, McpSettings, McpToolSettings, UpstreamSettings
from guard.tools import Tool

__all__ = ["ToolMode", "ToolPolicy", "build_arguments", "classify_tool", "resolve_policies", "tool_spec"]

log = logging.getLogger(__name__)

ToolMode = Literal["read", "defer", "passthrough"]


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """How one upstream tool is served, and where that decision came from."""

    name: str
    mode: ToolMode
    idempotent: bool
    destructive: bool
    source: Literal["config", "annotations", "unknown"]
    safe_to_repeat: bool
    compensate: CompensationSettings | None = None
    preview: str | None = None
    """The boolean argument that, true, makes a call of this write a dry run forwarded at once."""
    why: str = ""
    """Where the mode came from, in words (``guard tools`` shows it)."""
    error_text: re.Pattern[str] | None = None
    """A result whose text matches is an error, whatever its isError says."""

    def previews(self, arguments: Mapping[str, Any]) -> bool:
        """Whether this call is a dry run (its preview argument is exactly ``true``)."""
        return self.preview is not None and arguments.get(self.preview) is True

    @property
    def write(self) -> bool:
        return self.mode != "read"


def classify_tool(
    tool: UpstreamTool,
    override: McpToolSettings | None,
    *,
    write_mode: ToolMode,
    honours_keys: bool,
    error_patterns: Sequence[str] = (),
    where: str = "backend.mcp",
) -> ToolPolicy:
    """The policy of one tool: config first, then annotations, else a non-idempotent write."""
    override = override or McpToolSettings()
    annotated = any(hint is not None for hint in (tool.read_only, tool.destructive, tool.idempotent))
    mode: ToolMode
    source: Literal["config", "annotations", "unknown"]
    if override.mode is not None:
        mode, source = override.mode, "config"
        why = f"{where}.tools.{tool.name}.mode is {mode}"
    elif tool.read_only is True:
        mode, source = "read", "annotations"
        why = "readOnlyHint is true"
    else:
        mode, source = write_mode, "annotations" if annotated else "unknown"
        why = (
            f"readOnlyHint is {'false' if tool.read_only is False else 'not given'}: a write, "
            f"in {where}.write_mode ({write_mode})"
            if annotated
            else f"no annotations: a non-idempotent, destructive write ({write_mode}); if it only "
            f"reads, set {where}.tools.{tool.name}.mode: read"
        )
    if override.idempotent is not None:
        idempotent = override.idempotent
    elif mode == "read":
        idempotent = True
    else:
        idempotent = tool.idempotent is True and tool.read_only is not True
    destructive = mode != "read" and tool.destructive is not False
    return ToolPolicy(
        name=tool.name,
        mode=mode,
        idempotent=idempotent,
        destructive=destructive,
        source=source,
        safe_to_repeat=idempotent or honours_keys,
        compensate=override.compensate,
        preview=override.preview,
        why=why,
        error_text=_error_text(override.error_pattern, error_patterns),
    )


def _error_text(own: str | None, common: Sequence[str]) -> re.Pattern[str] | None:
    if own is not None:
        return re.compile(own)
    if common:
        return re.compile("|".join(f"(?:{pattern})" for pattern in common))
    return None


def resolve_policies(tools: Sequence[UpstreamTool], settings: McpSettings) -> dict[str, ToolPolicy]:
    """Every listed tool's policy; :class:`ConfigError` when the overrides do not fit the tool list.

    With several upstreams each one's tools (named ``<upstream>__<tool>``) are classified by its own
    settings, which name them without the prefix, as the upstream does.
    """
    policies: dict[str, ToolPolicy] = {}
    for prefix, upstream in settings.served().items():
        mine = [replace(t, name=t.name.removeprefix(prefix)) for t in tools if t.name.startswith(prefix)]
        where = f"backend.mcp.upstreams.{prefix.removesuffix(NAMESPACE)}" if prefix else "backend.mcp"
        for policy in _resolve_one(mine, upstream, where).values():
            compensate = policy.compensate
            if compensate is not None and prefix:
                compensate = compensate.model_copy(update={"tool": prefix + compensate.tool})
            policies[prefix + policy.name] = replace(policy, name=prefix + policy.name, compensate=compensate)
    return policies


def _resolve_one(
    tools: Sequence[UpstreamTool], settings: UpstreamSettings, where: str
) -> dict[str, ToolPolicy]:
    names = {tool.name for tool in tools}
    unknown = sorted(set(settings.tools) - names)
    if unknown:
        raise ConfigError(f"{where}.tools names tools the upstream does not list: {', '.join(unknown)}")
    policies = {
        tool.name: classify_tool(
            tool,
            settings.tools.get(tool.name),
            write_mode=settings.write_mode,
            honours_keys=settings.honours_idempotency_key,
            error_patterns=settings.error_patterns,
            where=where,
        )
        for tool in tools
    }
    by_name = {tool.name: tool for tool in tools}
    for policy in policies.values():
        if policy.preview is not None:
            _check_preview(policy, by_name[policy.name], where)
        if policy.compensate is None:
            continue
        if policy.mode != "passthrough":
            raise ConfigError(
                f"{where}.tools.{policy.name}.compensate: the tool is a {policy.mode} tool; "
                "compensation applies to passthrough writes"
            )
        if policy.compensate.tool not in names:
            raise ConfigError(
                f"{where}.tools.{policy.name}.compensate: the upstream lists no tool "
                f"{policy.compensate.tool!r}"
            )
    unknown_tools = sorted(p.name for p in policies.values() if p.source == "unknown")
    if unknown_tools:
        log.warning(
            "%s: %d tool(s) carry no MCP annotations and are served as non-idempotent writes "
            "(%s %s): a read among them is held until commit; classify each in %s.tools "
            "(`guard tools` lists them)",
            where,
            len(unknown_tools),
            settings.write_mode,
            ", ".join(unknown_tools),
            where,
        )
    return policies


def _check_preview(policy: ToolPolicy, tool: UpstreamTool, base: str) -> None:
    where = f"{base}.tools.{policy.name}.preview"
    if policy.mode == "read":
        raise ConfigError(f"{where}: the tool is a read; preview applies to writes")
    declared = (tool.input_schema.get("properties") or {}).get(policy.preview)
    if not isinstance(declared, Mapping) or declared.get("type") != "boolean":
        raise ConfigError(f"{where}: the tool has no boolean argument {policy.preview!r}")


def _note(policy: ToolPolicy) -> str:
    if policy.mode == "defer":
        preview = (
            f" A call with {policy.preview}: true is a dry run, sent at once, and its result is the "
            "upstream's answer."
            if policy.preview
            else ""
        )
        return (
            "(Guard: held until the transaction commits. Calling it changes nothing yet; the result is a "
            f"provisional receipt with status 'deferred', not the upstream's answer.{preview})"
        )
    if policy.mode == "passthrough":
        undo = (
            f"if the transaction is rolled back, the guard calls {policy.compensate.tool} to undo it"
            if policy.compensate is not None
            else "it is not undone if the transaction is rolled back"
        )
        return f"(Guard: sent to the upstream at once; {undo}.)"
    return ""


def tool_spec(tool: UpstreamTool, policy: ToolPolicy) -> Tool:
    """The tool as the guard lists it: the upstream's schema, annotations from the policy.

    A deferred write loses its output schema: its provisional result cannot honour it.
    """
    note = _note(policy)
    description = f"{tool.description}\n\n{note}".strip() if note else tool.description
    return Tool(
        name=tool.name,
        description=description,
        input_schema=tool.input_schema,
        output_schema=None if policy.mode == "defer" else tool.output_schema,
        write=policy.write,
        idempotent=policy.idempotent,
        destructive=policy.destructive,
        title=tool.title,
        check=JsonSchemaArguments(tool.input_schema, tool=tool.name),
        repeat_safe=policy.mode != "passthrough" or policy.safe_to_repeat,
        open_world=tool.open_world,
    )


def _lookup(root: Any, path: list[str], reference: str) -> Any:
    value = root
    for part in path:
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise LookupError(f"{reference} is not in the original call")
    return value


def build_arguments(template: Any, arguments: Mapping[str, Any], result: Any) -> Any:
    """The template with its references filled in; ``LookupError`` naming a reference that is missing."""
    if isinstance(template, str) and template.startswith("$"):
        if template.startswith("$$"):
            return template[1:]
        root, *path = template[1:].split(".")
        return _lookup(arguments if root == "arguments" else result, path, template)
    if isinstance(template, Mapping):
        return {key: build_arguments(value, arguments, result) for key, value in template.items()}
    if isinstance(template, list):
        return [build_arguments(value, arguments, result) for value in template]
    return template
