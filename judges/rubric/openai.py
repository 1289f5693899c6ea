"""An OpenAI-compatible chat-completions client (vLLM, Ollama, OpenAI, Azure-style gateways).

One POST to ``{base_url}/chat/completions`` per call, no streaming and no
retries (the caller decides, with :func:`judges.classify.retryable`). Any
failure is a :class:`~judges.errors.ModelError` carrying the HTTP status and
headers when there was a response, and the transport error as its cause when
there was not. This is the only module that imports ``httpx2``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Literal

import httpx2

from judges.errors import ModelError
from judges.rubric.model import ChatMessage, ChatReply, ToolCall, Usage

__all__ = ["OpenAIChat"]


class OpenAIChat:
    """A :class:`~judges.rubric.model.ChatModel` over HTTP.

    ``token_parameter`` names the budget field: ``max_tokens`` (most servers)
    or ``max_completion_tokens`` (OpenAI's reasoning models). ``extra_body``
    is merged into every request (e.g. ``{"reasoning_effort": "low"}``).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        token_parameter: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
        extra_body: Mapping[str, Any] | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.token_parameter = token_parameter
        self.extra_body = dict(extra_body or {})
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)), headers=headers, transport=transport
        )

    def __repr__(self) -> str:
        return f"OpenAIChat({self.base_url!r}, model={self.model!r})"

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> OpenAIChat:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> ChatReply:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [message.to_dict() for message in messages],
            self.token_parameter: max_tokens,
        }
        if temperature is not None:
            body["temperature"] = temperature
        if tools:
            body["tools"] = [dict(tool) for tool in tools]
        body.update(self.extra_body)
        url = f"{self.base_url}/chat/completions"
        try:
            response = await self._client.post(url, json=body)
        except httpx2.HTTPError as exc:
            raise ModelError(
                f"chat completions request to {url} failed: {type(exc).__name__}: {exc}"
            ) from exc
        if response.status_code >= 400:
            raise ModelError(
                f"chat completions at {url} answered HTTP {response.status_code}: {response.text[:300]}",
                status_code=response.status_code,
                headers=dict(response.headers),
            )
        try:
            return _reply(response.json())
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ModelError(f"chat completions at {url} sent a malformed body: {exc}") from exc


def _reply(payload: Any) -> ChatReply:
    choice = payload["choices"][0]
    message = choice["message"]
    usage = payload.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    calls = tuple(
        ToolCall(
            str(call["id"]), str(call["function"]["name"]), str(call["function"].get("arguments") or "{}")
        )
        for call in message.get("tool_calls") or ()
    )
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    return ChatReply(
        text=message.get("content") or "",
        finish_reason=choice.get("finish_reason"),
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            reasoning_tokens=int(details.get("reasoning_tokens") or 0),
        ),
        reasoning=str(reasoning) if reasoning else None,
        tool_calls=calls,
        model=payload.get("model"),
    )
