"""The model seam: a chat-completions model as a Protocol, and its shipped in-memory implementation.

:class:`ChatModel` is the only I/O the judges library does. :class:`OpenAIChat`
(in :mod:`judges.rubric.openai`) speaks to any OpenAI-compatible endpoint;
:class:`ScriptedChat` answers from a script and records what it was asked, for
tests and dry runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from judges.errors import ModelError

__all__ = ["ChatMessage", "ChatModel", "ChatReply", "ChatRequest", "ScriptedChat", "ToolCall", "Usage"]

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A function call the model asks for; ``arguments`` is the JSON text it wrote."""

    id: str
    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ChatReply:
    """One completion: its text, why it stopped, what it cost, and any reasoning or tool calls."""

    text: str
    finish_reason: str | None = "stop"
    usage: Usage = field(default_factory=Usage)
    reasoning: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    model: str | None = None


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What a :class:`ChatModel` was asked."""

    messages: tuple[ChatMessage, ...]
    max_tokens: int
    temperature: float | None = None
    tools: tuple[Mapping[str, Any], ...] = ()


class ChatModel(Protocol):
    """A chat-completions model. ``max_tokens`` bounds the whole completion, reasoning included."""

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> ChatReply: ...


Script = ChatReply | str | Callable[[ChatRequest], "ChatReply | str"]


class ScriptedChat:
    """A :class:`ChatModel` that answers from a script, in order, and records every request.

    A script entry is a :class:`ChatReply`, a plain text (a reply that
    stopped normally), or a function of the request. Running out of script is
    a :class:`~judges.errors.ModelError`.
    """

    def __init__(self, replies: Iterable[Script] = ()) -> None:
        self._script: list[Script] = list(replies)
        self.requests: list[ChatRequest] = []

    def add(self, *replies: Script) -> None:
        self._script.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._script)

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> ChatReply:
        request = ChatRequest(tuple(messages), max_tokens, temperature, tuple(tools))
        self.requests.append(request)
        if not self._script:
            raise ModelError(f"ScriptedChat has no reply left for request {len(self.requests)}")
        entry = self._script.pop(0)
        reply = entry(request) if callable(entry) else entry
        return ChatReply(reply) if isinstance(reply, str) else reply
