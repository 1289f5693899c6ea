"""benchmark: ThinkingBox-Bench v1.0 replayed through our own tools, with and without the guard.

The public surface: the dataset (:mod:`benchmark.dataset`), the domains and
their tools (:mod:`benchmark.domains`), and task worlds with golden states
and grading (:mod:`benchmark.world`).
"""

from benchmark.dataset import (
    GoldenCall,
    Provenance,
    Scenario,
    Task,
    TaskSet,
    Trajectory,
    TrajectoryCall,
    load_scenario,
    load_task,
    load_tasks,
    read_trajectories,
)
from benchmark.domains import Domain, TableDef, domain_names, get_domain
from benchmark.errors import BenchmarkError, DatasetError, GoldenReplayError, TrajectoryError, WorldError
from benchmark.world import Golden, Grade, World, golden, grade, open_world, replay

__all__ = [
    "BenchmarkError",
    "DatasetError",
    "Domain",
    "Golden",
    "GoldenCall",
    "GoldenReplayError",
    "Grade",
    "Provenance",
    "Scenario",
    "TableDef",
    "Task",
    "TaskSet",
    "Trajectory",
    "TrajectoryCall",
    "TrajectoryError",
    "World",
    "WorldError",
    "domain_names",
    "get_domain",
    "golden",
    "grade",
    "load_scenario",
    "load_task",
    "load_tasks",
    "open_world",
    "read_trajectories",
    "replay",
]
