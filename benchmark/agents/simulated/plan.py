"""One trial's fault plan, drawn before the agent touches its tools.

:func:`draw_plan` is a pure function of the golden calls, which of them
write, the tools' input schemas, the rates and the trial's random stream.
It always takes the same number of draws from that stream (four per fault
class, then a 64-bit seed for the repair decisions), whatever the
trajectory looks like, so the same trial gets the same plan and the same
repair stream in the baseline and the guarded arm.

Each class is drawn with its rate; a drawn class that has nothing to act on
(a trajectory without writes, a write without an argument that has a
plausible wrong value) is recorded as *inapplicable*. Targets are chosen
uniformly: ``wrong_value`` picks a write among those with a mutable
argument, then an argument, then a wrong value (:mod:`.values`);
``extra_effect`` and ``missing_effect`` pick a write; ``stop_early`` cuts
before the first write or before the last one, with even odds. Faults may
fall on the same call; they are applied in the order wrong value, extra,
missing, then the cut.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.agents.simulated.rates import FaultClass, FaultRates
from benchmark.agents.simulated.values import SELECTORS, ArgPath, alternatives, enum_at, leaves, with_value

__all__ = ["Call", "Fault", "Step", "TrialPlan", "draw_plan"]

_DRAWS_PER_CLASS = 4


@dataclass(frozen=True, slots=True)
class Call:
    tool: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Fault:
    """One drawn fault: its class, the golden call it is about, and for ``wrong_value`` the change."""

    kind: FaultClass
    call: int
    tool: str
    path: ArgPath = ()
    golden: Any = None
    wrong: Any = None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"class": self.kind.value, "call": self.call, "tool": self.tool}
        if self.kind is FaultClass.WRONG_VALUE:
            out.update(field=".".join(self.path), golden=self.golden, wrong=self.wrong)
        return out


@dataclass(frozen=True, slots=True)
class Step:
    """One call the agent means to play: which golden call it stands for, and the fault that shaped it."""

    index: int
    call: Call
    fault: FaultClass | None = None


@dataclass(frozen=True, slots=True)
class TrialPlan:
    """What the agent will do: the steps, where it stops, whether it gives up on an error.

    ``stop_at`` is the position in ``steps`` where ``stop_early`` cuts (the
    steps from there on are not played), or ``None``.
    """

    calls: tuple[Call, ...]
    steps: tuple[Step, ...]
    faults: tuple[Fault, ...] = ()
    inapplicable: tuple[FaultClass, ...] = ()
    stop_at: int | None = None
    give_up: bool = False
    repair_seed: int = 0
    writes: tuple[int, ...] = ()

    def fault(self, kind: FaultClass) -> Fault | None:
        return next((fault for fault in self.faults if fault.kind is kind), None)


def draw_plan(
    calls: Sequence[Call],
    *,
    is_write: Callable[[str], bool],
    schema_of: Callable[[str], Mapping[str, Any]],
    rates: FaultRates,
    rng: random.Random,
) -> TrialPlan:
    """The plan for one trial (see the module docstring)."""
    draws = {kind: [rng.random() for _ in range(_DRAWS_PER_CLASS)] for kind in FaultClass}
    repair_seed = rng.getrandbits(64)
    drawn = {kind for kind in FaultClass if draws[kind][0] < rates.rate(kind)}
    calls = tuple(calls)
    writes = tuple(i for i, call in enumerate(calls) if is_write(call.tool))
    faults: list[Fault] = []
    inapplicable: list[FaultClass] = []

    def pick(items: Sequence[Any], u: float) -> Any:
        return items[min(int(u * len(items)), len(items) - 1)]

    if FaultClass.WRONG_VALUE in drawn:
        wrong = _wrong_value(calls, writes, schema_of, draws[FaultClass.WRONG_VALUE][1:], pick)
        if wrong is not None:
            faults.append(wrong)
        else:
            inapplicable.append(FaultClass.WRONG_VALUE)
    for kind in (FaultClass.EXTRA_EFFECT, FaultClass.MISSING_EFFECT):
        if kind in drawn:
            if writes:
                index = pick(writes, draws[kind][1])
                faults.append(Fault(kind, index, calls[index].tool))
            else:
                inapplicable.append(kind)
    if FaultClass.STOP_EARLY in drawn:
        if writes:
            index = writes[0] if draws[FaultClass.STOP_EARLY][1] < 0.5 else writes[-1]
            faults.append(Fault(FaultClass.STOP_EARLY, index, calls[index].tool))
        else:
            inapplicable.append(FaultClass.STOP_EARLY)
    steps = _steps(calls, faults)
    stop = next((f for f in faults if f.kind is FaultClass.STOP_EARLY), None)
    stop_at = None
    if stop is not None:
        stop_at = next((pos for pos, step in enumerate(steps) if step.index >= stop.call), len(steps))
    return TrialPlan(
        calls=calls,
        steps=steps,
        faults=tuple(faults),
        inapplicable=tuple(inapplicable),
        stop_at=stop_at,
        give_up=FaultClass.GIVE_UP in drawn,
        repair_seed=repair_seed,
        writes=writes,
    )


def _wrong_value(
    calls: tuple[Call, ...],
    writes: tuple[int, ...],
    schema_of: Callable[[str], Mapping[str, Any]],
    u: Sequence[float],
    pick: Callable[[Sequence[Any], float], Any],
) -> Fault | None:
    by_key: dict[str, list[Any]] = {}
    for call in calls:
        for path, value in leaves(call.arguments):
            by_key.setdefault(path[-1], []).append(value)
    options: list[tuple[int, list[tuple[ArgPath, Any, tuple[Any, ...]]]]] = []
    for index in writes:
        call = calls[index]
        schema = schema_of(call.tool)
        mutable = [
            (path, value, found)
            for path, value in leaves(call.arguments)
            if path[-1] not in SELECTORS
            and (found := alternatives(value, enum=enum_at(schema, path), same_key=by_key[path[-1]]))
        ]
        if mutable:
            options.append((index, mutable))
    if not options:
        return None
    index, mutable = pick(options, u[0])
    path, value, found = pick(mutable, u[1])
    return Fault(FaultClass.WRONG_VALUE, index, calls[index].tool, path, value, pick(found, u[2]))


def _steps(calls: tuple[Call, ...], faults: list[Fault]) -> tuple[Step, ...]:
    by_kind = {fault.kind: fault for fault in faults}
    wrong = by_kind.get(FaultClass.WRONG_VALUE)
    extra = by_kind.get(FaultClass.EXTRA_EFFECT)
    missing = by_kind.get(FaultClass.MISSING_EFFECT)
    steps: list[Step] = []
    for index, call in enumerate(calls):
        step = Step(index, call)
        if wrong is not None and wrong.call == index:
            step = Step(
                index, Call(call.tool, with_value(call.arguments, wrong.path, wrong.wrong)), wrong.kind
            )
        if missing is None or missing.call != index:
            steps.append(step)
        if extra is not None and extra.call == index:
            steps.append(Step(index, step.call, FaultClass.EXTRA_EFFECT))
    return tuple(steps)
