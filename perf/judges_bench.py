"""Micro-benchmark of the commit gate's judges: rule evaluation and gate time against state size.

Run: ``.venv/bin/python perf/judges_bench.py [--quick]``

Workload: one rule pack of 50 rules, all on ``tickets`` so that every rule
applies to every effect (the worst case for a pack); 20 rules read only the
effect, 30 read one of three lookups (the ticket's order, the order's
shipments, the ticket's customer). Effects are ticket updates (10, 100 and
1,000 of them) whose lookups hit rows present in both states (orders,
shipments and customers 0-199, so the same queries return the same rows),
against a state of four tables holding 1,000 or 1,000,000 rows in all, in
:class:`judges.MemoryState` (indexes built before timing, as a database has
them).

Printed per case: the median over repeats of
* ``eval``: the rule pack's verdict over an already fetched snapshot, and
  that divided by the number of rule evaluations (effects x 50);
* ``gate``: the whole commit gate as the guard runs it — the chain's queries,
  one fetch from the state reader, the chain's verdict — with a fresh effects
  tuple each time, so nothing is carried over between commits.
Then the ratio of the 1M-row to the 1k-row gate time for each effect count.
Goals: gate <= 1 ms for 10 effects x 50 rules; ratio <= 1.2.

Then the same workload with two more rules, on the fetch rounds: one reads a
chained lookup (the ticket's order, then the customer who referred that
order, keyed by the order row: a second round) and one a lookup keyed by a field that is
null in every effect (the ticket's parent, answered empty without a read).
Printed per case: the rounds, the queries read and skipped, and ``eval`` and
``gate`` as above.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judges import (
    CommitContext,
    Effect,
    EffectKind,
    JudgeChain,
    MemoryState,
    RulePack,
    StateSnapshot,
    gather_memory,
    parse_rule_pack,
)

RULES = 50
REFERENCED = 200
STATUSES = ("new", "open", "pending", "hold", "solved")


def _rule(index: int) -> str:
    kind = index % 5
    rid = f"r{index:02d}"
    if kind in (0, 1):
        conditions = [
            f"effect.after.priority != 'p{index}'",
            f"effect.after.amount <= {1000 + index}.0",
            f"!(effect.after.status == 'solved' && effect.after.assignee == 'nobody{index}')",
            f"effect.after.channel in ['email', 'phone', 'chat', 'web{index}']",
        ]
        require = conditions[index % len(conditions)]
    elif kind == 2:
        require = f"order == null || order.total >= 0.0 || order.state == 'x{index}'"
    elif kind == 3:
        require = (
            f"effect.after.status != 'solved' || shipments.all(s, s.carrier_status != 'exception{index}')"
        )
    else:
        require = (
            f"customer == null || customer.tier != 'banned{index}'"
            if index % 2
            else f"order == null || order.customer_id == effect.after.customer_id || '{index}' == ''"
        )
    return (
        f"  - id: {rid}\n"
        f"    when: {{table: tickets, kind: [update]}}\n"
        f'    require: "{require}"\n'
        f"    decision: block\n"
        f'    message: "ticket {{{{effect.key}}}}: rule {rid} fired'
        f" at status '{{{{effect.after.status}}}}'\"\n"
    )


PACK = (
    "name: bench\n"
    "lookups:\n"
    '  order: {table: orders, where: {id: "effect.after.order_id"}, one: true}\n'
    '  shipments: {table: shipments, where: {order_id: "effect.after.order_id"}}\n'
    '  customer: {table: customers, where: {id: "effect.after.customer_id"}, one: true}\n'
    "rules:\n" + "".join(_rule(i) for i in range(RULES))
)

ROUNDS_PACK = (
    PACK.replace(
        "rules:\n",
        '  referrer: {table: customers, where: {id: "order.referred_by"}, one: true}\n'
        '  parent: {table: tickets, where: {id: "effect.after.parent_id"}, one: true}\n'
        "rules:\n",
        1,
    )
    + "  - id: chained\n"
    "    when: {table: tickets, kind: [update]}\n"
    "    require: \"referrer == null || referrer.tier != 'banned'\"\n"
    "    decision: block\n"
    '    message: "ticket {{effect.key}}: the customer who referred its order is banned"\n'
    "  - id: null-key\n"
    "    when: {table: tickets, kind: [update]}\n"
    "    require: \"parent == null || parent.status != 'closed'\"\n"
    "    decision: block\n"
    '    message: "ticket {{effect.key}}: its parent is closed"\n'
)


def build_state(rows: int) -> dict[str, list[dict[str, Any]]]:
    per_table = rows // 4
    tickets = [
        {
            "id": f"T{i}",
            "status": STATUSES[i % 5],
            "order_id": f"O{i}",
            "customer_id": f"C{i}",
            "priority": "normal",
            "amount": float(i % 700),
            "channel": "email",
            "assignee": "agent",
            "subject": "help with my order",
            "description": "free text that no rule reads",
            "created_at": "2025-10-01T13:00:05Z",
            "tags": ["order", "retail"],
        }
        for i in range(per_table)
    ]
    orders = [
        {
            "id": f"O{i}",
            "customer_id": f"C{i}",
            "referred_by": f"C{(i + 7) % per_table}",
            "total": 99.5,
            "state": "placed",
            "currency": "USD",
        }
        for i in range(per_table)
    ]
    shipments = [
        {"id": f"S{i}", "order_id": f"O{i}", "carrier_status": "in_transit", "carrier": "UPS"}
        for i in range(per_table)
    ]
    customers = [{"id": f"C{i}", "tier": "gold", "name": "Customer"} for i in range(per_table)]
    return {"tickets": tickets, "orders": orders, "shipments": shipments, "customers": customers}


def build_effects(count: int) -> list[Effect]:
    """Ticket updates; each looks up an order, its shipment and a customer among the first ``REFERENCED``."""
    effects = []
    for n in range(count):
        ref = n % REFERENCED
        before: dict[str, Any] = {
            "id": f"T{n}",
            "status": "open",
            "order_id": f"O{ref}",
            "customer_id": f"C{ref}",
            "priority": "normal",
            "amount": float(n % 700),
            "channel": "email",
            "assignee": "agent",
            "subject": "help with my order",
            "description": "free text that no rule reads",
            "created_at": "2025-10-01T13:00:05Z",
            "tags": ["order", "retail"],
            "parent_id": None,
        }
        after = dict(before, status="solved", amount=before["amount"] + 1)
        effects.append(
            Effect("tickets", (before["id"],), EffectKind.UPDATE, before, after, ("amount", "status"))
        )
    return effects


def eval_us(pack: RulePack, effects: list[Effect], snapshot: StateSnapshot, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        context = CommitContext("bench", tuple([*effects]), state=snapshot)
        start = time.perf_counter()
        pack(context)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


async def gate_us(chain: JudgeChain, reader: MemoryState, effects: list[Effect], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        fresh = tuple([*effects])
        start = time.perf_counter()
        await chain.run(reader, fresh, transaction_id="bench")
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100k rows instead of 1M and fewer repeats")
    args = parser.parse_args()
    big = 100_000 if args.quick else 1_000_000
    pack = parse_rule_pack(PACK, "bench.yaml")
    assert isinstance(pack, RulePack)
    assert len(pack.rules) == RULES
    chain = JudgeChain([pack])
    gate: dict[tuple[int, int], float] = {}
    print(f"{'state rows':>10} {'effects':>8} {'evals':>7} {'eval ms':>9} {'us/eval':>8} {'gate ms':>9}")
    for rows in (1_000, big):
        state = build_state(rows)
        reader = MemoryState(state)
        for count in (10, 100, 1_000):
            effects = build_effects(count)
            queries = pack.queries(tuple(effects))
            snapshot = reader.snapshot(queries)
            repeats = max(5, (200 if not args.quick else 50) // max(1, count // 10))
            context = CommitContext("bench", tuple(effects), state=snapshot)
            verdict = pack(context)
            assert verdict.decision.value == "allow", verdict.findings[:2]
            gc.collect()
            gc.disable()
            try:
                evaluate = eval_us(pack, effects, snapshot, repeats)
                gate[(rows, count)] = asyncio.run(gate_us(chain, reader, effects, repeats))
            finally:
                gc.enable()
            evals = count * RULES
            print(
                f"{rows:>10,} {count:>8,} {evals:>7,} {evaluate / 1000:>9.3f} {evaluate / evals:>8.2f}"
                f" {gate[(rows, count)] / 1000:>9.3f}"
            )
        del state, reader
        gc.collect()
    for count in (10, 100, 1_000):
        ratio = gate[(big, count)] / gate[(1_000, count)]
        print(f"gate {big:,}-row / 1,000-row, {count:,} effects: {ratio:.2f}")
    ok_latency = gate[(1_000, 10)] <= 1000 and gate[(big, 10)] <= 1000
    ok_ratio = all(gate[(big, c)] / gate[(1_000, c)] <= 1.2 for c in (10, 100, 1_000))
    print(f"goal 10 effects x 50 rules <= 1 ms: {'met' if ok_latency else 'MISSED'}")
    print(f"goal 1M/1k ratio <= 1.2: {'met' if ok_ratio else 'MISSED'}")
    rounds(big, args.quick)


def rounds(big: int, quick: bool) -> None:
    """The pack plus a chained-lookup rule and a null-key rule: rounds, reads and time."""
    pack = parse_rule_pack(ROUNDS_PACK, "bench-rounds.yaml")
    assert isinstance(pack, RulePack)
    chain = JudgeChain([pack])
    print(f"\nwith a chained lookup and a null-key lookup ({len(pack.rules)} rules)")
    print(
        f"{'state rows':>10} {'effects':>8} {'rounds':>6} {'read':>5} {'skipped':>7}"
        f" {'eval ms':>9} {'gate ms':>9}"
    )
    for rows in (1_000, big):
        reader = MemoryState(build_state(rows))
        for count in (10, 100, 1_000):
            effects = build_effects(count)
            gathered = gather_memory([pack], tuple(effects), reader)
            context = CommitContext("bench", tuple(effects), state=gathered.snapshot)
            verdict = pack(context)
            assert verdict.decision.value == "allow", verdict.findings[:2]
            repeats = max(5, (200 if not quick else 50) // max(1, count // 10))
            gc.collect()
            gc.disable()
            try:
                evaluate = eval_us(pack, effects, gathered.snapshot, repeats)
                whole = asyncio.run(gate_us(chain, reader, effects, repeats))
            finally:
                gc.enable()
            print(
                f"{rows:>10,} {count:>8,} {gathered.rounds:>6} {gathered.fetched:>5} {gathered.skipped:>7}"
                f" {evaluate / 1000:>9.3f} {whole / 1000:>9.3f}"
            )
        del reader
        gc.collect()


if __name__ == "__main__":
    main()
