"""The percentile bootstrap over tasks.

Every task contributes one row of numbers (its per-task values of every
metric, for every arm). A resample draws as many tasks as there are, with
replacement, from a :class:`random.Random` seeded by the caller, and takes the
mean of each column; because one resample serves every column, the arms of a
resample share their tasks, and a difference of two columns is a paired
bootstrap. Rows that are equal are drawn as one profile, so a resample costs
one draw per task plus one multiply-add per profile and column.

An interval is the pair of percentiles ``(1 − confidence)/2`` and
``(1 + confidence)/2`` of the resampled statistic, by linear interpolation
between order statistics (numpy's default, Hyndman & Fan type 7).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from math import floor, fsum
from operator import mul

__all__ = ["column_means", "interval", "percentile", "resample_means"]

Row = tuple[float, ...]


def column_means(rows: Sequence[Row]) -> Row:
    """The mean of each column (``math.fsum``, so independent of row order)."""
    if not rows:
        raise ValueError("no rows")
    return tuple(fsum(column) / len(rows) for column in zip(*rows, strict=True))


def resample_means(rows: Sequence[Row], *, resamples: int, rng: random.Random) -> list[Row]:
    """Column means of ``resamples`` resamples of ``rows`` with replacement, in draw order."""
    if not rows:
        raise ValueError("no rows")
    profiles = sorted(set(rows))
    index = {row: i for i, row in enumerate(profiles)}
    ids = [index[row] for row in rows]
    columns = list(zip(*profiles, strict=True))
    size = len(rows)
    out: list[Row] = []
    for _ in range(resamples):
        drawn = Counter(rng.choices(ids, k=size))
        counts = [drawn.get(i, 0) for i in range(len(profiles))]
        out.append(tuple(sum(map(mul, counts, column)) / size for column in columns))
    return out


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0 ≤ q ≤ 1) of sorted values, interpolated linearly (type 7)."""
    if not ordered:
        raise ValueError("no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} outside [0, 1]")
    position = (len(ordered) - 1) * q
    lower = floor(position)
    upper = min(lower + 1, len(ordered) - 1)
    weight = position - lower
    return ordered[lower] + (ordered[upper] - ordered[lower]) * weight


def interval(
    resampled: Sequence[Row], statistic: Callable[[Row], float], confidence: float
) -> tuple[float, float] | None:
    """The percentile interval of ``statistic`` over resampled means; ``None`` without resamples."""
    if not resampled:
        return None
    values = sorted(statistic(row) for row in resampled)
    tail = (1.0 - confidence) / 2.0
    return percentile(values, tail), percentile(values, 1.0 - tail)
