"""Retries: only retryable classes, bounded, with the sleep injected."""

from __future__ import annotations

import pytest

from guard.errors import PreconditionFailed, ToolError
from guard.retry import Retried, RetryPolicy, RetryRules, call_with_retries, retry_loop
from guard.transaction.execute import CallOutcome
from judges.classify import ErrorClass

POLICY = RetryPolicy(max_attempts=4, initial_backoff_s=0.1, max_backoff_s=1.0, jitter_s=0.0)


class Flaky(Exception):
    pass


def classify(failure: object) -> ErrorClass:
    return ErrorClass.TRANSIENT if isinstance(failure, Flaky) else ErrorClass.INTERNAL


def retryable(error_class: ErrorClass, repeat_safe: bool, idempotent: bool) -> bool:
    return error_class in (ErrorClass.TRANSIENT, ErrorClass.RATE_LIMITED)


class Script:
    def __init__(self, *steps: object) -> None:
        self.steps = list(steps)
        self.calls = 0

    async def __call__(self) -> CallOutcome:
        self.calls += 1
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        assert isinstance(step, CallOutcome)
        return step


async def run(script: Script, slept: list[float]) -> Retried:
    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    rules = RetryRules(POLICY, classify, retryable, sleep)
    return await call_with_retries(script, rules, repeat_safe=True, idempotent=False)


async def test_transient_failures_are_retried_until_success() -> None:
    slept: list[float] = []
    script = Script(
        Flaky(),
        CallOutcome(error=ToolError("busy", error_class=ErrorClass.RATE_LIMITED)),
        CallOutcome(value=1),
    )
    retried = await run(script, slept)
    assert retried.outcome == CallOutcome(value=1)
    assert retried.retries == 2
    assert retried.error_classes == ("transient", "rate_limited")
    assert slept == [0.1, 0.2]


async def test_business_refusals_are_not_retried() -> None:
    slept: list[float] = []
    refusal = CallOutcome(error=PreconditionFailed("no"))
    retried = await run(Script(refusal), slept)
    assert retried.outcome is refusal
    assert retried.retries == 0
    assert slept == []


async def test_unretryable_exceptions_come_back_at_once() -> None:
    slept: list[float] = []
    retried = await run(Script(ValueError("bug")), slept)
    assert isinstance(retried.exception, ValueError)
    assert retried.error_classes == ("internal",)
    assert slept == []


async def test_attempts_are_bounded() -> None:
    slept: list[float] = []
    script = Script(Flaky(), Flaky(), Flaky(), Flaky(), CallOutcome(value=1))
    retried = await run(script, slept)
    assert isinstance(retried.exception, Flaky)
    assert retried.retries == 3
    assert script.calls == 4
    assert slept == [0.1, 0.2, 0.4]


async def test_one_attempt_is_given_back_as_it_came() -> None:
    """With one attempt allowed, the first failure is the answer: no sleep, no repeat."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    rules = RetryRules(RetryPolicy(max_attempts=1), classify, retryable, sleep)
    script = Script(Flaky("down"))
    retried = await call_with_retries(script, rules, repeat_safe=True, idempotent=False)
    assert isinstance(retried.exception, Flaky)
    assert (retried.retries, retried.error_classes, script.calls, slept) == (
        0,
        (ErrorClass.TRANSIENT,),
        1,
        [],
    )


async def test_the_loop_waits_what_the_failure_names_capped_and_says_so() -> None:
    """retry_loop: a wait the failure names (Retry-After) replaces the backoff, capped at max_backoff_s;
    each repeat is told before its sleep; the last failure is raised as it was."""
    slept: list[float] = []
    told: list[tuple[str, int, float]] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    named = {"a": 0.5, "b": 9.0, "c": None}
    failures = [Flaky("a"), Flaky("b"), Flaky("c")]

    async def attempt() -> None:
        raise failures.pop(0)

    retrying = retry_loop(
        RetryPolicy(max_attempts=3, initial_backoff_s=0.1, max_backoff_s=1.0, jitter_s=0.0),
        on_exception=lambda exc: isinstance(exc, Flaky),
        sleep=sleep,
        wait_for=lambda exc: named[str(exc)],
        before_sleep=lambda exc, n, wait: told.append((str(exc), n, wait)),
    )
    with pytest.raises(Flaky, match="c"):
        await retrying(attempt)
    assert slept == [0.5, 1.0]
    assert told == [("a", 2, 0.5), ("b", 3, 1.0)]
