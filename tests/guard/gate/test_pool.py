"""The judge pool: one agent's hung evaluations are held against that agent, not against the others.

Requirement G22, driven without timeouts: an evaluation is made to hang by a ``threading.Event`` and
written off as the gate would; ages come from a :class:`FixedClock`.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from guard.clock import FixedClock
from guard.gate.pool import HangKind, Job, JudgePool, Refusal
from tests.guard.conftest import until


class Blocking:
    """A judge's call that runs until :attr:`release` is set; :attr:`started` says it began."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, argument: object) -> object:
        self.started.set()
        self.release.wait(30)
        return argument


async def hang(pool: JudgePool, judge: str, principal: str, transaction_id: str) -> Blocking:
    """Run ``judge`` for ``principal`` until it is running, then write it off: it hangs until released."""
    call = Blocking()
    job = pool.submit(judge, transaction_id, call, None, principal=principal)
    assert isinstance(job, Job)
    assert await asyncio.to_thread(call.started.wait, 10)
    pool.write_off(job)
    return call


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


async def test_a_quarantine_holds_one_judge_for_one_agent(clock: FixedClock) -> None:
    """Requirement G22: two hangs of a judge for one agent quarantine it for that agent only: the same
    judge still runs for another agent, and another judge still runs for the first; the refusal says
    whose quarantine it is and how long the oldest has hung; it lifts when one ends."""
    pool = JudgePool(workers=2, max_hung=8, max_hung_per_judge=2, clock=clock)
    calls = [await hang(pool, "policy", "mallory", f"m{n}") for n in range(2)]
    clock.advance(5)
    try:
        refused = pool.refusal("policy", "mallory", thread=True)
        assert isinstance(refused, Refusal)
        assert refused.message == (
            "judge policy is quarantined for agent 'mallory': 2 of its evaluations for that agent's commits "
            "are hung, the oldest for 5.0s; it runs again for that agent when one of them ends"
        )
        assert dict(refused.evidence) == {"hung": 2, "oldest_s": 5.0, "agent": "mallory"}
        assert pool.refusal("policy", "alice", thread=True) is None
        assert pool.refusal("other", "mallory", thread=True) is None
        status = pool.status()
        assert status.quarantined == (("policy", "mallory"),)
        assert (status.held_back, status.exhausted) == ((), False)
        assert [(h.judge, h.principal, h.transaction_id, h.kind, h.age_s) for h in status.hung] == [
            ("policy", "mallory", "m0", HangKind.THREAD, 5.0),
            ("policy", "mallory", "m1", HangKind.THREAD, 5.0),
        ]
    finally:
        calls[0].release.set()
    await until(lambda: len(pool.hung()) == 1)
    assert pool.refusal("policy", "mallory", thread=True) is None
    assert pool.status().quarantined == ()
    calls[1].release.set()
    await until(lambda: not pool.hung())
    pool.close()


async def test_one_agent_is_held_back_before_it_can_exhaust_the_pool(clock: FixedClock) -> None:
    """Requirement G22: an agent's hangs stop at ``max_hung_per_agent``, kept below ``max_hung``: that
    agent is then turned away for every judge, async ones included, while the pool still has hung
    threads to give the others; only several agents together exhaust it."""
    pool = JudgePool(workers=1, max_hung=3, max_hung_per_judge=5, max_hung_per_agent=10, clock=clock)
    assert pool.max_hung_per_agent == 2
    calls = [await hang(pool, f"j{n}", "mallory", f"m{n}") for n in range(2)]
    try:
        held = pool.refusal("j9", "mallory", thread=False)
        assert isinstance(held, Refusal)
        assert held.message.startswith("judge j9 was not run: agent 'mallory' has 2 hung judge evaluations")
        assert dict(held.evidence) == {"hung": 2, "agent": "mallory", "judges": {"j0": 1, "j1": 1}}
        assert pool.refusal("j0", "alice", thread=True) is None
        status = pool.status()
        assert (status.held_back, status.exhausted) == (("mallory",), False)
        calls.append(await hang(pool, "j0", "alice", "a0"))
        exhausted = pool.refusal("j0", "bob", thread=True)
        assert isinstance(exhausted, Refusal)
        assert "the judge pool is exhausted by 3 hung evaluations (j0 (2), j1 (1))" in exhausted.message
        assert pool.refusal("j0", "bob", thread=False) is None
        assert pool.status().exhausted
    finally:
        for call in calls:
            call.release.set()
    await until(lambda: not pool.hung())
    status = pool.status()
    assert (status.held_back, status.exhausted, status.threads) == ((), False, 1)
    pool.close()


def test_the_bounds_must_each_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="max_hung_per_agent"):
        JudgePool(max_hung_per_agent=0)
