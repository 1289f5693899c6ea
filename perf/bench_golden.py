"""Time building, replaying and hashing every golden trajectory of a domain.

For each task: the time to build its initial state (tables, seed rows,
policy index, data patch), to replay its golden tool calls (each committed),
and to dump and hash the final state. Prints one line per task and the
totals; exits non-zero if any golden call fails.

    python perf/bench_golden.py --data ../shared/thinkingbox-data [--domain all|sandbox_external_retail|...]
                                [--url postgresql://postgres@127.0.0.1:5432/test] [--quiet]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from benchmark.dataset import load_scenario, load_tasks
from benchmark.dataset.tau_airline import is_tau_airline
from benchmark.domains import domain_names, get_domain
from benchmark.world import open_world
from benchmark.world.canon_memo import canonical_with_hash


async def run(data: Path, domain_name: str, url: str | None, quiet: bool) -> tuple[int, float, int]:
    domain = get_domain(domain_name)
    tasks = load_tasks(data, domain=domain_name)
    scenario = load_scenario(data, domain_name)
    timings: list[tuple[str, float, float, float]] = []
    failures = 0
    started = time.perf_counter()
    for task in tasks:
        t0 = time.perf_counter()
        async with open_world(domain, task, data_dir=data, scenario=scenario, url=url) as world:
            t1 = time.perf_counter()
            for index, call in enumerate(task.golden):
                outcome = await world.call(call.tool, call.arguments)
                if outcome.error is not None:
                    failures += 1
                    message = outcome.error.message
                    print(f"FAIL {task.id} call {index} {call.tool}: {message}", file=sys.stderr)
            t2 = time.perf_counter()
            _, digest = canonical_with_hash(domain.name, await world.state(), domain.specs)
            t3 = time.perf_counter()
        timings.append((task.id, t1 - t0, t2 - t1, t3 - t2))
        if not quiet:
            print(
                f"{task.id:60s} build {1000 * (t1 - t0):7.1f} ms  replay {1000 * (t2 - t1):6.1f} ms "
                f"({len(task.golden):2d} calls)  hash {1000 * (t3 - t2):6.1f} ms  {digest[:12]}"
            )
    wall = time.perf_counter() - started
    builds, replays, hashes = (sum(t[i] for t in timings) for i in (1, 2, 3))
    medians = [statistics.median(t[i] for t in timings) * 1000 for i in (1, 2, 3)]
    print(
        f"\n{len(timings)} tasks on {url or 'SQLite in memory'} ({tasks.provenance}):\n"
        f"  build  total {builds:6.2f} s   median {medians[0]:6.1f} ms\n"
        f"  replay total {replays:6.2f} s   median {medians[1]:6.1f} ms\n"
        f"  hash   total {hashes:6.2f} s   median {medians[2]:6.1f} ms\n"
        f"  all    total {builds + replays + hashes:6.2f} s   (wall {wall:.2f} s incl. teardown)\n"
        f"  golden call errors: {failures}"
    )
    return failures, builds + replays + hashes, len(timings)


async def run_all(data: Path, domains: list[str], url: str | None, quiet: bool) -> int:
    rows = []
    for name in domains:
        print(f"== {name}")
        rows.append((name, *await run(data, name, url, quiet)))
    if len(rows) > 1:
        print("\nper domain (build + replay + hash):")
        for name, failures, seconds, count in rows:
            print(f"  {name:30s} {count:4d} tasks  {seconds:6.2f} s  errors {failures}")
        total = sum(row[2] for row in rows)
        print(f"  {'all':30s} {sum(row[3] for row in rows):4d} tasks  {total:6.2f} s  (goal: under 60 s)")
    return 1 if any(row[1] for row in rows) else 0


def golden_args(doc: str | None, quiet_help: str) -> tuple[Path, list[str], str | None, bool]:
    """The golden scripts' command line: (data checkout, domains, database URL, quiet)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_data = Path(__file__).resolve().parents[2] / "shared" / "thinkingbox-data"
    parser.add_argument(
        "--data", type=Path, default=default_data, help="a thinkingbox-data checkout, or tau-bench's airline"
    )
    parser.add_argument("--domain", default="all", help="one domain, or all of the data set's (default)")
    parser.add_argument("--url", default=None, help="database URL (default: SQLite in memory)")
    parser.add_argument("--quiet", action="store_true", help=quiet_help)
    args = parser.parse_args()
    dataset = "tau-bench-airline" if is_tau_airline(args.data) else "thinkingbox"
    domains = (
        [name for name in domain_names() if get_domain(name).dataset == dataset]
        if args.domain == "all"
        else [args.domain]
    )
    return args.data, domains, args.url, args.quiet


def main() -> None:
    sys.exit(asyncio.run(run_all(*golden_args(__doc__, "print only the totals"))))


if __name__ == "__main__":
    main()
