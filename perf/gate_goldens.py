"""Time the commit gate on every golden trajectory of the guarded arm, per domain.

Runs the replay agent in the guarded arm only (one trial per task, one at a
time, so that commits do not compete for the two cores) and records each
``CommitGate.evaluate``: its wall time (reading the pending state the judges
name, in rounds, and running the domain's judge chain) and the number of
effects it judged. Prints median, p95 and max per domain and over all, and
exits non-zero if any golden commit was blocked or any trial was a system
error: a correct trajectory must commit.

Each trial runs on a fresh world with its own engine, and SQLAlchemy's
compiled-statement cache belongs to the engine: the first evaluation in a
trial ("cold") compiles every read statement it issues, which a long-running
guard does once per statement shape. The gate only reads, so the script
evaluates each commit a second time on the same transaction ("warm", the
statements compiled) and prints both; the commit goes on with the first
result.

    python perf/gate_goldens.py --data ../shared/thinkingbox-data [--domain all|sandbox_external_retail|...]
                                [--url postgresql://postgres@127.0.0.1:5432/test] [--quiet]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_golden import golden_args

from benchmark.results import read_results
from benchmark.run.runner import RunOptions, run_spec
from benchmark.run.setup import RunSpec
from guard.gate.commit import CommitGate, GateResult


@dataclass
class Recorder:
    """Every gate evaluation of the run: (cold ms, warm ms, effects judged)."""

    samples: list[tuple[float, float, int]] = field(default_factory=list)

    def install(self) -> None:
        evaluate = CommitGate.evaluate
        samples = self.samples

        async def recorded(gate: CommitGate, *args: Any, **kwargs: Any) -> GateResult:
            result = await evaluate(gate, *args, **kwargs)
            again = await evaluate(gate, *args, **kwargs)
            samples.append((result.duration_ms, again.duration_ms, len(result.effects)))
            return result

        CommitGate.evaluate = recorded  # type: ignore[method-assign]


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _line(name: str, samples: Sequence[tuple[float, float, int]], blocked: int) -> str:
    effects = statistics.median(n for _, _, n in samples)
    figures = []
    for label, column in (("cold", 0), ("warm", 1)):
        durations = [sample[column] for sample in samples]
        figures.append(
            f"{label} median {statistics.median(durations):6.2f} p95 {_p95(durations):6.2f} "
            f"max {max(durations):7.2f} ms"
        )
    return (
        f"  {name:30s} {len(samples):4d} commits  {'  |  '.join(figures)}  "
        f"(median {effects:g} effects)  blocked {blocked}"
    )


async def run_domain(
    data: Path, name: str, url: str | None, recorder: Recorder, quiet: bool
) -> tuple[int, int]:
    """Replay ``name``'s goldens guarded; returns (blocked commits, system errors)."""
    first = len(recorder.samples)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "gate.jsonl"
        summary = await run_spec(
            RunSpec(data_dir=data, domain=name, db=url), RunOptions(1, ("guarded",), 0, 1, out)
        )
        results = read_results(out)
    blocked = 0
    for result in results:
        for verdict in result.verdicts:
            if verdict.decision == "block":
                blocked += 1
                if not quiet:
                    messages = "; ".join(str(f.get("message")) for f in verdict.findings)
                    print(f"BLOCKED {result.task}: {messages}", file=sys.stderr)
    print(_line(name, recorder.samples[first:], blocked))
    return blocked, summary.system_errors


async def run_all(data: Path, domains: list[str], url: str | None, quiet: bool) -> int:
    recorder = Recorder()
    recorder.install()
    print(f"commit gate on the golden trajectories, guarded arm, {url or 'SQLite in memory'}:")
    blocked = errors = 0
    for name in domains:
        domain_blocked, domain_errors = await run_domain(data, name, url, recorder, quiet)
        blocked += domain_blocked
        errors += domain_errors
    if len(domains) > 1:
        print(_line("all", recorder.samples, blocked))
    if errors:
        print(f"system errors: {errors}", file=sys.stderr)
    return 1 if blocked or errors else 0


def main() -> None:
    sys.exit(asyncio.run(run_all(*golden_args(__doc__, "do not print the findings of blocked commits"))))


if __name__ == "__main__":
    main()
