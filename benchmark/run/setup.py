"""What a run is, as plain data, and how a process turns it into trials.

A :class:`RunSpec` holds everything ``guard bench`` was told; it pickles, so
worker processes rebuild the same tasks, agent, gates and context from it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.agents.base import Agent
from benchmark.dataset import TaskSet, TrajectoryCall, load_scenario, load_tasks
from benchmark.dataset.agent_logs import read_agent_logs
from benchmark.dataset.tau_airline import is_tau_airline
from benchmark.domains import get_domain
from benchmark.errors import BenchmarkError
from benchmark.run.hub import ToolHub
from benchmark.run.trial import TrialContext
from guard.gate.commit import CommitGate
from guard.runtime import configured_judges
from guard.settings import GuardSettings, load_settings

__all__ = [
    "BENCH_CHAIN",
    "AgentSpec",
    "RunSpec",
    "default_workers",
    "guard_settings",
    "load_task_set",
    "open_context",
]

BENCH_CHAIN: tuple[dict[str, Any], ...] = ({"judge": "failed_write"},)
"""Judges the guarded arm runs before the domain's own when no --guard-config is given."""


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """The agent of a run; ``conversation``: the replay and openai agents hand the guard the conversation."""

    name: str = "replay"
    trajectories: Path | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    user_model: str | None = None
    faults: str | None = None
    repair: float = 0.5
    conversation: bool = True


@dataclass(frozen=True, slots=True)
class RunSpec:
    data_dir: Path
    domain: str | None = None
    tasks_file: Path | None = None
    limit: int | None = None
    task_ids: tuple[str, ...] | None = None
    agent: AgentSpec = field(default_factory=AgentSpec)
    guard_config: Path | None = None
    fault_rate: float = 0.0
    db: str | None = None
    judge_model: str | None = None


def default_workers() -> int:
    """``guard bench``'s default --workers: the cores this process may run on (its affinity set)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def guard_settings(path: Path | None) -> GuardSettings:
    """The guarded arm's settings: the file's, or defaults with the bench judge chain, no idle reaping."""
    if path is not None:
        return load_settings(path)
    return GuardSettings.model_validate(
        {
            # a shared, loaded machine must not turn a slow judge into a spurious block
            "commit": {"reap_interval_s": 3600.0, "idle_timeout_s": 3600.0, "judge_timeout_s": 10.0},
            "judges": {"chain": list(BENCH_CHAIN)},
        }
    )


def _select(spec: RunSpec) -> TaskSet:
    """The tasks of the data set ``--data`` points at; a domain asked for must be one of that data set's."""
    dataset = "tau-bench-airline" if is_tau_airline(spec.data_dir) else "thinkingbox"
    if spec.domain is not None:
        wanted = get_domain(spec.domain).dataset
        if wanted != dataset:
            found = (
                "tau-bench's airline folder" if dataset != "thinkingbox" else "not tau-bench's airline folder"
            )
            raise BenchmarkError(
                f"domain {spec.domain!r} needs the {wanted} data set, but {spec.data_dir} is {found}; "
                "point --data at that data set"
            )
    return load_tasks(
        spec.data_dir,
        domain=spec.domain,
        tasks_file=spec.tasks_file,
        task_ids=spec.task_ids,
        limit=spec.limit,
    )


def load_task_set(spec: RunSpec) -> TaskSet:
    """The tasks ``spec`` selects from its data set (a ThinkingBox checkout or tau-bench's airline folder)."""
    tasks = _select(spec)
    if not tasks.tasks:
        raise BenchmarkError("no tasks selected")
    return tasks


def _golden_agent(tasks: TaskSet) -> Agent:
    """The golden trajectories, replayed; for tasks with required outputs the final message says them."""
    from benchmark.agents.replay import ReplayAgent, Script

    if not any(task.outputs for task in tasks.tasks):
        return ReplayAgent.golden(tasks.tasks)
    return ReplayAgent(
        {
            task.id: [
                Script(
                    f"golden:{task.id}",
                    tuple(TrajectoryCall(call.tool, dict(call.arguments)) for call in task.golden),
                    "; ".join(task.outputs),
                )
            ]
            for task in tasks.tasks
        }
    )


def _agent(spec: AgentSpec, tasks: TaskSet) -> Agent:
    if spec.name == "replay":
        from benchmark.agents.replay import ReplayAgent

        if spec.trajectories is None:
            return _golden_agent(tasks)
        agent = ReplayAgent.from_trajectories(
            read_agent_logs(spec.trajectories), conversation=spec.conversation
        )
        missing = sorted({task.id for task in tasks.tasks} - agent.tasks)
        if missing:
            raise BenchmarkError(
                f"{spec.trajectories} has no trajectory for {len(missing)} selected task(s), "
                f"e.g. {missing[0]}; select tasks with --tasks or --limit"
            )
        return agent
    if spec.name == "simulated":
        from benchmark.agents.simulated import FaultRates, SimulatedAgent

        rates = FaultRates.parse(spec.faults) if spec.faults else FaultRates()
        return SimulatedAgent.from_tasks(tasks.tasks, rates, spec.repair)
    if spec.name == "openai":
        from benchmark.agents.openai import build_openai_agent

        if not spec.model:
            raise BenchmarkError("--agent openai needs --model (and --base-url for a non-OpenAI endpoint)")
        return build_openai_agent(
            model=spec.model,
            base_url=spec.base_url or "https://api.openai.com/v1",
            api_key=os.environ.get(spec.api_key_env, ""),
            user_model=spec.user_model or spec.model,
            conversation=spec.conversation,
        )
    raise BenchmarkError(f"unknown agent {spec.name!r}: use replay, simulated or openai")


def _rubric_judge(spec: RunSpec) -> Any:
    if not spec.judge_model:
        return None
    from judges.rubric import OpenAIChat, RubricJudge

    base_url = spec.agent.base_url or "https://api.openai.com/v1"
    chat = OpenAIChat(base_url, spec.judge_model, api_key=os.environ.get(spec.agent.api_key_env, "") or None)
    return RubricJudge(chat)


@asynccontextmanager
async def open_context(spec: RunSpec, tasks: TaskSet) -> AsyncIterator[TrialContext]:
    """The shared context of every trial of ``tasks``; closes gates and model clients at the end."""
    settings = guard_settings(spec.guard_config)
    agent = _agent(spec.agent, tasks)
    domains = sorted({task.domain for task in tasks.tasks})
    gates = {
        name: CommitGate.from_settings(configured_judges(settings, get_domain(name).judges), settings.commit)
        for name in domains
    }
    try:
        async with ToolHub() as hub:
            yield TrialContext(
                data_dir=spec.data_dir,
                agent=agent,
                settings=settings,
                gates=gates,
                scenarios={name: load_scenario(spec.data_dir, name) for name in domains},
                fault_rate=spec.fault_rate,
                db_url=spec.db,
                rubric=_rubric_judge(spec),
                data_ref=str(tasks.provenance),
                task_set_hash=tasks.content_hash,
                hub=hub,
            )
    finally:
        for gate in gates.values():
            gate.close()
        closer = getattr(agent, "aclose", None)
        if closer is not None:
            await closer()
