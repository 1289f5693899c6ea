"""The ``openai`` agent when things go wrong: bad tool calls, failing models, endless conversations."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmark.agents import (
    AgentTask,
    ModelCallError,
    OpenAIAgent,
    RetryingChat,
    ToolInfo,
    UserSimulator,
    UserSimulatorError,
    build_openai_agent,
)
from benchmark.agents.chat import function_tools, visible_text
from benchmark.agents.prompts import STOP_TOKEN, agent_system_prompt
from benchmark.agents.user import Turn, parse_user_reply
from judges.errors import ModelError
from judges.rubric import ChatReply, OpenAIChat, ScriptedChat, ToolCall, Usage
from tests.benchmark.agents.conftest import baseline
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

TASK = AgentTask(
    "shop.py:test_x", "shop", "Where is my parcel?", "Order ORD-10000020.", "Be kind.", "baseline", 0, 0
)


def tool_reply(*calls: tuple[str, str]) -> ChatReply:
    return ChatReply(
        "",
        "tool_calls",
        tool_calls=tuple(ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(calls)),
    )


async def test_bad_tool_calls_are_answered_without_reaching_the_tools(tmp_path: Path) -> None:
    model = ScriptedChat(
        [
            tool_reply(("get_ticket", "{not json"), ("get_ticket", "[20]"), ("delete_everything", "{}")),
            "Sorry, something went wrong on my side.",
        ]
    )
    agent = OpenAIAgent(model, UserSimulator(ScriptedChat([STOP_TOKEN])))
    async with baseline(tmp_path) as arm:
        outcome = await agent.run(TASK, arm.channel, random.Random(0))
        assert arm.channel.calls == []
    answers = model.requests[1].messages[-3:]
    assert [m.role for m in answers] == ["tool", "tool", "tool"]
    assert [m.tool_call_id for m in answers] == ["c0", "c1", "c2"]
    assert answers[0].content is not None
    assert answers[0].content.startswith("Error: the arguments of get_ticket are not valid JSON")
    assert answers[1].content == "Error: the arguments of get_ticket must be a JSON object."
    assert answers[2].content == "Error: there is no tool named 'delete_everything'."
    assert outcome.notes["malformed_arguments"] == 2
    assert outcome.notes["unknown_tools"] == 1
    assert outcome.notes["tool_calls"] == 3
    assert outcome.final_message == "Sorry, something went wrong on my side."


async def test_a_failing_tool_is_marked_as_an_error(tmp_path: Path) -> None:
    model = ScriptedChat([tool_reply(("get_ticket", '{"ticket_id": 404}')), "No such ticket."])
    agent = OpenAIAgent(model, UserSimulator(ScriptedChat([STOP_TOKEN])))
    async with baseline(tmp_path) as arm:
        outcome = await agent.run(TASK, arm.channel, random.Random(0))
    answer = model.requests[1].messages[-1]
    assert answer.content == "Error: ticket 404 not found"
    assert outcome.notes["tool_errors"] == 1
    assert outcome.notes["calls"] == [{"tool": "get_ticket", "arguments": {"ticket_id": 404}, "error": True}]


async def test_a_model_http_error_is_a_model_call_error_and_is_not_retried(tmp_path: Path) -> None:
    with FakeOpenAIServer([FakeReply(status=400)]) as server:
        chat = OpenAIChat(server.base_url, "m")
        agent = OpenAIAgent(RetryingChat(chat), UserSimulator(ScriptedChat()))
        try:
            async with baseline(tmp_path) as arm:
                with pytest.raises(ModelCallError, match=r"the agent model failed: .*HTTP 400") as caught:
                    await agent.run(TASK, arm.channel, random.Random(0))
        finally:
            await chat.aclose()
        assert len(server.requests) == 1
    assert caught.value.role == "agent"
    assert caught.value.task == TASK.id
    assert caught.value.status_code == 400
    assert caught.value.error_class == "invalid_arguments"
    assert isinstance(caught.value.__cause__, ModelError)


async def test_a_failing_user_simulator_is_a_model_call_error(tmp_path: Path) -> None:
    with FakeOpenAIServer([FakeReply(status=500)]) as server:
        chat = OpenAIChat(server.base_url, "m")
        agent = OpenAIAgent(ScriptedChat(["Hello, how can I help?"]), UserSimulator(chat))
        try:
            async with baseline(tmp_path) as arm:
                with pytest.raises(ModelCallError, match="the user model failed") as caught:
                    await agent.run(TASK, arm.channel, random.Random(0))
        finally:
            await chat.aclose()
    assert caught.value.role == "user"
    assert caught.value.error_class == "internal"


async def test_an_empty_user_reply_is_a_user_simulator_error(tmp_path: Path) -> None:
    silent = ChatReply("<think>The customer should", "length", Usage(completion_tokens=1024))
    agent = OpenAIAgent(ScriptedChat(["Hello?"]), UserSimulator(ScriptedChat([silent])))
    async with baseline(tmp_path) as arm:
        with pytest.raises(UserSimulatorError, match=r"empty reply .*'length', 1024 completion tokens"):
            await agent.run(TASK, arm.channel, random.Random(0))


async def test_a_conversation_that_never_ends_stops_at_max_turns(tmp_path: Path) -> None:
    model = ScriptedChat(["Anything else?"] * 3)
    user = ScriptedChat(["Hm.", "Hm."])
    agent = OpenAIAgent(model, UserSimulator(user), max_turns=3)
    async with baseline(tmp_path) as arm:
        outcome = await agent.run(TASK, arm.channel, random.Random(0))
    assert outcome.notes["stop"] == "max_turns"
    assert outcome.notes["turns"] == 3
    assert user.remaining == 0
    assert model.remaining == 0


async def test_an_agent_that_only_calls_tools_stops_at_max_tool_calls(tmp_path: Path) -> None:
    model = ScriptedChat(
        [tool_reply(("get_ticket", '{"ticket_id": 20}'), ("get_ticket", '{"ticket_id": 21}'))] * 3
    )
    agent = OpenAIAgent(model, UserSimulator(ScriptedChat()), max_tool_calls=5, max_tokens=77)
    async with baseline(tmp_path) as arm:
        outcome = await agent.run(TASK, arm.channel, random.Random(0))
        assert len(arm.channel.calls) == 5
    assert outcome.notes["stop"] == "max_tool_calls"
    assert outcome.final_message == ""
    assert {request.max_tokens for request in model.requests} == {77}


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="positive"):
        OpenAIAgent(ScriptedChat(), UserSimulator(ScriptedChat()), max_turns=0)
    with pytest.raises(ValueError, match="positive"):
        UserSimulator(ScriptedChat(), max_tokens=0)


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("It is ticket 20.", ("It is ticket 20.", False)),
        (STOP_TOKEN, ("", True)),
        (f"Thanks, bye! {STOP_TOKEN}", ("Thanks, bye!", True)),
        (f"<think>maybe {STOP_TOKEN}?</think> My ticket is 20.", ("My ticket is 20.", False)),
        ("<think>still thinking", ("", False)),
    ],
)
def test_the_stop_token_is_parsed_deterministically(raw: str, parsed: tuple[str, bool]) -> None:
    assert parse_user_reply(raw) == parsed


def test_the_user_simulator_sees_the_conversation_from_its_side() -> None:
    user = UserSimulator(ScriptedChat(), stop_token="<<END>>")
    dialogue = [
        Turn("user", TASK.query),
        Turn("agent", "Which order?"),
        Turn("user", "ORD-1"),
        Turn("agent", ""),
    ]
    rendered = user.messages(TASK, dialogue)
    assert [(m.role, m.content) for m in rendered[1:]] == [
        ("user", "Which order?"),
        ("assistant", "ORD-1"),
        ("user", "(the agent sent an empty message)"),
    ]
    system = rendered[0].content or ""
    assert TASK.query in system
    assert TASK.user_context in system
    assert "<<END>>" in system


def test_tools_become_chat_completion_functions() -> None:
    tools = [
        ToolInfo(
            "a", "first", {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
        ),
        ToolInfo("b", "", {}),
    ]
    assert function_tools(tools) == [
        {
            "type": "function",
            "function": {
                "name": "a",
                "description": "first",
                "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
            },
        },
        {
            "type": "function",
            "function": {"name": "b", "description": "", "parameters": {"type": "object", "properties": {}}},
        },
    ]


def test_prompts_and_visible_text() -> None:
    assert agent_system_prompt("Policy.", None) == "Policy."
    guarded = agent_system_prompt("Policy.\n", "commit_now")
    assert guarded.startswith("Policy.\n\n## Saving your changes")
    assert "`commit_now`" in guarded
    assert visible_text("<think>a</think>\n Hello <think>b</think>there ") == "Hello there"


async def test_an_empty_api_key_sends_no_authorization(tmp_path: Path) -> None:
    with FakeOpenAIServer(["Hello.", STOP_TOKEN]) as server:
        agent = build_openai_agent(model="m", base_url=server.base_url, api_key="")
        try:
            async with baseline(tmp_path) as arm:
                outcome = await agent.run(TASK, arm.channel, random.Random(0))
        finally:
            await agent.aclose()
        assert [request.body["model"] for request in server.requests] == ["m", "m"]
        assert all("authorization" not in request.headers for request in server.requests)
    assert outcome.notes["stop"] == "user"
