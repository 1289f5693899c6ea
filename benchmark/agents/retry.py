"""A bounded retry of chat completions that certainly did not happen: the only retry agents do.

:class:`RetryingChat` wraps a :class:`~judges.rubric.ChatModel`. A failure the
classifier calls ``rate_limited`` (HTTP 429) or ``transient`` (502, 503, a
connection refused before the request was sent) is repeated after the
peer's ``Retry-After`` (seconds, or an HTTP date read against the caller's
clock), or else an exponential wait (``base_wait_s``, doubling), each capped
at ``max_wait_s``, up to ``attempts`` attempts in all. Anything else — a
timeout (the model may have answered, and the wait was already long), a
400, a malformed body, an exception that is not a
:class:`~judges.errors.ModelError` — is raised at once, and so is the last
failure, as it was raised.

Why here and not in the runner: a long conversation that meets one 429 would
otherwise be thrown away whole and rerun, spending its tokens again and
adding to the load that caused the 429. A chat completion has no side
effects, so repeating one that was refused changes nothing in the trial.
The agent loop itself never retries. The sleep and the clock are injectable
so that tests do not wait.

The loop is the guard's one retry loop (:func:`guard.retry.retry_loop`, tenacity's), with
this rule and this wait: not :func:`guard.retry.call_with_retries`, the guard's rule over tool
calls (a ``CallOutcome``, the repeat-safe/idempotent rule, a jittered backoff from the guard's
settings, no ``Retry-After``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from guard.clock import Clock, SystemClock
from guard.retry import RetryPolicy, retry_loop
from judges.classify import Classification, ErrorClass, classify
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
        clock: Clock | None = None,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.model = model
        self.attempts = attempts
        self.base_wait_s = base_wait_s
        self.max_wait_s = max_wait_s
        self._sleep = sleep
        self._clock = clock or SystemClock()
        self._policy = RetryPolicy(attempts, base_wait_s, max_wait_s, jitter_s=0.0)

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> ChatReply:
        retrying = retry_loop(
            self._policy,
            on_exception=self._refused,
            sleep=self._sleep,
            wait_for=self._retry_after,
            before_sleep=self._log,
        )
        reply: ChatReply = await retrying(
            self.model.complete, messages, max_tokens=max_tokens, temperature=temperature, tools=tools
        )
        return reply

    def _classify(self, error: BaseException) -> Classification:
        return classify(error, now=self._clock.now())

    def _refused(self, error: BaseException) -> bool:
        return isinstance(error, ModelError) and self._classify(error).error_class in _RETRIED

    def _retry_after(self, error: BaseException) -> float | None:
        return self._classify(error).retry_after

    def _log(self, error: BaseException | None, attempt: int, wait: float) -> None:
        assert error is not None  # only refusals are repeated
        found = self._classify(error)
        log.warning(
            "chat completion %s (%s); attempt %d in %.1fs",
            found.error_class.value,
            found.reason,
            attempt,
            wait,
        )
