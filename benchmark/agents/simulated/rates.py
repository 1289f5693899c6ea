"""The simulated agent's fault classes and their rates.

Five classes, each drawn independently per trial with its own rate:

``wrong_value``
    one argument of one state-changing call gets a plausible wrong value;
``extra_effect``
    one state-changing call is played twice in a row (a double submit);
``missing_effect``
    one state-changing call is left out;
``stop_early``
    the agent stops before its first (or its last) state-changing call and
    still reports success;
``give_up``
    armed for the trial: at the first tool error the agent stops there.
    This rate is conditional: it only matters when a call fails (a fault
    injected by the harness, or one of the other faults).

The defaults are round placeholders that make about a quarter of the trials
with writes faulty; they are a harness setting for calibration, not an
estimate of any model. On the command line a rate list reads
``"wrong_value=0.1,extra_effect=0.05"``: items apply left to right over the
defaults, and a bare number sets every class (``"0,missing_effect=0.2"``
turns on one class alone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from enum import StrEnum

from benchmark.agents.errors import FaultRatesError

__all__ = ["FaultClass", "FaultRates"]


class FaultClass(StrEnum):
    WRONG_VALUE = "wrong_value"
    EXTRA_EFFECT = "extra_effect"
    MISSING_EFFECT = "missing_effect"
    STOP_EARLY = "stop_early"
    GIVE_UP = "give_up"


@dataclass(frozen=True, slots=True)
class FaultRates:
    """The probability of each fault class in one trial (``give_up``: given that a call fails)."""

    wrong_value: float = 0.10
    extra_effect: float = 0.05
    missing_effect: float = 0.05
    stop_early: float = 0.05
    give_up: float = 0.50

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FaultRatesError(f"fault rate {item.name} must be a number, got {value!r}")
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise FaultRatesError(f"fault rate {item.name} must be between 0 and 1, got {value!r}")

    @classmethod
    def zero(cls) -> FaultRates:
        """No faults: the agent plays its golden trajectories exactly."""
        return cls(0.0, 0.0, 0.0, 0.0, 0.0)

    @classmethod
    def parse(cls, text: str, *, base: FaultRates | None = None) -> FaultRates:
        """Rates from ``"0.1"`` or ``"wrong_value=0.1,give-up=1"``, applied over ``base`` (the defaults).

        A bad item is a :class:`~benchmark.agents.errors.FaultRatesError` (a
        ``ValueError``) naming it and the known classes.
        """
        rates = base if base is not None else cls()
        known = ", ".join(kind.value for kind in FaultClass)
        for raw in text.split(","):
            item = raw.strip()
            if not item:
                continue
            name, sep, number = item.partition("=")
            value = _number(number if sep else name, item)
            if not sep:
                rates = cls(*(value for _ in FaultClass))
                continue
            key = name.strip().replace("-", "_").lower()
            if key not in FaultClass.__members__.values():
                raise FaultRatesError(f"unknown fault class {name.strip()!r} in {item!r} (known: {known})")
            rates = replace(rates, **{key: value})
        return rates

    def rate(self, kind: FaultClass) -> float:
        value: float = getattr(self, kind.value)
        return value

    def __str__(self) -> str:
        return ",".join(f"{kind.value}={self.rate(kind):g}" for kind in FaultClass)


def _number(text: str, item: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise FaultRatesError(f"fault rate {item!r}: {text.strip()!r} is not a number") from None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise FaultRatesError(f"fault rate {item!r}: must be between 0 and 1")
    return value
