"""The ``simulated`` agent: a seeded, documented fault model over golden trajectories.

A harness check, never reported as a model's result. :class:`FaultRates`
sets the rate of each fault class, :func:`draw_plan` draws one trial's
faults, :func:`points_at` decides whether a guard finding names a fault, and
:class:`SimulatedAgent` plays it all through a tool channel.
"""

from benchmark.agents.simulated.agent import DONE_MESSAGE, SimulatedAgent
from benchmark.agents.simulated.plan import Call, Fault, Step, TrialPlan, draw_plan
from benchmark.agents.simulated.pointing import Markers, markers_of, points_at
from benchmark.agents.simulated.rates import FaultClass, FaultRates
from benchmark.agents.simulated.values import alternatives, enum_at

__all__ = [
    "DONE_MESSAGE",
    "Call",
    "Fault",
    "FaultClass",
    "FaultRates",
    "Markers",
    "SimulatedAgent",
    "Step",
    "TrialPlan",
    "alternatives",
    "draw_plan",
    "enum_at",
    "markers_of",
    "points_at",
]
