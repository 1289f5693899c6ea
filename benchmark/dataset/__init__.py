"""The ThinkingBox-Bench data: tasks, scenarios, provenance and given trajectories."""

from benchmark.dataset.loader import (
    CANONICAL_TEST_LIST,
    KNOWN_TAG,
    load_scenario,
    load_task,
    load_tasks,
    parse_task_file,
    provenance,
    read_test_list,
    task_set_hash,
)
from benchmark.dataset.model import GoldenCall, PolicySource, Provenance, Rubric, Scenario, Task, TaskSet
from benchmark.dataset.trajectories import (
    Trajectory,
    TrajectoryCall,
    iter_trajectories,
    parse_trajectory_line,
    read_trajectories,
)

__all__ = [
    "CANONICAL_TEST_LIST",
    "KNOWN_TAG",
    "GoldenCall",
    "PolicySource",
    "Provenance",
    "Rubric",
    "Scenario",
    "Task",
    "TaskSet",
    "Trajectory",
    "TrajectoryCall",
    "iter_trajectories",
    "load_scenario",
    "load_task",
    "load_tasks",
    "parse_task_file",
    "parse_trajectory_line",
    "provenance",
    "read_test_list",
    "read_trajectories",
    "task_set_hash",
]
