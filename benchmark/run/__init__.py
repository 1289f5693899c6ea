"""Running the benchmark: trials in two arms, fault injection, and the results file."""

from benchmark.run.arms import Arm, ArmSession, RecordingChannel, open_arm
from benchmark.run.faults import INJECTED, FaultPlan, InjectedFault, faulty_registry
from benchmark.run.runner import RunOptions, RunSummary, errors_path, run
from benchmark.run.trial import TrialContext, run_trial, trial_seed

__all__ = [
    "INJECTED",
    "Arm",
    "ArmSession",
    "FaultPlan",
    "InjectedFault",
    "RecordingChannel",
    "RunOptions",
    "RunSummary",
    "TrialContext",
    "errors_path",
    "faulty_registry",
    "open_arm",
    "run",
    "run_trial",
    "trial_seed",
]
