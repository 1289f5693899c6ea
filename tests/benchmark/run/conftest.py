"""Fixtures of the runner's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchmark.domains import get_domain
from benchmark.run.setup import guard_settings
from guard.gate.commit import CommitGate
from guard.runtime import configured_judges
from tests.benchmark.conftest import RETAIL


@pytest.fixture(scope="module")
def gate() -> Iterator[CommitGate]:
    settings = guard_settings(None)
    gate = CommitGate(
        configured_judges(settings, get_domain(RETAIL).judges),
        judge_timeout_s=settings.commit.judge_timeout_s,
    )
    yield gate
    gate.close()
