"""Agents for ``guard bench``: ``replay``, ``simulated`` and ``openai``, behind one protocol."""

from benchmark.agents.base import Agent, AgentOutcome, AgentTask, ToolChannel, ToolInfo, ToolResult
from benchmark.agents.channel import McpChannel
from benchmark.agents.commit import CommitReply, read_commit
from benchmark.agents.errors import AgentError, FaultRatesError, ModelCallError, UserSimulatorError
from benchmark.agents.openai import OpenAIAgent, build_openai_agent
from benchmark.agents.replay import ReplayAgent, Script
from benchmark.agents.retry import RetryingChat
from benchmark.agents.simulated import FaultClass, FaultRates, SimulatedAgent
from benchmark.agents.user import Turn, UserReply, UserSimulator

__all__ = [
    "Agent",
    "AgentError",
    "AgentOutcome",
    "AgentTask",
    "CommitReply",
    "FaultClass",
    "FaultRates",
    "FaultRatesError",
    "McpChannel",
    "ModelCallError",
    "OpenAIAgent",
    "ReplayAgent",
    "RetryingChat",
    "Script",
    "SimulatedAgent",
    "ToolChannel",
    "ToolInfo",
    "ToolResult",
    "Turn",
    "UserReply",
    "UserSimulator",
    "UserSimulatorError",
    "build_openai_agent",
    "read_commit",
]
