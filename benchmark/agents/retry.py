"""A bounded retry of chat completions that certainly did not happen: the only retry agents do.

:class:`RetryingChat` wraps a :class:`~judges.rubric.ChatModel`. A failure the
classifier calls ``rate_limited`` (HTTP 429) or ``transient`` (502, 503, a
connection refused before the request was sent) is repeated after the
peer's ``Retry-After``, or else an exponential wait, each capped at
``max_wait_s``, up to ``attempts`` attempts in all. Anything else — a
timeout (the model may have answered, and the wait was already long), a
400, a malformed body — is raised at once, and so is the last failure.

Why here and not in the runner: a long conversation that meets one 429 would
otherwise be thrown away whole and rerun, spending its tokens again and
adding to the load that caused the 429. A chat completion has no side
effects, so repeating one that was refused changes nothing in the trial.
The agent loop itself never retries. The sleep is injectable so that tests
do not wait.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from judges.classify import ErrorClass, classify
from judges.errors import ModelError
from judges.rubric import ChatMessage, ChatModel, ChatReply

__all__ = ["RetryingChat"]

log = logging.getLogger(__name__)

_RETRIED = (ErrorClass.RATE_LIMITED, ErrorClass.TRANSIENT)


class RetryingChat:
    """A :class:`~judges.rubric.ChatModel` that repeats refused requests (see the module docstring)."""

    def __init__(
        self,
        model: ChatModel,
        *,
        attempts: int = 3,
        base_wait_s: float = 1.0,
        max_wait_s: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.model = model
        self.attempts = attempts
        self.base_wait_s = base_wait_s
        self.max_wait_s = max_wait_s
        self._sleep = sleep

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> ChatReply:
        attempt = 1
        while True:
            try:
                return await self.model.complete(
                    messages, max_tokens=max_tokens, temperature=temperature, tools=tools
                )
            except ModelError as exc:
                found = classify(exc)
                if found.error_class not in _RETRIED or attempt >= self.attempts:
                    raise
                backoff = self.base_wait_s * 2 ** (attempt - 1)
                wait = min(found.retry_after if found.retry_after is not None else backoff, self.max_wait_s)
                log.warning(
                    "chat completion %s (%s); attempt %d in %.1fs",
                    found.error_class.value,
                    found.reason,
                    attempt + 1,
                    wait,
                )
                await self._sleep(wait)
                attempt += 1
