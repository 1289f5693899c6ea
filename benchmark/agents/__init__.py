"""Agents for ``guard bench``: ``replay``, ``simulated`` and ``openai``, behind one protocol."""

from benchmark.agents.base import Agent, AgentOutcome, AgentTask, ToolChannel, ToolInfo, ToolResult
from benchmark.agents.channel import McpChannel
from benchmark.agents.commit import CommitReply, read_commit
from benchmark.agents.replay import ReplayAgent, Script
from benchmark.agents.simulated import FaultClass, FaultRates, SimulatedAgent

__all__ = [
    "Agent",
    "AgentOutcome",
    "AgentTask",
    "CommitReply",
    "FaultClass",
    "FaultRates",
    "McpChannel",
    "ReplayAgent",
    "Script",
    "SimulatedAgent",
    "ToolChannel",
    "ToolInfo",
    "ToolResult",
    "read_commit",
]
