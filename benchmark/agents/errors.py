"""The errors agents raise when the harness, not the agent under test, failed.

A model endpoint that cannot be reached, refuses the request or answers
nonsense is a system error of the trial (counted apart and rerun), never a
failure of the agent: :class:`ModelCallError` says which model (the agent's
or the user simulator's), the HTTP status when there was one, and the
error's class (``rate_limited``, ``transient``, ``invalid_arguments``, ...).
A user simulator that gave no usable reply is a :class:`UserSimulatorError`.
A fault-rate list that does not parse is a :class:`FaultRatesError`, which
is also a ``ValueError``.
"""

from __future__ import annotations

from typing import Literal

from benchmark.errors import BenchmarkError

__all__ = ["AgentError", "FaultRatesError", "ModelCallError", "Role", "UserSimulatorError"]

Role = Literal["agent", "user"]


class AgentError(BenchmarkError):
    """A failure on the agent side of a trial that is not the agent's own decision."""


class ModelCallError(AgentError):
    """A chat-completions call failed; ``role`` says whose model it was."""

    def __init__(
        self,
        message: str,
        *,
        role: Role,
        task: str | None = None,
        status_code: int | None = None,
        error_class: str | None = None,
    ) -> None:
        where = f"task {task}: " if task else ""
        super().__init__(f"{where}the {role} model failed: {message}")
        self.role = role
        self.task = task
        self.status_code = status_code
        self.error_class = error_class


class UserSimulatorError(AgentError):
    """The user simulator answered, but with nothing the conversation can go on with."""

    def __init__(self, message: str, *, task: str | None = None) -> None:
        super().__init__(f"task {task}: {message}" if task else message)
        self.task = task


class FaultRatesError(BenchmarkError, ValueError):
    """The simulated agent's fault rates are malformed (an unknown class, a rate outside 0..1)."""
