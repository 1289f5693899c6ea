"""What an agent is, to the runner: it gets a task and a tool channel, and returns an outcome.

The channel is MCP underneath (the runner connects it to the plain server in
the baseline arm and to the guard in the guarded arm), so an agent sees tool
schemas and tool results exactly as a production agent would. An agent never
sees golden data through the channel; agents that replay golden or given
trajectories (``replay``, ``simulated``) are handed those by the runner, and
say so in their name and in the report.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from judges import Turn

__all__ = ["Agent", "AgentOutcome", "AgentTask", "ToolChannel", "ToolInfo", "ToolResult"]


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str
    structured: Mapping[str, Any] | None
    is_error: bool


class ToolChannel(Protocol):
    """The agent's tools: listed once, called by name."""

    @property
    def tools(self) -> list[ToolInfo]: ...

    @property
    def commit_tool(self) -> str | None:
        """The guard's commit tool in the guarded arm; ``None`` in the baseline arm."""
        ...

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, conversation: Sequence[Turn] | None = None
    ) -> ToolResult:
        """Call a tool; ``conversation``, the turns said since the previous call, goes to a guard when there
        is one (``_meta["guard/conversation"]``), and nowhere in the baseline arm."""
        ...


@dataclass(frozen=True, slots=True)
class AgentTask:
    """What the agent side of a trial may know about the task.

    ``user_context`` is the simulated user's private knowledge: an agent
    driving a user simulator hands it to the simulator, never to the model
    that plays the support agent.
    """

    id: str
    domain: str
    query: str
    user_context: str
    instructions: str
    arm: str
    trial: int
    seed: int


@dataclass(frozen=True, slots=True)
class AgentOutcome:
    """What an agent did: its final message, its usage, and its texts to the user when it keeps them.

    ``final_turns`` are the turns said after its last tool call that it hands over (None: none), which
    the runner hands the guard when it commits for an agent that did not.
    """

    final_message: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    trajectory: str | None = None
    notes: Mapping[str, Any] = field(default_factory=dict)
    messages: tuple[str, ...] = ()
    final_turns: tuple[Turn, ...] | None = None


class Agent(Protocol):
    """One agent implementation (``replay``, ``simulated``, ``openai``)."""

    name: str

    async def run(self, task: AgentTask, channel: ToolChannel, rng: random.Random) -> AgentOutcome: ...
