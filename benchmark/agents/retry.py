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

The loop is tenacity's, and this is the benchmark's one module that imports
it (the guard's is :mod:`guard.retry`). It does not go through
:func:`guard.retry.call_with_retries`: that wrapper is the guard's loop over
tool calls (a ``CallOutcome``, the repeat-safe/idempotent rule, a jittered
backoff from the guard's settings, no ``Retry-After``), and a chat completion
has another result, another rule and a wait the server sets.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential

from guard.clock import Clock, SystemClock
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
        self._backoff = wait_exponential(multiplier=base_wait_s, max=max_wait_s)

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> ChatReply:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.attempts),
            retry=retry_if_exception(self._refused),
            wait=self._wait,
            before_sleep=self._log,
            sleep=self._sleep,
            reraise=True,
        )
        reply: ChatReply = await retrying(
            self.model.complete, messages, max_tokens=max_tokens, temperature=temperature, tools=tools
        )
        return reply

    def _classify(self, error: BaseException) -> Classification:
        return classify(error, now=self._clock.now())

    def _refused(self, error: BaseException) -> bool:
        return isinstance(error, ModelError) and self._classify(error).error_class in _RETRIED

    def _wait(self, state: RetryCallState) -> float:
        retry_after = self._classify(_failure(state)).retry_after
        if retry_after is None:
            return float(self._backoff(state))
        return min(retry_after, self.max_wait_s)

    def _log(self, state: RetryCallState) -> None:
        found = self._classify(_failure(state))
        log.warning(
            "chat completion %s (%s); attempt %d in %.1fs",
            found.error_class.value,
            found.reason,
            state.attempt_number + 1,
            state.upcoming_sleep,
        )


def _failure(state: RetryCallState) -> BaseException:
    """The exception the attempt just made raised (tenacity asks to wait only after a refusal)."""
    assert state.outcome is not None
    error = state.outcome.exception()
    assert error is not None
    return error
