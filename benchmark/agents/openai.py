"""The ``openai`` agent: a tool-calling model over any OpenAI-compatible chat-completions endpoint.

The model plays the support agent. Its system prompt is the scenario's
``bot_instructions`` (plus, in the guarded arm, how to commit: :mod:`.prompts`),
its tools are the channel's tools as chat-completions functions, and its
first user message is the task's query, verbatim. The loop:

* a reply with tool calls: each call goes through the channel, in order, and
  its result text comes back as a ``tool`` message (``Error: `` in front when
  the tool failed). Arguments that are not a JSON object, and tool names the
  channel does not list, are answered with an error message without reaching
  the channel;
* a reply without tool calls is a message to the customer: it goes to the
  :class:`~benchmark.agents.user.UserSimulator`, whose answer comes back as
  the next user message.

In the guarded arm the guard is handed the conversation, as a host hands it
over: with each tool call that reaches the channel, the customer's messages and
the model's visible texts (those it sends with tool calls included) not yet
handed over (``conversation=False``, ``guard bench --no-conversation``: none).

The conversation ends when the customer ends it (the stop token), after
``max_turns`` messages to the customer, or when the model asks for more than
``max_tool_calls`` tool calls. The final message is the agent's last message
to the customer. Whether the agent committed is reported, not enforced: the
runner commits through the admin API for an agent that never did.

A model that fails (HTTP error, unreachable, malformed body) raises
:class:`~benchmark.agents.errors.ModelCallError`, a system error of the trial;
the loop never retries (:class:`~benchmark.agents.retry.RetryingChat` may, below
it). Tokens: the outcome's totals are the agent model's alone (what the
system under test costs); the user simulator's are in ``notes``.

``AgentOutcome.notes``: ``stop`` (``user``, ``max_turns``, ``max_tool_calls``),
``turns``, ``model_calls``, ``tool_calls`` (every call the model asked for,
bad ones and commits included), ``tool_errors``,
``malformed_arguments``, ``unknown_tools``, ``length_stops`` (replies cut at
the token budget), ``reasoning_tokens``, ``user_prompt_tokens``,
``user_completion_tokens``, ``commit_calls``, ``commits`` (each status),
``commit_status`` (the last), ``committed``, ``calls`` (every tool call made:
tool, arguments, error) and ``dialogue`` (the visible conversation).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmark.agents.base import AgentOutcome, AgentTask, ToolChannel
from benchmark.agents.chat import complete, function_tools, visible_text
from benchmark.agents.commit import read_commit
from benchmark.agents.prompts import agent_system_prompt
from benchmark.agents.retry import RetryingChat
from benchmark.agents.user import Turn, UserSimulator
from judges import Role
from judges import Turn as Said
from judges.rubric import ChatMessage, ChatModel, OpenAIChat, ToolCall

__all__ = ["OpenAIAgent", "build_openai_agent"]


@dataclass
class _Tally:
    """One conversation's counters (the agent object itself is shared by concurrent trials)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    user_prompt_tokens: int = 0
    user_completion_tokens: int = 0
    model_calls: int = 0
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    malformed_arguments: int = 0
    unknown_tools: int = 0
    length_stops: int = 0
    commits: list[str | None] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    said: list[Said] = field(default_factory=list)
    handed_over: int = 0

    def say(self, role: Role, text: str) -> None:
        """A visible text of the conversation, for the guard (blank ones are not turns)."""
        if text.strip():
            self.said.append(Said(role, text))

    def unsaid(self) -> tuple[Said, ...]:
        """The turns not handed over yet; from now on, handed over."""
        turns, self.handed_over = tuple(self.said[self.handed_over :]), len(self.said)
        return turns


class OpenAIAgent:
    """A tool-calling agent over a :class:`~judges.rubric.ChatModel`, talking to a simulated customer."""

    name = "openai"

    def __init__(
        self,
        model: ChatModel,
        user: UserSimulator,
        *,
        max_turns: int = 20,
        max_tool_calls: int = 60,
        max_tokens: int = 4096,
        temperature: float | None = None,
        clients: Sequence[OpenAIChat] = (),
        conversation: bool = True,
    ) -> None:
        if min(max_turns, max_tool_calls, max_tokens) < 1:
            raise ValueError("max_turns, max_tool_calls and max_tokens must be positive")
        self.model = model
        self.user = user
        self.max_turns = max_turns
        self.max_tool_calls = max_tool_calls
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.conversation = conversation
        self._clients = list(clients)

    async def aclose(self) -> None:
        """Close ``clients`` (the HTTP clients :func:`build_openai_agent` opened for this agent)."""
        while self._clients:
            await self._clients.pop().aclose()

    async def run(self, task: AgentTask, channel: ToolChannel, rng: random.Random) -> AgentOutcome:
        tally = _Tally(said=[Said(Role.USER, task.query)])
        tools = function_tools(channel.tools)
        names = {tool.name for tool in channel.tools}
        messages = [
            ChatMessage("system", agent_system_prompt(task.instructions, channel.commit_tool)),
            ChatMessage("user", task.query),
        ]
        dialogue = [Turn("user", task.query)]
        final = ""
        stop = ""
        while not stop:
            reply = await complete(
                self.model,
                messages,
                role="agent",
                task=task.id,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                tools=tools,
            )
            tally.model_calls += 1
            tally.prompt_tokens += reply.usage.prompt_tokens
            tally.completion_tokens += reply.usage.completion_tokens
            tally.reasoning_tokens += reply.usage.reasoning_tokens
            tally.length_stops += int(reply.finish_reason == "length")
            if reply.tool_calls:
                messages.append(ChatMessage("assistant", reply.text or None, tool_calls=reply.tool_calls))
                tally.say(Role.ASSISTANT, visible_text(reply.text or ""))
                for call in reply.tool_calls:
                    if tally.tool_calls >= self.max_tool_calls:
                        stop = "max_tool_calls"
                        break
                    text = await self._tool(call, channel, names, tally)
                    messages.append(ChatMessage("tool", text, tool_call_id=call.id))
                continue
            final = visible_text(reply.text)
            messages.append(ChatMessage("assistant", reply.text))
            dialogue.append(Turn("agent", final))
            tally.say(Role.ASSISTANT, final)
            tally.turns += 1
            if tally.turns >= self.max_turns:
                stop = "max_turns"
                break
            answer = await self.user.reply(task, dialogue)
            tally.user_prompt_tokens += answer.usage.prompt_tokens
            tally.user_completion_tokens += answer.usage.completion_tokens
            if answer.text:
                dialogue.append(Turn("user", answer.text))
                tally.say(Role.USER, answer.text)
            if answer.stop:
                stop = "user"
            else:
                messages.append(ChatMessage("user", answer.text))
        return AgentOutcome(
            final_message=final,
            prompt_tokens=tally.prompt_tokens,
            completion_tokens=tally.completion_tokens,
            notes=_notes(tally, stop, dialogue),
            final_turns=tally.unsaid() if self.conversation else None,
        )

    async def _tool(self, call: ToolCall, channel: ToolChannel, names: set[str], tally: _Tally) -> str:
        """Run one tool call; the text the model gets back."""
        tally.tool_calls += 1
        if call.name not in names:
            tally.unknown_tools += 1
            return f"Error: there is no tool named {call.name!r}."
        try:
            arguments = json.loads(call.arguments or "{}")
        except ValueError as exc:
            tally.malformed_arguments += 1
            return f"Error: the arguments of {call.name} are not valid JSON ({exc}); send one JSON object."
        if not isinstance(arguments, Mapping):
            tally.malformed_arguments += 1
            return f"Error: the arguments of {call.name} must be a JSON object."
        said = tally.unsaid() if self.conversation else None
        result = await channel.call(call.name, arguments, conversation=said)
        tally.tool_errors += int(result.is_error)
        tally.calls.append({"tool": call.name, "arguments": arguments, "error": result.is_error})
        if call.name == channel.commit_tool:
            tally.commits.append(read_commit(result).status)
        text = result.text
        if not text and result.structured is not None:
            text = json.dumps(result.structured, ensure_ascii=False)
        if not result.is_error or text.startswith("Error:"):
            return text  # tau-bench's tools say "Error: ..." themselves
        return f"Error: {text}"


def _notes(tally: _Tally, stop: str, dialogue: list[Turn]) -> dict[str, Any]:
    return {
        "stop": stop,
        "turns": tally.turns,
        "model_calls": tally.model_calls,
        "tool_calls": tally.tool_calls,
        "tool_errors": tally.tool_errors,
        "malformed_arguments": tally.malformed_arguments,
        "unknown_tools": tally.unknown_tools,
        "length_stops": tally.length_stops,
        "reasoning_tokens": tally.reasoning_tokens,
        "user_prompt_tokens": tally.user_prompt_tokens,
        "user_completion_tokens": tally.user_completion_tokens,
        "commit_calls": len(tally.commits),
        "commits": list(tally.commits),
        "commit_status": tally.commits[-1] if tally.commits else None,
        "committed": "committed" in tally.commits,
        "calls": tally.calls,
        "dialogue": [{"speaker": turn.speaker, "text": turn.text} for turn in dialogue],
    }


def build_openai_agent(
    *,
    model: str,
    base_url: str,
    api_key: str | None,
    user_model: str | None = None,
    user_base_url: str | None = None,
    user_api_key: str | None = None,
    max_turns: int = 20,
    max_tool_calls: int = 60,
    max_tokens: int = 4096,
    temperature: float | None = None,
    user_temperature: float | None = None,
    attempts: int = 3,
    timeout: float = 120.0,
    conversation: bool = True,
) -> OpenAIAgent:
    """The agent ``guard bench --agent openai`` runs: ``model`` at ``base_url`` (key from the caller).

    The user simulator uses ``user_model`` (default: the same model) at
    ``user_base_url`` with ``user_api_key`` (defaults: the agent's). Both
    clients retry refused requests up to ``attempts`` times in all
    (:class:`~benchmark.agents.retry.RetryingChat`). ``conversation``: the guard
    is handed the conversation with each tool call. Close the agent with
    :meth:`OpenAIAgent.aclose` when the run is over.
    """
    agent_chat = OpenAIChat(base_url, model, api_key=api_key or None, timeout=timeout)
    user_chat = OpenAIChat(
        user_base_url or base_url,
        user_model or model,
        api_key=(user_api_key if user_api_key is not None else api_key) or None,
        timeout=timeout,
    )
    return OpenAIAgent(
        RetryingChat(agent_chat, attempts=attempts),
        UserSimulator(RetryingChat(user_chat, attempts=attempts), temperature=user_temperature),
        max_turns=max_turns,
        max_tool_calls=max_tool_calls,
        max_tokens=max_tokens,
        temperature=temperature,
        clients=(agent_chat, user_chat),
        conversation=conversation,
    )
