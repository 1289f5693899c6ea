"""The ``replay`` agent: plays a given trajectory, call by call, and says its final message.

With no trajectories file it plays each task's golden trajectory. It does not
read tool results and does not repair anything: it is the harness's
reference point, not a model. In the guarded arm it commits at the end
through the guard's commit tool.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmark.agents.base import AgentOutcome, AgentTask, ToolChannel
from benchmark.dataset import Task, Trajectory, TrajectoryCall

__all__ = ["ReplayAgent", "Script"]


@dataclass(frozen=True, slots=True)
class Script:
    """One trajectory to play: its id, its calls, the final message and the agent's texts (if logged)."""

    id: str
    calls: tuple[TrajectoryCall, ...]
    final_message: str = ""
    messages: tuple[str, ...] = ()


class ReplayAgent:
    name = "replay"

    def __init__(self, scripts: Mapping[str, Sequence[Script]]) -> None:
        self._scripts = {task: tuple(found) for task, found in scripts.items()}

    @classmethod
    def golden(cls, tasks: Sequence[Task]) -> ReplayAgent:
        return cls(
            {
                task.id: [
                    Script(
                        f"golden:{task.id}",
                        tuple(TrajectoryCall(call.tool, dict(call.arguments)) for call in task.golden),
                    )
                ]
                for task in tasks
            }
        )

    @classmethod
    def from_trajectories(cls, trajectories: Sequence[Trajectory]) -> ReplayAgent:
        scripts: dict[str, list[Script]] = {}
        for trajectory in trajectories:
            scripts.setdefault(trajectory.task, []).append(
                Script(trajectory.id, tuple(trajectory.calls), trajectory.final_message, trajectory.messages)
            )
        return cls(scripts)

    @property
    def tasks(self) -> set[str]:
        return set(self._scripts)

    def script(self, task: str, trial: int) -> Script:
        """Trial ``t`` plays the task's ``t mod n``-th trajectory, so several recorded runs can be graded."""
        found = self._scripts.get(task)
        if not found:
            raise KeyError(f"no trajectory for task {task}")
        return found[trial % len(found)]

    async def run(self, task: AgentTask, channel: ToolChannel, rng: random.Random) -> AgentOutcome:
        script = self.script(task.id, task.trial)
        for call in script.calls:
            await channel.call(call.tool, call.arguments)
        if channel.commit_tool is not None:
            await channel.call(
                channel.commit_tool, {"summary": script.final_message or f"replayed {script.id}"}
            )
        return AgentOutcome(
            final_message=script.final_message, trajectory=script.id, messages=script.messages
        )
