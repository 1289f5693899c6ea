"""Retries of recoverable failures, with tenacity; the one module that imports it.

A call is retried when it raised, or returned a tool error, whose class the
classifier says is retryable for this call (transient and rate-limited
always; a timeout only inside a SQL transaction, where the savepoint makes
a repeat safe, or when the tool is idempotent). Backoff is exponential with
jitter; the sleep function is injectable so tests do not wait.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    retry_if_result,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from guard.settings import RetrySettings
from guard.transaction.execute import CallOutcome
from judges.classify import ErrorClass, classify, retryable

__all__ = ["Retried", "RetryPolicy", "RetryRules", "call_with_retries", "classify_error"]

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 4
    initial_backoff_s: float = 0.05
    max_backoff_s: float = 2.0
    jitter_s: float = 0.05

    @classmethod
    def from_settings(cls, settings: RetrySettings) -> RetryPolicy:
        return cls(
            settings.max_attempts, settings.initial_backoff_s, settings.max_backoff_s, settings.jitter_s
        )


def classify_error(failure: object) -> ErrorClass:
    """The classifier's class for a failure (an exception, a tool error result or error text)."""
    return classify(failure).error_class


@dataclass(frozen=True, slots=True)
class RetryRules:
    """What the guard retries and how, as one value: built once per runtime and handed down.

    ``classify`` names a failure's class; ``retryable(error_class,
    repeat_safe, idempotent)`` says whether a call may be repeated after it;
    ``policy`` is the backoff, ``sleep`` how to wait (tests pass one that
    does not).
    """

    policy: RetryPolicy = RetryPolicy()
    classify: Callable[[object], ErrorClass] = classify_error
    retryable: Callable[[ErrorClass, bool, bool], bool] = retryable
    sleep: Sleep = asyncio.sleep

    @classmethod
    def from_settings(cls, settings: RetrySettings, *, sleep: Sleep | None = None) -> RetryRules:
        return cls(RetryPolicy.from_settings(settings), sleep=sleep or asyncio.sleep)

    def with_policy(self, policy: RetryPolicy) -> RetryRules:
        """The same rules with another backoff (the outbox's dispatch has its own)."""
        return replace(self, policy=policy)


@dataclass(frozen=True, slots=True)
class Retried:
    """A call's final outcome (or the exception it ended with) and how often it was repeated."""

    outcome: CallOutcome | None
    exception: Exception | None
    retries: int
    error_classes: tuple[ErrorClass, ...]


def _give_back(state: RetryCallState) -> Any:
    assert state.outcome is not None
    return state.outcome.result()


def _later_attempts(
    policy: RetryPolicy, sleep: Callable[[float], Awaitable[None]], retry: Any
) -> AsyncRetrying:
    """Tenacity's loop over the 2nd, 3rd, ... attempts: its exponential waits start one step later."""
    return AsyncRetrying(
        stop=stop_after_attempt(policy.max_attempts - 1),
        wait=wait_exponential(multiplier=policy.initial_backoff_s * 2, max=policy.max_backoff_s)
        + wait_random(0, policy.jitter_s),
        retry=retry,
        sleep=sleep,
        reraise=True,
        retry_error_callback=_give_back,
    )


async def call_with_retries(
    attempt: Callable[[], Awaitable[CallOutcome]], rules: RetryRules, *, repeat_safe: bool, idempotent: bool
) -> Retried:
    """Run ``attempt`` until it succeeds, fails for good, or the attempts run out.

    The last outcome, or the last exception, is returned with the number of
    repeats; cancellation and other ``BaseException``s propagate untouched.
    The first attempt runs outside tenacity (most calls need no second one,
    and building a retry loop for each would cost more than the call); a
    retryable first failure hands the remaining attempts to tenacity, with
    the backoff it would have used.
    """
    seen: list[ErrorClass] = []
    policy, sleep = rules.policy, rules.sleep

    def exception_retryable(exc: BaseException) -> bool:
        if not isinstance(exc, Exception):
            return False
        error_class = rules.classify(exc)
        seen.append(error_class)
        return rules.retryable(error_class, repeat_safe, idempotent)

    def outcome_retryable(outcome: CallOutcome) -> bool:
        if outcome.ok or outcome.error_class is None:
            return False
        seen.append(outcome.error_class)
        return rules.retryable(outcome.error_class, repeat_safe, idempotent)

    try:
        first = await attempt()
    except Exception as exc:
        if not exception_retryable(exc) or policy.max_attempts == 1:
            return Retried(None, exc, 0, tuple(seen))
    else:
        if not outcome_retryable(first) or policy.max_attempts == 1:
            return Retried(first, None, 0, tuple(seen))

    retrying = _later_attempts(
        policy, sleep, retry_if_exception(exception_retryable) | retry_if_result(outcome_retryable)
    )
    attempts = 1

    async def counted() -> CallOutcome:
        nonlocal attempts
        attempts += 1
        return await attempt()

    await sleep(min(policy.initial_backoff_s, policy.max_backoff_s) + random.uniform(0, policy.jitter_s))
    try:
        outcome: CallOutcome = await retrying(counted)
    except Exception as exc:
        # the retry predicate has classified every failed attempt, this last one included
        return Retried(None, exc, attempts - 1, tuple(seen))
    return Retried(outcome, None, attempts - 1, tuple(seen))
