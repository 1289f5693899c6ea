"""The demo shop's tools plus one flaky write, as a ``sql`` backend module for the agents' tests.

``escalate_ticket`` refuses once for every ticket id put in :data:`REFUSE_ONCE`
(a precondition failure, which the guard does not retry), then works. The
module also exports :class:`ReviewJudge`, a judge that blocks every commit
with a finding that names nothing in particular.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select, update

from guard.demo import backend as demo
from guard.errors import PreconditionFailed
from guard.tools import ToolContext, ToolRegistry
from judges import CommitContext, Effect, Finding, Query, Severity, Verdict

metadata = demo.metadata
prepare = demo.prepare
judges = demo.judges
tools = ToolRegistry("agents-shop")
tools.extend(demo.tools)

REFUSE_ONCE: set[int] = set()


@tools.tool(write=True, idempotent=True)
async def escalate_ticket(ctx: ToolContext, ticket_id: int) -> demo.Ticket:
    """Hand a ticket to the second line: its status becomes pending."""
    if ticket_id in REFUSE_ONCE:
        REFUSE_ONCE.discard(ticket_id)
        raise PreconditionFailed(f"ticket {ticket_id} is being edited by a colleague")
    await ctx.conn.execute(
        update(demo.tickets).where(demo.tickets.c.id == ticket_id).values(status="pending")
    )
    row = (await ctx.conn.execute(select(demo.tickets).where(demo.tickets.c.id == ticket_id))).one()
    return demo.Ticket.model_validate(dict(row._mapping))


@dataclass(frozen=True)
class ReviewJudge:
    """Blocks every commit: a second pair of eyes is required."""

    name: str = "review"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.of([Finding(self.name, Severity.BLOCK, "a second reviewer must approve this work")])
