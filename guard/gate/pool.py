"""The judges' thread pool: a hung judge is isolated, bounded and reported (Requirement G22).

Python cannot stop a thread, so a synchronous judge that outlives its
timeout keeps its thread until it returns. In a plain executor each such
judge holds one of the few workers, and after a handful of hangs every later
commit of every agent waits behind them. This pool owns that problem:

* **Isolate.** The pool keeps ``workers`` *healthy* threads, started with
  it. When the gate gives up on an evaluation that is running,
  :meth:`JudgePool.write_off` moves its thread to the *hung* set and starts
  a replacement at once, so healthy judges keep their ``workers`` threads.
  A written-off thread whose judge finally returns rejoins the healthy set
  if it is short, and ends otherwise. An evaluation given up while still
  queued is dropped: it never runs and holds nothing.
* **Bound, per agent.** Every evaluation is submitted for a *principal*,
  the agent whose commit it judges, so that one agent's hangs are held
  against that agent only. A judge with ``max_hung_per_judge`` hung
  evaluations for one agent is *quarantined for that agent*: it is turned
  away at once for that agent's commits, without a thread, with a
  :class:`Refusal` naming the judge, the agent and how long the oldest has
  hung, and still runs for every other agent; the quarantine lifts by itself
  when one of them ends. An agent with ``max_hung_per_agent`` hung
  evaluations (of any judges) is *held back*: every judge is turned away for
  its commits until one ends, so one agent cannot use up the hung-thread
  budget (the bound is kept below ``max_hung``). At most ``workers +
  max_hung`` threads ever exist; with ``max_hung`` threads hung (by several
  agents) the pool is *exhausted*: every synchronous evaluation is turned
  away until one ends. Async judges hold no thread; one that ignored its
  cancellation is recorded with :meth:`JudgePool.track_task` and counts
  toward its judge's quarantine and its agent's bound, not toward the
  thread bound.
* **Report.** One ERROR line per hang (judge, agent, transaction, how long
  it had run), one when a judge is quarantined for an agent, an agent held
  back or the pool exhausted, a WARNING when a hung evaluation ends or one of
  those lifts; :meth:`JudgePool.status` and :meth:`JudgePool.hung` are
  read-only snapshots for health and admin endpoints.

One lock guards all state. A healthy evaluation costs one lock round on
submission and two on its thread, no more than
:class:`concurrent.futures.ThreadPoolExecutor`. Threads are daemons: a hung
judge never keeps the process from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import logging
import queue
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from guard.clock import Clock, SystemClock

__all__ = ["HangKind", "HungEvaluation", "Job", "JudgePool", "PoolStatus", "Refusal"]

log = logging.getLogger(__name__)

_pools = itertools.count(1)


class HangKind(enum.StrEnum):
    """What a hung evaluation holds."""

    THREAD = "thread"
    """A synchronous judge still running on a written-off thread."""
    TASK = "task"
    """An async judge that ignored its cancellation, still running on the event loop."""


@dataclass(frozen=True, slots=True)
class HungEvaluation:
    """One evaluation the gate gave up on that has not ended yet, as of the snapshot."""

    judge: str
    principal: str
    transaction_id: str
    kind: HangKind
    started_at: datetime
    age_s: float


@dataclass(frozen=True, slots=True)
class PoolStatus:
    """A read-only snapshot of the pool: its threads, and the evaluations that hang, oldest first.

    ``quarantined`` holds the (judge, principal) pairs turned away, sorted;
    ``held_back`` the principals turned away for every judge; ``exhausted``
    says that every synchronous judge is turned away for every principal.
    """

    workers: int
    threads: int
    max_threads: int
    hung: tuple[HungEvaluation, ...]
    quarantined: tuple[tuple[str, str], ...]
    held_back: tuple[str, ...]
    exhausted: bool


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an evaluation was turned away without running: status text and its evidence."""

    message: str
    evidence: Mapping[str, Any] = field(default_factory=dict)


class _State(enum.Enum):
    QUEUED = enum.auto()
    RUNNING = enum.auto()
    DONE = enum.auto()
    DROPPED = enum.auto()
    WRITTEN_OFF = enum.auto()


@dataclass(eq=False, slots=True)
class _Hang:
    judge: str
    principal: str
    transaction_id: str
    kind: HangKind
    started: float


@dataclass(eq=False, slots=True)
class Job:
    """One submitted evaluation; await :attr:`future` for what ``call(argument)`` returned or raised."""

    judge: str
    principal: str
    transaction_id: str
    call: Callable[[Any], object]
    argument: Any
    future: asyncio.Future[object]
    state: _State = _State.QUEUED
    started: float = 0.0
    hang: _Hang | None = None


def _settle(future: asyncio.Future[object], result: object, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class JudgePool:
    """``workers`` healthy threads for synchronous judges, plus at most ``max_hung`` written-off ones.

    ``max_hung_per_judge`` hung evaluations of one judge for one principal
    quarantine that judge for that principal; ``max_hung_per_agent`` hung
    evaluations for one principal hold it back, and take effect at most
    ``max_hung - 1`` so that one principal never exhausts the pool alone
    (``max_hung: 1`` leaves no room for that: one hang exhausts it).
    """

    def __init__(
        self,
        *,
        workers: int = 4,
        max_hung: int = 16,
        max_hung_per_judge: int = 2,
        max_hung_per_agent: int = 4,
        clock: Clock | None = None,
    ) -> None:
        if min(workers, max_hung, max_hung_per_judge, max_hung_per_agent) < 1:
            raise ValueError(
                "workers, max_hung, max_hung_per_judge and max_hung_per_agent must each be at least 1"
            )
        self.workers = workers
        self.max_hung = max_hung
        self.max_hung_per_judge = max_hung_per_judge
        self.max_hung_per_agent = max(1, min(max_hung_per_agent, max_hung - 1))
        self._clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._threads: set[threading.Thread] = set()
        self._healthy = workers
        self._hung_threads = 0
        self._hangs: dict[tuple[str, str], list[_Hang]] = {}
        self._by_agent: dict[str, int] = {}
        self._closed = False
        self._name = f"guard-judge-{next(_pools)}"
        self._spawned = itertools.count(1)
        for _ in range(workers):
            self._spawn()

    def submit(
        self,
        judge: str,
        transaction_id: str,
        call: Callable[[Any], object],
        argument: Any,
        *,
        principal: str = "",
    ) -> Job | Refusal:
        """Queue ``call(argument)`` for a healthy thread, or say why ``judge`` may not run for ``principal``.

        Call it on the event loop that will await the job's :attr:`Job.future`.
        """
        future = asyncio.get_running_loop().create_future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the judge pool is closed")
            refusal = self._refusal(judge, principal, thread=True)
        if refusal is not None:
            return refusal
        job = Job(judge, principal, transaction_id, call, argument, future)
        self._queue.put(job)
        return job

    def refusal(self, judge: str, principal: str = "", *, thread: bool) -> Refusal | None:
        """Why ``judge`` may not run now for ``principal``, or None.

        Quarantined for that principal, the principal held back, or, for a
        ``thread``, the pool exhausted.
        """
        with self._lock:
            return self._refusal(judge, principal, thread=thread)

    def write_off(self, job: Job) -> None:
        """The gate gave up on ``job``: drop it if queued; if running, its thread is hung and replaced."""
        with self._lock:
            if job.state is _State.QUEUED:
                job.state = _State.DROPPED
                return
            if job.state is not _State.RUNNING:
                return
            job.state = _State.WRITTEN_OFF
            self._healthy -= 1
            self._hung_threads += 1
            job.hang = _Hang(job.judge, job.principal, job.transaction_id, HangKind.THREAD, job.started)
            self._add_hang(job.hang)
            age, hung = self._clock.monotonic() - job.started, self._hung_threads
            replace = not self._closed and self._healthy + hung < self.workers + self.max_hung
            if replace:
                self._healthy += 1
        log.error(
            "judge %s hung: its evaluation for agent %r, transaction %s, still runs after %.2fs; "
            "its thread is written off (%d of at most %d hung)",
            job.judge,
            job.principal,
            job.transaction_id,
            age,
            hung,
            self.max_hung,
        )
        if replace:
            self._spawn()

    def cancel(self, job: Job) -> None:
        """The caller stopped waiting for ``job``: drop it if still queued; a running one finishes unseen."""
        with self._lock:
            if job.state is _State.QUEUED:
                job.state = _State.DROPPED

    def track_task(self, judge: str, transaction_id: str, started: float, *, principal: str = "") -> object:
        """Record an async evaluation that ignored its cancellation; hand the token to :meth:`end_task`.

        ``started`` is when it began, on the pool's clock's ``monotonic()``.
        """
        hang = _Hang(judge, principal, transaction_id, HangKind.TASK, started)
        with self._lock:
            self._add_hang(hang)
            age = self._clock.monotonic() - started
        log.error(
            "judge %s hung: its evaluation for agent %r, transaction %s, ignored its cancellation and "
            "still runs after %.2fs",
            judge,
            principal,
            transaction_id,
            age,
        )
        return hang

    def end_task(self, token: object) -> None:
        """The async evaluation that :meth:`track_task` recorded has ended."""
        if isinstance(token, _Hang):
            with self._lock:
                self._remove_hang(token)

    def hung(self) -> tuple[HungEvaluation, ...]:
        """The evaluations that hang now, oldest first."""
        return self.status().hung

    def status(self) -> PoolStatus:
        """Threads, hung evaluations (oldest first), who is turned away and whether the pool is exhausted."""
        with self._lock:
            now, wall = self._clock.monotonic(), self._clock.now()
            hangs = sorted((h for hs in self._hangs.values() for h in hs), key=lambda h: h.started)
            return PoolStatus(
                workers=self.workers,
                threads=len(self._threads),
                max_threads=self.workers + self.max_hung,
                hung=tuple(
                    HungEvaluation(
                        h.judge,
                        h.principal,
                        h.transaction_id,
                        h.kind,
                        wall - timedelta(seconds=now - h.started),
                        now - h.started,
                    )
                    for h in hangs
                ),
                quarantined=tuple(
                    sorted(key for key, hs in self._hangs.items() if len(hs) >= self.max_hung_per_judge)
                ),
                held_back=tuple(sorted(p for p, n in self._by_agent.items() if n >= self.max_hung_per_agent)),
                exhausted=self._hung_threads >= self.max_hung,
            )

    def close(self) -> None:
        """Drop queued evaluations (their futures are cancelled) and let idle threads end; do not wait."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            stops = self._healthy
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if job is not None and self._drop(job):
                _on_loop(job.future, job.future.cancel)
        for _ in range(stops):
            self._queue.put(None)

    def _serve(self) -> None:
        """A thread's loop: run queued jobs until told to stop or written off and not needed."""
        while True:
            job = self._queue.get()
            if job is None:
                break
            with self._lock:
                if job.state is not _State.QUEUED:
                    continue
                job.state = _State.RUNNING
                job.started = self._clock.monotonic()
            result: object = None
            error: BaseException | None = None
            try:
                result = job.call(job.argument)
            except BaseException as exc:  # handed to the awaiting coroutine, as an executor does
                error = exc
            if not self._finished(job):
                return
            _on_loop(job.future, _settle, job.future, result, error)
            del job, result, error
        with self._lock:
            self._healthy -= 1
            self._threads.discard(threading.current_thread())

    def _finished(self, job: Job) -> bool:
        """Mark ``job`` done; False when its thread was written off and is not needed any more."""
        with self._lock:
            if job.state is _State.RUNNING:
                job.state = _State.DONE
                return True
            job.state = _State.DONE
            self._hung_threads -= 1
            if job.hang is not None:
                self._remove_hang(job.hang)
            if not self._closed and self._healthy < self.workers:
                self._healthy += 1
                return True
            self._threads.discard(threading.current_thread())
            return False

    def _spawn(self) -> None:
        thread = threading.Thread(target=self._serve, name=f"{self._name}-{next(self._spawned)}", daemon=True)
        with self._lock:
            self._threads.add(thread)
        thread.start()

    def _drop(self, job: Job) -> bool:
        with self._lock:
            if job.state is not _State.QUEUED:
                return False
            job.state = _State.DROPPED
            return True

    def _refusal(self, judge: str, principal: str, *, thread: bool) -> Refusal | None:
        mine = self._hangs.get((judge, principal))
        if mine and len(mine) >= self.max_hung_per_judge:
            oldest = self._clock.monotonic() - min(h.started for h in mine)
            return Refusal(
                f"judge {judge} is quarantined for agent {principal!r}: {len(mine)} of its evaluations "
                f"for that agent's commits are hung, the oldest for {oldest:.1f}s; it runs again for that "
                "agent when one of them ends",
                {"hung": len(mine), "oldest_s": round(oldest, 3), "agent": principal},
            )
        held = self._by_agent.get(principal, 0)
        if held >= self.max_hung_per_agent:
            return Refusal(
                f"judge {judge} was not run: agent {principal!r} has {held} hung judge evaluations "
                f"(at most {self.max_hung_per_agent}); its commits are judged again when one of them ends",
                {"hung": held, "agent": principal, "judges": self._agent_hangs(principal)},
            )
        if thread and self._hung_threads >= self.max_hung:
            counts = self._thread_hangs()
            named = ", ".join(f"{name} ({count})" for name, count in counts.items())
            return Refusal(
                f"judge {judge} was not run: the judge pool is exhausted by {self._hung_threads} hung "
                f"evaluations ({named})",
                {"hung": self._hung_threads, "judges": counts},
            )
        return None

    def _thread_hangs(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for (name, _), hangs in sorted(self._hangs.items()):
            threads = sum(h.kind is HangKind.THREAD for h in hangs)
            if threads:
                counts[name] = counts.get(name, 0) + threads
        return counts

    def _agent_hangs(self, principal: str) -> dict[str, int]:
        return {name: len(hangs) for (name, who), hangs in sorted(self._hangs.items()) if who == principal}

    def _add_hang(self, hang: _Hang) -> None:
        mine = self._hangs.setdefault((hang.judge, hang.principal), [])
        mine.append(hang)
        held = self._by_agent[hang.principal] = self._by_agent.get(hang.principal, 0) + 1
        if len(mine) == self.max_hung_per_judge:
            log.error(
                "judge %s is quarantined for agent %r: %d of its evaluations for that agent are hung; it "
                "blocks that agent's commits at once until one ends",
                hang.judge,
                hang.principal,
                len(mine),
            )
        if held == self.max_hung_per_agent:
            log.error(
                "agent %r is held back: %d judge evaluations of its commits are hung; every judge blocks its "
                "commits at once until one ends",
                hang.principal,
                held,
            )
        if hang.kind is HangKind.THREAD and self._hung_threads == self.max_hung:
            log.error(
                "the judge pool is exhausted: %d evaluations are hung; every synchronous judge blocks "
                "until one ends",
                self._hung_threads,
            )

    def _remove_hang(self, hang: _Hang) -> None:
        key = (hang.judge, hang.principal)
        mine = self._hangs.get(key, [])
        if hang not in mine:
            return
        mine.remove(hang)
        held = self._by_agent[hang.principal] = self._by_agent[hang.principal] - 1
        age = self._clock.monotonic() - hang.started
        log.warning(
            "judge %s: a hung evaluation for agent %r, transaction %s, ended after %.2fs",
            hang.judge,
            hang.principal,
            hang.transaction_id,
            age,
        )
        if len(mine) == self.max_hung_per_judge - 1:
            log.warning("judge %s is no longer quarantined for agent %r", hang.judge, hang.principal)
        if held == self.max_hung_per_agent - 1:
            log.warning("agent %r is no longer held back", hang.principal)
        if not mine:
            del self._hangs[key]
        if not held:
            del self._by_agent[hang.principal]
        if hang.kind is HangKind.THREAD and self._hung_threads == self.max_hung - 1:
            log.warning("the judge pool is no longer exhausted")


def _on_loop(future: asyncio.Future[object], callback: Callable[..., object], *args: object) -> None:
    """Run ``callback(*args)`` on ``future``'s loop, from any thread; a closed loop has nobody waiting."""
    with contextlib.suppress(RuntimeError):
        future.get_loop().call_soon_threadsafe(callback, *args)
