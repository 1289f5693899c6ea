"""RetryingChat: which refused chat completions are repeated, how often, and after what wait."""

from __future__ import annotations

import pytest

from benchmark.agents import RetryingChat
from guard.clock import FixedClock
from judges.errors import ModelError
from judges.rubric import OpenAIChat, ScriptedChat
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

DUE = "Wed, 21 Oct 2015 07:28:00 GMT"


async def test_rate_limits_are_retried_after_the_servers_delay() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    script = [
        FakeReply(status=429, headers={"Retry-After": "2"}),
        FakeReply(status=503),
        FakeReply("fine"),
    ]
    with FakeOpenAIServer(script) as server:
        async with OpenAIChat(server.base_url, "m") as chat:
            reply = await RetryingChat(chat, attempts=3, base_wait_s=0.5, sleep=sleep).complete(
                [], max_tokens=10
            )
    assert reply.text == "fine"
    assert slept == [2.0, 1.0]


async def test_retries_are_bounded_and_classified() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    script = [FakeReply(status=429, headers={"Retry-After": "120"})] * 3 + [FakeReply(status=500)]
    with FakeOpenAIServer(script) as server:
        async with OpenAIChat(server.base_url, "m") as chat:
            retrying = RetryingChat(chat, attempts=3, max_wait_s=5.0, sleep=sleep)
            with pytest.raises(ModelError) as limited:
                await retrying.complete([], max_tokens=10)
            with pytest.raises(ModelError) as broken:
                await retrying.complete([], max_tokens=10)
        assert len(server.requests) == 4
    assert limited.value.status_code == 429
    assert broken.value.status_code == 500
    assert slept == [5.0, 5.0]
    with pytest.raises(ValueError, match="attempts"):
        RetryingChat(ScriptedChat(), attempts=0)


@pytest.mark.parametrize(
    ("now", "waited"),
    [
        ("2015-10-21T07:27:40+00:00", 20.0),
        ("2015-10-21T06:28:00+00:00", 30.0),
        ("2015-10-21T07:30:00+00:00", 0.0),
    ],
    ids=["ahead", "beyond-max-wait", "passed"],
)
async def test_an_http_date_retry_after_is_read_against_the_callers_clock(now: str, waited: float) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    script = [FakeReply(status=429, headers={"Retry-After": DUE}), FakeReply("fine")]
    with FakeOpenAIServer(script) as server:
        async with OpenAIChat(server.base_url, "m") as chat:
            retrying = RetryingChat(chat, max_wait_s=30.0, sleep=sleep, clock=FixedClock(now))
            reply = await retrying.complete([], max_tokens=10)
    assert reply.text == "fine"
    assert slept == [waited]


async def test_each_wait_reads_the_clock_when_it_is_due() -> None:
    clock = FixedClock("2015-10-21T07:27:40+00:00")
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(seconds)

    refused = FakeReply(status=503, headers={"Retry-After": DUE})
    with FakeOpenAIServer([refused, refused, FakeReply("fine")]) as server:
        async with OpenAIChat(server.base_url, "m") as chat:
            reply = await RetryingChat(chat, sleep=sleep, clock=clock).complete([], max_tokens=10)
        assert len(server.requests) == 3
    assert reply.text == "fine"
    assert slept == [20.0, 0.0]
