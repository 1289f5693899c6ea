"""Agents for ``guard bench``: ``replay``, ``simulated`` and ``openai``, behind one protocol."""

from benchmark.agents.base import Agent, AgentOutcome, AgentTask, ToolChannel, ToolInfo, ToolResult
from benchmark.agents.channel import McpChannel
from benchmark.agents.replay import ReplayAgent, Script

__all__ = [
    "Agent",
    "AgentOutcome",
    "AgentTask",
    "McpChannel",
    "ReplayAgent",
    "Script",
    "ToolChannel",
    "ToolInfo",
    "ToolResult",
]
