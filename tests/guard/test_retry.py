"""Retries: only retryable classes, bounded, with the sleep injected."""

from __future__ import annotations

from guard.errors import PreconditionFailed, ToolError
from guard.execute import CallOutcome
from guard.retry import RetryPolicy, call_with_retries

POLICY = RetryPolicy(max_attempts=4, initial_backoff_s=0.1, max_backoff_s=1.0, jitter_s=0.0)


class Flaky(Exception):
    pass


def classify(exc: BaseException) -> str:
    return "transient" if isinstance(exc, Flaky) else "internal"


def retryable(error_class: str) -> bool:
    return error_class in ("transient", "rate_limited")


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


async def run(script: Script, slept: list[float]) -> object:
    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    return await call_with_retries(script, policy=POLICY, classify=classify, retryable=retryable, sleep=sleep)


async def test_transient_failures_are_retried_until_success() -> None:
    slept: list[float] = []
    script = Script(
        Flaky(), CallOutcome(error=ToolError("busy", error_class="rate_limited")), CallOutcome(value=1)
    )
    retried = await run(script, slept)
    assert retried.outcome == CallOutcome(value=1)  # type: ignore[attr-defined]
    assert retried.retries == 2  # type: ignore[attr-defined]
    assert retried.error_classes == ("transient", "rate_limited")  # type: ignore[attr-defined]
    assert slept == [0.1, 0.2]


async def test_business_refusals_are_not_retried() -> None:
    slept: list[float] = []
    refusal = CallOutcome(error=PreconditionFailed("no"))
    retried = await run(Script(refusal), slept)
    assert retried.outcome is refusal  # type: ignore[attr-defined]
    assert retried.retries == 0  # type: ignore[attr-defined]
    assert slept == []


async def test_unretryable_exceptions_come_back_at_once() -> None:
    slept: list[float] = []
    retried = await run(Script(ValueError("bug")), slept)
    assert isinstance(retried.exception, ValueError)  # type: ignore[attr-defined]
    assert retried.error_classes == ("internal",)  # type: ignore[attr-defined]
    assert slept == []


async def test_attempts_are_bounded() -> None:
    slept: list[float] = []
    script = Script(Flaky(), Flaky(), Flaky(), Flaky(), CallOutcome(value=1))
    retried = await run(script, slept)
    assert isinstance(retried.exception, Flaky)  # type: ignore[attr-defined]
    assert retried.retries == 3  # type: ignore[attr-defined]
    assert script.calls == 4
    assert slept == [0.1, 0.2, 0.4]
