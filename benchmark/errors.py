"""The benchmark package's errors.

:class:`BenchmarkError` is the root. :class:`DatasetError` names the file (and
the task, when there is one) that could not be read; :class:`WorldError` is a
state that could not be built, replayed or dumped. The CLI turns either into
one clear line.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BenchmarkError", "DatasetError", "GoldenReplayError", "TrajectoryError", "WorldError"]


class BenchmarkError(Exception):
    """A failure of the benchmark harness (never of an agent under test)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DatasetError(BenchmarkError):
    """A benchmark data file is missing or malformed."""

    def __init__(self, message: str, *, file: Path | str | None = None, task: str | None = None) -> None:
        where = []
        if file is not None:
            where.append(str(file))
        if task is not None:
            where.append(f"task {task}")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)
        self.reason = message
        self.file = None if file is None else str(file)
        self.task = task


class TrajectoryError(BenchmarkError):
    """A trajectory file line that does not fit the format."""

    def __init__(self, message: str, *, file: Path | str, line: int | None = None) -> None:
        where = f"{file}:{line}" if line is not None else str(file)
        super().__init__(f"{where}: {message}")
        self.reason = message
        self.file = str(file)
        self.line = line


class WorldError(BenchmarkError):
    """A task's database could not be built or read."""

    def __init__(self, message: str, *, task: str | None = None) -> None:
        super().__init__(f"task {task}: {message}" if task else message)
        self.task = task


class GoldenReplayError(WorldError):
    """A golden tool call failed; the golden state would be wrong, so none is produced."""

    def __init__(self, message: str, *, task: str, call_index: int, tool: str) -> None:
        super().__init__(f"golden call {call_index} ({tool}) failed: {message}", task=task)
        self.call_index = call_index
        self.tool = tool
