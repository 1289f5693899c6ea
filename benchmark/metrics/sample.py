"""Trials grouped by task and arm, checked for a fair comparison.

Records with ``system_error`` are set apart. A task none of whose trials is
usable in any arm is dropped (and named); otherwise every task must have the
same number of usable trials in every arm, and every task must be in every
arm, or the metrics refuse (:class:`UnequalTrialsError`,
:class:`UnpairedTasksError`) rather than silently weigh tasks unequally.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from benchmark.metrics.errors import MetricsError, UnequalTrialsError, UnpairedTasksError
from benchmark.results import TrialKey, TrialResult

__all__ = ["ARM_ORDER", "Sample", "sample"]

ARM_ORDER: tuple[str, ...] = ("baseline", "guarded")


@dataclass(frozen=True, slots=True)
class Sample:
    """Usable trials by ``(task, arm)``, each tuple ordered by trial index, ``n`` per tuple."""

    arms: tuple[str, ...]
    n: int
    tasks: tuple[str, ...]
    domain_of: Mapping[str, str]
    trials: Mapping[tuple[str, str], tuple[TrialResult, ...]]
    errored: tuple[TrialResult, ...]
    dropped: tuple[str, ...]

    def passes(self, task: str, arm: str) -> tuple[bool, ...]:
        return tuple(t.passed for t in self.trials[(task, arm)])

    def arm_trials(self, arm: str, tasks: Iterable[str]) -> list[TrialResult]:
        return [t for task in tasks for t in self.trials[(task, arm)]]


def sample(results: Iterable[TrialResult]) -> Sample:
    """Group and check ``results`` (the last record of a trial wins, as in :func:`read_results`)."""
    latest: dict[TrialKey, TrialResult] = {}
    for result in results:
        latest[result.key] = result
    if not latest:
        raise MetricsError("no trials in the results")
    records = sorted(latest.values(), key=lambda r: r.key)
    domain_of = _domains(records)
    arms = tuple(sorted({r.arm for r in records}, key=_arm_rank))
    usable: dict[tuple[str, str], list[TrialResult]] = {}
    for record in records:
        usable.setdefault((record.task, record.arm), [])
        if record.system_error is None:
            usable[(record.task, record.arm)].append(record)
    errored = tuple(r for r in records if r.system_error is not None)
    missing = [(task, arm) for task in sorted(domain_of) for arm in arms if (task, arm) not in usable]
    if missing:
        raise UnpairedTasksError(missing)
    dropped = tuple(task for task in sorted(domain_of) if not any(usable[(task, arm)] for arm in arms))
    tasks = tuple(task for task in sorted(domain_of) if task not in dropped)
    if not tasks:
        raise MetricsError(f"no usable trials: all {len(errored)} trials ended in a system error")
    n = _common_count({(task, arm): len(usable[(task, arm)]) for task in tasks for arm in arms}, errored)
    return Sample(
        arms=arms,
        n=n,
        tasks=tasks,
        domain_of={task: domain_of[task] for task in tasks},
        trials={(task, arm): tuple(usable[(task, arm)]) for task in tasks for arm in arms},
        errored=errored,
        dropped=dropped,
    )


def _arm_rank(arm: str) -> tuple[int, str]:
    return (ARM_ORDER.index(arm) if arm in ARM_ORDER else len(ARM_ORDER), arm)


def _domains(records: list[TrialResult]) -> dict[str, str]:
    seen: dict[str, set[str]] = {}
    for record in records:
        seen.setdefault(record.task, set()).add(record.domain)
    mixed = sorted(task for task, domains in seen.items() if len(domains) > 1)
    if mixed:
        raise MetricsError(f"task(s) recorded under more than one domain: {', '.join(mixed[:8])}")
    return {task: next(iter(domains)) for task, domains in seen.items()}


def _common_count(counts: dict[tuple[str, str], int], errored: tuple[TrialResult, ...]) -> int:
    tally = Counter(counts.values())
    expected = max(tally, key=lambda count: (tally[count], count))
    offenders = [(task, arm, count) for (task, arm), count in counts.items() if count != expected]
    if offenders:
        raise UnequalTrialsError(expected, offenders, len(errored))
    return expected
