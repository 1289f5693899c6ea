"""Task worlds: building a task's initial state, replaying calls, golden states and grading."""

from benchmark.world.build import State, World, dump_state, open_world
from benchmark.world.golden import Golden, Grade, clear_golden_cache, golden, grade, outputs_said, replay
from benchmark.world.seed import patch_rows, seed_dir, seed_rows

__all__ = [
    "Golden",
    "Grade",
    "State",
    "World",
    "clear_golden_cache",
    "dump_state",
    "golden",
    "grade",
    "open_world",
    "outputs_said",
    "patch_rows",
    "replay",
    "seed_dir",
    "seed_rows",
]
