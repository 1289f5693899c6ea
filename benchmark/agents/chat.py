"""The model seam as the agents use it: tool schemas in, one completion out, failures translated once.

:func:`complete` asks a :class:`~judges.rubric.ChatModel` and turns its
:class:`~judges.errors.ModelError` into a :class:`ModelCallError` with the
error's class, so the runner records a system error that names whose model
failed and why. :func:`function_tools` turns a channel's tools into the
chat-completions ``tools`` list; :func:`visible_text` drops the reasoning
some models write inline (``<think>…</think>``) before their answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.agents.base import ToolInfo
from benchmark.agents.errors import ModelCallError, Role
from judges.classify import classify
from judges.errors import ModelError
from judges.rubric import ChatMessage, ChatModel, ChatReply

__all__ = ["complete", "function_tools", "visible_text"]

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)


async def complete(
    model: ChatModel,
    messages: Sequence[ChatMessage],
    *,
    role: Role,
    task: str,
    max_tokens: int,
    temperature: float | None,
    tools: Sequence[Mapping[str, Any]] = (),
) -> ChatReply:
    """One completion; a failed call is a :class:`ModelCallError` (its cause, the model's error)."""
    try:
        return await model.complete(messages, max_tokens=max_tokens, temperature=temperature, tools=tools)
    except ModelError as exc:
        raise ModelCallError(
            str(exc),
            role=role,
            task=task,
            status_code=exc.status_code,
            error_class=classify(exc).error_class.value,
        ) from exc


def function_tools(tools: Sequence[ToolInfo]) -> list[dict[str, Any]]:
    """The chat-completions ``tools`` list for ``tools``, in their order."""
    listed = []
    for tool in tools:
        parameters = dict(tool.input_schema)
        parameters.setdefault("type", "object")
        if parameters["type"] == "object":
            parameters.setdefault("properties", {})
        listed.append(
            {
                "type": "function",
                "function": {"name": tool.name, "description": tool.description, "parameters": parameters},
            }
        )
    return listed


def visible_text(text: str) -> str:
    """``text`` without inline reasoning blocks (an unclosed one runs to the end), trimmed."""
    return _THINK.sub("", text).strip()
