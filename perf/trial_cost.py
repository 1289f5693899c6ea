"""What a trial of ``guard bench`` costs, and what speaking MCP in process adds to a tool call.

Part 1, per trial: every selected task's golden trial, one at a time in this
process (after one warm-up trial per domain and arm), both arms; the CPU time
of each trial (``time.process_time``) is the cost of its work with nothing
else running. The task's golden state is computed before its trials are
timed: a run computes it once per task and every trial and arm reuses it (a
pass^20 run shares it among 40 trials), so it is not a trial's work. Prints
per arm and domain the median and 90th percentile CPU milliseconds, and the
medians over all tasks against the goals of issue 16 (baseline <= 15 ms,
guarded <= 30 ms).

Part 2, per call: for each task, its golden calls made three ways on fresh
worlds, alternating: on the world directly (``World.call``: the tool
function, its own transaction and commit), through the baseline arm's MCP
channel (the SDK's in-process client and server), and through the guarded
arm's (one transaction, a savepoint per call). The ratio of the MCP path to
the direct call is the price of speaking MCP in process.

    .venv/bin/python perf/trial_cost.py --data ../shared/thinkingbox-data [--domain NAME] [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.dataset import Task
from benchmark.domains import get_domain
from benchmark.run.arms import Arm, open_arm
from benchmark.run.setup import RunSpec, load_task_set, open_context
from benchmark.run.trial import TrialContext, run_trial
from benchmark.world import State, golden, open_world
from guard.clock import FixedClock

GOALS = {"baseline": 15.0, "guarded": 30.0}


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def trials(tasks: list[Task], context: TrialContext) -> dict[tuple[str, Arm], list[float]]:
    cpu: dict[tuple[str, Arm], list[float]] = defaultdict(list)
    cache: dict[str, State] = {}
    warmed: set[tuple[str, Arm]] = set()
    arms: tuple[Arm, ...] = ("baseline", "guarded")
    for task in tasks:
        domain = get_domain(task.domain)
        await golden(task, data_dir=context.data_dir)
        for arm in arms:
            if (task.domain, arm) not in warmed:
                await run_trial(task, domain, arm, 0, 0, context, {})
                warmed.add((task.domain, arm))
            start = time.process_time()
            result = await run_trial(task, domain, arm, 0, 0, context, cache)
            cpu[(task.domain, arm)].append(time.process_time() - start)
            if result.system_error is not None:
                raise SystemExit(f"{task.id} {arm}: {result.system_error}")
    return cpu


async def _channel_calls(task: Task, context: TrialContext, arm: Arm) -> float:
    """CPU seconds of the task's golden calls through ``arm``'s MCP channel (the world built beforehand)."""
    domain = get_domain(task.domain)
    async with (
        open_world(domain, task, data_dir=context.data_dir) as world,
        open_arm(
            arm,
            engine=world.engine,
            registry=domain.registry,
            metadata=domain.metadata,
            clock=FixedClock(domain.scenario_now),
            settings=context.settings,
            gate=context.gates.get(task.domain),
            transaction=f"cost-{task.test}",
            plan=None,
            hub=context.hub,
        ) as session,
    ):
        start = time.process_time()
        for call in task.golden:
            await session.channel.call(call.tool, call.arguments)
        return time.process_time() - start


async def _direct_calls(task: Task, context: TrialContext) -> float:
    domain = get_domain(task.domain)
    async with open_world(domain, task, data_dir=context.data_dir) as world:
        start = time.process_time()
        for call in task.golden:
            await world.call(call.tool, call.arguments)
        return time.process_time() - start


async def calls(tasks: list[Task], context: TrialContext) -> tuple[int, dict[str, float]]:
    totals: dict[str, float] = defaultdict(float)
    count = 0
    order = ["direct", "baseline", "guarded"]
    for task in tasks:
        if not task.golden:
            continue
        random.Random(task.id).shuffle(order)
        for way in order:
            arm: Arm = "baseline" if way == "baseline" else "guarded"
            if way == "direct":
                totals[way] += await _direct_calls(task, context)
            else:
                totals[way] += await _channel_calls(task, context, arm)
        count += len(task.golden)
    return count, totals


def report_trials(cpu: dict[tuple[str, Arm], list[float]]) -> None:
    print(f"{'domain':32s} {'arm':9s} {'trials':>6s} {'median ms':>10s} {'p90 ms':>8s}")
    for (domain, arm), values in sorted(cpu.items()):
        print(f"{domain:32s} {arm:9s} {len(values):6d} {_ms(values, 0.5):10.1f} {_ms(values, 0.9):8.1f}")
    for name, goal in GOALS.items():
        values = [v for (_, a), vs in cpu.items() if a == name for v in vs]
        median = statistics.median(values) * 1000
        verdict = "met" if median <= goal else "MISSED"
        goal_text = f"goal <= {goal:.0f} ms: {verdict}"
        print(f"all domains {name:9s} median CPU per trial {median:6.1f} ms ({goal_text})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--domain", default=None)
    parser.add_argument("--limit", type=int, default=None, help="the first N tasks of each domain")
    args = parser.parse_args()
    spec = RunSpec(data_dir=args.data, domain=args.domain)
    task_set = load_task_set(spec)
    per_domain: dict[str, int] = defaultdict(int)
    tasks = []
    for task in task_set.tasks:
        if args.limit is None or per_domain[task.domain] < args.limit:
            per_domain[task.domain] += 1
            tasks.append(task)
    async with open_context(spec, task_set) as context:
        cpu = await trials(tasks, context)
        report_trials(cpu)
        count, totals = await calls(tasks, context)
    direct = totals["direct"] / count * 1e6
    print(f"\n{count} golden calls, CPU per call (worlds built outside the timing):")
    print(f"  direct on the world     {direct:8.0f} us")
    for way in ("baseline", "guarded"):
        each = totals[way] / count * 1e6
        print(f"  {way:9s} MCP in process {each:8.0f} us   {each / direct:5.2f}x direct")


if __name__ == "__main__":
    asyncio.run(main())
