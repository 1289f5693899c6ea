"""The ``replay`` agent: plays a given trajectory, call by call, and says its final message.

With no trajectories file it plays each task's golden trajectory. It does not
read tool results and does not repair anything: it is the harness's
reference point, not a model. In the guarded arm it commits at the end
through the guard's commit tool.

A trajectory that holds its conversation (a tau-bench results file, our JSONL
with turns in ``messages``) is replayed with it, as a host hands it over: each
call with the user and assistant turns said since the previous call, the
commit with those said after the last call. Both arms make the same calls;
only the guard gets the turns (the baseline arm has no guard to hand them to).
``conversation=False`` (``guard bench --no-conversation``) replays the same
calls without them, so that a backtest can compare the judges with and
without the conversation; a trial's ``agent_notes`` say which it was.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmark.agents.base import AgentOutcome, AgentTask, ToolChannel
from benchmark.dataset import Task, Trajectory, TrajectoryCall
from judges import Turn

__all__ = ["ReplayAgent", "Script"]


@dataclass(frozen=True, slots=True)
class Script:
    """One trajectory to play: its id, its calls (each with the turns said before it), the final message,
    the agent's texts (if logged) and the turns said after the last call (None: no conversation)."""

    id: str
    calls: tuple[TrajectoryCall, ...]
    final_message: str = ""
    messages: tuple[str, ...] = ()
    final_turns: tuple[Turn, ...] | None = None


class ReplayAgent:
    """Plays scripts; ``conversation`` says whether a script's conversation is handed over with its calls."""

    name = "replay"

    def __init__(self, scripts: Mapping[str, Sequence[Script]], *, conversation: bool = True) -> None:
        self._scripts = {task: tuple(found) for task, found in scripts.items()}
        self._conversation = conversation

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
    def from_trajectories(
        cls, trajectories: Sequence[Trajectory], *, conversation: bool = True
    ) -> ReplayAgent:
        scripts: dict[str, list[Script]] = {}
        for t in trajectories:
            scripts.setdefault(t.task, []).append(
                Script(t.id, tuple(t.calls), t.final_message, t.messages, t.final_turns)
            )
        return cls(scripts, conversation=conversation)

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
        handed = self._conversation and script.final_turns is not None
        for call in script.calls:
            await channel.call(call.tool, call.arguments, conversation=call.turns if handed else None)
        if channel.commit_tool is not None:
            summary = script.final_message or f"replayed {script.id}"
            await channel.call(
                channel.commit_tool, {"summary": summary}, conversation=script.final_turns if handed else None
            )
        notes = (
            {} if script.final_turns is None else {"conversation": "handed over" if handed else "withheld"}
        )
        return AgentOutcome(
            final_message=script.final_message, trajectory=script.id, messages=script.messages, notes=notes
        )
