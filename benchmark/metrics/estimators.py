"""The per-task estimators of DESIGN §6, over ``n`` trials of which ``c`` passed.

Each function is the value for one task; a metric is the mean over tasks.

- ``pass_at_k``: the chance that at least one of ``k`` trials drawn without
  replacement from the ``n`` passes, ``1 − C(n−c, k) / C(n, k)``.
- ``pass_hat_k_unbiased``: the chance that all ``k`` drawn trials pass,
  ``C(c, k) / C(n, k)``; unbiased for ``p^k``, and 0 whenever ``c < k``.
- ``pass_hat_k_plugin``: ``(c/n)^k``, the task's pass rate raised to ``k``;
  biased upwards for ``k > 1`` but positive whenever ``c > 0``.
- ``bin_of``: ``never`` (c = 0), ``sometimes`` (0 < c < n), ``always`` (c = n).
"""

from __future__ import annotations

from math import comb
from typing import Literal

__all__ = [
    "BINS",
    "ESTIMATORS",
    "Bin",
    "bin_of",
    "pass_at_k",
    "pass_hat_k_plugin",
    "pass_hat_k_unbiased",
]

Bin = Literal["never", "sometimes", "always"]
BINS: tuple[Bin, ...] = ("never", "sometimes", "always")

ESTIMATORS: dict[str, str] = {
    "pass_at_1": "mean over tasks of c/n",
    "pass_at_k": "mean over tasks of 1 − C(n−c, k)/C(n, k)",
    "pass_hat_k_unbiased": "unbiased: mean over tasks of C(c, k)/C(n, k)",
    "pass_hat_k_plugin": "plug-in: mean over tasks of (c/n)^k",
    "observed_all_k": "tasks whose first k trials (by trial index) all passed",
    "bins": "never: c = 0; sometimes: 0 < c < n; always: c = n",
}
"""Each metric's definition, as the report prints it."""


def _check(n: int, c: int, k: int) -> None:
    if n < 1 or not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n and n >= 1, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got n={n}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """``1 − C(n−c, k) / C(n, k)``: at least one of ``k`` trials passes."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k_unbiased(n: int, c: int, k: int) -> float:
    """``C(c, k) / C(n, k)``: all ``k`` trials pass (unbiased estimator)."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def pass_hat_k_plugin(n: int, c: int, k: int) -> float:
    """``(c/n)^k``: all ``k`` trials pass (plug-in estimator)."""
    _check(n, c, k)
    return float((c / n) ** k)


def bin_of(n: int, c: int) -> Bin:
    """The task's bin over all ``n`` trials."""
    _check(n, c, 1)
    if c == 0:
        return "never"
    return "always" if c == n else "sometimes"
