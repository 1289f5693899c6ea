"""Why a results file cannot be turned into metrics; each a :class:`BenchmarkError`."""

from __future__ import annotations

from collections.abc import Sequence

from benchmark.errors import BenchmarkError

__all__ = ["MetricsError", "UnequalTrialsError", "UnpairedTasksError"]

_SHOWN = 8


def _listing(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    return shown if len(items) <= _SHOWN else f"{shown} and {len(items) - _SHOWN} more"


class MetricsError(BenchmarkError):
    """Results that the metrics cannot honestly summarise, or options they cannot take."""


class UnequalTrialsError(MetricsError):
    """Tasks (or arms) with different numbers of usable trials.

    ``offenders`` holds ``(task, arm, trials)`` for every task and arm whose
    count differs from ``expected``, the most common count.
    """

    def __init__(self, expected: int, offenders: Sequence[tuple[str, str, int]], system_errors: int) -> None:
        named = [f"{task} ({arm}: {count})" for task, arm, count in offenders]
        message = (
            f"unequal trial counts: most tasks have {expected} usable trials per arm, "
            f"but {len(offenders)} task-arm(s) differ: {_listing(named)}"
        )
        if system_errors:
            message += (
                f"; {system_errors} trial(s) ended in a system error and are left out — "
                "rerun `guard bench` with the same --out to fill them in"
            )
        super().__init__(message)
        self.expected = expected
        self.offenders = tuple(offenders)
        self.system_errors = system_errors


class UnpairedTasksError(MetricsError):
    """Tasks that appear in one arm only; ``missing`` holds ``(task, absent arm)``."""

    def __init__(self, missing: Sequence[tuple[str, str]]) -> None:
        named = [f"{task} (no {arm} trials)" for task, arm in missing]
        super().__init__(f"{len(missing)} task(s) are in one arm only: {_listing(named)}")
        self.missing = tuple(missing)
