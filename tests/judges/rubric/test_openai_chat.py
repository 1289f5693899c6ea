"""OpenAIChat against the fake OpenAI-compatible server on a real loopback socket."""

from __future__ import annotations

import json
import socket

import httpx2
import pytest

from judges import ErrorClass, ModelError, RubricBudgetError, classify
from judges.rubric import ChatMessage, OpenAIChat, RubricJudge, ToolCall
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply


async def test_a_rubric_question_over_http(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script("YES")
    async with OpenAIChat(fake_openai.base_url, "judge-model") as model:
        answer = await RubricJudge(model, max_tokens=32).ask("Is the refund stated?", "Refunded $20.")
    assert answer.answer is True
    (request,) = fake_openai.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "judge-model"
    assert request.body["max_tokens"] == 32
    assert request.body["temperature"] == 0.0
    assert [m["role"] for m in request.body["messages"]] == ["system", "user"]
    assert "authorization" not in request.headers


async def test_no_temperature_for_models_that_refuse_it(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script("no")
    async with OpenAIChat(fake_openai.base_url, "o-model") as model:
        answer = await RubricJudge(model, temperature=None).ask("q", "m")
    assert answer.answer is False
    assert "temperature" not in fake_openai.requests[0].body


async def test_api_key_token_parameter_and_extra_body() -> None:
    with FakeOpenAIServer(["NO"], api_key="sk-test") as server:
        async with OpenAIChat(
            server.base_url,
            "m",
            api_key="sk-test",
            token_parameter="max_completion_tokens",
            extra_body={"reasoning_effort": "low"},
        ) as model:
            reply = await model.complete([ChatMessage("user", "hi")], max_tokens=16)
        assert reply.text == "NO"
        body = server.requests[0].body
        assert body["max_completion_tokens"] == 16
        assert "max_tokens" not in body
        assert body["reasoning_effort"] == "low"
        assert server.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_a_wrong_api_key_is_permission_denied() -> None:
    with FakeOpenAIServer(["NO"], api_key="sk-right") as server:
        async with OpenAIChat(server.base_url, "m", api_key="sk-wrong") as model:
            with pytest.raises(ModelError) as caught:
                await model.complete([ChatMessage("user", "hi")], max_tokens=16)
    assert caught.value.status_code == 401
    assert classify(caught.value).error_class is ErrorClass.PERMISSION_DENIED


async def test_reasoning_usage_and_finish_reason(fake_openai: FakeOpenAIServer) -> None:
    usage = {
        "prompt_tokens": 50,
        "completion_tokens": 64,
        "completion_tokens_details": {"reasoning_tokens": 64},
    }
    fake_openai.script(
        FakeReply("", reasoning="The customer asked for", finish_reason="length", usage=usage),
        FakeReply("YES", reasoning="short", reasoning_field="reasoning"),
    )
    async with OpenAIChat(fake_openai.base_url, "m") as model:
        with pytest.raises(RubricBudgetError, match=r"token budget \(64\).*64 reasoning"):
            await RubricJudge(model, max_tokens=64).ask("q", "m")
        reply = await model.complete([ChatMessage("user", "hi")], max_tokens=64)
    assert reply.reasoning == "short"
    assert reply.model == "m"


async def test_tool_calls_round_trip(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(
        FakeReply(None, tool_calls=[{"name": "get_order", "arguments": {"order_id": "ORD-1"}, "id": "c1"}]),
        "Your order ORD-1 is on its way.",
    )
    tools = [{"type": "function", "function": {"name": "get_order", "parameters": {"type": "object"}}}]
    async with OpenAIChat(fake_openai.base_url, "agent") as model:
        first = await model.complete([ChatMessage("user", "where is ORD-1?")], max_tokens=100, tools=tools)
        assert first.finish_reason == "tool_calls"
        assert first.text == ""
        assert first.tool_calls == (ToolCall("c1", "get_order", '{"order_id": "ORD-1"}'),)
        history = [
            ChatMessage("user", "where is ORD-1?"),
            ChatMessage("assistant", None, tool_calls=first.tool_calls),
            ChatMessage("tool", json.dumps({"status": "shipped"}), tool_call_id="c1"),
        ]
        second = await model.complete(history, max_tokens=100, tools=tools)
    assert second.text == "Your order ORD-1 is on its way."
    sent = fake_openai.requests[1].body
    assert sent["tools"] == tools
    assert sent["messages"][1]["tool_calls"][0]["function"]["name"] == "get_order"
    assert sent["messages"][2] == {"role": "tool", "content": '{"status": "shipped"}', "tool_call_id": "c1"}


async def test_scripted_functions_see_the_request(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(lambda body: FakeReply(f"you said {body['messages'][-1]['content']}"))
    async with OpenAIChat(fake_openai.base_url, "m") as model:
        assert (await model.complete([ChatMessage("user", "hi")], max_tokens=5)).text == "you said hi"


@pytest.mark.parametrize(
    ("status", "headers", "kind", "retry_after"),
    [
        (429, {"Retry-After": "3"}, ErrorClass.RATE_LIMITED, 3.0),
        (503, {}, ErrorClass.TRANSIENT, None),
        (400, {}, ErrorClass.INVALID_ARGUMENTS, None),
    ],
)
async def test_error_statuses_are_model_errors_the_classifier_reads(
    fake_openai: FakeOpenAIServer,
    status: int,
    headers: dict[str, str],
    kind: ErrorClass,
    retry_after: float | None,
) -> None:
    fake_openai.script(FakeReply(status=status, headers=headers))
    async with OpenAIChat(fake_openai.base_url, "m") as model:
        with pytest.raises(ModelError) as caught:
            await model.complete([ChatMessage("user", "hi")], max_tokens=5)
    assert caught.value.status_code == status
    found = classify(caught.value)
    assert (found.error_class, found.retry_after) == (kind, retry_after)


async def test_an_exhausted_script_answers_500(fake_openai: FakeOpenAIServer) -> None:
    async with OpenAIChat(fake_openai.base_url, "m") as model:
        with pytest.raises(ModelError, match="no scripted reply left for request 1"):
            await model.complete([ChatMessage("user", "hi")], max_tokens=5)


async def test_a_refused_connection_is_a_transient_model_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with OpenAIChat(f"http://127.0.0.1:{port}/v1", "m", timeout=2.0) as model:
        with pytest.raises(ModelError) as caught:
            await model.complete([ChatMessage("user", "hi")], max_tokens=5)
    assert isinstance(caught.value.__cause__, httpx2.ConnectError)
    assert classify(caught.value).error_class is ErrorClass.TRANSIENT


async def test_a_malformed_body_is_a_model_error() -> None:
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"choices": []}))
    async with OpenAIChat("http://model.test/v1", "m", transport=transport) as model:
        with pytest.raises(ModelError, match="malformed body"):
            await model.complete([ChatMessage("user", "hi")], max_tokens=5)


async def test_the_fake_lists_its_model_and_refuses_streaming(fake_openai: FakeOpenAIServer) -> None:
    async with httpx2.AsyncClient(base_url=fake_openai.base_url) as client:
        models = await client.get("/models")
        streamed = await client.post("/chat/completions", json={"messages": [], "stream": True})
    assert models.json()["data"][0]["id"] == "fake-model"
    assert streamed.status_code == 400
    assert fake_openai.remaining == 0
